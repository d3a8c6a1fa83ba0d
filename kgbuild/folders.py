"""The folders kgbuild writes, and the one place the files in them are named.

- `BuildFolder`: a build (`kgbuild build SCRIPT -o OUTDIR`, `kgbuild.build(outdir=...)`): graph.json
  and what is made from it. Any folder holding a graph.json is read as one (the folders `kgbuild
  score --write-missed`, `diff --write-sides` and `merge -o` write hold a graph.json alone).
- `CorpusFolder`: a corpus build: a `BuildFolder` per movie, the status file, the report, the
  story view's index page and the corpus store.
- `AuditFolder`: what `kgbuild audit` writes (OUTDIR/audit by default).

Other modules take a file's name or path from here and never spell it; the tests check it
(`tests/test_folders.py`). The names are class attributes (`BuildFolder.GRAPH`), the paths
attributes of a folder (`BuildFolder(outdir).graph`, a `FileIn`).

Example:
    >>> folder = BuildFolder("out/lizard-people")
    >>> folder.graph, folder.store
    (PosixPath('out/lizard-people/graph.json'), PosixPath('out/lizard-people/graph.lbdb'))
    >>> CorpusFolder("out/stage").movie("fargo").view
    PosixPath('out/stage/fargo/view.html')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, overload

PathLike = str | os.PathLike[str]


class _Folder(Protocol):
    @property
    def path(self) -> Path: ...


class FileIn:
    """A file of a folder, as a read-only attribute: the folder's `path` joined with the name.

    Example:
        >>> BuildFolder("out").graph
        PosixPath('out/graph.json')
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, folder: None, owner: type) -> FileIn: ...
    @overload
    def __get__(self, folder: _Folder, owner: type | None = None) -> Path: ...

    def __get__(self, folder: _Folder | None, owner: type | None = None) -> Path | FileIn:
        if folder is None:
            return self
        return folder.path / self.name


