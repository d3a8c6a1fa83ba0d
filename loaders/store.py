"""The graph store interface (`GraphStore`) and `open_store`, which picks the store by its argument.

Two stores implement it: the embedded store (`kgbuild.loaders.embedded.EmbeddedStore`, LadybugDB
in a file, no server) and a Bolt server (`kgbuild.loaders.neo4j_store.BoltStore`: Neo4j or
FalkorDB through the official `neo4j` driver). Both load the same rows (`kgbuild.loaders.plan`)
and answer the same Cypher (the contract tests, `tests/loaders/test_contract.py`); `kind` says
which dialect a store speaks, for the few places that write Cypher for it (`ask --cypher`, the
notes of `kgbuild query`). `open_store` takes a Bolt address (bolt://, neo4j://, with +s or +ssc)
or a path (a `.lbdb` store, a build folder, a graph.json), so the commands and the library never
ask which one they were given.

Example:
    >>> with open_store("out/lizard-people") as store:  # doctest: +SKIP
    ...     store.query("MATCH (c:Character) RETURN count(c) AS n").rows
    [[28]]
    >>> with open_store("bolt://localhost:7687", password="secret") as store:  # doctest: +SKIP
    ...     store.load(graph, replace=True).nodes
    118
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self

from kgbuild.loaders.plan import DEFAULT_BATCH_SIZE

if TYPE_CHECKING:
    from kgbuild.loaders.records import LoadCounts
    from kgbuild.loaders.results import QueryResult
    from kgbuild.model import KnowledgeGraph
    from kgbuild.schema import Schema

#: The URI schemes of a Bolt server (the `neo4j` driver's).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
_BOLT_ADDRESS = re.compile(rf"^(?:{'|'.join(re.escape(s) for s in BOLT_SCHEMES)})://", re.IGNORECASE)
StoreKind = Literal["embedded", "bolt"]


class GraphStore(Protocol):
    """A graph store opened for loads and Cypher queries; close it, or use it in a `with` block.

    Every node a load writes carries the property `movie`, so one store holds several movies.
    """

    @property
    def kind(self) -> StoreKind:
        """The store's Cypher dialect: 'embedded' (kgbuild's embedded store) or 'bolt' (Neo4j, FalkorDB)."""
        ...

    @property
    def where(self) -> str:
        """The store's path or address, for messages."""
        ...

    def load(self, graph: KnowledgeGraph, *, movie: str | None = None, replace: bool = False,
             strict: bool = False, batch_size: int = DEFAULT_BATCH_SIZE,
             schema: Schema | None = None) -> LoadCounts:
        """Load a graph: its entities, relations and scene layer as checked against the schema.

        Args:
            graph: The graph; not changed.
            movie: The movie name stored on every row; the graph's movie id when None.
            replace: Delete this movie's nodes and relationships first (other movies stay);
                otherwise rows merge on their keys, so loading a graph twice gives the same counts.
            strict: Refuse the whole load when anything breaks the schema; otherwise load the
                rest and report what was refused.
            batch_size: Rows per statement.
            schema: The schema; the default STAGE-KG schema when None.

        Returns:
            The movie's node and relationship counts after the load, what was refused, and how
            the load adapted to the store (`notes`).

        Raises:
            StoreError: strict and something was refused; the store cannot be written (a store
                opened on a graph.json, a lost connection, a refused statement).
        """
        ...

    def query(self, cypher: str, params: dict[str, Any] | None = None, *, write: bool = False) -> QueryResult:
        """Run one Cypher query; read-only unless `write`.

        The embedded store and Neo4j refuse a query that writes when `write` is not given;
        FalkorDB runs it even in a read transaction, so a caller running Cypher it did not write
        checks it first, as `kgbuild.ask.cypher` does.

        Args:
            cypher: One statement.
            params: Values for its `$name` parameters; every one used must be given, no others.
            write: Let the query change the store.

        Returns:
            Columns and rows as plain values (nodes and relationships as dicts).

        Raises:
            QueryError: parameters wrong, or the store refused the query.
            StoreError: the store cannot be read (or, with `write`, written).
        """
        ...

    def movies(self) -> list[str]:
        """The movies the store holds, sorted."""
        ...

    def counts(self, movie: str) -> tuple[int, int]:
        """The nodes and relationships of one movie in the store."""
        ...

    def close(self) -> None:
        """Close the store (its connections and files)."""
        ...

    def __enter__(self) -> Self:
        ...

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        ...


def is_bolt_address(target: str | os.PathLike[str] | None) -> bool:
    """True when `target` is the address of a Bolt server (bolt://, neo4j://, with +s or +ssc).

    Example:
        >>> is_bolt_address("neo4j+s://db.example.com"), is_bolt_address("out/graph.lbdb")
        (True, False)
    """
    return isinstance(target, str) and _BOLT_ADDRESS.match(target) is not None


def open_store(target: str | os.PathLike[str] | None, *, user: str = "neo4j", password: str = "",
               database: str | None = None, cache: str | os.PathLike[str] | None = None) -> GraphStore:
    """Open the graph store `target` names: a Bolt server for an address, else the embedded store.

    Args:
        target: A Bolt address (bolt://HOST:7687, neo4j://, neo4j+s://, ...: Neo4j or FalkorDB);
            or an embedded store: a `.lbdb` file (created by the first load), a build folder (its
            graph.lbdb), a graph.json or a folder holding one and no store (loaded once into a
            store in the cache folder, `kgbuild.loaders.query_store`, which refuses loads and
            writes), or None for ./graph.lbdb.
        user: The Bolt user; unused when `password` is empty.
        password: Its password; empty for a server without authentication.
        database: The Bolt server's database; its default when None (the embedded store and
            FalkorDB have one).
        cache: The cache folder of graph.json stores; None: `$KGBUILD_CACHE_DIR`, else
            ~/.cache/kgbuild.

    Returns:
        The open store; close it, or use it in a `with` block.

    Raises:
        StoreError: the server cannot be reached or refuses the credentials.
        InputError: a graph.json that cannot be read.
        OutputError: the cache folder cannot be written.

    Example:
        >>> with open_store("out/lizard-people/graph.json") as store:  # doctest: +SKIP
        ...     store.movies()
        ['lizard-people']
    """
    if is_bolt_address(target):
        from kgbuild.loaders.neo4j_store import BoltStore

        return BoltStore(str(target), user=user, password=password, database=database)
    from kgbuild.loaders.query_store import embedded_store

    return embedded_store(None if target is None else Path(target), cache=cache)
