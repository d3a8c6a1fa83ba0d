"""What a store holds: a graph checked against the schema and flattened into typed rows.

Every store and export starts here. Entity types become node labels and relation types become
relationship types, so both are taken from the schema only (labels and types cannot be Cypher
parameters). Evidence travels as four flat parallel lists on every node and relationship
(`evidence_scenes`, `evidence_lines`, `evidence_quotes`, `evidence_producers`; item i of each
belongs together): some Bolt servers (FalkorDB) refuse a property holding a list of maps, so every
store makes the same choice. An entity whose type the schema does not know, or a relation whose
(type, subject type, object type) the schema does not admit, is refused with a reason instead
of being written. Several movies can share one database: every row carries the movie and a
`key` that is unique across movies.

Example:
    >>> rows = prepare_rows(graph)  # doctest: +SKIP
    >>> [r.reason for r in rows.refused]  # doctest: +SKIP
    ["relation type 'loves' is not in the schema"]
"""

from __future__ import annotations

import json
import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.errors import StoreError
from kgbuild.model import Evidence, KnowledgeGraph
from kgbuild.schema import IDENTIFIER, Schema, load_schema

logger = logging.getLogger(__name__)


#: The evidence lists every node and relationship carries, and their embedded-store types.
EVIDENCE_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("evidence_scenes", "INT64[]"), ("evidence_lines", "STRING[]"), ("evidence_quotes", "STRING[]"),
    ("evidence_producers", "STRING[]"),
)

#: Node properties and their embedded-store types, in store order.
NODE_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("key", "STRING"), ("id", "STRING"), ("name", "STRING"), ("type", "STRING"),
    ("description", "STRING"), ("aliases", "STRING[]"), ("scenes", "INT64[]"),
    ("first_scene", "INT64"), ("last_scene", "INT64"), ("scope", "STRING"), ("movie", "STRING"),
    *EVIDENCE_PROPERTIES,
)
#: Relationship properties and their embedded-store types, in store order.
RELATION_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("key", "STRING"), ("id", "STRING"), ("name", "STRING"), ("description", "STRING"),
    ("scenes", "INT64[]"), ("first_scene", "INT64"), ("last_scene", "INT64"),
    ("persistence", "STRING"), ("movie", "STRING"), *EVIDENCE_PROPERTIES,
)
#: The label of scene nodes (graph.json's scene layer), beside the schema's entity types.
SCENE_LABEL = "Scene"
#: The relationship type from a character to a scene it is in.
IN_SCENE = "in_scene"
#: Scene node properties and their embedded-store types (the evidence lists are the markers').
SCENE_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("key", "STRING"), ("movie", "STRING"), ("scene", "INT64"), ("number", "STRING"), ("heading", "STRING"),
    ("years", "INT64[]"), ("marker_kinds", "STRING[]"), ("marker_texts", "STRING[]"),
    ("marker_sources", "STRING[]"), *EVIDENCE_PROPERTIES,
)
#: in_scene relationship properties and their embedded-store types.
PRESENCE_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("key", "STRING"), ("movie", "STRING"), ("scene", "INT64"), ("mode", "STRING"), *EVIDENCE_PROPERTIES,
)


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NodeRow(_Row):
    """One entity as a store node."""

    key: str = Field(description="Unique across movies: the JSON pair [movie, id].")
    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    scenes: list[int]
    first_scene: int | None
    last_scene: int | None
    scope: str
    movie: str
    evidence_scenes: list[int] = Field(description="Scene of each evidence item.")
    evidence_lines: list[str] = Field(description="Its source lines, 'first-last', '' if unknown.")
    evidence_quotes: list[str] = Field(description="Its verbatim quote.")
    evidence_producers: list[str] = Field(description="What produced it, e.g. 'rule:embrace'.")


