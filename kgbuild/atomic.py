"""Writing files safely: every file created fresh in its own folder, never through a symlink.

A file kgbuild writes is a new file, created with `O_CREAT | O_EXCL | O_NOFOLLOW` (`write_new`):
a symlink planted at its name (`ln -s ELSEWHERE OUT/corpus.jsonl`) makes the creation fail
instead of writing ELSEWHERE. A file that replaces another (`write_text_atomic`) is created that
way under a temporary name in the same folder and renamed over the name, which replaces a
symlink there rather than writing through it; a reader never sees half a file.

The bytes go to the file with `os.write` and are flushed with `os.fsync`, so a full disk shows as
an `OSError` (`is_disk_full`) at the write or at the flush, never later.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from pathlib import Path

#: The prefix of kgbuild's temporary files (short, so a long target name cannot make it too long).
TEMP_PREFIX = ".kgbuild-tmp-"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def is_disk_full(error: BaseException) -> bool:
    """True for an `OSError` saying the disk (or the user's quota) is full."""
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def write_new(path: str | os.PathLike[str], data: bytes) -> Path:
    """Create `path` as a new file holding `data`, flushed to disk.

    Args:
        path: A name that does not exist yet (a symlink there counts as existing).
        data: The content.

    Returns:
        The path written.

    Raises:
        FileExistsError: something (a file, a folder, a symlink) is already at `path`.
        OSError: the file cannot be written (a full disk among others); it is removed then.

    Example:
        >>> write_new(staging / "report.md", text.encode())  # doctest: +SKIP
    """
    target = Path(path)
    fd = os.open(target, _CREATE, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        target.unlink(missing_ok=True)
        raise
    os.close(fd)
    return target


def fsync_file(path: str | os.PathLike[str]) -> None:
    """Flush a file someone else wrote (a library writing into a staging folder) to disk."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (the renames and removals in it) to disk, where the system allows it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def remove_entry(path: str | os.PathLike[str]) -> None:
    """Remove what is at `path` without following a symlink: a folder with all it holds, else the name itself."""
    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)


def temp_name(folder: Path) -> Path:
    """A fresh temporary name in `folder` (short and random; `TEMP_PREFIX`)."""
    return folder / f"{TEMP_PREFIX}{secrets.token_hex(8)}"


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace `path` with a file holding `data`: a new file in the same folder, renamed over the name.

    If anything fails before the rename, the target is untouched and the temporary file removed.
    A symlink at `path` is replaced, not followed.

    Args:
        path: Destination file; its folder is created if missing.
        data: The content.

    Returns:
        The destination path.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_name(target.parent)
    write_new(tmp, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace `path` with `text` (UTF-8), atomically: see `write_bytes_atomic`.

    Example:
        >>> write_text_atomic("out/notes.md", "# Notes\\n")  # doctest: +SKIP
        PosixPath('out/notes.md')
    """
    return write_bytes_atomic(path, text.encode("utf-8"))
