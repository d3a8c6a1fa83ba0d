"""One guard for every SQLite cache (embeddings, LLM responses): what happens when the file fails.

A cache file can be damaged (garbage bytes, a truncated file, overwritten pages, a folder where
the file should be), its disk can fill up, or it can refuse writes. `GuardedCache` opens the file
and runs every read and write, and turns each of these into one line naming the file or folder
and what to do (`CacheError`). A cache whose content is free to compute again (the embeddings)
is instead set aside as `NAME.corrupt-<time>` (with its write-ahead log) and started afresh, with a
warning; one whose content costs money (the LLM answers) is never set aside without the user.
A failed write is rolled back by SQLite, so the cache stays as it was before it.

Example:
    >>> kind = CacheKind(what="embedding cache", folder_option="--cache-dir or $KGBUILD_CACHE_DIR",
    ...                  set_aside_damaged=True)
    >>> cache = GuardedCache(path, kind, opener=open_my_table)  # doctest: +SKIP
    >>> cache.run(lambda db: db.execute("SELECT COUNT(*) FROM vec").fetchone())  # doctest: +SKIP
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.errors import KgbuildError

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: The files SQLite keeps beside a database in write-ahead-log mode.
_COMPANIONS = ("-wal", "-shm")
_DAMAGED_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_UNWRITABLE_CODES = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN}
_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_UNWRITABLE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}


class CacheError(KgbuildError):
    """A cache file cannot be opened, read or written; the message names it and says what to do."""


class Failure(StrEnum):
    """What went wrong with a cache file."""

    DAMAGED = "damaged"  # not a database, or a malformed one, or a folder in its place
    FULL = "full"  # the disk (or quota) is full
    UNWRITABLE = "unwritable"  # read-only file or folder, no permission
    BUSY = "busy"  # another process held it longer than the busy wait
    OTHER = "other"  # anything else SQLite or the system reports


class CacheKind(BaseModel):
    """How one cache is named in messages, and what to do with it when it is damaged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    what: str = Field(description="The cache's name in messages, e.g. 'embedding cache'.")
    folder_option: str = Field(description="How a user points it at another folder, e.g. "
                               "'--cache-dir or $KGBUILD_CACHE_DIR'.")
    set_aside_damaged: bool = Field(description="Set a damaged file aside and start an empty cache (its "
                                    "content is free to compute again), instead of stopping with an error.")
    loss: str = Field(default="", description="What starting an empty cache costs, said in the error "
                      "of a damaged cache that is not set aside.")


def classify(error: BaseException) -> Failure:
    """What an error raised by SQLite or the file system says about the cache file.

    SQLite's result code decides when it has one; otherwise (an error raised by other code with
    SQLite's wording) the message does.

    Example:
        >>> classify(sqlite3.OperationalError("database or disk is full"))
        <Failure.FULL: 'full'>
    """
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        if code is not None:
            primary = code & 0xFF
            if primary in _DAMAGED_CODES:
                return Failure.DAMAGED
            if primary == sqlite3.SQLITE_FULL:
                return Failure.FULL
            if primary in _UNWRITABLE_CODES:
                return Failure.UNWRITABLE
            if primary in _BUSY_CODES:
                return Failure.BUSY
            return Failure.OTHER
        text = str(error).lower()
        if "malformed" in text or "not a database" in text:
            return Failure.DAMAGED
        if "disk is full" in text:
            return Failure.FULL
        if "readonly" in text or "read-only" in text:
            return Failure.UNWRITABLE
        if "locked" in text:
            return Failure.BUSY
        return Failure.OTHER
    if isinstance(error, OSError):
        if error.errno == errno.EISDIR:  # a folder where the file should be
            return Failure.DAMAGED
        if error.errno in _FULL_ERRNOS:
            return Failure.FULL
        if error.errno in _UNWRITABLE_ERRNOS:
            return Failure.UNWRITABLE
    return Failure.OTHER


