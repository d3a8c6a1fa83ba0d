"""Bolt servers (Neo4j, FalkorDB): the load plan executed with the official `neo4j` driver.

The statements come from `kgbuild.loaders.plan` (labels and types whitelisted from the schema,
values as parameters). Each statement runs in its own managed transaction
(`session.execute_write`), which the driver retries on transient errors; a per-movie delete runs
in bounded batches until nothing is left, so no transaction grows with the graph. An empty
password means a server without authentication.

What the server supports is found by trying (`kgbuild.loaders.bolt_schema`), and how the load
adapted is reported in `LoadCounts.notes`. FalkorDB's Bolt server, which calls itself
"Neo4j/5.13.0", needs three adaptations: it writes parameters into the query text (strings are
escaped and statements kept under `SMALL_MESSAGE_BYTES`), it refuses Neo4j's constraints and
named indexes (plain indexes stand in), and it never answers a connection that reuses the socket
of a client that said GOODBYE (kgbuild closes without GOODBYE there, and a connection attempt
gets `FIRST_CONNECT_SECONDS` before a second one gets the driver's full time).

Example:
    >>> with BoltStore("bolt://localhost:7687", user="neo4j", password="...") as store:  # doctest: +SKIP
    ...     counts = store.load(graph)
    ...     store.query("MATCH (c:Character) RETURN count(c) AS n").rows
    [[12]]
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import neo4j
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable
from neo4j.graph import Node, Path, Relationship

from kgbuild.loaders.bolt_schema import adapt_schema, escape_for_text, parameters_in_text
from kgbuild.loaders.dialect import check_parameters
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.plan import (
    COUNT_NODES,
    COUNT_RELATIONS,
    DEFAULT_BATCH_SIZE,
    STORE_MOVIES,
    LoadProgress,
    Statement,
    message_bytes,
    plan_load,
)
from kgbuild.loaders.records import LoadCounts, StoreRows, checked_rows
from kgbuild.loaders.results import QueryResult
from kgbuild.loaders.store import BOLT_SCHEMES, StoreKind, is_bolt_address
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)

#: How long the first connection attempt may take before a second one (with the driver's full
#: 60 s) is made; FalkorDB never answers a connection reusing the socket of a client that said GOODBYE.
FIRST_CONNECT_SECONDS = 1.0
#: The largest statement (`plan.message_bytes` of the escaped parameters) sent to a server that
#: writes parameters into the query text: FalkorDB writes them into a 4,096-byte buffer and
#: crashes when they overflow it.
SMALL_MESSAGE_BYTES = 3500
#: How long the driver keeps retrying a transaction after transient errors or a lost connection.
DEFAULT_RETRY_SECONDS = 30.0
_INDEX_LISTINGS = ("SHOW INDEXES YIELD labelsOrTypes AS labels, properties RETURN labels, properties",
                   "CALL db.indexes() YIELD label, properties RETURN [label] AS labels, properties")


def _one_line(error: BaseException) -> str:
    text = error.message if isinstance(error, Neo4jError) and error.message else str(error)
    return " ".join(text.split()) or type(error).__name__


def _reason(error: Neo4jError) -> str:
    if (error.code or "").endswith("UnknownError"):
        return (f"{_one_line(error)}; the server gave no reason (FalkorDB answers so for Cypher it "
                "does not support)")
    return _one_line(error)


def _where(progress: LoadProgress | None) -> str:
    return progress.describe() if progress is not None else "while preparing the schema, before any data"


def _write(tx: neo4j.ManagedTransaction, cypher: str, params: dict[str, Any]) -> int:
    record = tx.run(cypher, params).single()
    return int(record[0]) if record is not None else 0


def _fetch(tx: neo4j.ManagedTransaction, cypher: str, params: dict[str, Any]) -> QueryResult:
    result = tx.run(cypher, params)
    columns = list(result.keys())
    return QueryResult(columns=columns, rows=[[_plain(v) for v in record.values()] for record in result])


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


def _close_quietly(driver: neo4j.Driver) -> None:
    """Close a driver's idle connections without Bolt's GOODBYE.

    FalkorDB frees a client on GOODBYE but keeps its socket in the event loop, so the next
    connection that gets the same file descriptor is never answered. A socket closed without
    GOODBYE is cleaned up properly. The driver has no public way to skip GOODBYE, so this reaches
    into its pool (`Bolt.kill`: no flush, no goodbye); when the pool looks different, nothing
    happens here and `driver.close()` says goodbye as usual (the next connection then needs
    the second attempt in `BoltStore._connect`).
    """
    pools = getattr(getattr(driver, "_pool", None), "connections", None)
    if not isinstance(pools, dict):
        return
    for connections in pools.values():
        for connection in list(connections):
            kill = getattr(connection, "kill", None)
            if callable(kill) and not getattr(connection, "in_use", False):
                kill()


class _SessionSchema:
    """`bolt_schema.SchemaServer` over a session: a refusal is a reason, a lost connection raises."""

    def __init__(self, session: neo4j.Session) -> None:
        self._session = session

    def attempt(self, cypher: str) -> str | None:
        try:
            self._session.execute_write(_write, cypher, {})
        except Neo4jError as e:
            return _one_line(e)
        return None

    def indexes(self) -> set[tuple[str, str]] | None:
        for listing in _INDEX_LISTINGS:
            try:
                rows = self._session.execute_read(_fetch, listing, {}).rows
            except Neo4jError:
                continue
            return {(label, prop) for labels, props in rows for label in labels or [] for prop in props or []}
        return None


class BoltStore:
    """A Bolt server (Neo4j, FalkorDB) as a `kgbuild.loaders.store.GraphStore`; close it, or use `with`.

    Args:
        uri: bolt:// or neo4j:// address (FalkorDB: bolt:// only).
        user: The user name; unused when `password` is empty.
        password: Its password; empty for a server without authentication.
        database: The database; the server's default when None (FalkorDB ignores it).
        retry_seconds: How long a transaction is retried after transient errors or a lost connection.

    Raises:
        StoreError: not a Bolt address, or the server cannot be reached or refuses the credentials.
    """

    kind: StoreKind = "bolt"

    def __init__(self, uri: str, *, user: str = "neo4j", password: str, database: str | None = None,
                 retry_seconds: float = DEFAULT_RETRY_SECONDS) -> None:
        if not is_bolt_address(uri):
            raise StoreError(f"{uri!r} is not a Bolt address; write e.g. bolt://localhost:7687 "
                             f"(schemes: {', '.join(BOLT_SCHEMES)})")
        self.uri = uri
        self.where = uri
        self.database = database
        auth = (user, password) if password else None
        self._driver = neo4j.GraphDatabase.driver(uri, auth=auth, max_transaction_retry_time=retry_seconds)
        self.parameters_in_text = False
        try:
            self._connect()
            self.parameters_in_text = parameters_in_text(self._echo)
        except StoreError:
            self._driver.close()
            raise
        except (DriverError, Neo4jError) as e:
            self._driver.close()
            hint = ("set NEO4J_PASSWORD (and NEO4J_USERNAME) if the server wants them" if auth is None
                    else "are NEO4J_USERNAME / NEO4J_PASSWORD right? NEO4J_PASSWORD='' for a server "
                    "without authentication (FalkorDB)")
            raise StoreError(
                f"cannot reach the Bolt server at {uri}: {_one_line(e)}; is it running (Neo4j: docker "
                f"compose -f docker/compose.yaml up -d)? {hint}") from e

    def _connect(self) -> None:
        try:
            with self._driver.session(database=self.database,
                                      connection_acquisition_timeout=FIRST_CONNECT_SECONDS) as session:
                session.run("RETURN 1 AS ok").consume()
        except ServiceUnavailable as e:
            logger.info("no answer from %s within %.1f s (%s); trying once more", self.uri,
                        FIRST_CONNECT_SECONDS, _one_line(e))
            with self._driver.session(database=self.database) as session:
                session.run("RETURN 1 AS ok").consume()

    def _echo(self, value: str) -> str | None:
        try:
            with self._driver.session(database=self.database) as session:
                record = session.run("RETURN $value AS value", value=value).single()
                return None if record is None else record[0]
        except Neo4jError:
            return None

    def _wire(self, params: dict[str, Any]) -> dict[str, Any]:
        """The parameters as this server must get them."""
        return escape_for_text(params) if self.parameters_in_text else params

    def _measure(self, cypher: str, params: dict[str, Any]) -> int:
        return message_bytes(cypher, self._wire(params))

    def close(self) -> None:
        """Close the connections (on FalkorDB without saying goodbye, see `_close_quietly`)."""
        if self.parameters_in_text:
            _close_quietly(self._driver)
        self._driver.close()

    def __enter__(self) -> BoltStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def query(self, cypher: str, params: dict[str, Any] | None = None, *,
              write: bool = False) -> QueryResult:
        """Run one Cypher query, in a read transaction unless `write`.

        Raises:
            QueryError: parameters wrong, or the server refused the query.
            StoreError: the connection was lost.
        """
        params = params or {}
        check_parameters(cypher, params)
        if self.parameters_in_text and self._measure(cypher, params) > SMALL_MESSAGE_BYTES:
            raise QueryError(f"the query and its parameters take {self._measure(cypher, params):,} bytes; "
                             f"the server at {self.uri} writes parameters into the query text, as "
                             f"FalkorDB does, and takes at most {SMALL_MESSAGE_BYTES:,}")
        with self._driver.session(database=self.database) as session:
            run = session.execute_write if write else session.execute_read
            try:
                return run(_fetch, cypher, self._wire(params))
            except Neo4jError as e:
                raise QueryError(f"the server at {self.uri} refused the query: {_reason(e)}") from e
            except DriverError as e:
                raise StoreError(f"querying {self.uri} failed: {_one_line(e)}") from e

    def movies(self) -> list[str]:
        """The movies the server holds, sorted."""
        return [str(row[0]) for row in self.query(STORE_MOVIES).rows]

    def counts(self, movie: str) -> tuple[int, int]:
        """Nodes and relationships of one movie on the server."""
        nodes = self.query(COUNT_NODES, {"movie": movie}).rows[0][0]
        return int(nodes), int(self.query(COUNT_RELATIONS, {"movie": movie}).rows[0][0])

    def load(self, graph: KnowledgeGraph, *, batch_size: int = DEFAULT_BATCH_SIZE,
             replace: bool = False, movie: str | None = None, strict: bool = False,
             schema: Schema | None = None,
             on_progress: Callable[[LoadProgress], None] | None = None) -> LoadCounts:
        """Load a graph: constraints and indexes as the server takes them, then batched `UNWIND`.

        Args:
            graph: The graph; not changed.
            batch_size: Rows per transaction.
            replace: Delete this movie's nodes and relationships first (other movies stay).
            movie: The movie name stored on every row; the graph's movie id when None.
            strict: Refuse the whole load when anything breaks the schema.
            schema: The schema; the default STAGE-KG schema when None.
            on_progress: Called after each statement commits, with how far the load has got.

        Returns:
            The movie's node and relationship counts after the load, the refused items, and what
            how the load adapted to the server (`notes`).

        Raises:
            StoreError: strict and something was refused; the server refused a statement or the
                connection was lost (the message says how far the load got; running it again
                completes it, as rows merge on their keys).
        """
        start = time.perf_counter()
        schema = schema or load_schema()
        rows = checked_rows(graph, movie=movie, schema=schema, strict=strict)
        return self.load_rows(rows, batch_size=batch_size, replace=replace, schema=schema,
                              on_progress=on_progress, started=start)

    def load_rows(self, rows: StoreRows, *, batch_size: int = DEFAULT_BATCH_SIZE, replace: bool = False,
                  schema: Schema | None = None,
                  on_progress: Callable[[LoadProgress], None] | None = None,
                  started: float | None = None) -> LoadCounts:
        """`load` for rows already checked against the schema (`checked_rows`)."""
        start = time.perf_counter() if started is None else started
        progress: LoadProgress | None = None
        doing = "schema"
        with self._driver.session(database=self.database) as session:
            try:
                notes = adapt_schema(_SessionSchema(session), schema).notes
                max_bytes = SMALL_MESSAGE_BYTES if self.parameters_in_text else None
                statements = plan_load(rows, batch_size=batch_size, replace=replace, max_bytes=max_bytes,
                                       measure=self._measure)
                if max_bytes is not None:
                    notes.append(
                        f"the server writes parameters into the query text (as FalkorDB does): strings "
                        f"were escaped, and the load went in {len(statements)} statements of at most "
                        f"{max_bytes:,} bytes")
                progress = LoadProgress.of(statements)
                for statement in statements:
                    doing = statement.purpose
                    self._execute(session, statement)
                    progress = progress.after(statement)
                    if on_progress is not None:
                        on_progress(progress)
                doing = "count"
                nodes, relations = self.counts(rows.movie)
            except Neo4jError as e:
                raise StoreError(f"loading movie {rows.movie!r} into {self.uri} failed "
                                 f"{_where(progress)}: the server refused a {doing} statement: "
                                 f"{_reason(e)}") from e
            except DriverError as e:
                raise StoreError(f"loading movie {rows.movie!r} into {self.uri} stopped "
                                 f"{_where(progress)}: {_one_line(e)}; run the same command again "
                                 "to complete it (rows merge on their keys)") from e
        for note in notes:
            logger.info("%s: %s", self.uri, note)
        return LoadCounts(store=self.uri, movie=rows.movie, nodes=nodes, relations=relations,
                          refused=rows.refused, notes=notes,
                          seconds=round(time.perf_counter() - start, 3))

    def _execute(self, session: neo4j.Session, statement: Statement) -> None:
        params = self._wire(statement.params)
        deleted = session.execute_write(_write, statement.cypher, params)
        while statement.repeat_until_zero and deleted:
            deleted = session.execute_write(_write, statement.cypher, params)
