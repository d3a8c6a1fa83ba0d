"""Fixtures shared by the corpus tests: the embedding cache, and the six scripts built by the process pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus.helpers import SCRIPTS, run_kgbuild


@pytest.fixture(scope="package")
def cache(embedding_cache: Path) -> Path:
    """One embedding cache for the corpus builds, the session's (the vectors are the same, cached or not)."""
    return embedding_cache


@pytest.fixture(scope="package")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> Path:
    """The six scripts built in one go, with two local worker processes."""
    out = tmp_path_factory.mktemp("uninterrupted") / "out"
    result = run_kgbuild("build", *map(str, SCRIPTS), "-o", str(out), "--workers", "2", cache=cache)
    assert result.returncode == 0, result.stderr
    return out
