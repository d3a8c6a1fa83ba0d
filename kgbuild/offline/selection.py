"""Decide which offline findings go into the graph, over the whole screenplay at once.

A rule is trusted as far as the STAGE references bear it out: some rules are right often enough
from a single scene (a character in the scene heading's place), others only when the same
relation turns up in several scenes (a character beside a thing named in an action line), and
some are not trusted at all for a language. `SelectionPolicy` says, per rule, how many distinct
scenes a finding needs; a rule missing from the policy is off.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.graph import GraphBuilder, entity_id
from kgbuild.model import KnowledgeGraph, Scope, Screenplay
from kgbuild.offline.facts import Candidate, Facts, Mention
from kgbuild.schema import load_schema


class SelectionPolicy(BaseModel):
    """Per rule, the number of distinct scenes a finding needs before it is kept."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mention_rules: dict[str, int] = Field(
        description="Entity rule -> scenes the entity must be mentioned in (by any rule).")
    relation_rules: dict[str, int] = Field(
        description="Relation rule -> scenes the relation must be found in (by any rule).")

    def keeps_entity(self, rules: set[str], scenes: int) -> bool:
        """True when one of the rules that found the entity is satisfied by its scene count."""
        return any(r in self.mention_rules and scenes >= self.mention_rules[r] for r in rules)

    def keeps_relation(self, rules: set[str], scenes: int) -> bool:
        """True when one of the rules that found the relation is satisfied by its scene count."""
        return any(r in self.relation_rules and scenes >= self.relation_rules[r] for r in rules)


@dataclass
class _Group:
    first: object
    rules: set[str] = field(default_factory=set)
    scenes: set[int] = field(default_factory=set)
    items: list = field(default_factory=list)


def _group(items: list, key) -> dict[str, _Group]:
    groups: dict[str, _Group] = {}
    for item in items:
        g = groups.setdefault(key(item), _Group(first=item))
        g.rules.add(item.rule)
        g.scenes.add(item.scene)
        g.items.append(item)
    return groups


def _symmetric() -> frozenset[str]:
    return frozenset(r.name for r in load_schema().relation_types if r.symmetric)


def _oriented(c: Candidate, symmetric: frozenset[str]) -> Candidate:
    """One direction for symmetric relations (A kin B is B kin A): the smaller id first."""
    if c.type in symmetric and entity_id(*c.object) < entity_id(*c.subject):
        return replace(c, subject=c.object, object=c.subject)
    return c


def _relation_key(c: Candidate) -> str:
    return f"{entity_id(*c.subject)}\x1f{c.type}\x1f{entity_id(*c.object)}"


def _add_entity(b: GraphBuilder, mentions: list[Mention]) -> str:
    first = mentions[0]
    description = next((m.description for m in mentions if m.description), "")
    aliases = sorted({a for m in mentions for a in m.aliases})
    scope = Scope.GLOBAL if any(m.scope is Scope.GLOBAL for m in mentions) else Scope.LOCAL
    eid = ""
    for m in mentions:
        eid = b.entity(first.ref[0], first.ref[1], m.scene, description=description, aliases=aliases,
                       scope=scope)
    return eid


def assemble(facts: Facts, screenplay: Screenplay, policy: SelectionPolicy, *,
             version: str = "") -> KnowledgeGraph:
    """The graph of what the policy keeps.

    Args:
        facts: Everything the rules found.
        screenplay: The screenplay (for the graph's movie metadata).
        policy: Which rules are trusted, and from how many scenes on.
        version: The kgbuild version for the provenance.

    Returns:
        Entities kept by their mention rules, and the relations kept by their rules whose two
        ends are both kept; scenes, evidence and aliases are the union over all findings.
    """
    entities = _group(facts.mentions, lambda m: entity_id(*m.ref))
    kept = {eid for eid, g in entities.items() if policy.keeps_entity(g.rules, len(g.scenes))}
    b = GraphBuilder()
    for eid, g in entities.items():
        if eid in kept:
            _add_entity(b, g.items)
    symmetric = _symmetric()
    relations = _group([_oriented(c, symmetric) for c in facts.candidates], _relation_key)
    for g in relations.values():
        c: Candidate = g.first  # type: ignore[assignment]
        source, target = entity_id(*c.subject), entity_id(*c.object)
        if source not in kept or target not in kept:
            continue
        if not policy.keeps_relation(g.rules, len(g.scenes)):
            continue
        for item in g.items:
            b.relation(source, c.type, target, item.scene, name=item.name or c.name,
                       evidence=item.evidence, persistence=c.persistence)
    return b.to_graph(screenplay, backend="offline", version=version)

