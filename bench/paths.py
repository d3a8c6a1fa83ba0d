"""Where the benchmarks and studies find the repository and the shared research data."""

from __future__ import annotations

from pathlib import Path

#: The repository root (this folder's parent).
REPO = Path(__file__).resolve().parents[1]
#: The shared research data beside the repository (`../shared/data`): screenplays, STAGE releases.
SHARED_DATA = REPO.parent / "shared" / "data"
