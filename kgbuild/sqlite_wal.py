"""Write-ahead logging for the SQLite caches that several processes share.

The embedding cache and the LLM response cache are opened by every worker of a corpus build.
SQLite reports "database is locked" at once, without its busy wait, when two processes switch a
new database to write-ahead logging at the same moment (two workers opening a fresh cache); a
short retry lets the second see the first's change.

Example:
    >>> db = sqlite3.connect(path, timeout=60)
    >>> use_wal(db)
"""

from __future__ import annotations

import sqlite3
import time

#: Seconds a process waits for another that holds the database.
BUSY_SECONDS = 60.0


def use_wal(db: sqlite3.Connection, *, wait_seconds: float = BUSY_SECONDS) -> None:
    """Switch the database to write-ahead logging, waiting for another process doing the same."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
