"""The embedded graph store: Cypher with no server, in a single file beside graph.json.

LadybugDB (`import ladybug`) runs in-process. It needs a schema, built here from `kgbuild.schema`:
one node table per entity type, one relationship table group per relation type over its
admissible pairs, the `Scene` table and the `in_scene` relationship of the scene layer, and the
macro `type(r)` so queries written for Neo4j keep working. A store made
by an older kgbuild gains the properties it lacks (e.g. the evidence lists) on its next load. One
process writes at a time; any number may read (queries open the store read-only).

Example:
    >>> counts = write_embedded(graph, Path("out/graph.lbdb"))  # doctest: +SKIP
    >>> run_query(Path("out/graph.lbdb"), "MATCH (c:Character) RETURN count(c) AS n").rows
    [[12]]
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import ladybug
import numpy as np

from kgbuild.folders import BuildFolder
from kgbuild.loaders.dialect import check_parameters, explain_error, returned_columns
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.plan import (
    COUNT_NODES,
    COUNT_RELATIONS,
    DEFAULT_BATCH_SIZE,
    STORE_MOVIES,
    Statement,
    plan_load,
)
from kgbuild.loaders.records import (
    IN_SCENE,
    NODE_PROPERTIES,
    PRESENCE_PROPERTIES,
    RELATION_PROPERTIES,
    SCENE_LABEL,
    SCENE_PROPERTIES,
    LoadCounts,
    checked_rows,
    node_labels,
    safe_identifier,
)
from kgbuild.loaders.results import QueryResult, plain_value
from kgbuild.loaders.store import StoreKind
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)

#: The store's file name inside a build's output folder, `BuildFolder.STORE` (bench/store.py imports it here).
DEFAULT_DB_NAME = BuildFolder.STORE
_TYPE_MACRO = "CREATE MACRO type(r) AS label(r)"
#: Properties holding integer lists; an empty one needs a typed value (see `_typed_params`).
_INT_LISTS = frozenset(name for name, kind in (*NODE_PROPERTIES, *RELATION_PROPERTIES, *SCENE_PROPERTIES,
                                                *PRESENCE_PROPERTIES) if kind == "INT64[]")


def resolve_db_path(path: str | os.PathLike[str] | None) -> Path:
    """Where a store is: the path itself, `PATH/graph.lbdb` for a folder, `./graph.lbdb` for None."""
    if path is None:
        return BuildFolder(".").store
    p = Path(path)
    return BuildFolder(p).store if p.is_dir() else p


def schema_ddl(schema: Schema | None = None) -> list[str]:
    """The statements that create the store's tables (idempotent: `IF NOT EXISTS`)."""
    schema = schema or load_schema()

    def columns(properties: tuple[tuple[str, str], ...]) -> str:
        return ", ".join(f"{name} {kind}{' PRIMARY KEY' if name == 'key' else ''}" for name, kind in properties)

    rel_columns = ", ".join(f"{name} {kind}" for name, kind in RELATION_PROPERTIES)
    ddl = [f"CREATE NODE TABLE IF NOT EXISTS {t}({columns(NODE_PROPERTIES)})" for t in node_labels(schema)[:-1]]
    for spec in schema.relation_types:
        pairs = ", ".join(f"FROM {safe_identifier(s)} TO {safe_identifier(o)}" for s, o in spec.pairs)
        ddl.append(f"CREATE REL TABLE IF NOT EXISTS {safe_identifier(spec.name)}({pairs}, {rel_columns})")
    ddl.append(f"CREATE NODE TABLE IF NOT EXISTS {SCENE_LABEL}({columns(SCENE_PROPERTIES)})")
    person = schema.type_for_role("person")
    if person is not None:
        presence_columns = ", ".join(f"{name} {kind}" for name, kind in PRESENCE_PROPERTIES)
        ddl.append(f"CREATE REL TABLE IF NOT EXISTS {IN_SCENE}(FROM {safe_identifier(person)} TO {SCENE_LABEL}, "
                   f"{presence_columns})")
    return ddl


