"""Scoring benchmark: STAGE-KG scoring of a corpus with a cold and a warm embedding cache.

Example:
    >>> timing = bench_scoring(Path("../shared/data/stage"))
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kgbuild.readers import read_screenplay


class ScoringTiming(BaseModel):
    """STAGE-KG scoring time over a corpus, with a cold and a warm embedding cache."""

    model_config = ConfigDict(extra="forbid")

    movies: int
    predictions: str
    cold_seconds: float
    warm_seconds: float
    texts_embedded: int


def bench_scoring(stage_dir: Path) -> ScoringTiming:
    """Score trivial-baseline predictions of every STAGE movie twice: cold cache, then warm.

    Both runs use fresh processes' worth of state (a new embedder over the same cache folder),
    so the warm run shows what the on-disk cache saves, model loading included.
    """
    from kgbuild.embeddings import CachedEmbedder, MiniLMEmbedder
    from kgbuild.evaluation.baselines import stage_scripts, trivial_graph
    from kgbuild.evaluation.corpus import score_corpus
    from kgbuild.graph import save_graph

    with tempfile.TemporaryDirectory() as tmp:
        preds = Path(tmp) / "pred"
        for movie, script in stage_scripts(stage_dir).items():
            save_graph(trivial_graph(read_screenplay(script)), preds / movie / "graph.json")
        timings = []
        embedded = 0
        for _ in range(2):
            embedder = CachedEmbedder(MiniLMEmbedder(), Path(tmp) / "cache")
            start = time.perf_counter()
            result = score_corpus(preds, stage_dir, embedder=embedder)
            timings.append(time.perf_counter() - start)
            embedded = max(embedded, embedder.misses)
    return ScoringTiming(movies=len(result.movies), predictions="trivial baseline",
                         cold_seconds=timings[0], warm_seconds=timings[1],
                         texts_embedded=embedded)