class RelationRow(_Row):
    """One relation as a store relationship, with the ids and keys of its end nodes."""

    source: str
    target: str
    source_key: str
    target_key: str
    key: str
    id: str
    name: str
    description: str
    scenes: list[int]
    first_scene: int | None
    last_scene: int | None
    persistence: str
    movie: str
    evidence_scenes: list[int] = Field(description="Scene of each evidence item.")
    evidence_lines: list[str] = Field(description="Its source lines, 'first-last', '' if unknown.")
    evidence_quotes: list[str] = Field(description="Its verbatim quote.")
    evidence_producers: list[str] = Field(description="What produced it, e.g. 'rule:embrace'.")


class SceneRow(_Row):
    """One scene as a store node: its index, heading and time markers (flat parallel lists)."""

    key: str = Field(description="Unique across movies: the JSON pair [movie, 'scene:<index>'].")
    movie: str
    scene: int = Field(description="The scene index (screen order).")
    number: str = Field(description="The scene number as printed, '' if none.")
    heading: str
    years: list[int] = Field(description="The years its markers state.")
    marker_kinds: list[str] = Field(description="Kind of each time marker: year, present, ago, flashback, ...")
    marker_texts: list[str] = Field(description="Each marker as written.")
    marker_sources: list[str] = Field(description="Where each marker is: heading or title.")
    evidence_scenes: list[int] = Field(description="Scene of each marker's evidence.")
    evidence_lines: list[str]
    evidence_quotes: list[str]
    evidence_producers: list[str]


class PresenceRow(_Row):
    """One character in one scene as an `in_scene` relationship, with its mode and evidence."""

    source: str
    source_key: str
    target_key: str
    key: str
    movie: str
    scene: int
    mode: str = Field(description="present, offscreen, away or mentioned.")
    evidence_scenes: list[int]
    evidence_lines: list[str]
    evidence_quotes: list[str]
    evidence_producers: list[str]


class RelationGroup(_Row):
    """The relations of one type between one (subject type, object type) pair."""

    type: str
    source_type: str
    target_type: str
    rows: list[RelationRow]


class Refusal(_Row):
    """An entity or relation a store will not hold, and why."""

    kind: Literal["entity", "relation"]
    id: str
    reason: str


class StoreRows(_Row):
    """A graph ready for a store: nodes by entity type, relations by (type, pair), refusals."""

    movie: str
    nodes: dict[str, list[NodeRow]] = Field(description="Entity type -> rows, schema order.")
    relations: list[RelationGroup]
    refused: list[Refusal]
    scenes: list[SceneRow] = Field(default_factory=list, description="The scene layer's scenes.")
    presence: list[PresenceRow] = Field(default_factory=list, description="Who is in each scene.")
    presence_subject: str | None = Field(default=None, description="The entity type of the characters in scenes "
                                         "(the schema's person type).")

    def node_count(self) -> int:
        """How many nodes these rows hold (entities and scenes)."""
        return sum(len(rows) for rows in self.nodes.values()) + len(self.scenes)

    def relation_count(self) -> int:
        """How many relationships these rows hold (relations and presences)."""
        return sum(len(g.rows) for g in self.relations) + len(self.presence)


class LoadCounts(BaseModel):
    """What a load wrote: the movie's node and relationship counts, and what it refused."""

    model_config = ConfigDict(extra="forbid")

    store: str = Field(description="Where the graph went: a database path or a Bolt URI.")
    movie: str
    nodes: int
    relations: int
    refused: list[Refusal] = Field(default_factory=list)
    notes: list[str] = Field(
        default_factory=list,
        description="What the store would not do and how the load adapted (e.g. a Bolt server that "
        "refuses constraints); empty when it went as planned.")
    seconds: float


def safe_identifier(name: str) -> str:
    """Return `name` if it can stand unquoted as a label or type in Cypher.

    Raises:
        StoreError: the name is not a plain identifier (a broken schema file).
    """
    if not IDENTIFIER.match(name):
        raise StoreError(
            f"schema name {name!r} cannot be a Cypher label or type; use letters, digits and '_' "
            "(starting with a letter) in the schema file"
        )
    return name


