"""Movie ids of a corpus: the one rule of single builds, made safe as folder names and unique.

A movie's id is the manifest's id (as `--movie` for one script), else the STAGE folder name of a
script.json, else the title page's title, else the file stem (`kgbuild.readers.movie_id`). In a
corpus each id names a folder, so characters a folder name cannot hold become `_`, and an id met
again (ignoring case, for case-insensitive file systems) gets `-2`, `-3`, ... in input order: the
same inputs give the same ids on every run.

Example:
    >>> unique_ids(["Fargo", "fargo", "Up/Down"])
    ['Fargo', 'fargo-2', 'Up_Down']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_UNSAFE = re.compile(r'[/\\:*?"<>|\x00-\x1f]')
_MAX_LENGTH = 120


def safe_id(raw: str) -> str:
    """`raw` as a folder name: no path separators or control characters, no leading dot, not empty.

    Example:
        >>> safe_id("../Up: A Story")
        '_._Up_ A Story'
    """
    text = _UNSAFE.sub("_", raw.strip())[:_MAX_LENGTH].strip()
    if text.startswith("."):
        text = "_" + text[1:]
    return text or "untitled"


def unique_ids(raw: Sequence[str]) -> list[str]:
    """Safe, distinct ids for `raw` (in order): a repeated id gets the next free `-N` suffix."""
    taken: set[str] = set()
    ids = []
    for name in raw:
        base = safe_id(name)
        candidate, n = base, 1
        while candidate.casefold() in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate.casefold())
        ids.append(candidate)
    return ids
