"""The embedded store's speed on a feature-length movie: load time and example query latency.

The graph is a STAGE reference graph (the English movie with the largest extraction results,
about 1,900 nodes and 5,300 relationships), loaded into a fresh store. Target: load under 3 s.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import ladybug
from pydantic import BaseModel, ConfigDict

from kgbuild.evaluation.reference import load_stage_movie
from kgbuild.loaders.embedded import DEFAULT_DB_NAME, write_embedded
from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.examples import EXAMPLES, params_for_graph

LOAD_TARGET_SECONDS = 3.0


class QueryTiming(BaseModel):
    """One example query's latency on an open read-only connection."""

    model_config = ConfigDict(extra="forbid")

    name: str
    rows: int
    median_ms: float


class StoreBenchResult(BaseModel):
    """Load time and query latency of the embedded store."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    nodes: int
    relations: int
    refused: int
    load_seconds: float
    queries: list[QueryTiming]
    repeat: int


def biggest_movie(stage_root: Path, language: str = "English") -> Path:
    """The STAGE movie folder whose extraction_results.json is largest.

    Raises:
        StoreError: no STAGE movie folders under `stage_root/language`.
    """
    files = sorted((stage_root / language).glob("*/extraction_results.json"),
                   key=lambda p: (p.stat().st_size, p.parent.name))
    if not files:
        raise StoreError(f"no STAGE movies under {stage_root / language}; pass the stage data folder")
    return files[-1].parent


def bench_embedded_store(stage_root: Path, *, repeat: int = 20,
                         workdir: Path | None = None) -> StoreBenchResult:
    """Load the biggest English STAGE reference graph into a fresh store and time the examples
    (those reading the scene layer are left out: a reference graph has none).

    Args:
        stage_root: The STAGE data folder (holding English/).
        repeat: Runs per example query; the median counts.
        workdir: Where to put the store; a temporary folder when None.

    Returns:
        Load seconds, counts, and the median latency of every example query.
    """
    graph, _, _ = load_stage_movie(biggest_movie(stage_root))
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        db_path = Path(tmp) / DEFAULT_DB_NAME
        start = time.perf_counter()
        counts = write_embedded(graph, db_path)
        load_seconds = time.perf_counter() - start
        database = ladybug.Database(str(db_path), read_only=True)
        connection = ladybug.Connection(database)
        timings = []
        try:
            for query in EXAMPLES:
                if query.needs_scene_layer and not graph.scenes:
                    continue  # a STAGE reference has no scene layer
                params = params_for_graph(query, graph)
                samples, rows = [], 0
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    result = connection.execute(query.cypher, params)
                    rows = len((result[0] if isinstance(result, list) else result).get_all())
                    samples.append(time.perf_counter() - t0)
                timings.append(QueryTiming(name=query.name, rows=rows,
                                           median_ms=round(statistics.median(samples) * 1000, 2)))
        finally:
            connection.close()
            database.close()
    return StoreBenchResult(movie=counts.movie, nodes=counts.nodes, relations=counts.relations,
                            refused=len(counts.refused), load_seconds=round(load_seconds, 3),
                            queries=timings, repeat=repeat)


def format_store_bench(result: StoreBenchResult) -> list[str]:
    """The result as lines of text."""
    lines = [
        (f"Embedded store load of STAGE {result.movie}: {result.nodes} nodes, {result.relations} "
         f"relationships ({result.refused} refused by the schema) in {result.load_seconds:.2f} s "
         f"(target < {LOAD_TARGET_SECONDS:.0f} s)"),
        f"Example query latency (median of {result.repeat}, open read-only connection):",
    ]
    lines += [f"  {q.name:<26} {q.median_ms:8.2f} ms  {q.rows:>5} rows" for q in result.queries]
    return lines
