"""Replacing the files of a build folder in one step, as every kgbuild command sees it.

A build writes its files into a staging folder inside OUTDIR, then puts them in place of the old
ones. Several renames are not one atomic step, so a small journal makes them one
(`replace_files`):

1. the staged files are flushed to disk, and OUTDIR/.kgbuild-journal.json is written (in one
   rename) naming the staging folder, the files to install and the files to remove;
2. each old file is moved aside into the staging folder (`.old/`), then each new file is moved
   from the staging folder into OUTDIR;
3. the journal is removed: from then on the new build counts. The staging folder, with the old
   files, is removed after.

An error in step 2 (a full disk) moves the old files back at once. A crash in step 2, or
before the journal is removed, leaves the journal: the next kgbuild command given the folder
(`settle`: every build, and the CLI for every folder named on its command line) moves the old
files back before it reads anything, so the folder it reads holds the old build, never
screenplay.json of one build beside graph.json of another, or a graph.lbdb holding another
movie than graph.json. Only the names of a build's own files are touched; anything else in
the folder (audit/, a corrections file) stays where it is.

Why a journal, and not a manifest written last that readers trust: the folder keeps its plain
layout (graph.json, graph.lbdb, ... at its top, read as they are by tools that know nothing of
kgbuild), and a reader pays one `stat` for it unless a build crashed. Why back to the old build
rather than forward to the new one: a crash during the final write then ends like a crash
before it, with the old build in place, and one procedure serves both the error and the crash.

Example:
    >>> replace_files(Path("out"), staging, install=["report.md", "graph.json"], remove=["review.jsonl"])
    >>> settle(Path("out"))   # after a crash: the old build back in place
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kgbuild.atomic import fsync_dir, fsync_file, temp_name, write_new
from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder
from kgbuild.lock import FolderBusyError, try_lock

logger = logging.getLogger(__name__)

#: Where the old files wait inside the staging folder until the new build counts.
OLD = ".old"


class Journal(BaseModel):
    """What a replacement of a folder's files does: which files move in from which staging folder."""

    model_config = ConfigDict(extra="forbid")

    staging: str = Field(description="The staging folder's name, inside the build folder.")
    install: list[str] = Field(description="Files moved from the staging folder into the build folder.")
    remove: list[str] = Field(description="Files of the old build the new one does not have.")

    @field_validator("staging", "install", "remove")
    @classmethod
    def _plain_names(cls, value: str | list[str]) -> str | list[str]:
        for name in [value] if isinstance(value, str) else value:
            if not name or name in (".", "..", OLD) or "/" in name or os.sep in name or "\0" in name:
                raise ValueError(f"{name!r} is not a file name inside the build folder")
        return value


def replace_files(folder: Path, staging: Path, *, install: Sequence[str], remove: Iterable[str] = ()) -> None:
    """Put the staged files `install` in place of `folder`'s, and remove `remove`, in one step.

    Args:
        folder: The build folder.
        staging: A folder inside `folder` holding the new files under their final names.
        install: The names to move in (each must be in `staging`).
        remove: Names of the old build that the new one does not have.

    Raises:
        OSError: a file operation failed; the old files are back in place.
        OutputError: a file operation failed and so did moving the old files back; the journal
            stays, and the next kgbuild command on the folder finishes the restoring.
    """
    journal = Journal(staging=staging.name, install=list(install),
                      remove=[name for name in remove if name not in install])
    for name in journal.install:
        if (staging / name).is_file():
            fsync_file(staging / name)
    (staging / OLD).mkdir()
    fsync_dir(staging)
    pending = temp_name(staging)
    write_new(pending, journal.model_dump_json().encode("utf-8"))
    os.replace(pending, BuildFolder(folder).journal)
    try:
        fsync_dir(folder)
        for name in [*journal.install, *journal.remove]:
            if os.path.lexists(folder / name):
                os.rename(folder / name, staging / OLD / name)
        for name in journal.install:
            os.rename(staging / name, folder / name)
        fsync_dir(folder)
    except BaseException:
        try:
            _roll_back(folder, journal)
        except OSError as undo:
            raise OutputError(f"{folder}: moving the old build back failed too ({undo}); the next kgbuild "
                              "command on the folder finishes it") from undo
        raise
    # The new build counts from here. (Were this removal lost to a power cut, the next command
    # would put the old build back: whole all the same.)
    os.unlink(BuildFolder(folder).journal)


def _roll_back(folder: Path, journal: Journal) -> None:
    """Put the old files back: the new ones out into the staging folder, the old ones in."""
    staging = folder / journal.staging
    old = staging / OLD
    for name in journal.install:
        if not os.path.lexists(staging / name) and os.path.lexists(folder / name):
            os.rename(folder / name, staging / name)
    for name in [*journal.install, *journal.remove]:
        if os.path.lexists(old / name):
            os.rename(old / name, folder / name)
    fsync_dir(folder)
    os.unlink(BuildFolder(folder).journal)


def _read(path: Path) -> Journal:
    try:
        return Journal.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as e:
        raise OutputError(f"{path} cannot be read ({e}); the files beside it may mix two builds: build again "
                          "into the folder after removing the journal") from e


def settle(folder: str | os.PathLike[str], *, timeout: float = 30.0) -> bool:
    """Finish what a build that crashed while moving its files into `folder` left: the old build back.

    Does nothing (one `stat`) when no journal is there. A journal of a process still writing
    (it holds the folder's lock) is waited for, up to `timeout` seconds.

    Returns:
        True when the folder was restored.

    Raises:
        OutputError: the folder cannot be restored (not writable, or the journal is broken).
        FolderBusyError: another process holds the folder past `timeout` with the journal there.
    """
    target = Path(folder)
    path = BuildFolder(target).journal
    if not os.path.lexists(path):
        return False
    deadline = time.monotonic() + timeout
    while isinstance(lock := try_lock(target), dict):
        if not os.path.lexists(path):
            return False  # its writer finished
        if time.monotonic() > deadline:
            raise FolderBusyError(target, lock)
        time.sleep(0.05)
    try:
        if not os.path.lexists(path):
            return False
        journal = _read(path)
        if not (target / journal.staging).is_dir():
            raise OutputError(f"{path} names a staging folder that is gone; the files beside it may mix two "
                              "builds: remove the journal and build again into the folder")
        try:
            _roll_back(target, journal)
            shutil.rmtree(target / journal.staging)
        except OSError as e:
            raise OutputError(f"{target} holds a build interrupted while its files were moved into place, and "
                              f"the old build cannot be put back ({e}); run the command again as a user who "
                              "can write the folder") from e
    finally:
        lock.release()
    logger.warning("%s: a build was interrupted while moving its files into place; the build before it is "
                   "back in place", target)
    return True


def settle_named(arguments: Sequence[str]) -> None:
    """`settle` every folder named on a command line (a folder, or a file in one), and the current folder.

    Raises:
        OutputError: a folder cannot be restored.
    """
    folders = {Path.cwd()}
    for argument in arguments:
        value = argument.partition("=")[2] if argument.startswith("--") else argument
        if not value:
            continue
        path = Path(value)
        try:
            folders.add(path if path.is_dir() else path.parent)
        except OSError:
            continue  # not a path (a Cypher query, a name too long for one)
    for folder in sorted(folders):
        try:
            present = os.path.lexists(BuildFolder(folder).journal)
        except OSError:
            continue
        if present:
            settle(folder)
