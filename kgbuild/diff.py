"""The facts two graphs of a movie disagree on: how a rule or prompt change is reviewed.

Entities are the same fact when their ids are equal; two entities of the same type whose ids
differ are paired when their names are equal after normalization (`canonical_key`), or else
when one's name is the other's alias, and only one such partner exists (an entity renamed by
a rule change, a merge that kept another name). Relations are compared as (source, type,
target) after mapping OLD's entity ids onto NEW's through those pairs, symmetric types
(kinship_with, ...) in either direction. What is only in one graph is listed with its evidence.

Example:
    >>> d = diff_graphs(load_graph("before/graph.json"), load_graph("after/graph.json"))
    >>> len(d.entities_only_old), len(d.relations_only_new)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.graph import canonical_key
from kgbuild.model import Entity, KnowledgeGraph, Relation
from kgbuild.schema import Schema, load_schema


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntityPair(_Model):
    """An entity of OLD and one of NEW with different ids taken for the same thing."""

    old: Entity
    new: Entity
    how: str = Field(description="'name' (equal normalized names) or 'alias' (a name is the other's alias).")


class TypeCounts(_Model):
    """How many facts of one type each graph holds and how many only one does."""

    old: int = 0
    new: int = 0
    only_old: int = 0
    only_new: int = 0
    paired: int = Field(default=0, description="Entities whose ids differ but were paired (renamed).")


class GraphDiff(_Model):
    """What OLD and NEW disagree on."""

    old: str = Field(description="Where OLD came from.")
    new: str = Field(description="Where NEW came from.")
    entities_only_old: list[Entity]
    entities_only_new: list[Entity]
    renamed: list[EntityPair]
    relations_only_old: list[Relation]
    relations_only_new: list[Relation]
    entity_types: dict[str, TypeCounts]
    relation_types: dict[str, TypeCounts]
    labels: dict[str, str] = Field(default_factory=dict,
                                   description="'Type \"Name\"' of every entity id the listed relations name.")
    notes: list[str] = Field(default_factory=list)

    @property
    def differs(self) -> bool:
        """True when the graphs disagree on any fact."""
        return bool(self.entities_only_old or self.entities_only_new or self.renamed
                    or self.relations_only_old or self.relations_only_new)

    def of_type(self, type_name: str) -> GraphDiff:
        """The same diff limited to one entity or relation type."""
        return self.model_copy(update={
            "entities_only_old": [e for e in self.entities_only_old if e.type == type_name],
            "entities_only_new": [e for e in self.entities_only_new if e.type == type_name],
            "renamed": [p for p in self.renamed if p.old.type == type_name],
            "relations_only_old": [r for r in self.relations_only_old if r.type == type_name],
            "relations_only_new": [r for r in self.relations_only_new if r.type == type_name],
            "entity_types": {k: v for k, v in self.entity_types.items() if k == type_name},
            "relation_types": {k: v for k, v in self.relation_types.items() if k == type_name},
        })


def _forms(entity: Entity) -> set[str]:
    return {canonical_key(f) for f in (entity.name, *entity.aliases) if canonical_key(f)}


def _unique_pairs(olds: list[Entity], news: list[Entity], key_old, key_new) -> list[tuple[Entity, Entity]]:
    """Pairs (old, new) sharing a key, where the key names exactly one of each."""
    by_old: dict[tuple[str, str], list[Entity]] = defaultdict(list)
    by_new: dict[tuple[str, str], list[Entity]] = defaultdict(list)
    for e in olds:
        for k in key_old(e):
            by_old[(e.type, k)].append(e)
    for e in news:
        for k in key_new(e):
            by_new[(e.type, k)].append(e)
    pairs: dict[str, tuple[Entity, Entity]] = {}
    taken: set[str] = set()
    for key in sorted(by_old.keys() & by_new.keys()):
        o, n = by_old[key], by_new[key]
        if len(o) == 1 and len(n) == 1 and o[0].id not in pairs and n[0].id not in taken:
            pairs[o[0].id] = (o[0], n[0])
            taken.add(n[0].id)
    return list(pairs.values())


def pair_entities(old: list[Entity], new: list[Entity]) -> list[EntityPair]:
    """Entities of OLD and NEW with different ids that are the same thing (see the module docstring)."""
    by_name = _unique_pairs(old, new, lambda e: [canonical_key(e.name)], lambda e: [canonical_key(e.name)])
    done_old = {o.id for o, _ in by_name}
    done_new = {n.id for _, n in by_name}
    rest_old = [e for e in old if e.id not in done_old]
    rest_new = [e for e in new if e.id not in done_new]
    # One name among the other's aliases, in either direction.
    by_alias = _unique_pairs(rest_old, rest_new, lambda e: [canonical_key(e.name)], _forms)
    by_alias += _unique_pairs([e for e in rest_old if e.id not in {o.id for o, _ in by_alias}],
                              [e for e in rest_new if e.id not in {n.id for _, n in by_alias}],
                              _forms, lambda e: [canonical_key(e.name)])
    return ([EntityPair(old=o, new=n, how="name") for o, n in by_name]
            + [EntityPair(old=o, new=n, how="alias") for o, n in by_alias])


def _relation_keys(relations: Iterable[Relation], mapping: dict[str, str],
                   symmetric: set[str]) -> dict[tuple[str, str, str], Relation]:
    keys: dict[tuple[str, str, str], Relation] = {}
    for r in relations:
        s, t = mapping.get(r.source, r.source), mapping.get(r.target, r.target)
        if r.type in symmetric and t < s:
            s, t = t, s
        keys.setdefault((s, r.type, t), r)
    return keys


def diff_graphs(old: KnowledgeGraph, new: KnowledgeGraph, *, old_label: str = "OLD", new_label: str = "NEW",
                schema: Schema | None = None) -> GraphDiff:
    """The facts `old` and `new` disagree on, per type (neither graph is changed).

    Args:
        old: The graph before the change.
        new: The graph after it.
        old_label: Where `old` came from, for the output.
        new_label: Where `new` came from.
        schema: The schema (which relation types are symmetric); the default when None.

    Returns:
        Entities and relations only in one graph, the entities paired across different ids,
        and counts per type.
    """
    schema = schema or load_schema()
    symmetric = {r.name for r in schema.relation_types if r.symmetric}
    new_ids = {e.id for e in new.entities}
    old_ids = {e.id for e in old.entities}
    unmatched_old = [e for e in old.entities if e.id not in new_ids]
    unmatched_new = [e for e in new.entities if e.id not in old_ids]
    pairs = pair_entities(unmatched_old, unmatched_new)
    paired_old = {p.old.id for p in pairs}
    paired_new = {p.new.id for p in pairs}
    mapping = {p.old.id: p.new.id for p in pairs}
    old_rel = _relation_keys(old.relations, mapping, symmetric)
    new_rel = _relation_keys(new.relations, {}, symmetric)
    only_old_rel = [r for k, r in old_rel.items() if k not in new_rel]
    only_new_rel = [r for k, r in new_rel.items() if k not in old_rel]
    only_old = [e for e in unmatched_old if e.id not in paired_old]
    only_new = [e for e in unmatched_new if e.id not in paired_new]

    entity_types: dict[str, TypeCounts] = defaultdict(TypeCounts)
    for counter, field in ((Counter(e.type for e in old.entities), "old"),
                           (Counter(e.type for e in new.entities), "new"),
                           (Counter(e.type for e in only_old), "only_old"),
                           (Counter(e.type for e in only_new), "only_new"),
                           (Counter(p.old.type for p in pairs), "paired")):
        for t, n in counter.items():
            setattr(entity_types[t], field, n)
    relation_types: dict[str, TypeCounts] = defaultdict(TypeCounts)
    for counter, field in ((Counter(k[1] for k in old_rel), "old"), (Counter(k[1] for k in new_rel), "new"),
                           (Counter(r.type for r in only_old_rel), "only_old"),
                           (Counter(r.type for r in only_new_rel), "only_new")):
        for t, n in counter.items():
            setattr(relation_types[t], field, n)
    notes = []
    if old.movie.key != new.movie.key:
        notes.append(f"the graphs are of different movies ({old.movie.key!r} and {new.movie.key!r})")
    if old.movie.scene_ranges != new.movie.scene_ranges:
        notes.append(f"the graphs cover different scenes ({_ranges(old)} and {_ranges(new)}); "
                     "--scenes compares the facts of the same scenes")
    labels = {e.id: f'{e.type} "{e.name}"' for e in old.entities}
    labels.update({e.id: f'{e.type} "{e.name}"' for e in new.entities})
    ends = {i for r in (*only_old_rel, *only_new_rel) for i in (r.source, r.target)}
    return GraphDiff(old=old_label, new=new_label, entities_only_old=only_old, entities_only_new=only_new,
                     renamed=pairs, relations_only_old=only_old_rel, relations_only_new=only_new_rel,
                     entity_types=dict(sorted(entity_types.items())),
                     relation_types=dict(sorted(relation_types.items())),
                     labels={i: labels.get(i, i) for i in sorted(ends)}, notes=notes)


def _ranges(graph: KnowledgeGraph) -> str:
    ranges = graph.movie.scene_ranges
    return "scenes " + ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges) if ranges else "every scene"


class SideGraphs(_Model):
    """The facts only one side holds, as graphs `kgbuild audit` can sample: relations with their ends,
    and entities alone (so an audit of the relations samples no entity the two sides share)."""

    relations: KnowledgeGraph
    entities: KnowledgeGraph


def side_graphs(diff: GraphDiff, old: KnowledgeGraph, new: KnowledgeGraph) -> dict[str, SideGraphs]:
    """What a change removed (only in `old`) and added (only in `new`), for a judge to sample.

    Each graph keeps its side's movie, evidence and scene layer, so its facts are judged against
    the same screenplay as the build they came from.

    Returns:
        {"removed": ..., "added": ...}
    """
    out: dict[str, SideGraphs] = {}
    for side, graph, relations, entities in (("removed", old, diff.relations_only_old, diff.entities_only_old),
                                             ("added", new, diff.relations_only_new, diff.entities_only_new)):
        ends = {i for r in relations for i in (r.source, r.target)}
        out[side] = SideGraphs(
            relations=graph.model_copy(update={"entities": [e for e in graph.entities if e.id in ends],
                                               "relations": list(relations)}),
            entities=graph.model_copy(update={"entities": list(entities), "relations": []}))
    return out
