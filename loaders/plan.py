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

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.records import (
    NODE_PROPERTIES,
    RELATION_PROPERTIES,
    StoreRows,
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


def _set_clause(var: str, properties: tuple[tuple[str, str], ...]) -> str:
    return "SET " + ", ".join(f"{var}.{name} = row.{name}" for name, _ in properties if name != "key")


def node_cypher(label: str, verb: Verb = "MERGE") -> str:
    """The statement that merges (or creates) a batch of `$rows` as nodes of one label."""
    return (f"UNWIND $rows AS row\n{verb} (n:{safe_identifier(label)} {{key: row.key}})\n"
            + _set_clause("n", NODE_PROPERTIES))


def relation_cypher(rel_type: str, source_label: str, target_label: str, verb: Verb = "MERGE") -> str:
    """The statement that merges (or creates) a batch of `$rows` as relationships of one type."""
    return (
        "UNWIND $rows AS row\n"
        f"MATCH (a:{safe_identifier(source_label)} {{key: row.source_key}})\n"
        f"MATCH (b:{safe_identifier(target_label)} {{key: row.target_key}})\n"
        f"{verb} (a)-[r:{safe_identifier(rel_type)} {{key: row.key}}]->(b)\n"
        + _set_clause("r", RELATION_PROPERTIES)
    )


def delete_cypher(label: str) -> str:
    """The statement that deletes up to `$limit` nodes (and their relationships) of `$movie`."""
    return (f"MATCH (n:{safe_identifier(label)}) WHERE n.movie = $movie\n"
            "WITH n LIMIT $limit\nDETACH DELETE n\nRETURN count(*) AS deleted")


def plan_constraints(schema: Schema | None = None) -> list[Statement]:
    """Neo4j schema statements: a uniqueness constraint on `key` and an index on `movie` per label.

    Idempotent (`IF NOT EXISTS`); run them before the first load.
    """
    schema = schema or load_schema()
    statements = []
    for label in map(safe_identifier, schema.entity_type_names()):
        statements.append(Statement(purpose="schema", cypher=(
            f"CREATE CONSTRAINT kgbuild_{label}_key IF NOT EXISTS "
            f"FOR (n:{label}) REQUIRE n.key IS UNIQUE")))
        statements.append(Statement(purpose="schema", cypher=(
            f"CREATE INDEX kgbuild_{label}_movie IF NOT EXISTS FOR (n:{label}) ON (n.movie)")))
    return statements


def plan_load(rows: StoreRows, *, batch_size: int = DEFAULT_BATCH_SIZE,
              replace: bool = False) -> list[Statement]:
    """The statements that write `rows`: optional per-movie delete, then nodes, then relationships.

    Args:
        rows: Checked rows from `prepare_rows`.
        batch_size: Rows per statement (and per transaction on Neo4j); at least 1.
        replace: Delete the movie's nodes and relationships first, so the movie ends up holding
            exactly these rows (then created, not merged: nothing of the movie is left); other
            movies are untouched. Without it, rows are merged on their keys (a reload gives the
            same counts; items no longer in the graph stay).

    Returns:
        Statements to run in order; empty batches are never planned.

    Raises:
        ValueError: batch_size below 1.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    statements: list[Statement] = []
    verb: Verb = "CREATE" if replace else "MERGE"
    if replace:
        statements += [
            Statement(purpose="delete", cypher=delete_cypher(label),
                      params={"movie": rows.movie, "limit": batch_size}, repeat_until_zero=True)
            for label in rows.nodes
        ]
    for label, node_rows in rows.nodes.items():
        cypher = node_cypher(label, verb)
        for start in range(0, len(node_rows), batch_size):
            batch = [r.model_dump() for r in node_rows[start:start + batch_size]]
            statements.append(Statement(purpose="nodes", cypher=cypher, params={"rows": batch}))
    for group in rows.relations:
        cypher = relation_cypher(group.type, group.source_type, group.target_type, verb)
        for start in range(0, len(group.rows), batch_size):
            batch = [r.model_dump(exclude=_ENDPOINT_IDS) for r in group.rows[start:start + batch_size]]
            statements.append(Statement(purpose="relations", cypher=cypher, params={"rows": batch}))
    return statements
