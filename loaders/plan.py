"""The Cypher statements that load a graph: pure data, run by the Neo4j and embedded writers.

Labels and relationship types come from the schema (checked as plain identifiers); every value
travels as a parameter. The load statements use only Cypher both dialects accept (`UNWIND`,
`MERGE` on a key, one `SET x.k = row.k` per property), so the embedded store runs the very
statements Neo4j gets, and the tests check them against a recorded expectation.

Example:
    >>> statements = plan_load(prepare_rows(graph), batch_size=1000)  # doctest: +SKIP
    >>> statements[0].cypher.splitlines()[1]  # doctest: +SKIP
    'MERGE (n:Character {key: row.key})'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.records import (
    EVIDENCE_PROPERTIES,
    IN_SCENE,
    NODE_PROPERTIES,
    PRESENCE_PROPERTIES,
    RELATION_PROPERTIES,
    SCENE_LABEL,
    SCENE_PROPERTIES,
    StoreRows,
    node_labels,
    safe_identifier,
)
from kgbuild.schema import Schema, load_schema

Verb = Literal["MERGE", "CREATE"]

#: Rows per `UNWIND $rows` batch (one transaction each on Neo4j).
DEFAULT_BATCH_SIZE = 1000
#: How many nodes of `$movie` a store holds (same text on both stores).
COUNT_NODES = "MATCH (n) WHERE n.movie = $movie RETURN count(n) AS nodes"
#: How many relationships of `$movie` a store holds.
COUNT_RELATIONS = "MATCH ()-[r]->() WHERE r.movie = $movie RETURN count(r) AS relations"
#: The movies a store holds.
STORE_MOVIES = "MATCH (n) WHERE n.movie IS NOT NULL RETURN DISTINCT n.movie AS movie ORDER BY movie"


class Statement(BaseModel):
    """One Cypher statement with its parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    purpose: Literal["schema", "delete", "nodes", "relations"]
    cypher: str
    params: dict[str, Any] = Field(default_factory=dict)
    repeat_until_zero: bool = Field(
        default=False,
        description="Run again until it returns deleted = 0 (deletes in bounded batches).",
    )


_ENDPOINT_IDS = {"source", "target"}  # the statements find end nodes by key
_EVIDENCE = tuple(name for name, _ in EVIDENCE_PROPERTIES)


def _set_clause(var: str, properties: tuple[tuple[str, str], ...]) -> str:
    return "SET " + ", ".join(f"{var}.{name} = row.{name}" for name, _ in properties if name != "key")


def node_cypher(label: str, verb: Verb = "MERGE", properties: tuple[tuple[str, str], ...] = NODE_PROPERTIES) -> str:
    """The statement that merges (or creates) a batch of `$rows` as nodes of one label."""
    return (f"UNWIND $rows AS row\n{verb} (n:{safe_identifier(label)} {{key: row.key}})\n"
            + _set_clause("n", properties))


def relation_cypher(rel_type: str, source_label: str, target_label: str, verb: Verb = "MERGE",
                    properties: tuple[tuple[str, str], ...] = RELATION_PROPERTIES) -> str:
    """The statement that merges (or creates) a batch of `$rows` as relationships of one type."""
    return (
        "UNWIND $rows AS row\n"
        f"MATCH (a:{safe_identifier(source_label)} {{key: row.source_key}})\n"
        f"MATCH (b:{safe_identifier(target_label)} {{key: row.target_key}})\n"
        f"{verb} (a)-[r:{safe_identifier(rel_type)} {{key: row.key}}]->(b)\n"
        + _set_clause("r", properties)
    )


def node_evidence_cypher(label: str) -> str:
    """The statement that appends `$evidence_*` items to the evidence lists of node `$key`."""
    return (f"MATCH (n:{safe_identifier(label)} {{key: $key}})\n"
            + "SET " + ", ".join(f"n.{name} = n.{name} + ${name}" for name in _EVIDENCE))


def relation_evidence_cypher(rel_type: str, source_label: str, target_label: str) -> str:
    """The statement that appends `$evidence_*` items to the evidence lists of relationship `$key`."""
    return (f"MATCH (:{safe_identifier(source_label)} {{key: $source_key}})"
            f"-[r:{safe_identifier(rel_type)} {{key: $key}}]->"
            f"(:{safe_identifier(target_label)} {{key: $target_key}})\n"
            + "SET " + ", ".join(f"r.{name} = r.{name} + ${name}" for name in _EVIDENCE))


def delete_cypher(label: str) -> str:
    """The statement that deletes up to `$limit` nodes (and their relationships) of `$movie`."""
    return (f"MATCH (n:{safe_identifier(label)}) WHERE n.movie = $movie\n"
            "WITH n LIMIT $limit\nDETACH DELETE n\nRETURN count(*) AS deleted")


