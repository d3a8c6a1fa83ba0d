"""Shared test fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kgbuild.embeddings import CachedEmbedder

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The shared research data (../shared/data); present on developer machines and in CI."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"../shared/data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def fixtures() -> Path:
    """Small fixtures written for these tests."""
    return FIXTURES


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedding cache of the tests whose subject is not the cache, one per test process: the
    vectors are the model's, computed once per text instead of once per test."""
    return tmp_path_factory.mktemp("embedding-cache")


@pytest.fixture(scope="session", autouse=True)
def session_cache_dir(embedding_cache: Path) -> Iterator[None]:
    """$KGBUILD_CACHE_DIR is the session's embedding cache (a test may set another): no test reads or
    fills the user's ~/.cache/kgbuild, nor a cache another test process writes."""
    from kgbuild.paths import CACHE_ENV

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(embedding_cache))
        yield


@pytest.fixture(scope="session")
def embedder(embedding_cache: Path) -> Iterator[CachedEmbedder]:
    """The bundled model behind the session's embedding cache: loaded once per test process."""
    from kgbuild.embeddings import CachedEmbedder, MiniLMEmbedder

    with CachedEmbedder(MiniLMEmbedder(), embedding_cache) as shared:
        yield shared
