"""corpus.jsonl: one status line per movie of a corpus build.

Each line says what became of a movie: `done` (built now), `skipped` (its folder was complete
for the same input and options), `failed` (with the error), or `pending` (batch-export mode
recorded its LLM requests), with its timings, counts and LLM usage. Lines are appended as movies
finish, so an interrupted run leaves the lines of what it finished; at the end the file is
rewritten in input order. The next run also reads it back to reuse the ids of unchanged scripts
without parsing them again.

Example:
    >>> statuses = read_statuses(Path("out/corpus.jsonl"))
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgbuild.atomic import write_bytes_atomic, write_text_atomic
from kgbuild.llm.costs import TaskUsage

logger = logging.getLogger(__name__)

Status = Literal["done", "skipped", "failed", "pending"]


class MovieStatus(BaseModel):
    """One line of corpus.jsonl."""

    model_config = ConfigDict(extra="forbid")

    movie: str = Field(description="The movie id, also its folder name.")
    status: Status
    script: str = Field(description="The script's path.")
    script_sha256: str = ""
    reader_id: str = Field(default="", description="The id by the reader's rule, before de-duplication.")
    key: str = Field(default="", description="The input key (`kgbuild.corpus.spec.input_key`).")
    error: str | None = None
    seconds: float = Field(default=0.0, description="Wall time of the build in its worker.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per pipeline stage.")
    counts: dict[str, int] = Field(default_factory=dict)
    llm: TaskUsage | None = None
    failed_chunks: int = 0
    batch_requests: int = Field(default=0, description="Requests recorded for the batch export (pending).")
    worker: str = ""
    peak_rss_mb: float = 0.0


def read_statuses(path: Path) -> list[MovieStatus]:
    """The lines of a corpus.jsonl (an unreadable line, e.g. cut by a kill, is left out)."""
    if not path.is_file():
        return []
    statuses = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            statuses.append(MovieStatus.model_validate_json(line))
        except ValidationError:
            logger.info("ignoring an unreadable line of %s", path)
    return statuses


class StatusLog:
    """Appends status lines as movies finish (each line written at once) to a new corpus.jsonl.

    The file is created anew (`kgbuild.atomic.write_bytes_atomic`): whatever was at its name
    (the last run's file, or a symlink to a file elsewhere) is replaced, never written through.

    Args:
        path: The corpus.jsonl file.
    """

    def __init__(self, path: Path):
        self.path = path
        write_bytes_atomic(path, b"")
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))

    def append(self, status: MovieStatus) -> None:
        """Add one line."""
        line = memoryview((status.model_dump_json() + "\n").encode("utf-8"))
        while line:
            line = line[os.write(self._fd, line):]

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)


def write_statuses(path: Path, statuses: Iterable[MovieStatus]) -> None:
    """Replace corpus.jsonl with these lines, atomically."""
    write_text_atomic(path, "".join(json.dumps(s.model_dump(mode="json"), ensure_ascii=False) + "\n"
                                    for s in statuses))
