"""The scripts of a corpus: files, a folder (a STAGE tree or a folder of scripts), or a manifest.

A manifest is a CSV file (with a header) or a JSON Lines file; each row names a script by `path`
(relative paths are read from the manifest's folder) and optionally its movie id (`movie`, or
`movie_id` / `id`), `title` and `language`.

Example:
    >>> items = discover([Path("data/stage")])       # every */script.json below it
    >>> items = discover([Path("corpus.csv")])       # path,movie,title,language
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.errors import InputError

#: Suffixes of a manifest file.
MANIFEST_SUFFIXES = (".csv", ".jsonl")
#: Script files taken from a folder that holds no STAGE script.json.
FOLDER_SUFFIXES = (".fountain", ".fdx", ".pdf", ".txt")
_ID_COLUMNS = ("movie", "movie_id", "id")


class CorpusItem(BaseModel):
    """One script of a corpus, with what a manifest says of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path = Field(description="The script file.")
    movie: str | None = Field(default=None, description="The movie id the manifest gives, if any.")
    title: str | None = Field(default=None, description="The title the manifest gives (the graph's title).")
    language: str | None = Field(default=None, description="The language the manifest gives ('en', 'zh').")


def is_corpus(paths: Sequence[Path]) -> bool:
    """True when `kgbuild build` was given a corpus: several paths, a folder or a manifest."""
    return len(paths) > 1 or any(p.is_dir() or p.suffix.lower() in MANIFEST_SUFFIXES for p in paths)


def _folder(folder: Path) -> list[CorpusItem]:
    stage = sorted(folder.rglob("script.json"))
    if stage:
        return [CorpusItem(path=p) for p in stage]
    scripts = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES)
    if not scripts:
        raise InputError(f"no scripts here: a corpus folder holds STAGE movies (*/script.json) or files ending "
                         f"in {', '.join(FOLDER_SUFFIXES)}", path=str(folder))
    return [CorpusItem(path=p) for p in scripts]


def _row_item(row: dict[str, object], manifest: Path, line: int) -> CorpusItem:
    def text(*names: str) -> str | None:
        for name in names:
            value = row.get(name)
            if value is not None and str(value).strip():
                return str(value).strip()
        return None

    path = text("path")
    if path is None:
        raise InputError("this row has no path", path=str(manifest), line=line)
    script = Path(path)
    if not script.is_absolute():
        script = manifest.parent / script
    return CorpusItem(path=script, movie=text(*_ID_COLUMNS), title=text("title"), language=text("language"))


def read_manifest(manifest: Path) -> list[CorpusItem]:
    """The scripts a CSV or JSON Lines manifest lists, in its order.

    Raises:
        InputError: the file cannot be read, a row is malformed or has no path.
    """
    try:
        text = manifest.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the manifest: {e}", path=str(manifest)) from e
    items: list[CorpusItem] = []
    if manifest.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        if not reader.fieldnames or "path" not in reader.fieldnames:
            raise InputError("a CSV manifest needs a header with a 'path' column (and optionally movie, title, "
                             "language)", path=str(manifest))
        for number, row in enumerate(reader, start=2):
            items.append(_row_item(dict(row), manifest, number))
        return items
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"not JSON ({e.msg})", path=str(manifest), line=number) from e
        if not isinstance(row, dict):
            raise InputError("each line must be a JSON object with a 'path'", path=str(manifest), line=number)
        items.append(_row_item(row, manifest, number))
    return items


def discover(paths: Sequence[Path]) -> list[CorpusItem]:
    """Every script the paths name, in order: files as given, folders and manifests expanded.

    Args:
        paths: Script files, folders (a STAGE tree of */script.json, or a folder of .fountain,
            .fdx, .pdf and .txt files) and manifests (.csv, .jsonl).

    Returns:
        One item per script; a script named twice is kept once (its first mention).

    Raises:
        InputError: a path does not exist, a folder holds no script, a manifest is malformed.
    """
    items: list[CorpusItem] = []
    for path in paths:
        if path.is_dir():
            items += _folder(path)
        elif path.suffix.lower() in MANIFEST_SUFFIXES:
            items += read_manifest(path)
        elif path.exists():
            items.append(CorpusItem(path=path))
        else:
            raise InputError("no such file or folder", path=str(path))
    seen: set[Path] = set()
    unique = []
    for item in items:
        resolved = item.path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            unique.append(item)
    if not unique:
        raise InputError("the corpus holds no scripts")
    return unique
