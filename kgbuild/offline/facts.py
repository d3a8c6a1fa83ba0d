"""What the offline rules find before any of it is kept: entity mentions and relation candidates.

Every rule records what it saw in one scene, tagged with the rule's name. Deciding what goes
into the graph happens afterwards, over the whole screenplay (see `kgbuild.offline.selection`):
a relation seen in several scenes is more trustworthy than one seen once, and some rules are
only trustworthy in that case.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgbuild.model import Persistence, Scope

Ref = tuple[str, str]  # (entity type, name)


@dataclass(frozen=True)
class Mention:
    """An entity grounded in one scene by one rule."""

    ref: Ref
    scene: int
    rule: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    scope: Scope = Scope.LOCAL


@dataclass(frozen=True)
class Candidate:
    """A relation one rule found in one scene."""

    subject: Ref
    type: str
    object: Ref
    scene: int
    rule: str
    name: str = ""
    evidence: str = ""
    persistence: Persistence = Persistence.MOMENTARY


@dataclass
class Facts:
    """Mentions and candidates of a whole screenplay, in the order the rules found them."""

    mentions: list[Mention] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)

    def mention(self, etype: str, name: str, scene: int, rule: str, **extra) -> Ref:
        """Record an entity mention; returns its reference for relations."""
        ref = (etype, name)
        self.mentions.append(Mention(ref, scene, rule, **extra))
        return ref

    def relate(self, subject: Ref, rtype: str, obj: Ref, scene: int, rule: str, **extra) -> None:
        """Record a relation candidate (self-relations are ignored)."""
        if subject != obj:
            self.candidates.append(Candidate(subject, rtype, obj, scene, rule, **extra))


@dataclass
class Finds:
    """What the action lines of one beat named, by kind, for the scene-level rules."""

    locations: set[Ref] = field(default_factory=set)
    placed: set[Ref] = field(default_factory=set)  # locations after a place preposition
    objects: set[Ref] = field(default_factory=set)
    times: set[Ref] = field(default_factory=set)
