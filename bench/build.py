"""Build benchmark: `kgbuild build` of one script offline, run as a user runs it.

Example:
    >>> timing = bench_build(Path("lizard-people.fountain"))
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict


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