def column_ddl(schema: Schema | None = None) -> list[str]:
    """The statements that add every property to tables made by an older kgbuild (idempotent)."""
    schema = schema or load_schema()
    statements = [f"ALTER TABLE {safe_identifier(t)} ADD IF NOT EXISTS {name} {kind}"
                  for t in schema.entity_type_names() for name, kind in NODE_PROPERTIES if name != "key"]
    statements += [f"ALTER TABLE {safe_identifier(t)} ADD IF NOT EXISTS {name} {kind}"
                   for t in schema.relation_type_names() for name, kind in RELATION_PROPERTIES]
    statements += [f"ALTER TABLE {SCENE_LABEL} ADD IF NOT EXISTS {name} {kind}"
                   for name, kind in SCENE_PROPERTIES if name != "key"]
    if schema.type_for_role("person") is not None:
        statements += [f"ALTER TABLE {IN_SCENE} ADD IF NOT EXISTS {name} {kind}" for name, kind in PRESENCE_PROPERTIES]
    return statements


@contextmanager
def connect(db_path: str | os.PathLike[str], *, read_only: bool) -> Iterator[ladybug.Connection]:
    """Open the store and yield a connection; closed on exit.

    Raises:
        StoreError: no store there (read-only), not a store, or locked by another writer.
    """
    path = Path(db_path)
    if read_only and not path.exists():
        raise StoreError(f"no embedded store at {path}; create it with 'kgbuild load GRAPH --db {path}' "
                         "or 'kgbuild build', or point --db at one")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        database = ladybug.Database(str(path), read_only=read_only)
    except RuntimeError as e:
        hint = ("another process is writing to it; wait for it to finish (one writer at a time)"
                if "lock" in str(e).lower() else "is it a kgbuild store?")
        raise StoreError(f"cannot open the embedded store {path}: {str(e).splitlines()[0]}; {hint}") from e
    connection = ladybug.Connection(database)
    try:
        yield connection
    finally:
        connection.close()
        database.close()


def _rows(result: Any) -> list[list[Any]]:
    return result.get_all()


def ensure_schema(connection: ladybug.Connection, schema: Schema | None = None) -> None:
    """Create the tables, their missing properties and the `type(r)` macro when missing."""
    for statement in [*schema_ddl(schema), *column_ddl(schema)]:
        connection.execute(statement)
    macros = {row[0].upper() for row in _rows(connection.execute("CALL show_macros() RETURN name"))}
    if "TYPE" not in macros:
        connection.execute(_TYPE_MACRO)


def _typed_params(params: dict[str, Any]) -> dict[str, Any]:
    """Load parameters with every empty integer list typed as one.

    LadybugDB reads an empty Python list as STRING[], which an INT64[] property refuses when no
    row of the batch has an item to tell it otherwise (e.g. a batch of entities without evidence).
    """
    rows = params.get("rows")
    if not isinstance(rows, list):
        return params
    typed = [{k: np.array([], dtype=np.int64) if k in _INT_LISTS and v == [] else v
              for k, v in row.items()} for row in rows]
    return {**params, "rows": typed}


def _run(connection: ladybug.Connection, statement: Statement) -> None:
    params = _typed_params(statement.params)
    result = connection.execute(statement.cypher, params)
    while statement.repeat_until_zero and _rows(result)[0][0]:
        result = connection.execute(statement.cypher, params)


@contextmanager
def _transaction(connection: ladybug.Connection) -> Iterator[None]:
    connection.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        # A failed statement already rolls the transaction back; only roll back if one is open.
        try:
            connection.execute("ROLLBACK")
        except RuntimeError:
            logger.debug("transaction was already rolled back by the store")
        raise
    connection.execute("COMMIT")


def movie_counts(connection: ladybug.Connection, movie: str) -> tuple[int, int]:
    """Nodes and relationships of one movie in the store."""
    nodes = _rows(connection.execute(COUNT_NODES, {"movie": movie}))[0][0]
    relations = _rows(connection.execute(COUNT_RELATIONS, {"movie": movie}))[0][0]
    return nodes, relations


