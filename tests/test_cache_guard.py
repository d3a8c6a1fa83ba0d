"""The cache guard on both SQLite caches: damage in four shapes, a full disk, a read-only file.

The embedding cache sets a damaged file aside and starts afresh (its vectors are free to compute
again); the LLM response cache stops with one line and leaves the file as it was (its answers cost
money). A write that fails leaves either cache as it was.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kgbuild.cache_guard import CacheError, Failure, classify
from kgbuild.embeddings import CachedEmbedder
from kgbuild.llm.cache import ResponseCache
from kgbuild.llm.types import ChatResult
from tests.cache_damage import SHAPES, damage, full_disk_connect, healthy_rows, set_aside
from tests.test_embeddings import CountingEmbedder

TEXTS = [f"line {i}: the keeper climbs the lighthouse stairs again" for i in range(600)]


def filled_embedding_cache(folder: Path) -> Path:
    with CachedEmbedder(CountingEmbedder(), folder) as cache:
        cache.encode(TEXTS)
    return folder / "embeddings.sqlite"


def filled_response_cache(path: Path, entries: int = 60) -> Path:
    with ResponseCache(path) as cache:
        for i in range(entries):
            cache.put(f"key-{i}", ChatResult(content='{"answer": "' + "x" * 300 + f'{i}"}}'), model="m")
    return path


def unversioned(path: Path) -> bytes | None:
    """The file's bytes after its 100-byte header (which the switch to write-ahead logging changes)."""
    return path.read_bytes()[100:] if path.is_file() else None


def one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text
    return text


def test_sqlite_and_system_errors_are_classified_by_code_then_by_wording():
    assert classify(sqlite3.OperationalError("database or disk is full")) is Failure.FULL
    assert classify(sqlite3.DatabaseError("database disk image is malformed")) is Failure.DAMAGED
    assert classify(sqlite3.DatabaseError("file is not a database")) is Failure.DAMAGED
    assert classify(sqlite3.OperationalError("attempt to write a readonly database")) is Failure.UNWRITABLE
    assert classify(sqlite3.OperationalError("database is locked")) is Failure.BUSY
    assert classify(sqlite3.OperationalError("no such table: vec")) is Failure.OTHER
    assert classify(OSError(errno.ENOSPC, "No space left on device")) is Failure.FULL
    assert classify(OSError(errno.EROFS, "Read-only file system")) is Failure.UNWRITABLE
    assert classify(ValueError("x")) is Failure.OTHER
    with sqlite3.connect(":memory:") as db, pytest.raises(sqlite3.Error) as raised:
        db.execute("PRAGMA query_only = 1")
        db.execute("CREATE TABLE t (x)")
    assert classify(raised.value) is Failure.UNWRITABLE  # by SQLite's result code


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_damaged_embedding_cache_is_set_aside_and_rebuilt_with_a_warning(tmp_path, shape, caplog):
    path = filled_embedding_cache(tmp_path)
    damage(path, shape)
    inner = CountingEmbedder()
    with caplog.at_level("WARNING", logger="kgbuild.cache_guard"), CachedEmbedder(inner, tmp_path) as cache:
        vectors = cache.encode(TEXTS)
    assert np.array_equal(vectors, CountingEmbedder().encode(TEXTS))
    assert inner.calls == TEXTS  # computed again, from an empty cache
    aside = set_aside(tmp_path, "embeddings.sqlite")
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))] == [aside[0].name]
    assert aside[0].is_dir() == (shape == "folder")
    assert healthy_rows(path, "vec") == len(TEXTS)
    [warning] = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert str(path) in warning and "damaged" in warning and aside[0].name in warning


