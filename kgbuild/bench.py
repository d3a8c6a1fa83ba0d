"""Parsing benchmark: every screenplay under the shared data folder, timed per format."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kgbuild.readers import read_screenplay

_PATTERNS = (
    "screenplays/*",
    "external/moviecoref/screenplay/*.txt",
    "stage/*/*/script.json",
)


class FormatTiming(BaseModel):
    """Parsing throughput for one input format."""

    model_config = ConfigDict(extra="forbid")

    format: str
    files: int
    megabytes: float
    scenes: int
    pages: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds if self.seconds else float("inf")

    @property
    def scenes_per_s(self) -> float:
        return self.scenes / self.seconds if self.seconds else float("inf")

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds if self.seconds else float("inf")


def discover_inputs(data_dir: Path) -> list[Path]:
    """All screenplay files of the shared data folder, in a stable order."""
    found = {p for pattern in _PATTERNS for p in data_dir.glob(pattern) if p.is_file()}
    return sorted(found)


def bench_parsing(paths: list[Path], *, repeat: int = 1) -> list[FormatTiming]:
    """Parse every file `repeat` times and report the best time per file, grouped by format.

    Args:
        paths: Screenplay files.
        repeat: Runs per file; the fastest counts (less noise from the machine).

    Returns:
        One row per format, sorted by format name.
    """
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for path in paths:
        best = float("inf")
        screenplay = None
        for _ in range(max(1, repeat)):
            start = time.perf_counter()
            screenplay = read_screenplay(path)
            best = min(best, time.perf_counter() - start)
        assert screenplay is not None
        row = rows[screenplay.source.format.value]
        row["files"] += 1
        row["megabytes"] += path.stat().st_size / 1e6
        row["scenes"] += len(screenplay.scenes)
        row["pages"] += max((e.page or 0 for s in screenplay.scenes for e in s.elements), default=0)
        row["seconds"] += best
    return [
        FormatTiming(
            format=fmt,
            files=int(r["files"]),
            megabytes=round(r["megabytes"], 3),
            scenes=int(r["scenes"]),
            pages=int(r["pages"]),
            seconds=r["seconds"],
        )
        for fmt, r in sorted(rows.items())
    ]


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
    import tempfile

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


class BuildTiming(BaseModel):
    """`kgbuild build` of one script, run as a user runs it (a separate process)."""

    model_config = ConfigDict(extra="forbid")

    script: str
    scenes: int
    cold_seconds: float
    warm_seconds: float
    peak_rss_mb: float


def bench_build(script: Path) -> BuildTiming:
    """Build `script` offline twice in child processes: empty embedding cache, then warm.

    Peak memory is the largest resident set of the child processes.
    """
    import json
    import os
    import resource
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "KGBUILD_CACHE_DIR": str(Path(tmp) / "cache")}
        timings = []
        for _ in range(2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "kgbuild", "build", str(script), "-o",
                            str(Path(tmp) / "out"), "-q"], check=True, env=env,
                           capture_output=True)
            timings.append(time.perf_counter() - start)
        scenes = len(json.loads((Path(tmp) / "out" / "screenplay.json").read_text())["scenes"])
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return BuildTiming(script=script.name, scenes=scenes, cold_seconds=timings[0],
                       warm_seconds=timings[1], peak_rss_mb=peak_kb / 1024)
