"""Loading a corpus output folder into one store.

A corpus output is OUTDIR/<movie>/graph.json per movie (written by a corpus build, `kgbuild
baseline --corpus`, or by hand); hidden folders (the build's staging area) are not movies
(`kgbuild.folders.find_movies`). `load_corpus` loads every movie into one store (the embedded
store, or a Bolt server: Neo4j, FalkorDB), one movie at a time, each replacing that movie's
earlier load, in batched statements.

Example:
    >>> with open_store(CorpusFolder("out/stage").store) as store:  # doctest: +SKIP
    ...     counts = load_corpus(Path("out/stage"), store)
    >>> sum(c.nodes for c in counts)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgbuild.folders import BuildFolder, find_movies
from kgbuild.loaders.plan import DEFAULT_BATCH_SIZE
from kgbuild.loaders.records import LoadCounts

if TYPE_CHECKING:
    from kgbuild.loaders.store import GraphStore


def load_corpus(outdir: Path, store: GraphStore, *, batch_size: int = DEFAULT_BATCH_SIZE, strict: bool = False,
                on_movie: Callable[[LoadCounts], None] | None = None) -> list[LoadCounts]:
    """Load every movie of a corpus output into one store, replacing each movie's earlier load.

    Args:
        outdir: The corpus output folder.
        store: The store (`kgbuild.loaders.store.open_store`; `kgbuild load` opens
            OUTDIR/corpus.lbdb by default).
        batch_size: Rows per statement.
        strict: Refuse a movie's whole load when anything in it breaks the schema.
        on_movie: Called with each movie's counts as it is loaded.

    Returns:
        Each movie's counts, in folder order.

    Raises:
        StoreError: the store cannot be written (movies loaded before stay loaded).
        InputError: a graph.json cannot be read.
    """
    from kgbuild.graph import load_graph
    from kgbuild.schema import schema_for_graph

    counts: list[LoadCounts] = []
    for folder in find_movies(outdir):
        result = store.load(load_graph(BuildFolder(folder).graph), batch_size=batch_size, replace=True, strict=strict,
                            schema=schema_for_graph(folder))
        counts.append(result)
        if on_movie is not None:
            on_movie(result)
    return counts
