"""Parsing benchmark: every screenplay under the shared data folder, timed per format.

Example:
    >>> rows = bench_parsing(discover_inputs(Path("../shared/data")), repeat=3)
"""

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
