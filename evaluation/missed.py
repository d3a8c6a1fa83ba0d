"""The reference facts a prediction missed, as graphs `kgbuild audit` can judge.

A STAGE-KG false negative is a scored reference fact no prediction matched. Whether missing it
is a loss depends on whether the scenes support it: the references are model output too. This
module writes the misses as two graphs of the reference's own facts, each fact citing the scenes
the reference filed it under (no line numbers or quote: the reference records none):

- `relations`: the scored reference relations not found, with the entities at their ends;
- `entities`: the scored reference entities no prediction matched.

`missed_facts` reads them off the score's own grading (`kgbuild.evaluation.stage_kg.grade`).
`kgbuild score PRED REF --write-missed DIR` writes them to DIR/relations/graph.json and
DIR/entities/graph.json; `kgbuild audit DIR/relations/graph.json --screenplay BUILD/screenplay.json
--entities 0` samples the first for a judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgbuild.evaluation.stage_kg import Grading, relation_key
from kgbuild.model import Entity, Evidence, KnowledgeGraph, Relation
from kgbuild.schema import Schema


@dataclass(frozen=True)
class MissedFacts:
    """The missed reference relations (with their ends) and the missed reference entities."""

    relations: KnowledgeGraph
    entities: KnowledgeGraph


def _cited(scenes: list[int], producer: str) -> list[Evidence]:
    return [Evidence(scene=s, lines=None, quote="", producer=producer) for s in sorted(set(scenes))]


def _with_evidence(entity: Entity, producer: str) -> Entity:
    return entity.model_copy(update={"evidence": _cited(entity.scenes, producer)})


def missed_facts(reference: KnowledgeGraph, graded: Grading, schema: Schema) -> MissedFacts:
    """The scored reference facts a prediction did not match, as the score decided them.

    Args:
        reference: The reference, restricted to the scenes scored.
        graded: The prediction graded against `reference` (`grade`, with the score's options).
        schema: The schema.

    Returns:
        Two graphs of reference facts, each fact citing the reference's scenes for it
        (producer 'reference:<movie id>').
    """
    producer = f"reference:{reference.movie.key}"
    by_id = {e.id: e for e in reference.entities}
    missed_keys = graded.scored_relations - graded.found
    symmetric = {r.name for r in schema.relation_types if r.symmetric}
    relations: dict[tuple[str, str, str], Relation] = {}
    for rel in reference.relations:
        key = relation_key(rel.source, rel.type, rel.target, symmetric)
        if key not in missed_keys:
            continue
        # A symmetric pair filed in both directions is one scored fact: one relation, both their scenes.
        scenes = sorted({*rel.scenes, *(relations[key].scenes if key in relations else [])})
        first = relations.get(key, rel)
        relations[key] = first.model_copy(update={"scenes": scenes, "evidence": _cited(scenes, producer)})
    ends = {end for rel in relations.values() for end in (rel.source, rel.target)}
    hit = set(graded.matched.values())
    unmatched = [by_id[i] for i in sorted(graded.scored_entities - hit)]
    return MissedFacts(
        relations=reference.model_copy(update={
            "entities": [_with_evidence(by_id[i], producer) for i in sorted(ends)],
            "relations": list(relations.values()), "scenes": []}),
        entities=reference.model_copy(update={
            "entities": [_with_evidence(e, producer) for e in unmatched], "relations": [], "scenes": []}),
    )
