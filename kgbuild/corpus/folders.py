"""The movie folders of a corpus output: each one complete or absent, whenever the build stops.

A movie's files are written into a staging folder inside OUTDIR (`CorpusFolder.STAGING`), then the staging
folder is renamed to OUTDIR/<movie> in one step. A folder from an older build of the movie is
first renamed away into the staging area and deleted after, so OUTDIR/<movie> never holds a mix
of two builds: a build killed at any moment leaves the movie's folder complete (old or new) or
absent, and leftovers in the staging area are removed by the next run.

`build_key.json` in each movie folder holds the `kgbuild.corpus.spec.input_key` the folder was
built for: the next run compares it to decide whether the movie is up to date.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path

from kgbuild.atomic import remove_entry, write_new
from kgbuild.folders import BuildFolder, CorpusFolder


def clean_staging(outdir: Path) -> None:
    """Remove what an interrupted run left in the staging area (a symlink there is removed, not followed)."""
    remove_entry(CorpusFolder(outdir).staging)


def built_key(outdir: Path, movie: str) -> str | None:
    """The key OUTDIR/<movie> was completely built for, or None (absent, partial or unreadable)."""
    folder = CorpusFolder(outdir).movie(movie)
    try:
        record = json.loads(folder.build_key.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("partial") or not folder.has_graph():
        return None
    key = record.get("key")
    return key if isinstance(key, str) else None


def commit_movie(outdir: Path, movie: str, files: Mapping[str, bytes], key_record: Mapping[str, object]) -> Path:
    """Write a movie's files and its build_key.json as OUTDIR/<movie>, replacing any older folder.

    Args:
        outdir: The corpus output folder.
        movie: The movie id (a safe folder name, `kgbuild.corpus.ids.safe_id`).
        files: The build folder's files by relative path.
        key_record: What build_key.json holds ('key', and what the key was made of).

    Returns:
        The movie folder.

    Raises:
        OSError: the files cannot be written (a full disk); an older folder stays in place.
    """
    staging = CorpusFolder(outdir).staging
    staging.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix="movie-", dir=staging))
    umask = os.umask(0)
    os.umask(umask)
    fresh.chmod(0o777 & ~umask)
    for name, data in files.items():
        target = fresh / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_new(target, data)
    write_new(BuildFolder(fresh).build_key, json.dumps(dict(key_record), indent=1, sort_keys=True).encode("utf-8"))
    final = outdir / movie
    old = staging / f"old-{uuid.uuid4().hex}"
    moved = os.path.lexists(final)
    if moved:  # an older folder, or anything else at its name (a symlink is moved, not followed)
        os.replace(final, old)
    try:
        os.replace(fresh, final)
    except OSError:
        if moved:
            os.replace(old, final)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return final
