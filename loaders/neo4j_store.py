"""Neo4j, for users who run one: the load plan executed with the official driver.

The statements come from `kgbuild.loaders.plan` (labels and types whitelisted from the schema,
values as parameters). Each statement runs in its own managed transaction
(`session.execute_write`), which the driver retries on transient errors; a per-movie delete runs
in bounded batches until nothing is left, so no transaction grows with the graph.

Example:
    >>> load_neo4j(graph, "bolt://localhost:7687", user="neo4j", password="...")  # doctest: +SKIP
    LoadCounts(store='bolt://localhost:7687', movie='LIZARD PEOPLE', nodes=644, ...)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import neo4j
from neo4j.exceptions import DriverError, Neo4jError
from neo4j.graph import Node, Path, Relationship

from kgbuild.loaders.dialect import check_parameters
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.plan import (
    COUNT_NODES,
    COUNT_RELATIONS,
    DEFAULT_BATCH_SIZE,
    Statement,
    plan_constraints,
    plan_load,
)
from kgbuild.loaders.records import LoadCounts, checked_rows
from kgbuild.loaders.results import QueryResult
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)

_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


@contextmanager
def _driver(uri: str, user: str, password: str) -> Iterator[neo4j.Driver]:
    if urlsplit(uri).scheme not in _SCHEMES:
        raise StoreError(f"{uri!r} is not a Neo4j address; write e.g. bolt://localhost:7687 "
                         f"(schemes: {', '.join(_SCHEMES)})")
    try:
        driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))
        driver.verify_connectivity()
    except (DriverError, Neo4jError) as e:
        raise StoreError(
            f"cannot reach Neo4j at {uri}: {' '.join(str(e).split())}; is it running (docker compose -f docker/compose.yaml "
            "up -d) and are NEO4J_USERNAME / NEO4J_PASSWORD right?"
        ) from e
    try:
        yield driver
    finally:
        driver.close()


def _write(tx: neo4j.ManagedTransaction, cypher: str, params: dict[str, Any]) -> int:
    record = tx.run(cypher, params).single()
    return int(record[0]) if record is not None else 0


def execute_plan(session: neo4j.Session, statements: list[Statement]) -> None:
    """Run planned statements, each in a managed write transaction (retried by the driver)."""
    for statement in statements:
        deleted = session.execute_write(_write, statement.cypher, statement.params)
        while statement.repeat_until_zero and deleted:
            deleted = session.execute_write(_write, statement.cypher, statement.params)


def _count(tx: neo4j.ManagedTransaction, movie: str) -> tuple[int, int]:
    nodes = tx.run(COUNT_NODES, movie=movie).single()[0]
    relations = tx.run(COUNT_RELATIONS, movie=movie).single()[0]
    return int(nodes), int(relations)


def load_neo4j(graph: KnowledgeGraph, uri: str, *, user: str, password: str,
               database: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
               replace: bool = False, movie: str | None = None, strict: bool = False,
               schema: Schema | None = None) -> LoadCounts:
    """Load a graph into Neo4j: constraints first, then batched `UNWIND $rows ... MERGE`.

    Args:
        graph: The graph; not changed.
        uri: bolt:// or neo4j:// address.
        user: Neo4j user name.
        password: Its password.
        database: The database; the server's default when None.
        batch_size: Rows per transaction.
        replace: Delete this movie's nodes and relationships first (other movies stay).
        movie: The movie name stored on every row; the graph's title when None.
        strict: Refuse the whole load when anything breaks the schema.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        The movie's node and relationship counts after the load, and the refused items.

    Raises:
        StoreError: strict and something was refused; Neo4j unreachable or the write failed.
    """
    start = time.perf_counter()
    schema = schema or load_schema()
    rows = checked_rows(graph, movie=movie, schema=schema, strict=strict)
    statements = plan_constraints(schema) + plan_load(rows, batch_size=batch_size, replace=replace)
    with _driver(uri, user, password) as driver, driver.session(database=database) as session:
        try:
            execute_plan(session, statements)
            nodes, relations = session.execute_read(_count, rows.movie)
        except (DriverError, Neo4jError) as e:
            raise StoreError(f"loading into Neo4j at {uri} failed: {e}") from e
    return LoadCounts(store=uri, movie=rows.movie, nodes=nodes, relations=relations,
                      refused=rows.refused, seconds=round(time.perf_counter() - start, 3))


def _plain(value: Any) -> Any:
    if isinstance(value, Node):
        return {"label": next(iter(sorted(value.labels)), None), **dict(value)}
    if isinstance(value, Relationship):
        return {"label": value.type, **dict(value)}
    if isinstance(value, Path):
        return {"nodes": [_plain(n) for n in value.nodes],
                "relationships": [_plain(r) for r in value.relationships]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _fetch(tx: neo4j.ManagedTransaction, cypher: str, params: dict[str, Any]) -> QueryResult:
    result = tx.run(cypher, params)
    columns = list(result.keys())
    return QueryResult(columns=columns, rows=[[_plain(v) for v in record.values()] for record in result])


def run_query_neo4j(uri: str, cypher: str, params: dict[str, Any] | None = None, *, user: str,
                    password: str, database: str | None = None, write: bool = False) -> QueryResult:
    """Run one Cypher query on Neo4j, in a read transaction unless `write`.

    Raises:
        QueryError: parameters wrong, or Neo4j refused the query.
        StoreError: Neo4j unreachable.
    """
    params = params or {}
    check_parameters(cypher, params)
    with _driver(uri, user, password) as driver, driver.session(database=database) as session:
        run = session.execute_write if write else session.execute_read
        try:
            return run(_fetch, cypher, params)
        except Neo4jError as e:
            raise QueryError(f"Neo4j refused the query: {e.message or e}") from e
        except DriverError as e:
            raise StoreError(f"querying Neo4j at {uri} failed: {e}") from e