def _detail(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return " ".join(str(error).split()) or type(error).__name__


def cache_error(kind: CacheKind, path: Path, error: BaseException) -> CacheError:
    """The one-line error for `error` on the cache file `path`, saying what to do."""
    failure = classify(error)
    detail = _detail(error)
    option = kind.folder_option
    if failure is Failure.FULL:
        return CacheError(f"the disk of the cache folder {path.parent} is full ({detail}); the {kind.what} keeps "
                          f"what it held: free some space there, or point {option} at a disk with room")
    if failure is Failure.DAMAGED:
        loss = f" ({kind.loss})" if kind.loss else ""
        return CacheError(f"the {kind.what} {path} is damaged ({detail}): move it away or delete it to start an "
                          f"empty one{loss}, or point {option} at another folder")
    if failure is Failure.UNWRITABLE:
        return CacheError(f"cannot write the {kind.what} {path} ({detail}): make it and its folder writable, "
                          f"or point {option} at another folder")
    if failure is Failure.BUSY:
        return CacheError(f"the {kind.what} {path} is held by another process ({detail}): let it finish, or "
                          f"point {option} at another folder")
    return CacheError(f"cannot use the {kind.what} {path} ({detail}): check the file and its disk, or point "
                      f"{option} at another folder")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _aside_name(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
        number += 1
    return candidate


class GuardedCache:
    """A SQLite cache file, opened and used only through the guard.

    Args:
        path: The database file.
        kind: Its name in messages and what to do when it is damaged.
        opener: Opens the file and makes its tables (called again after a set-aside).

    Raises:
        CacheError: the file cannot be opened (damaged, and `kind` does not set it aside; the
            disk is full; not writable).
    """

    def __init__(self, path: str | os.PathLike[str], kind: CacheKind,
                 opener: Callable[[Path], sqlite3.Connection]):
        self.path = Path(path)
        self.kind = kind
        self._opener = opener
        self._identity: tuple[int, int] | None = None
        self.db = self._open()

    def _connect(self) -> sqlite3.Connection:
        self._identity = _identity(self.path)  # what a set-aside may rename: this file, not a newer one
        if self.path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder, not a cache file")
        db = self._opener(self.path)
        self._identity = _identity(self.path)
        return db

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except (sqlite3.Error, OSError) as e:
            if classify(e) is not Failure.DAMAGED or not self.kind.set_aside_damaged:
                raise cache_error(self.kind, self.path, e) from e
            self._set_aside(e)
        try:
            return self._connect()
        except (sqlite3.Error, OSError) as e:
            raise cache_error(self.kind, self.path, e) from e

    def _set_aside(self, error: BaseException) -> None:
        """Rename the damaged file (and its write-ahead log) out of the way, unless another process
        already did and a fresh cache stands there."""
        current = _identity(self.path)
        if current is not None and self._identity is not None and current != self._identity:
            logger.info("the %s %s was already replaced by another process", self.kind.what, self.path)
            return
        aside = _aside_name(self.path)
        try:
            if current is not None:
                self.path.rename(aside)
            for suffix in _COMPANIONS:
                companion = self.path.with_name(self.path.name + suffix)
                if companion.exists():
                    companion.rename(aside.with_name(aside.name + suffix))
        except OSError as e:
            raise cache_error(self.kind, self.path, e) from e
        logger.warning("the %s %s was damaged (%s): set it aside as %s and started an empty one",
                       self.kind.what, self.path, _detail(error), aside.name)

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the connection; a damaged cache that `kind` sets aside is replaced by an
        empty one and `work` runs once more on it.

        Raises:
            CacheError: the file failed (see the class).
        """
        try:
            return work(self.db)
        except (sqlite3.Error, OSError) as e:
            if classify(e) is not Failure.DAMAGED or not self.kind.set_aside_damaged:
                raise cache_error(self.kind, self.path, e) from e
            self.db.close()
            self._set_aside(e)
            self.db = self._open()
        try:
            return work(self.db)
        except (sqlite3.Error, OSError) as e:
            raise cache_error(self.kind, self.path, e) from e

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
