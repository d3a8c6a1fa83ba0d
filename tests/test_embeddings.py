"""The bundled embedding model and its on-disk cache: no hidden global state, safe to share."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest

from kgbuild.embeddings import CachedEmbedder, MiniLMEmbedder
from tests.race import open_at_once


class CountingEmbedder:
    """A stand-in inner embedder that counts what it is asked."""

    name = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += texts
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


def test_loading_the_model_changes_no_environment_variable():
    import sentence_transformers  # noqa: F401  (torch sets its own variables on import)

    before = dict(os.environ)
    vectors = MiniLMEmbedder().encode(["a lighthouse keeper"])
    assert vectors.shape == (1, 384)
    assert dict(os.environ) == before


@pytest.mark.slow
def test_workers_opening_a_new_cache_at_the_same_moment_all_succeed(tmp_path):
    # Two corpus workers start together on a cold cache: SQLite refused the second one's switch to
    # write-ahead logging ("database is locked") about once in 40 pairs, which broke the process pool.
    folders = [str(tmp_path / str(trial)) for trial in range(40)]
    assert open_at_once(lambda folder: CachedEmbedder(CountingEmbedder(), folder).close(), folders) == []


def test_the_cache_folder_is_read_when_the_cache_opens(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBUILD_CACHE_DIR", str(tmp_path / "late"))
    with CachedEmbedder(CountingEmbedder()) as cache:
        assert cache.path == tmp_path / "late" / "embeddings.sqlite"


def test_two_caches_on_one_folder_share_entries_in_wal_mode(tmp_path):
    first, second = CountingEmbedder(), CountingEmbedder()
    with CachedEmbedder(first, tmp_path) as a, CachedEmbedder(second, tmp_path) as b:
        a.encode(["Anna", "Ben"])
        b.encode(["Ben", "Anna", "Cleo"])
        assert first.calls == ["Anna", "Ben"] and second.calls == ["Cleo"]
    with sqlite3.connect(tmp_path / "embeddings.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