def write_embedded(graph: KnowledgeGraph, db_path: str | os.PathLike[str], *, replace: bool = True,
                   movie: str | None = None, strict: bool = False,
                   batch_size: int = DEFAULT_BATCH_SIZE, schema: Schema | None = None) -> LoadCounts:
    """Load a graph into the embedded store (created when missing), in one transaction.

    Args:
        graph: The graph; not changed.
        db_path: The store file, e.g. OUTDIR/graph.lbdb.
        replace: Delete this movie's nodes and relationships first (other movies stay);
            otherwise merge on keys, so a reload still gives the same counts.
        movie: The movie name stored on every row; the graph's title when None.
        strict: Refuse the whole load when any entity or relation breaks the schema; otherwise
            load the rest and report the refused items.
        batch_size: Rows per statement.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        The movie's node and relationship counts after the load, and the refused items.

    Raises:
        StoreError: strict and something was refused; the store cannot be opened or written.
    """
    start = time.perf_counter()
    schema = schema or load_schema()
    rows = checked_rows(graph, movie=movie, schema=schema, strict=strict)
    statements = plan_load(rows, batch_size=batch_size, replace=replace)
    path = Path(db_path)
    with connect(path, read_only=False) as connection:
        try:
            ensure_schema(connection, schema)
            with _transaction(connection):
                for statement in statements:
                    _run(connection, statement)
            nodes, relations = movie_counts(connection, rows.movie)
        except RuntimeError as e:
            raise StoreError(f"writing {path} failed, nothing was changed: {e}") from e
    seconds = round(time.perf_counter() - start, 3)
    logger.info("loaded %s into %s: %d nodes, %d relationships in %.2f s", rows.movie, path, nodes,
                relations, seconds)
    return LoadCounts(store=str(path), movie=rows.movie, nodes=nodes, relations=relations,
                      refused=rows.refused, seconds=seconds)


def run_query(db_path: str | os.PathLike[str], cypher: str, params: dict[str, Any] | None = None, *,
              write: bool = False) -> QueryResult:
    """Run one Cypher query on the embedded store.

    Args:
        db_path: The store file.
        cypher: The query.
        params: Values for its `$name` parameters; every one used must be given, no others.
        write: Open the store for writing; read-only otherwise.

    Returns:
        Columns and rows as plain values; a column is named by its alias, else by the item as
        written (`RETURN type(r)` gives the column `type(r)`, as on Neo4j).

    Raises:
        QueryError: parameters wrong, or the store refused the query (with the position and,
            for Neo4j-only constructs, what to write instead).
        StoreError: the store cannot be opened.
    """
    with connect(db_path, read_only=not write) as connection:
        return _execute(connection, cypher, params or {})


def _execute(connection: ladybug.Connection, cypher: str, params: dict[str, Any]) -> QueryResult:
    """Run one query on an open connection (see `run_query`)."""
    check_parameters(cypher, params)
    try:
        result = connection.execute(cypher, params)
    except RuntimeError as e:
        tables = [row[0] for row in _rows(connection.execute("CALL show_tables() RETURN name"))]
        raise QueryError(explain_error(cypher, str(e), tables=sorted(tables))) from e
    if isinstance(result, list):
        raise QueryError("one query at a time, please: remove the ';' between statements")
    columns = result.get_column_names()
    written = returned_columns(cypher)
    if written is not None and len(written) == len(columns):
        columns = written  # un-aliased items named as written, as Neo4j does ('type(r)')
    return QueryResult(columns=columns, rows=[[plain_value(v) for v in row] for row in _rows(result)])