def test_a_damaged_embedding_cache_is_set_aside_once_when_two_users_find_the_damage(tmp_path):
    # Two workers of a corpus build share the cache: the second to find the damage must not set
    # aside the new cache the first made, and finds the first's vectors in it.
    path = filled_embedding_cache(tmp_path)
    damage(path, "flipped-pages")
    first, second = CountingEmbedder(), CountingEmbedder()
    with CachedEmbedder(first, tmp_path) as a, CachedEmbedder(second, tmp_path) as b:
        a.encode(TEXTS)
        b.encode(TEXTS)
    assert first.calls == TEXTS and second.calls == []
    assert len([p for p in set_aside(tmp_path, "embeddings.sqlite") if not p.name.endswith(("-wal", "-shm"))]) == 1
    assert healthy_rows(path, "vec") == len(TEXTS)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_damaged_response_cache_stops_with_one_line_and_is_left_as_it_was(tmp_path, shape):
    path = filled_response_cache(tmp_path / "llm-responses.sqlite")
    damage(path, shape)
    before = sorted(p.name for p in tmp_path.iterdir())
    content = unversioned(path)
    with pytest.raises(CacheError) as raised, ResponseCache(path) as cache:
        for i in range(60):
            cache.get(f"key-{i}")
    message = one_line(raised.value)
    assert f"the LLM response cache {path} is damaged" in message
    assert "move it away or delete it" in message and "--cache-dir" in message and "$KGBUILD_CACHE_DIR" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert unversioned(path) == content


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_damaged_response_cache_read_for_a_dry_run_stops_with_one_line(tmp_path, shape):
    path = filled_response_cache(tmp_path / "llm-responses.sqlite")
    damage(path, shape)
    with pytest.raises(CacheError, match="is damaged"), ResponseCache(path, read_only=True) as cache:
        for i in range(60):
            cache.get(f"key-{i}")


def test_a_full_disk_stops_the_embedding_cache_with_one_line_and_nothing_half_written(tmp_path, monkeypatch):
    path = filled_embedding_cache(tmp_path)
    monkeypatch.setattr(sqlite3, "connect", full_disk_connect(sqlite3.connect))
    with pytest.raises(CacheError) as raised, CachedEmbedder(CountingEmbedder(), tmp_path) as cache:
        cache.encode([f"a new line {i}" for i in range(400)])
    monkeypatch.undo()
    message = one_line(raised.value)
    assert f"the disk of the cache folder {tmp_path} is full (database or disk is full)" in message
    assert "free some space there" in message and "--cache-dir or $KGBUILD_CACHE_DIR" in message
    assert healthy_rows(path, "vec") == len(TEXTS)
    assert set_aside(tmp_path, "embeddings.sqlite") == []


def test_a_full_disk_stops_the_response_cache_with_one_line_and_keeps_its_answers(tmp_path, monkeypatch):
    path = filled_response_cache(tmp_path / "llm-responses.sqlite")
    monkeypatch.setattr(sqlite3, "connect", full_disk_connect(sqlite3.connect))
    with pytest.raises(CacheError) as raised, ResponseCache(path) as cache:
        for i in range(200):
            cache.put(f"new-{i}", ChatResult(content="y" * 2000), model="m")
    monkeypatch.undo()
    assert f"the disk of the cache folder {tmp_path} is full" in one_line(raised.value)
    assert healthy_rows(path, "responses") >= 60
    with ResponseCache(path) as cache:
        assert all(cache.get(f"key-{i}") is not None for i in range(60))


def test_a_full_disk_when_a_new_cache_is_made_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite3, "connect", full_disk_connect(sqlite3.connect))
    with pytest.raises(CacheError, match=f"the disk of the cache folder {tmp_path / 'e'} is full"):
        CachedEmbedder(CountingEmbedder(), tmp_path / "e")
    with pytest.raises(CacheError, match=f"the disk of the cache folder {tmp_path / 'l'} is full"):
        ResponseCache(tmp_path / "l" / "llm-responses.sqlite")


def test_a_cache_that_refuses_writes_says_so_in_one_line(tmp_path, monkeypatch):
    filled_embedding_cache(tmp_path)
    original = sqlite3.connect

    def read_only(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = original(*args, **kwargs)
        db.execute("PRAGMA query_only = 1")
        return db

    monkeypatch.setattr(sqlite3, "connect", read_only)
    with pytest.raises(CacheError) as raised:
        CachedEmbedder(CountingEmbedder(), tmp_path).encode(["never seen"])
    assert f"cannot write the embedding cache {tmp_path / 'embeddings.sqlite'}" in one_line(raised.value)
