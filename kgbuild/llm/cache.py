"""The persistent LLM response cache: one SQLite file, keyed by the full request.

The key is the sha256 of the canonical JSON of the `ChatRequest` (model, messages, schema and
decoding parameters), so any change to what is asked makes a new key and an identical request
is never sent twice. Each response is committed as soon as it arrives (SQLite in WAL mode,
safe for several processes at once), so a build killed at any moment resumes without
repeating a request that had completed.

Example:
    >>> with ResponseCache(tmp_path / "llm.sqlite") as cache:  # doctest: +SKIP
    ...     cache.put(cache_key(request), result, request=request)
    ...     cache.get(cache_key(request)).content
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Self, TypeVar

from pydantic import BaseModel, ConfigDict

from kgbuild.cache_guard import CacheError, CacheKind, GuardedCache
from kgbuild.llm.types import ChatRequest, ChatResult, Usage
from kgbuild.paths import cache_dir as resolve_cache_dir
from kgbuild.sqlite_wal import BUSY_SECONDS, use_wal

logger = logging.getLogger(__name__)

T = TypeVar("T")

CACHE_FILE = "llm-responses.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT,
    request TEXT,
    content TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    finish_reason TEXT,
    source TEXT NOT NULL,
    created REAL NOT NULL
)
"""

#: Its answers cost money and batch imports cannot be fetched again: a damaged file is the
#: user's to move away, never set aside behind their back.
RESPONSE_CACHE = CacheKind(
    what="LLM response cache",
    folder_option="--llm-cache-dir (--cache-dir for 'kgbuild llm') or $KGBUILD_CACHE_DIR",
    set_aside_damaged=False, loss="its requests are then sent, and paid for, again")


class CachedResponse(BaseModel):
    """One stored response."""

    model_config = ConfigDict(extra="forbid")

    key: str
    model: str | None
    content: str
    usage: Usage
    finish_reason: str | None
    source: str  # 'live' or 'batch'


class CacheStats(BaseModel):
    """What the cache holds."""

    model_config = ConfigDict(extra="forbid")

    path: str
    entries: int
    by_model: dict[str, int]
    by_source: dict[str, int]
    prompt_tokens: int
    completion_tokens: int
    size_bytes: int


def canonical_json(request: ChatRequest) -> str:
    """The request as canonical JSON (sorted keys, no spaces): the text the key is hashed from."""
    return json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def cache_key(request: ChatRequest) -> str:
    """sha256 (hex) of the request's canonical JSON; also the Batch API `custom_id`."""
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()


def default_cache_path(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The cache file in `cache_dir`, or in $KGBUILD_CACHE_DIR / ~/.cache/kgbuild by default."""
    return resolve_cache_dir(cache_dir) / CACHE_FILE


class ResponseCache:
    """SQLite-backed store of valid LLM responses, keyed by `cache_key(request)`.

    Every read and write goes through `kgbuild.cache_guard`: a damaged file, a full disk or a
    read-only file ends in a `CacheError` naming it and saying what to do, and the file is left
    as it was (a failed write is rolled back).

    Args:
        path: The database file (created with its folder if missing).
        read_only: Open for lookups only, creating and writing nothing (`kgbuild build
            --dry-run`); a missing file reads as an empty cache and `put` is refused.

    Raises:
        CacheError: the file cannot be opened as a cache.
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.Lock()
        self._cache = GuardedCache(self.path, RESPONSE_CACHE, _open_read_only if read_only else _open)

    @classmethod
    def open_default(cls, cache_dir: str | os.PathLike[str] | None = None) -> ResponseCache:
        """Open the cache in `cache_dir` (see `default_cache_path`)."""
        return cls(default_cache_path(cache_dir))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._cache.close()

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            return self._cache.run(work)

    def get(self, key: str) -> CachedResponse | None:
        """The stored response for `key`, or None.

        Raises:
            CacheError: the file cannot be read (damaged).
        """
        row = self._run(lambda db: db.execute(
            "SELECT key, model, content, prompt_tokens, completion_tokens, finish_reason, source "
            "FROM responses WHERE key = ?", (key,)).fetchone())
        if row is None:
            return None
        return CachedResponse(key=row[0], model=row[1], content=row[2],
                              usage=Usage(prompt_tokens=row[3], completion_tokens=row[4]),
                              finish_reason=row[5], source=row[6])

    def __contains__(self, key: object) -> bool:
        return self._run(lambda db: db.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()) is not None

    def __len__(self) -> int:
        count: int = self._run(lambda db: db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        return count

    def put(self, key: str, result: ChatResult, *, request: ChatRequest | None = None,
            model: str | None = None, source: str = "live") -> None:
        """Store `result` under `key` and commit at once (a later put for the same key replaces it).

        Args:
            key: `cache_key(request)`.
            result: The valid response.
            request: The request, kept for inspection (optional: batch imports do not have it).
            model: The model name when `request` is not given.
            source: 'live' or 'batch'.

        Raises:
            CacheError: the write failed (disk full, read-only file...); nothing of it is stored.
        """
        if self.read_only:
            raise CacheError(f"the LLM response cache {self.path} was opened read-only")
        request_json = canonical_json(request) if request is not None else None
        model = request.model if request is not None else model
        row = (key, model, request_json, result.content, result.usage.prompt_tokens,
               result.usage.completion_tokens, result.finish_reason, source, time.time())
        self._run(lambda db: db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row))

    def completions(self, model: str) -> list[tuple[str, int]]:
        """(request JSON, completion tokens) of every stored reply of `model` sent live (batch
        imports keep no request), for measuring how long a model's answers are."""
        rows = self._run(lambda db: db.execute("SELECT request, completion_tokens FROM responses WHERE model = ? "
                                               "AND request IS NOT NULL", (model,)).fetchall())
        return [(row[0], int(row[1])) for row in rows]

    def delete(self, key: str) -> bool:
        """Remove the entry for `key`; True if there was one."""
        deleted: bool = self._run(lambda db: db.execute("DELETE FROM responses WHERE key = ?", (key,)).rowcount > 0)
        return deleted

    def stats(self) -> CacheStats:
        """Counts of entries and tokens by model and by source."""
        def read(db: sqlite3.Connection) -> tuple[tuple[int, int, int], dict[str, int], dict[str, int]]:
            totals = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) "
                "FROM responses").fetchone()
            by_model = dict(db.execute(
                "SELECT COALESCE(model, '?'), COUNT(*) FROM responses GROUP BY 1 ORDER BY 1").fetchall())
            by_source = dict(db.execute("SELECT source, COUNT(*) FROM responses GROUP BY 1 ORDER BY 1").fetchall())
            return totals, by_model, by_source

        (entries, prompt, completion), by_model, by_source = self._run(read)
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return CacheStats(path=str(self.path), entries=entries, by_model=by_model, by_source=by_source,
                          prompt_tokens=prompt, completion_tokens=completion, size_bytes=size)


def _open(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=BUSY_SECONDS, check_same_thread=False, isolation_level=None)
    try:
        use_wal(db)  # every worker of a corpus build may open a fresh cache at once
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def _open_read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.execute(_SCHEMA)
        return db
    # Without a write-ahead log beside it the file is all there is: open it as immutable, so that
    # SQLite creates no -wal and -shm files. With one (a build is writing), read it as well.
    wal = path.with_name(path.name + "-wal").exists()
    mode = "mode=ro" if wal else "immutable=1"
    db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, timeout=60,
                         check_same_thread=False, isolation_level=None)
    try:
        db.execute("SELECT COUNT(*) FROM responses").fetchone()
    except BaseException:
        db.close()
        raise
    return db