class EmbeddedStore:
    """The embedded store as a `kgbuild.loaders.store.GraphStore`; close it, or use `with`.

    Queries share one read-only connection, opened on the first and kept until a load, a query
    that writes, or `close` (each of those opens the store for writing, one writer at a time).

    Args:
        db_path: The store file (created by the first load).
        loaded_from: The graph.json this store is a cached copy of (`kgbuild.loaders.query_store`):
            loads and writes are refused, as they would land in a cache nobody reads.

    Example:
        >>> with EmbeddedStore("out/lizard-people/graph.lbdb") as store:  # doctest: +SKIP
        ...     store.query("MATCH (c:Character) RETURN count(c) AS n").rows
        [[28]]
    """

    kind: StoreKind = "embedded"

    def __init__(self, db_path: str | os.PathLike[str], *, loaded_from: Path | None = None) -> None:
        self.path = Path(db_path)
        self.where = str(self.path)
        self.loaded_from = loaded_from
        self._held = ExitStack()
        self._connection: ladybug.Connection | None = None

    def _writable(self, what: str) -> None:
        """Refuse a write to a cached store, and close the read connection before one."""
        if self.loaded_from is not None:
            raise StoreError(f"{self.loaded_from} is a graph.json: {what} needs a store; load it into one with "
                             f"'kgbuild load {self.loaded_from} --db STORE.lbdb' and use that")
        self.close()

    def load(self, graph: KnowledgeGraph, *, movie: str | None = None, replace: bool = False,
             strict: bool = False, batch_size: int = DEFAULT_BATCH_SIZE,
             schema: Schema | None = None) -> LoadCounts:
        """Load a graph in one transaction (`write_embedded`; the store is created when missing).

        Raises:
            StoreError: strict and something was refused; a store of a graph.json; the store
                cannot be opened or written (nothing is changed).
        """
        self._writable("a load")
        return write_embedded(graph, self.path, replace=replace, movie=movie, strict=strict,
                              batch_size=batch_size, schema=schema)

    def query(self, cypher: str, params: dict[str, Any] | None = None, *, write: bool = False) -> QueryResult:
        """Run one query (see `run_query`); read-only unless `write`.

        Raises:
            QueryError: parameters wrong, or the store refused the query.
            StoreError: no store there, or it cannot be opened; `write` on a store of a graph.json.
        """
        if write:
            self._writable("a query that writes")
            return run_query(self.path, cypher, params, write=True)
        if self._connection is None:
            self._connection = self._held.enter_context(connect(self.path, read_only=True))
        return _execute(self._connection, cypher, params or {})

    def movies(self) -> list[str]:
        """The movies the store holds, sorted."""
        return [str(row[0]) for row in self.query(STORE_MOVIES).rows]

    def counts(self, movie: str) -> tuple[int, int]:
        """Nodes and relationships of one movie in the store."""
        nodes = self.query(COUNT_NODES, {"movie": movie}).rows[0][0]
        return int(nodes), int(self.query(COUNT_RELATIONS, {"movie": movie}).rows[0][0])

    def close(self) -> None:
        """Close the read connection, if one is open (the store can be opened again)."""
        self._connection = None
        self._held.close()

    def __enter__(self) -> EmbeddedStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def script_statements(text: str) -> list[str]:
    """The statements of a kgbuild Cypher script: one per line, comments and blank lines skipped."""
    statements = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("//"):
            statements.append(stripped.removesuffix(";"))
    return statements


def replay_script(text: str, db_path: str | os.PathLike[str], *,
                  schema: Schema | None = None) -> int:
    """Run a Cypher script written by `kgbuild export --format cypher` into the embedded store.

    Returns:
        How many statements ran.

    Raises:
        StoreError: a statement failed (nothing is changed: one transaction).
    """
    statements = script_statements(text)
    with connect(db_path, read_only=False) as connection:
        ensure_schema(connection, schema)
        try:
            with _transaction(connection):
                for number, statement in enumerate(statements, 1):
                    try:
                        connection.execute(statement)
                    except RuntimeError as e:
                        raise StoreError(f"script statement {number} failed, nothing was changed: "
                                         f"{explain_error(statement, str(e))}") from e
        except RuntimeError as e:
            raise StoreError(f"replaying the script into {db_path} failed: {e}") from e
    return len(statements)