@dataclass(frozen=True)
class BuildFolder:
    """A build's folder, and the names and paths of its files.

    Attributes:
        path: The folder.
    """

    path: Path

    #: The graph, the canonical form every other file is made from.
    GRAPH = "graph.json"
    #: The parsed screenplay (scenes, elements, source facts).
    SCREENPLAY = "screenplay.json"
    #: The build report.
    REPORT = "report.md"
    #: The graph as GraphML (also what `kgbuild export --format graphml` writes).
    GRAPHML = "graph.graphml"
    #: The story view page (`kgbuild view`, and every build).
    VIEW = "view.html"
    #: The embedded store (`kgbuild load`, `kgbuild query --db OUTDIR`).
    STORE = "graph.lbdb"
    #: The merge decisions, one JSON line each (a build with merging, `kgbuild merge`).
    MERGE_LOG = "merge_log.jsonl"
    #: LLM builds only: the chunks left below the reflection threshold or failed.
    REVIEW = "review.jsonl"
    #: The schema of a build made with another schema than the default.
    SCHEMA = "schema.json"
    #: A corpus build's record of the input and options a movie was built for.
    BUILD_KEY = "build_key.json"
    #: The folder `kgbuild audit` writes by default (an `AuditFolder`).
    AUDIT = "audit"
    #: The folder `kgbuild dossier --top K` writes by default (a Markdown and a JSON file per character).
    DOSSIERS = "dossiers"
    #: The lock a build holds while it writes (`kgbuild.lock`).
    LOCK = ".kgbuild.lock"
    #: The journal of files being moved into place (`kgbuild.journal`).
    JOURNAL = ".kgbuild-journal.json"
    #: The start of the name of a build's staging folders (a random part follows).
    STAGING_PREFIX = ".kgbuild-staging-"
    #: The files of every build, in the order they are moved into place: the store just before
    #: graph.json, graph.json last.
    BUILD_FILES = (SCREENPLAY, REPORT, GRAPHML, VIEW, STORE, GRAPH)

    def __init__(self, path: PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    #: The paths of the files named above.
    graph = FileIn(GRAPH)
    screenplay = FileIn(SCREENPLAY)
    report = FileIn(REPORT)
    graphml = FileIn(GRAPHML)
    view = FileIn(VIEW)
    store = FileIn(STORE)
    merge_log = FileIn(MERGE_LOG)
    review = FileIn(REVIEW)
    schema = FileIn(SCHEMA)
    build_key = FileIn(BUILD_KEY)
    dossiers = FileIn(DOSSIERS)
    lock = FileIn(LOCK)
    journal = FileIn(JOURNAL)

    @property
    def audit(self) -> AuditFolder:
        """The audit folder inside the build."""
        return AuditFolder(self.path / self.AUDIT)

    def has_graph(self) -> bool:
        """True when the folder holds a graph.json."""
        return self.graph.is_file()

    def is_build(self) -> bool:
        """True when the folder holds a graph.json and its screenplay.json (what `ask`, `--from-stage`
        and the screenplay lookups of `view`, `merge` and `dossier` need)."""
        return self.has_graph() and self.screenplay.is_file()


def graph_folder(path: PathLike) -> BuildFolder:
    """The folder of a graph: `path` itself when it is a folder, else the folder of the file.

    Example:
        >>> graph_folder("out/missed/relations/graph.json").path
        PosixPath('out/missed/relations')
    """
    p = Path(path)
    return BuildFolder(p if p.is_dir() else p.parent)


@dataclass(frozen=True)
class CorpusFolder:
    """A corpus build's output folder: OUTDIR/<movie>/ per movie (a `BuildFolder` each) and the
    corpus's own files.

    Attributes:
        path: The folder.
    """

    path: Path

    #: One status line per movie (done, skipped, failed, pending).
    STATUS = "corpus.jsonl"
    #: The corpus report.
    REPORT = "report.md"
    #: The story view's index page, linking each movie's view page.
    VIEW_INDEX = "index.html"
    #: The embedded store `kgbuild load OUTDIR` writes, with every movie.
    STORE = "corpus.lbdb"
    #: The staging area of a corpus build (hidden, removed at the start of every run).
    STAGING = ".kgbuild-staging"
    #: The names no movie's folder may take: the corpus's own files, and its store's side files.
    RESERVED = (STATUS, REPORT, VIEW_INDEX, STORE, f"{STORE}.wal", f"{STORE}.shadow")

    def __init__(self, path: PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    def movie(self, movie: str) -> BuildFolder:
        """The folder of one movie."""
        return BuildFolder(self.path / movie)

    def movies(self) -> list[BuildFolder]:
        """The movies' folders: the subfolders holding a graph.json (hidden ones left out), by name."""
        return [BuildFolder(p.parent) for p in sorted(self.path.glob(f"*/{BuildFolder.GRAPH}"))
                if p.is_file() and not p.parent.name.startswith(".")]

    status = FileIn(STATUS)
    report = FileIn(REPORT)
    view_index = FileIn(VIEW_INDEX)
    store = FileIn(STORE)
    staging = FileIn(STAGING)


def find_movies(folder: PathLike) -> list[Path]:
    """The subfolders of `folder` that hold a graph.json (hidden ones left out), sorted by name."""
    return [movie.path for movie in CorpusFolder(folder).movies()]


def is_corpus_output(folder: PathLike) -> bool:
    """True when `folder` holds no graph.json itself but subfolders with one."""
    root = Path(folder)
    return root.is_dir() and not BuildFolder(root).graph.exists() and bool(find_movies(root))


@dataclass(frozen=True)
class AuditFolder:
    """What `kgbuild audit` writes: the sheet, the sample, the LLM judge's requests, and after a
    tally the verdicts and the report.

    Attributes:
        path: The folder.
    """

    path: Path

    #: The sheet a person marks.
    SHEET = "sheet.md"
    #: The sheet in two parts, each with the whole judge text: one per kind of fact.
    PART_SHEETS = {"relation": "sheet-relations.md", "entity": "sheet-entities.md"}
    #: The sample, one fact per line.
    FACTS = "facts.jsonl"
    #: The LLM judge's requests, for a Batch API.
    REQUESTS = "requests.jsonl"
    #: An LLM judge's verdicts.
    VERDICTS = "verdicts.jsonl"
    #: The report, for people and as JSON.
    REPORT_MD = "audit.md"
    REPORT_JSON = "audit.json"

    def __init__(self, path: PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    sheet = FileIn(SHEET)
    facts = FileIn(FACTS)
    requests = FileIn(REQUESTS)
    verdicts = FileIn(VERDICTS)