def constraint_cypher(label: str) -> str:
    """Neo4j's uniqueness constraint on `key` for one label (idempotent)."""
    label = safe_identifier(label)
    return f"CREATE CONSTRAINT kgbuild_{label}_key IF NOT EXISTS FOR (n:{label}) REQUIRE n.key IS UNIQUE"


def movie_index_cypher(label: str) -> str:
    """Neo4j's named index on `movie` for one label (idempotent)."""
    label = safe_identifier(label)
    return f"CREATE INDEX kgbuild_{label}_movie IF NOT EXISTS FOR (n:{label}) ON (n.movie)"


def plain_index_cypher(label: str, prop: str) -> str:
    """An unnamed index in the form most Bolt servers take (FalkorDB too); not idempotent."""
    return f"CREATE INDEX FOR (n:{safe_identifier(label)}) ON (n.{safe_identifier(prop)})"


def plan_constraints(schema: Schema | None = None) -> list[Statement]:
    """Neo4j schema statements: a uniqueness constraint on `key` and an index on `movie` per label
    (the entity types and `Scene`).

    Idempotent (`IF NOT EXISTS`); run them before the first load. Servers that refuse them are
    handled by `kgbuild.loaders.bolt_schema`.
    """
    schema = schema or load_schema()
    statements = []
    for label in node_labels(schema):
        statements.append(Statement(purpose="schema", cypher=constraint_cypher(label)))
        statements.append(Statement(purpose="schema", cypher=movie_index_cypher(label)))
    return statements


class LoadProgress(BaseModel):
    """How far a load has got: statements run, and nodes and relationships written, of the plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    statements: int = 0
    statements_total: int
    nodes: int = 0
    nodes_total: int
    relations: int = 0
    relations_total: int

    @classmethod
    def of(cls, statements: list[Statement]) -> LoadProgress:
        """Nothing done yet of these statements."""
        def rows(purpose: str) -> int:
            return sum(len(s.params.get("rows", [])) for s in statements if s.purpose == purpose)

        return cls(statements_total=len(statements), nodes_total=rows("nodes"),
                   relations_total=rows("relations"))

    def after(self, statement: Statement) -> LoadProgress:
        """The progress once `statement` has committed."""
        written = len(statement.params.get("rows", []))
        return self.model_copy(update={
            "statements": self.statements + 1,
            "nodes": self.nodes + (written if statement.purpose == "nodes" else 0),
            "relations": self.relations + (written if statement.purpose == "relations" else 0),
        })

    def describe(self) -> str:
        """'after 350 of 1,000 nodes and 0 of 2,800 relationships (8 of 40 statements done)'."""
        return (f"after {self.nodes:,} of {self.nodes_total:,} nodes and {self.relations:,} of "
                f"{self.relations_total:,} relationships ({self.statements} of "
                f"{self.statements_total} statements done)")


def message_bytes(cypher: str, params: dict[str, Any]) -> int:
    """An upper bound of a statement's size on the wire: its text plus its parameters as JSON."""
    return len(cypher.encode()) + len(json.dumps(params, ensure_ascii=False, default=str).encode())


#: How a statement's size is measured: (cypher, params) -> bytes.
Measure = Callable[[str, dict[str, Any]], int]


def _evidence_pieces(purpose: Literal["nodes", "relations"], cypher: str, row: dict[str, Any],
                     identity: tuple[str, ...], max_bytes: int, measure: Measure) -> list[Statement]:
    """Statements appending a row's evidence items, as many per statement as fit in max_bytes."""
    ident = {k: row[k] for k in identity}
    items = list(zip(*(row[name] for name in _EVIDENCE), strict=True))

    def params(piece: list[tuple[Any, ...]]) -> dict[str, Any]:
        return {**ident, **{name: [item[i] for item in piece] for i, name in enumerate(_EVIDENCE)}}

    statements: list[Statement] = []
    piece: list[tuple[Any, ...]] = []
    for item in items:
        if piece and measure(cypher, params([*piece, item])) > max_bytes:
            statements.append(Statement(purpose=purpose, cypher=cypher, params=params(piece)))
            piece = []
        if measure(cypher, params([item])) > max_bytes:
            raise StoreError(f"an evidence item of {row['key']} is too big for this server "
                             f"({measure(cypher, params([item]))} bytes; it takes {max_bytes} per "
                             "statement); load into Neo4j or the embedded store instead")
        piece.append(item)
    if piece:
        statements.append(Statement(purpose=purpose, cypher=cypher, params=params(piece)))
    return statements


