"""Where kgbuild writes: the cache folder, and checks that an output place can be written.

The files of the folders kgbuild writes are named in `kgbuild.folders`.

Commands check their output and cache places before any work, so a typo in `-o` or an
unwritable `KGBUILD_CACHE_DIR` ends with one line and exit status 2 instead of a traceback
after minutes of work.
"""

from __future__ import annotations

import os
from pathlib import Path

from kgbuild.atomic import is_disk_full
from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder

#: The environment variable naming the cache folder.
CACHE_ENV = "KGBUILD_CACHE_DIR"
#: The story view page's name, `kgbuild.folders.BuildFolder.VIEW` (bench/view.py imports it here).
VIEW_FILE = BuildFolder.VIEW
#: The most bytes (UTF-8) of a name kgbuild makes from a script (a movie's folder): file systems
#: allow 255 bytes, and a staging name or a `-2` suffix is added to it.
MAX_NAME_BYTES = 120


def fit_name(name: str, max_bytes: int = MAX_NAME_BYTES) -> str:
    """`name` cut to at most `max_bytes` bytes of UTF-8, at a character boundary.

    Example:
        >>> fit_name("我不是药神", 7)
        '我不'
    """
    data = name.encode("utf-8")
    if len(data) <= max_bytes:
        return name
    return data[:max_bytes].decode("utf-8", errors="ignore")


def cache_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """The cache folder: `given`, else $KGBUILD_CACHE_DIR, else ~/.cache/kgbuild (read now).

    Example:
        >>> cache_dir("/tmp/kg")
        PosixPath('/tmp/kg')
    """
    if given is not None:
        return Path(given)
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "kgbuild")


def _first_existing(path: Path) -> Path:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def check_writable_dir(path: str | os.PathLike[str], what: str = "output folder") -> Path:
    """Make sure a folder exists or can be created, and can be written (nothing is created).

    Raises:
        OutputError: the path or one of its parents is a file, or the place is not writable.
    """
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputError(f"cannot write the {what} {target}: it is a file, not a folder; choose another path")
    probe = _first_existing(target.absolute())
    if not probe.is_dir():
        raise OutputError(f"cannot write the {what} {target}: {probe} is a file, not a folder; "
                          "choose another path")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write the {what} {target}: {probe} is not writable; choose another path")
    return target


def check_writable_file(path: str | os.PathLike[str], what: str = "output file") -> Path:
    """Make sure a file can be written at `path` (its folder exists or can be created).

    Raises:
        OutputError: `path` is a folder, or its folder cannot be written.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"cannot write the {what} {target}: it is a folder; give a file name")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError(f"cannot write the {what} {target}: the file is not writable")
    check_writable_dir(target.parent if str(target.parent) else Path("."), what=f"folder of the {what}")
    return target


def write_error(folder: str | os.PathLike[str], error: OSError, what: str = "output folder") -> OutputError:
    """The one-line error for `error`, met while writing into `folder`: a full disk says to free space.

    Example:
        >>> str(write_error("out", OSError(28, "No space left on device"))).split(";")[0]
        'no space left on the device of out (No space left on device)'
    """
    if is_disk_full(error):
        return OutputError(f"no space left on the device of {folder} ({error.strerror}); nothing there was "
                           "changed: free some space, or write into another folder (-o)")
    return OutputError(f"cannot write the {what} {folder}: {error}")
