"""What the offline rules find before it is assembled: entity mentions and relation findings,
each with the evidence it was read from.

Every rule records what it saw in one scene, tagged with the rule's name and the lines it read
(`kgbuild.model.Evidence`, producer 'rule:<name>'). A rule that cannot quote its evidence emits
nothing. Assembly (`kgbuild.offline.selection`) groups repeats; it does not filter by counts.

Rules speak in roles (`kgbuild.schema.ROLES`: a person, a place, a thing...); `Facts` turns a
role into the schema's entity type once, when the rule records it. A mention of a role the
schema has no type for is not recorded (it is counted in `Facts.skipped`), and neither is a
relation finding with such an end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgbuild.model import Evidence, Persistence, Scope
from kgbuild.schema import Role, load_schema

Ref = tuple[str, str]  # (entity type, name); the type is "" for a role the schema lacks


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


def _default_roles() -> dict[Role, str]:
    return load_schema().role_types()


@dataclass
class Facts:
    """Mentions and relation findings of a whole screenplay, in the order the rules found them.

    Args:
        roles: Role -> the schema's entity type (`Schema.role_types`); the default schema's
            when not given.
    """

    roles: dict[Role, str] = field(default_factory=_default_roles)
    mentions: list[Mention] = field(default_factory=list)
    relations: list[RelationFinding] = field(default_factory=list)
    skipped: Counter[Role] = field(default_factory=Counter)

    def ref(self, role: Role, name: str) -> Ref:
        """The reference of the entity of this role and name (type "" when the schema has no such role)."""
        return self.roles.get(role, ""), name

    def mention(self, role: Role, name: str, scene: int, rule: str,
                evidence: Sequence[Evidence | None], **extra) -> Ref:
        """Record an entity mention (only when some evidence is given and the schema has a type
        for the role); returns its reference."""
        ref = self.ref(role, name)
        kept = tuple(e for e in evidence if e is not None)
        if kept and not ref[0]:
            self.skipped[role] += 1
        elif kept:
            self.mentions.append(Mention(ref, scene, rule, kept, **extra))
        return ref

    def relate(self, subject: Ref, rtype: str, obj: Ref, scene: int, rule: str,
               evidence: Sequence[Evidence | None], **extra) -> None:
        """Record a relation finding (self-relations, facts without evidence and findings with an
        end of a role the schema lacks are ignored)."""
        kept = tuple(e for e in evidence if e is not None)
        if subject != obj and kept and subject[0] and obj[0]:
            self.relations.append(RelationFinding(subject, rtype, obj, scene, rule, kept, **extra))
