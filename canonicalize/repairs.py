"""Deterministic graph repairs (STAGE app. C.3), each a small pure function.

Every repair takes a graph and returns a new graph plus a `RepairCount` saying what it changed,
so the build report can tell the user exactly what was rewritten, swapped, merged or dropped.
Merged facts follow the one merge policy (`kgbuild.graph.merge_entity_records`,
`merge_relation_records`: the evidence of both is kept); the last repair drops
the facts that have none (`require_evidence`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.graph import (
    canonical_key,
    merge_entity_records,
    merge_relation_records,
    relation_id,
    rewire_relations,
)
from kgbuild.model import Entity, KnowledgeGraph, Relation
from kgbuild.schema import Schema, load_schema


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
    (affiliated_with) are renamed to the schema's names first. A relation of a type the schema
    does not know (an offline rule's type that another schema lacks) is never guessed into one
    it knows: dropped (strict, counted as 'dropped_unknown_type') or flagged (lenient).

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
        example = f"{rel.source} -{rel.type}-> {rel.target} ({s_type}->{o_type})"
        if schema.relation(rel.type) is None:
            if strict:
                count.add("dropped_unknown_type", example)
            else:
                count.add("flagged", example)
                kept.append(rel.model_copy(update={"flags": sorted({*rel.flags, "schema_violation"})}))
            continue
        if s_type is None or o_type is None or schema.is_admissible(rel.type, s_type, o_type):
            kept.append(rel)
            continue
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


def dedupe_relations(graph: KnowledgeGraph) -> tuple[KnowledgeGraph, RepairCount]:
    """Keep one relation per (subject, object, type): the first of them, merged with the
    others by `kgbuild.graph.merge_relation_records` (longest description, all scenes and evidence)."""
    count = RepairCount(rule="dedupe")
    merged: dict[tuple[str, str, str], Relation] = {}
    for rel in graph.relations:
        key = (rel.source, rel.target, rel.type)
        if key in merged:
            count.add("merged", f"{rel.source} -{rel.type}-> {rel.target}")
            merged[key] = merge_relation_records(merged[key], rel)
        else:
            merged[key] = rel.model_copy(update={"id": relation_id(rel.source, rel.type, rel.target)})
    return _with(graph, relations=list(merged.values())), count


def _target_type(type_name: str, present: set[str], schema: Schema) -> str:
    """The type an entity of `type_name` ends up under among same-name entities of `present` types:
    its winner by the schema's same_name_merges, followed while the winner is itself folded."""
    seen = {type_name}
    while True:
        winner = next((w for w, loser in schema.same_name_merges if loser == type_name and w in present), None)
        if winner is None or winner in seen:
            return type_name
        seen.add(winner)
        type_name = winner


def _same_name_mapping(group: list[Entity], schema: Schema) -> dict[str, Entity]:
    """Entity id -> the entity of its same-name group it folds into (itself for the kept ones)."""
    present = {e.type for e in group}
    keepers: dict[str, Entity] = {}
    for ent in group:
        if ent.type == _target_type(ent.type, present, schema):
            keepers.setdefault(ent.type, ent)
    return {e.id: keepers[_target_type(e.type, present, schema)] for e in group}


def resolve_same_name(graph: KnowledgeGraph, *, schema: Schema | None = None) -> tuple[KnowledgeGraph, RepairCount]:
    """Fold entities that share a name into one, when their types say they are one thing.

    Names are compared after normalization (`canonical_key`). Entities of the same type sharing
    a name merge into the first of them. Entities of different types merge only when the schema
    lists the pair in `same_name_merges` (`schema/stage_kg.json`: a Concept folds into a
    Character or an Object, an Event into an Occasion), under the winner's type; every other
    pair stays two entities (a TimePoint and a Location 'night', a Character and a Location
    'Alley'). Merged entities keep the scenes, aliases and evidence of both
    (`kgbuild.graph.merge_entity_records`); relations are rewired (`kgbuild.graph.rewire_relations`).

    Args:
        graph: The graph (not changed).
        schema: The schema; the default STAGE-KG schema when None.
    """
    schema = schema or load_schema()
    count = RepairCount(rule="same_name")
    by_name: dict[str, list[Entity]] = defaultdict(list)
    for ent in graph.entities:
        by_name[canonical_key(ent.name)].append(ent)
    into: dict[str, Entity] = {}
    for group in by_name.values():
        into.update(_same_name_mapping(group, schema))
    merged: dict[str, Entity] = {}
    mapping: dict[str, str] = {}
    for ent in graph.entities:
        keeper = into[ent.id]
        if keeper.id not in merged:
            merged[keeper.id] = keeper
        if ent is keeper:
            continue
        if ent.id != keeper.id:
            count.add("merged", f"{ent.type} '{ent.name}' into {keeper.type}")
            mapping[ent.id] = keeper.id
        merged[keeper.id] = merge_entity_records(merged[keeper.id], ent)
    return _with(graph, entities=list(merged.values()), relations=rewire_relations(graph.relations, mapping)), count


def require_evidence(graph: KnowledgeGraph) -> tuple[KnowledgeGraph, RepairCount]:
    """Drop the facts no text supports: a fact without evidence is not written to graph.json.

    Entities and relations with an empty evidence list are dropped, and so are the relations
    whose subject or object is dropped here.
    """
    count = RepairCount(rule="evidence")
    entities: list[Entity] = []
    dropped: set[str] = set()
    for ent in graph.entities:
        if ent.evidence:
            entities.append(ent)
        else:
            dropped.add(ent.id)
            count.add("dropped_entity", f"{ent.type} '{ent.name}'")
    relations: list[Relation] = []
    for rel in graph.relations:
        if rel.source in dropped or rel.target in dropped:
            count.add("dropped_with_end", f"{rel.source} -{rel.type}-> {rel.target}")
        elif not rel.evidence:
            count.add("dropped_relation", f"{rel.source} -{rel.type}-> {rel.target}")
        else:
            relations.append(rel)
    return _with(graph, entities=entities, relations=relations), count


Repair = Callable[[KnowledgeGraph], tuple[KnowledgeGraph, RepairCount]]


def run_repairs(
    graph: KnowledgeGraph, *, schema: Schema | None = None, strict: bool = True
) -> tuple[KnowledgeGraph, list[RepairCount]]:
    """Run every repair in order: same-name types, endpoints, schema types, dedupe, then evidence.

    `require_evidence` runs last, so what the other repairs merge keeps all its evidence and
    only the facts left without any are dropped.
    """
    steps: list[Repair] = [
        lambda g: resolve_same_name(g, schema=schema),
        validate_endpoints,
        lambda g: repair_relation_types(g, schema=schema, strict=strict),
        dedupe_relations,
        require_evidence,
    ]
    counts = []
    for step in steps:
        graph, count = step(graph)
        counts.append(count)
    return graph, counts
