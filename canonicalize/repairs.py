"""Deterministic graph repairs (STAGE app. C.3), each a small pure function.

Every repair takes a graph and returns a new graph plus a `RepairCount` saying what it changed,
so the build report can tell the user exactly what was rewritten, swapped, merged or dropped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.graph import canonical_key, relation_id
from kgbuild.model import Entity, KnowledgeGraph, Relation
from kgbuild.schema import Schema, load_schema

#: When one name is extracted under several types, the earlier type in this list wins.
TYPE_PRIORITY = ("Character", "Location", "Object", "Concept", "TimePoint", "Occasion", "Event")


class RepairCount(BaseModel):
    """What one repair rule did."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    changed: dict[str, int] = Field(default_factory=dict, description="action -> count")
    examples: list[str] = Field(default_factory=list, description="A few concrete cases.")

    def add(self, action: str, example: str, *, keep_examples: int = 5) -> None:
        """Count one change and keep it as an example while there are few."""
        self.changed[action] = self.changed.get(action, 0) + 1
        if len(self.examples) < keep_examples:
            self.examples.append(f"{action}: {example}")


def _with(graph: KnowledgeGraph, **update) -> KnowledgeGraph:
    return graph.model_copy(update=update)


def validate_endpoints(graph: KnowledgeGraph) -> tuple[KnowledgeGraph, RepairCount]:
    """Drop relations whose subject or object is not an entity, and self-relations."""
    ids = {e.id for e in graph.entities}
    count = RepairCount(rule="endpoints")
    kept = []
    for rel in graph.relations:
        if rel.source not in ids or rel.target not in ids:
            count.add("dropped_dangling", f"{rel.source} -{rel.type}-> {rel.target}")
        elif rel.source == rel.target:
            count.add("dropped_self", f"{rel.source} -{rel.type}-> itself")
        else:
            kept.append(rel)
    return _with(graph, relations=kept), count


def repair_relation_types(
    graph: KnowledgeGraph, *, schema: Schema | None = None, strict: bool = True
) -> tuple[KnowledgeGraph, RepairCount]:
    """Make every relation fit the schema's admissible (subject type, object type) pairs.

    A relation that violates the schema is swapped when the reversed direction is admissible
    for its type; otherwise rewritten when its endpoint types admit exactly one relation type;
    otherwise dropped (strict) or kept with the flag 'schema_violation' (lenient). Synonyms
    (affiliated_with) are renamed to the schema's names first.

    Args:
        graph: The graph; relation endpoints must exist (run validate_endpoints first).
        schema: The schema; the default STAGE-KG schema when None.
        strict: Drop what cannot be repaired instead of flagging it.
    """
    schema = schema or load_schema()
    types = {e.id: e.type for e in graph.entities}
    count = RepairCount(rule="schema_types")
    kept: list[Relation] = []
    for rel in graph.relations:
        s_type, o_type = types.get(rel.source), types.get(rel.target)
        name = schema.canonical_relation(rel.type)
        if name != rel.type:
            count.add("renamed_synonym", f"{rel.type} -> {name}")
            rel = rel.model_copy(update={"type": name})
        if s_type is None or o_type is None or schema.is_admissible(rel.type, s_type, o_type):
            kept.append(rel)
            continue
        example = f"{rel.source} -{rel.type}-> {rel.target} ({s_type}->{o_type})"
        candidates = schema.relation_types_for(s_type, o_type)
        if schema.is_admissible(rel.type, o_type, s_type):
            count.add("swapped", example)
            kept.append(rel.model_copy(update={
                "source": rel.target, "target": rel.source,
                "id": relation_id(rel.target, rel.type, rel.source)}))
        elif len(candidates) == 1:
            count.add("retyped", f"{example} -> {candidates[0]}")
            kept.append(rel.model_copy(update={
                "type": candidates[0], "id": relation_id(rel.source, candidates[0], rel.target)}))
        elif strict:
            count.add("dropped", example)
        else:
            count.add("flagged", example)
            kept.append(rel.model_copy(update={"flags": sorted({*rel.flags, "schema_violation"})}))
    return _with(graph, relations=kept), count


