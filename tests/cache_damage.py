"""The shapes a damaged cache file takes, and a disk that fills up, for the cache guard's tests."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

PAGE = 4096


def garbage(path: Path) -> None:
    """Random bytes instead of the database."""
    path.write_bytes(random.Random(1).randbytes(5000))


def truncated(path: Path) -> None:
    """The first half of the file only."""
    os.truncate(path, path.stat().st_size // 2)


def flipped_pages(path: Path) -> None:
    """The pages of the middle half of the file overwritten with random bytes (header intact)."""
    pages = path.stat().st_size // PAGE
    assert pages >= 4, f"{path} is too small to damage in the middle ({pages} pages)"
    noise = random.Random(2)
    with path.open("r+b") as handle:
        for page in range(pages // 4, pages - pages // 4):
            handle.seek(page * PAGE)
            handle.write(noise.randbytes(PAGE))


def folder_in_place(path: Path) -> None:
    """A folder (holding a file) where the cache file should be."""
    path.unlink()
    path.mkdir()
    (path / "something").write_text("not a cache")


SHAPES: dict[str, Callable[[Path], None]] = {
    "garbage": garbage, "truncated": truncated, "flipped-pages": flipped_pages, "folder": folder_in_place,
}


def checkpoint(path: Path) -> None:
    """Fold the write-ahead log into the file and drop it, so damage to the file is all there is."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
    db.close()
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def damage(path: Path, shape: str) -> None:
    """Damage the cache file at `path` in one of the `SHAPES`."""
    checkpoint(path)
    SHAPES[shape](path)


def healthy_rows(path: Path, table: str) -> int:
    """Rows of `table`, after checking the whole file is sound."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows: int = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    db.close()
    return rows


def set_aside(folder: Path, name: str) -> list[Path]:
    """The files a damaged cache `name` was set aside as."""
    return sorted(p for p in folder.iterdir() if p.name.startswith(f"{name}.corrupt-"))


def full_disk_connect(connect: Callable[..., sqlite3.Connection]) -> Callable[..., sqlite3.Connection]:
    """`connect` for a disk that is full: no database it opens may grow by a page (SQLite's own
    "database or disk is full")."""
    def full(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.execute("PRAGMA max_page_count = 1")  # never below the current size: not one page more
        return db

    return full


def copy_cache(source: Path, target: Path) -> Path:
    """A copy of a cache file (after folding its log in) in the folder `target`."""
    checkpoint(source)
    target.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(source, target / source.name))
