"""Movie ids of a corpus: the one rule of single builds, made safe as folder names and unique.

A movie's id is the manifest's id (as `--movie` for one script), else the STAGE folder name of a
script.json, else the title page's title, else the file stem (`kgbuild.readers.movie_id`). In a
corpus each id names a folder, so characters a folder name cannot hold become `_`, an id is cut
to `kgbuild.paths.MAX_NAME_BYTES` bytes of UTF-8 (a file system counts bytes: 90 Chinese
characters are 270), and an id met again (ignoring case, for case-insensitive file systems) gets
`-2`, `-3`, ... in input order: the same inputs give the same ids on every run. The names of the
corpus's own files (corpus.jsonl, report.md, index.html, corpus.lbdb) count as met already, so
no movie folder takes their place.

Example:
    >>> unique_ids(["Fargo", "fargo", "Up/Down", "report.md"])
    ['Fargo', 'fargo-2', 'Up_Down', 'report.md-2']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgbuild.folders import CorpusFolder
from kgbuild.paths import fit_name

_UNSAFE = re.compile(r'[/\\:*?"<>|\x00-\x1f]')
#: The names of a corpus output's own files (the embedded store's with its side files).
RESERVED = CorpusFolder.RESERVED


def safe_id(raw: str) -> str:
    """`raw` as a folder name: no path separators or control characters, no leading dot, not empty,
    at most `kgbuild.paths.MAX_NAME_BYTES` bytes.

    Example:
        >>> safe_id("../Up: A Story")
        '_._Up_ A Story'
    """
    text = fit_name(_UNSAFE.sub("_", raw.strip())).strip()
    if text.startswith("."):
        text = "_" + text[1:]
    return text or "untitled"


def unique_ids(raw: Sequence[str]) -> list[str]:
    """Safe, distinct ids for `raw` (in order): a repeated id, or one of `RESERVED`, gets the next free `-N` suffix."""
    taken = {name.casefold() for name in RESERVED}
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
