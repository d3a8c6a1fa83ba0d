"""Stratified, seeded sampling of a graph's facts for the truth audit.

Relations are stratified by relation type and entities by entity type. Each type present gets
min(FLOOR, its count) facts; the rest of the requested total is shared among the types in
proportion to what each has left (largest remainders first), so big types get more facts and
the total is exactly the number requested (or everything, when the graph has fewer). When the
floors alone exceed the total, types take turns, largest first, one fact at a time.

Within a type the facts are drawn with `random.Random` seeded by the seed, the kind and the
type name, from the type's facts sorted by graph id: the same graph and seed give the same
sample on every machine and Python run. Sampled facts are ordered by type, then by first
cited scene, and numbered R001... (relations) and E001... (entities).
"""

from __future__ import annotations

import random
from collections import Counter

from kgbuild.evaluation.audit.types import AuditFact, AuditSample, FactKind
from kgbuild.model import Entity, KnowledgeGraph, Relation

#: Facts every type gets at least (or all it has, when it has fewer).
FLOOR = 5
#: Default sample sizes of `kgbuild audit`.
DEFAULT_RELATIONS = 150
DEFAULT_ENTITIES = 50


def allocate(counts: dict[str, int], total: int, *, floor: int = FLOOR) -> dict[str, int]:
    """How many facts to draw per type.

    Args:
        counts: Facts per type in the graph.
        total: Facts wanted over all types.
        floor: Facts each type gets at least, when it has that many and the total allows.

    Returns:
        Facts per type (every type of `counts`, possibly 0), summing to min(total, all facts).

    Example:
        >>> allocate({"speaks_to": 8, "located_at": 6, "kinship_with": 2, "possesses": 1}, 14)
        {'kinship_with': 2, 'located_at': 5, 'possesses': 1, 'speaks_to': 6}
    """
    types = sorted(counts)
    if total >= sum(counts.values()):
        return {t: counts[t] for t in types}
    floors = {t: min(floor, counts[t]) for t in types}
    share = dict.fromkeys(types, 0)
    if sum(floors.values()) >= total:
        order = sorted(types, key=lambda t: (-counts[t], t))
        left = total
        for _ in range(floor):
            for t in order:
                if left and share[t] < floors[t]:
                    share[t] += 1
                    left -= 1
        return share
    left = total - sum(floors.values())
    capacity = {t: counts[t] - floors[t] for t in types}
    room = sum(capacity.values())
    exact = {t: left * capacity[t] / room for t in types}
    share = {t: floors[t] + int(exact[t]) for t in types}
    rest = left - sum(int(v) for v in exact.values())
    by_remainder = sorted(types, key=lambda t: (-(exact[t] - int(exact[t])), -counts[t], t))
    for t in by_remainder[:rest]:
        share[t] += 1
    return share


def _name(entity: Entity | None, ref: str) -> str:
    if entity is None:
        return f'? "{ref}" (not in the graph)'
    return f'{entity.type} "{entity.name}"'


def relation_statement(relation: Relation, entities: dict[str, Entity]) -> str:
    """The relation in words: `Character "Nora" —speaks_to→ Character "Owen"`."""
    source = _name(entities.get(relation.source), relation.source)
    target = _name(entities.get(relation.target), relation.target)
    return f"{source} —{relation.type}→ {target}"


def entity_statement(entity: Entity) -> str:
    """The entity in words: `Character "Nora Hale"`."""
    return f'{entity.type} "{entity.name}"'


def _relation_fact(relation: Relation, entities: dict[str, Entity]) -> AuditFact:
    notes = []
    if relation.name:
        notes.append(f"Extracted verb: {relation.name!r}")
    if relation.description:
        notes.append(f"Extracted description: {relation.description}")
    return AuditFact(id="", kind="relation", type=relation.type, ref=relation.id,
                     statement=relation_statement(relation, entities), notes=notes,
                     evidence=list(relation.evidence))


def _entity_fact(entity: Entity) -> AuditFact:
    notes = []
    if entity.aliases:
        notes.append("Aliases: " + ", ".join(f'"{a}"' for a in entity.aliases))
    if entity.description:
        notes.append(f"Extracted description: {entity.description}")
    return AuditFact(id="", kind="entity", type=entity.type, ref=entity.id,
                     statement=entity_statement(entity), notes=notes, evidence=list(entity.evidence))


def _draw(facts: list[AuditFact], kind: FactKind, total: int, seed: int, prefix: str) -> list[AuditFact]:
    by_type: dict[str, list[AuditFact]] = {}
    for fact in facts:
        by_type.setdefault(fact.type, []).append(fact)
    quota = allocate({t: len(fs) for t, fs in by_type.items()}, total)
    chosen: list[AuditFact] = []
    for type_name in sorted(by_type):
        pool = sorted(by_type[type_name], key=lambda f: f.ref)
        rng = random.Random(f"kgbuild-audit:{seed}:{kind}:{type_name}")
        chosen.extend(rng.sample(pool, quota[type_name]))
    chosen.sort(key=lambda f: (f.type, f.cited_scenes[0] if f.evidence else 0, f.ref))
    return [f.model_copy(update={"id": f"{prefix}{i:03d}"}) for i, f in enumerate(chosen, start=1)]


def sample_facts(graph: KnowledgeGraph, *, relations: int = DEFAULT_RELATIONS,
                 entities: int = DEFAULT_ENTITIES, seed: int = 0) -> AuditSample:
    """Draw a stratified, seeded sample of the graph's relations and entities.

    Args:
        graph: Any kgbuild graph (offline or LLM-built).
        relations: Relations to draw over all relation types.
        entities: Entities to draw over all entity types.
        seed: The sampling seed; the same graph and seed give the same sample.

    Returns:
        The sampled facts with ids R001.../E001..., and the per-type counts of the whole graph.

    Example:
        >>> sample = sample_facts(load_graph("out/graph.json"), relations=150, entities=50, seed=0)
        >>> sample.facts[0].id
        'R001'
    """
    by_id = {e.id: e for e in graph.entities}
    relation_facts = [_relation_fact(r, by_id) for r in graph.relations]
    entity_facts = [_entity_fact(e) for e in graph.entities]
    return AuditSample(
        title=graph.movie.title, seed=seed, relations_requested=relations, entities_requested=entities,
        relation_counts=dict(sorted(Counter(r.type for r in graph.relations).items())),
        entity_counts=dict(sorted(Counter(e.type for e in graph.entities).items())),
        facts=[*_draw(relation_facts, "relation", relations, seed, "R"),
               *_draw(entity_facts, "entity", entities, seed, "E")])
