"""What the offline rules find before it is assembled: entity mentions and relation findings,
each with the evidence it was read from.

Every rule records what it saw in one scene, tagged with the rule's name and the lines it read
(`kgbuild.model.Evidence`, producer 'rule:<name>'). A rule that cannot quote its evidence emits
nothing. Assembly (`kgbuild.offline.selection`) groups repeats; it does not filter by counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kgbuild.model import Evidence, Persistence, Scope

Ref = tuple[str, str]  # (entity type, name)


@dataclass(frozen=True)
class Mention:
    """An entity grounded in one scene by one rule."""

    ref: Ref
    scene: int
    rule: str
    evidence: tuple[Evidence, ...]
    description: str = ""
    aliases: tuple[str, ...] = ()
    scope: Scope = Scope.LOCAL


@dataclass(frozen=True)
class RelationFinding:
    """A relation one rule found in one scene (not yet a graph relation: both ends must be found too)."""

    subject: Ref
    type: str
    object: Ref
    scene: int
    rule: str
    evidence: tuple[Evidence, ...]
    name: str = ""
    persistence: Persistence = Persistence.MOMENTARY


@dataclass
class Facts:
    """Mentions and relation findings of a whole screenplay, in the order the rules found them."""

    mentions: list[Mention] = field(default_factory=list)
    relations: list[RelationFinding] = field(default_factory=list)

    def mention(self, etype: str, name: str, scene: int, rule: str,
                evidence: Sequence[Evidence | None], **extra) -> Ref:
        """Record an entity mention (only when some evidence is given); returns its reference."""
        ref = (etype, name)
        kept = tuple(e for e in evidence if e is not None)
        if kept:
            self.mentions.append(Mention(ref, scene, rule, kept, **extra))
        return ref

    def relate(self, subject: Ref, rtype: str, obj: Ref, scene: int, rule: str,
               evidence: Sequence[Evidence | None], **extra) -> None:
        """Record a relation finding (self-relations and facts without evidence are ignored)."""
        kept = tuple(e for e in evidence if e is not None)
        if subject != obj and kept:
            self.relations.append(RelationFinding(subject, rtype, obj, scene, rule, kept, **extra))
