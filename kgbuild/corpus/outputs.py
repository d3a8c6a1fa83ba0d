"""Loading a corpus output folder into one store.

A corpus output is OUTDIR/<movie>/graph.json per movie (written by a corpus build, `kgbuild
baseline --corpus`, or by hand); hidden folders (the build's staging area) are not movies
(`kgbuild.graph.find_movies`). `load_corpus` loads every movie into one embedded store or one
Bolt server (Neo4j, FalkorDB), one movie at a time, each replacing that movie's earlier load, in
batched statements.

Example:
    >>> counts = load_corpus(Path("out/stage"))            # OUTDIR/corpus.lbdb
    >>> sum(c.nodes for c in counts)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgbuild.graph import find_movies
from kgbuild.loaders.plan import DEFAULT_BATCH_SIZE
from kgbuild.loaders.records import LoadCounts
from kgbuild.model import KnowledgeGraph

#: The embedded store `kgbuild load OUTDIR` writes for a corpus, inside OUTDIR.
CORPUS_DB_NAME = "corpus.lbdb"


def load_corpus(outdir: Path, *, db: Path | None = None, neo4j_uri: str | None = None,
                credentials: tuple[str, str] | None = None, database: str | None = None,
                batch_size: int = DEFAULT_BATCH_SIZE, strict: bool = False,
                on_movie: Callable[[LoadCounts], None] | None = None) -> list[LoadCounts]:
    """Load every movie of a corpus output into one store, replacing each movie's earlier load.

    Args:
        outdir: The corpus output folder.
        db: The embedded store; OUTDIR/corpus.lbdb when None (and no `neo4j_uri`).
        neo4j_uri: Load into this Bolt server instead (one connection for every movie).
        credentials: (user, password) for the Bolt server.
        database: The Neo4j database; the server's default when None.
        batch_size: Rows per statement.
        strict: Refuse a movie's whole load when anything in it breaks the schema.
        on_movie: Called with each movie's counts as it is loaded.

    Returns:
        Each movie's counts, in folder order.

    Raises:
        StoreError: the store cannot be opened or written (movies loaded before stay loaded).
        InputError: a graph.json cannot be read.
    """
    from kgbuild.graph import load_graph
    from kgbuild.schema import schema_for_graph

    counts: list[LoadCounts] = []

    def each(load: Callable[..., LoadCounts]) -> None:
        for folder in find_movies(outdir):
            result = load(load_graph(folder / "graph.json"), batch_size=batch_size, replace=True, strict=strict,
                          schema=schema_for_graph(folder))
            counts.append(result)
            if on_movie is not None:
                on_movie(result)

    if neo4j_uri is not None:
        from kgbuild.loaders.neo4j_store import BoltStore

        user, password = credentials or ("neo4j", "")
        with BoltStore(neo4j_uri, user=user, password=password, database=database) as store:
            each(store.load)
        return counts
    from kgbuild.loaders.embedded import write_embedded

    target = db or outdir / CORPUS_DB_NAME

    def embedded(graph: KnowledgeGraph, **options: Any) -> LoadCounts:
        return write_embedded(graph, target, **options)

    each(embedded)
    return counts