def store_key(movie: str, item_id: str) -> str:
    """The store-wide unique key of an entity or relation of a movie."""
    return json.dumps([movie, item_id], ensure_ascii=False)


def evidence_lists(evidence: list[Evidence]) -> dict[str, list[int] | list[str]]:
    """Evidence as the flat parallel lists stores hold: item i of each list is evidence item i.

    Example:
        >>> ev = Evidence(scene=3, lines=(120, 122), quote="She runs.", producer="rule:action")
        >>> evidence_lists([ev])["evidence_lines"]
        ['120-122']
    """
    return {
        "evidence_scenes": [e.scene for e in evidence],
        "evidence_lines": [f"{e.lines[0]}-{e.lines[1]}" if e.lines else "" for e in evidence],
        "evidence_quotes": [e.quote for e in evidence],
        "evidence_producers": [e.producer for e in evidence],
    }


def scene_key(movie: str, index: int) -> str:
    """The store-wide unique key of a movie's scene."""
    return store_key(movie, f"scene:{index}")


def node_labels(schema: Schema) -> list[str]:
    """Every node label a store holds: the schema's entity types, then `Scene`.

    Raises:
        StoreError: a name is not a plain identifier, or the schema has an entity type `Scene`.
    """
    labels = [safe_identifier(t) for t in schema.entity_type_names()]
    if SCENE_LABEL in labels:
        raise StoreError(f"the schema has an entity type {SCENE_LABEL!r}, the label kgbuild gives scene nodes; "
                         "rename that type in the schema file")
    return [*labels, SCENE_LABEL]


def _scene_rows(graph: KnowledgeGraph, movie: str, types: dict[str, str], person: str | None,
                refused: list[Refusal]) -> tuple[list[SceneRow], list[PresenceRow]]:
    scenes, presence = [], []
    for record in graph.scenes:
        key = scene_key(movie, record.index)
        scenes.append(SceneRow(
            key=key, movie=movie, scene=record.index, number=record.number or "", heading=record.heading,
            years=[m.year for m in record.markers if m.year is not None],
            marker_kinds=[m.kind.value for m in record.markers], marker_texts=[m.text for m in record.markers],
            marker_sources=[m.source for m in record.markers],
            **evidence_lists([m.evidence for m in record.markers])))
        for p in record.presence:
            pid = f"presence:{record.index}:{p.character}"
            if person is None or types.get(p.character) != person:
                reason = ("not a stored entity" if p.character not in types
                          else "in a schema without a person type" if person is None
                          else f"a {types[p.character]}, not a {person}")
                refused.append(Refusal(kind="relation", id=pid, reason=f"{p.character!r} is {reason}"))
                continue
            presence.append(PresenceRow(
                source=p.character, source_key=store_key(movie, p.character), target_key=key,
                key=store_key(movie, pid), movie=movie, scene=record.index, mode=p.mode.value,
                **evidence_lists(p.evidence)))
    return scenes, presence


def _span(scenes: list[int]) -> tuple[int | None, int | None]:
    return (min(scenes), max(scenes)) if scenes else (None, None)


def _admitted_pairs(schema: Schema, relation: str) -> str:
    spec = schema.relation(relation)
    pairs = spec.pairs if spec else []
    return ", ".join(f"{s}->{o}" for s, o in pairs)


