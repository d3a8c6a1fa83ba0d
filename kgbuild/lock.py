"""One writer per output folder: a lock file that names its holder.

A build (one script or a corpus) holds OUTDIR/.kgbuild.lock from before its first write to its
end, so two builds into one folder cannot both win: the second stops at once
(`FolderBusyError`, exit status 2) with a line naming the holder (process id, host, and when it
took the lock). The lock is an `fcntl.flock` on that file, which the system releases when the
holding process ends however it ends: the lock file a killed build left behind is taken over by
the next build, no question asked. The file is removed when the lock is released.

The lock is re-entrant within a process: a build that holds it calls `write_build`, which takes
it too.

Example:
    >>> with folder_lock(Path("out/fargo")):
    ...     write_build(state, "out/fargo")
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder
from kgbuild.paths import write_error

logger = logging.getLogger(__name__)

_OPEN = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class FolderBusyError(OutputError):
    """Another process is writing the folder; the message names it.

    Args:
        folder: The locked folder.
        holder: What the holder wrote into the lock file (pid, host, started), possibly empty.
    """

    def __init__(self, folder: Path, holder: dict[str, object]):
        self.folder = folder
        self.holder = holder
        who = "another kgbuild process"
        if holder.get("pid"):
            who = f"kgbuild process {holder['pid']}"
            if holder.get("host") and holder["host"] != socket.gethostname():
                who += f" on {holder['host']}"
            if holder.get("started"):
                who += f", started {holder['started']}"
        super().__init__(f"{folder} is being written by {who}; wait until it ends, or write into another "
                         "folder (-o)")


class _Held:
    def __init__(self, fd: int, path: Path, created: bool):
        self.fd = fd
        self.path = path
        self.created = created
        self.count = 1


_held: dict[str, _Held] = {}
_guard = threading.Lock()


def _key(folder: Path) -> str:
    return os.path.realpath(folder)


def _open(path: Path) -> int:
    while True:
        try:
            return os.open(path, _OPEN, 0o666)
        except OSError:
            if not path.is_symlink():
                raise
            path.unlink()  # a symlink planted at the lock's name is removed, never followed


def _holder(fd: int) -> dict[str, object]:
    try:
        data = os.pread(fd, 4096, 0)
        record = json.loads(data.decode("utf-8")) if data else {}
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)


def _take(folder: Path) -> _Held | dict[str, object]:
    """The lock, or (when another process holds it) what its holder wrote."""
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / BuildFolder.LOCK  # a corpus folder takes the same name
    while True:
        try:
            fd = _open(path)
        except FileNotFoundError:  # the folder was removed by the last holder, who had created it
            folder.mkdir(parents=True, exist_ok=True)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            return holder
        except OSError as e:  # a file system without locks: go on, but say what is not guarded
            logger.warning("cannot lock %s (%s): a second build into it at the same time would not be stopped",
                           folder, e.strerror)
        if _same_file(fd, path):  # not a file its last holder removed between our open and our lock
            break
        os.close(fd)
    record = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
    return _Held(fd, path, created)


class FolderLock:
    """A held lock of a folder; `release` it (or use `folder_lock`)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._released = False

    def release(self) -> None:
        """Give the lock up (the last release in this process removes the lock file)."""
        if self._released:
            return
        self._released = True
        with _guard:
            key = _key(self.folder)
            held = _held[key]
            held.count -= 1
            if held.count:
                return
            del _held[key]
        if _same_file(held.fd, held.path):
            held.path.unlink()
        os.close(held.fd)
        if held.created:
            try:
                self.folder.rmdir()  # a folder the lock made, and nothing was written into
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    raise


def try_lock(folder: str | os.PathLike[str]) -> FolderLock | dict[str, object]:
    """Lock `folder` (created if missing) if no other process holds it.

    Returns:
        The held lock, or the holder's record (pid, host, started) when another process holds it.
    """
    target = Path(folder)
    with _guard:
        held = _held.get(_key(target))
        if held is not None:
            held.count += 1
            return FolderLock(target)
        taken = _take(target)
        if isinstance(taken, dict):
            return taken
        _held[_key(target)] = taken
    return FolderLock(target)


@contextmanager
def folder_lock(folder: str | os.PathLike[str]) -> Iterator[FolderLock]:
    """Hold the lock of `folder` (created if missing) for the `with` block.

    Raises:
        FolderBusyError: another process holds it; the message names that process.
        OutputError: the folder or its lock file cannot be made.
    """
    try:
        lock = try_lock(folder)
    except OSError as e:
        raise write_error(folder, e) from e
    if isinstance(lock, dict):
        raise FolderBusyError(Path(folder), lock)
    try:
        yield lock
    finally:
        lock.release()