def _merge_relations(a: Relation, b: Relation) -> Relation:
    richer = a if len(a.description) >= len(b.description) else b
    return richer.model_copy(update={
        "scenes": sorted({*a.scenes, *b.scenes}),
        "evidence": list(dict.fromkeys([*a.evidence, *b.evidence])),
        "flags": sorted({*a.flags, *b.flags}),
        "name": richer.name or a.name or b.name,
    })


def dedupe_relations(graph: KnowledgeGraph) -> tuple[KnowledgeGraph, RepairCount]:
    """Keep one relation per (subject, object, type): the richer description, all scenes."""
    count = RepairCount(rule="dedupe")
    merged: dict[tuple[str, str, str], Relation] = {}
    for rel in graph.relations:
        key = (rel.source, rel.target, rel.type)
        if key in merged:
            count.add("merged", f"{rel.source} -{rel.type}-> {rel.target}")
            merged[key] = _merge_relations(merged[key], rel)
        else:
            merged[key] = rel.model_copy(update={"id": relation_id(rel.source, rel.type, rel.target)})
    return _with(graph, relations=list(merged.values())), count


def _priority(type_name: str) -> int:
    return TYPE_PRIORITY.index(type_name) if type_name in TYPE_PRIORITY else len(TYPE_PRIORITY)


def _merge_entities(keep: Entity, other: Entity) -> Entity:
    aliases = [a for a in dict.fromkeys([*keep.aliases, *other.aliases]) if a != keep.name]
    return keep.model_copy(update={
        "scenes": sorted({*keep.scenes, *other.scenes}),
        "aliases": aliases,
        "description": keep.description or other.description,
    })


def _rewire(relations: list[Relation], mapping: dict[str, str]) -> list[Relation]:
    out = []
    for rel in relations:
        source, target = mapping.get(rel.source, rel.source), mapping.get(rel.target, rel.target)
        if (source, target) != (rel.source, rel.target):
            rel = rel.model_copy(update={
                "source": source, "target": target, "id": relation_id(source, rel.type, target)})
        out.append(rel)
    return out


def resolve_same_name(graph: KnowledgeGraph) -> tuple[KnowledgeGraph, RepairCount]:
    """One entity per name: a concrete type (Character, Location, Object...) beats an Event.

    Entities whose names are equal after normalization but whose types differ are merged into
    the one whose type comes first in TYPE_PRIORITY; relations are rewired to it.
    """
    count = RepairCount(rule="same_name")
    by_name: dict[str, list[Entity]] = defaultdict(list)
    for ent in graph.entities:
        by_name[canonical_key(ent.name)].append(ent)
    mapping: dict[str, str] = {}
    entities: list[Entity] = []
    for group in by_name.values():
        group = sorted(group, key=lambda e: _priority(e.type))
        winner = group[0]
        for loser in group[1:]:
            if loser.id == winner.id:
                winner = _merge_entities(winner, loser)
                continue
            count.add("merged", f"{loser.type} '{loser.name}' into {winner.type}")
            mapping[loser.id] = winner.id
            winner = _merge_entities(winner, loser)
        entities.append(winner)
    return _with(graph, entities=entities, relations=_rewire(graph.relations, mapping)), count


Repair = Callable[[KnowledgeGraph], tuple[KnowledgeGraph, RepairCount]]


def run_repairs(
    graph: KnowledgeGraph, *, schema: Schema | None = None, strict: bool = True
) -> tuple[KnowledgeGraph, list[RepairCount]]:
    """Run every repair in order: same-name types, endpoints, schema types, then dedupe."""
    steps: list[Repair] = [
        resolve_same_name,
        validate_endpoints,
        lambda g: repair_relation_types(g, schema=schema, strict=strict),
        dedupe_relations,
    ]
    counts = []
    for step in steps:
        graph, count = step(graph)
        counts.append(count)
    return graph, counts