def prepare_rows(graph: KnowledgeGraph, *, movie: str | None = None,
                 schema: Schema | None = None) -> StoreRows:
    """Check a graph against the schema and turn it into store rows.

    Relation type synonyms (e.g. affiliated_with) are mapped to the schema's name. The scene layer
    becomes `Scene` rows and `in_scene` rows (a presence whose character is no stored Character
    is refused). Nothing in the graph is changed.

    Args:
        graph: The graph to store.
        movie: The movie name the rows carry; the graph's movie id when None.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        Rows per entity type and per relation group, scene and presence rows, plus every refused
        item with its reason.

    Raises:
        StoreError: a schema name is not a plain identifier.
    """
    schema = schema or load_schema()
    movie = graph.movie.key if movie is None else movie
    entity_types = node_labels(schema)[:-1]
    for name in schema.relation_type_names():
        safe_identifier(name)
    refused: list[Refusal] = []
    nodes: dict[str, list[NodeRow]] = {t: [] for t in entity_types}
    types: dict[str, str] = {}
    for e in graph.entities:
        if e.type not in nodes:
            refused.append(Refusal(kind="entity", id=e.id, reason=(
                f"entity type {e.type!r} is not in the schema (known: {', '.join(entity_types)})")))
            continue
        if e.id in types:
            refused.append(Refusal(kind="entity", id=e.id, reason="duplicate entity id"))
            continue
        types[e.id] = e.type
        first, last = _span(e.scenes)
        nodes[e.type].append(NodeRow(
            key=store_key(movie, e.id), id=e.id, name=e.name, type=e.type,
            description=e.description, aliases=list(e.aliases), scenes=list(e.scenes),
            first_scene=first, last_scene=last, scope=e.scope.value, movie=movie,
            **evidence_lists(e.evidence),
        ))
    groups: dict[tuple[str, str, str], list[RelationRow]] = {}
    seen: set[str] = set()
    for r in graph.relations:
        rtype = schema.canonical_relation(r.type)
        reason = None
        if schema.relation(rtype) is None:
            reason = f"relation type {r.type!r} is not in the schema"
        elif r.source not in types or r.target not in types:
            missing = r.source if r.source not in types else r.target
            reason = f"end {missing!r} is not a stored entity"
        elif not schema.is_admissible(rtype, types[r.source], types[r.target]):
            reason = (f"{types[r.source]} -{rtype}-> {types[r.target]} is not admitted by the "
                      f"schema ({rtype} admits {_admitted_pairs(schema, rtype)})")
        elif r.id in seen:
            reason = "duplicate relation id"
        if reason:
            refused.append(Refusal(kind="relation", id=r.id, reason=reason))
            continue
        seen.add(r.id)
        first, last = _span(r.scenes)
        groups.setdefault((rtype, types[r.source], types[r.target]), []).append(RelationRow(
            source=r.source, target=r.target,
            source_key=store_key(movie, r.source), target_key=store_key(movie, r.target),
            key=store_key(movie, r.id), id=r.id, name=r.name, description=r.description,
            scenes=list(r.scenes), first_scene=first, last_scene=last,
            persistence=r.persistence.value, movie=movie, **evidence_lists(r.evidence),
        ))
    order = {name: i for i, name in enumerate(schema.relation_type_names())}
    relations = [
        RelationGroup(type=t, source_type=s, target_type=o, rows=rows)
        for (t, s, o), rows in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1:]))
    ]
    person = schema.type_for_role("person")
    scenes, presence = _scene_rows(graph, movie, types, person, refused)
    return StoreRows(movie=movie, nodes=nodes, relations=relations, refused=refused, scenes=scenes,
                     presence=presence, presence_subject=person)


def refusal_summary(refused: list[Refusal], *, limit: int = 5) -> str:
    """One line per refused item (at most `limit`, then a count of the rest)."""
    lines = [f"{r.kind} {r.id}: {r.reason}" for r in refused[:limit]]
    if len(refused) > limit:
        lines.append(f"... and {len(refused) - limit} more")
    return "\n".join(lines)


def checked_rows(graph: KnowledgeGraph, *, movie: str | None, schema: Schema, strict: bool) -> StoreRows:
    """`prepare_rows`, refusing the whole graph in strict mode when anything breaks the schema.

    Raises:
        StoreError: strict and something was refused (nothing is written then).
    """
    rows = prepare_rows(graph, movie=movie, schema=schema)
    if rows.refused:
        if strict:
            raise StoreError(f"{len(rows.refused)} items break the schema, nothing loaded:\n"
                             f"{refusal_summary(rows.refused)}\nfix the graph, or load without --strict")
        logger.info("refused %d items that break the schema:\n%s", len(rows.refused),
                    refusal_summary(rows.refused))
    return rows