def _batches(purpose: Literal["nodes", "relations"], cypher: str, rows: list[dict[str, Any]], *,
             batch_size: int, max_bytes: int | None, evidence_cypher: str,
             identity: tuple[str, ...], measure: Measure) -> list[Statement]:
    """`rows` in batches of at most batch_size rows and max_bytes; a row too big on its own is
    written without its evidence, which is then appended in pieces."""
    statements: list[Statement] = []
    batch: list[dict[str, Any]] = []
    for row in rows:
        fits = max_bytes is None or measure(cypher, {"rows": [*batch, row]}) <= max_bytes
        if batch and (len(batch) == batch_size or not fits):
            statements.append(Statement(purpose=purpose, cypher=cypher, params={"rows": batch}))
            batch = []
        if max_bytes is None or measure(cypher, {"rows": [row]}) <= max_bytes:
            batch.append(row)
            continue
        bare = {**row, **{name: [] for name in _EVIDENCE}}
        if measure(cypher, {"rows": [bare]}) > max_bytes:
            raise StoreError(f"{row['key']} is too big for this server ({measure(cypher, {'rows': [bare]})} "
                             f"bytes without its evidence; it takes {max_bytes} per statement); load into "
                             "Neo4j or the embedded store instead")
        statements.append(Statement(purpose=purpose, cypher=cypher, params={"rows": [bare]}))
        statements += _evidence_pieces(purpose, evidence_cypher, row, identity, max_bytes, measure)
    if batch:
        statements.append(Statement(purpose=purpose, cypher=cypher, params={"rows": batch}))
    return statements


def plan_load(rows: StoreRows, *, batch_size: int = DEFAULT_BATCH_SIZE,
              replace: bool = False, max_bytes: int | None = None,
              measure: Measure = message_bytes) -> list[Statement]:
    """The statements that write `rows`: optional per-movie delete, then nodes, then relationships,
    then the scene layer (`Scene` nodes, then `in_scene` relationships).

    Args:
        rows: Checked rows from `prepare_rows`.
        batch_size: Rows per statement (and per transaction on Neo4j); at least 1.
        replace: Delete the movie's nodes and relationships first, so the movie ends up holding
            exactly these rows (then created, not merged: nothing of the movie is left); other
            movies are untouched. Without it, rows are merged on their keys (a reload gives the
            same counts; items no longer in the graph stay).
        max_bytes: Keep every statement under this size, for servers that fail on larger
            messages: batches are cut by size too, and a row too big on its own is written
            without its evidence, which is then appended a few items at a time.
        measure: How a statement's size is measured; `message_bytes` unless the server sees
            the parameters in another form.

    Returns:
        Statements to run in order; empty batches are never planned.

    Raises:
        ValueError: batch_size below 1.
        StoreError: a row is too big for max_bytes even without its evidence.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    statements: list[Statement] = []
    verb: Verb = "CREATE" if replace else "MERGE"
    if replace:
        statements += [
            Statement(purpose="delete", cypher=delete_cypher(label),
                      params={"movie": rows.movie, "limit": batch_size}, repeat_until_zero=True)
            for label in [*rows.nodes, SCENE_LABEL]
        ]
    for label, node_rows in rows.nodes.items():
        statements += _batches("nodes", node_cypher(label, verb), [r.model_dump() for r in node_rows],
                               batch_size=batch_size, max_bytes=max_bytes,
                               evidence_cypher=node_evidence_cypher(label), identity=("key",),
                               measure=measure)
    for group in rows.relations:
        statements += _batches(
            "relations", relation_cypher(group.type, group.source_type, group.target_type, verb),
            [r.model_dump(exclude=_ENDPOINT_IDS) for r in group.rows], batch_size=batch_size,
            max_bytes=max_bytes, identity=("key", "source_key", "target_key"), measure=measure,
            evidence_cypher=relation_evidence_cypher(group.type, group.source_type, group.target_type))
    if rows.scenes:
        statements += _batches("nodes", node_cypher(SCENE_LABEL, verb, SCENE_PROPERTIES),
                               [r.model_dump() for r in rows.scenes], batch_size=batch_size,
                               max_bytes=max_bytes, evidence_cypher=node_evidence_cypher(SCENE_LABEL),
                               identity=("key",), measure=measure)
    if rows.presence and rows.presence_subject is not None:
        person = rows.presence_subject
        statements += _batches(
            "relations", relation_cypher(IN_SCENE, person, SCENE_LABEL, verb, PRESENCE_PROPERTIES),
            [r.model_dump(exclude={"source"}) for r in rows.presence], batch_size=batch_size,
            max_bytes=max_bytes, identity=("key", "source_key", "target_key"), measure=measure,
            evidence_cypher=relation_evidence_cypher(IN_SCENE, person, SCENE_LABEL))
    return statements
