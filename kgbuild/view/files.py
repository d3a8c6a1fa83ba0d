"""Reading graphs and writing view pages: the I/O edge of `kgbuild view`.

A movie is a build folder (or a graph.json); its screenplay.json, when beside it, gives scene
headings and speeches. A corpus is a folder whose subfolders each hold a graph.json: every movie
gets its page beside its graph.json, and the corpus gets an index page linking them.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError, KgbuildError
from kgbuild.folders import BuildFolder, CorpusFolder, find_movies, is_corpus_output
from kgbuild.graph import graph_file, load_graph
from kgbuild.model import KnowledgeGraph, Screenplay
from kgbuild.readers import load_screenplay
from kgbuild.schema import schema_for_graph
from kgbuild.version import __version__
from kgbuild.view.data import ViewData, top_characters, view_data
from kgbuild.view.page import IndexEntry, render_index, render_page

logger = logging.getLogger(__name__)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ViewPage(_Model):
    """A page written for one movie."""

    path: Path
    movie: str
    entities: int
    relations: int
    bytes: int
    top_characters: list[str]
    with_screenplay: bool


class FailedMovie(_Model):
    """A corpus movie whose page could not be written, and why."""

    folder: Path
    reason: str


class CorpusPages(_Model):
    """The pages written for a corpus, its index page, and the movies that failed."""

    index: Path
    pages: list[ViewPage]
    failed: list[FailedMovie]


def load_movie(path: str | os.PathLike[str]) -> tuple[KnowledgeGraph, Screenplay | None]:
    """A graph and, when screenplay.json lies beside it and belongs to it, its screenplay.

    A screenplay.json of another script (its checksum differs from the graph's) is left out, with
    a warning.

    Args:
        path: A build folder or a graph.json.

    Returns:
        The graph and the screenplay (None without one).

    Raises:
        InputError: the graph or the screenplay.json cannot be read.
    """
    file = graph_file(path)
    graph = load_graph(file)
    beside = BuildFolder(file.parent).screenplay
    if not beside.is_file():
        return graph, None
    screenplay = load_screenplay(beside)
    ours, theirs = graph.movie.source_sha256, screenplay.source.sha256
    if ours and theirs and ours != theirs:
        logger.warning("%s is the screenplay of another script; the view of %s goes without it", beside, file)
        return graph, None
    return graph, screenplay


def movie_page(path: str | os.PathLike[str]) -> tuple[ViewData, str]:
    """The view data and the page of the movie at `path` (a build folder or a graph.json).

    Raises:
        InputError: the graph or its screenplay.json cannot be read.
    """
    graph, screenplay = load_movie(path)
    data = view_data(graph, screenplay, schema=schema_for_graph(path))
    return data, render_page(data, version=__version__)


def write_view(path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> ViewPage:
    """Write the story view of one movie: a self-contained HTML page.

    Args:
        path: A build folder or a graph.json (a screenplay.json beside it is used when present).
        output: The page to write [default: view.html beside graph.json].

    Returns:
        What was written.

    Raises:
        InputError: the graph or its screenplay.json cannot be read.

    Example:
        >>> write_view("out/lizard-people").path  # doctest: +SKIP
        PosixPath('out/lizard-people/view.html')
    """
    data, page = movie_page(path)
    target = Path(output) if output is not None else BuildFolder(graph_file(path).parent).view
    return _record(write_text_atomic(target, page), data, page)


def _record(path: Path, data: ViewData, page: str) -> ViewPage:
    return ViewPage(path=path, movie=data.movie.key, entities=len(data.nodes), relations=len(data.edges),
                    bytes=len(page.encode("utf-8")), top_characters=top_characters(data),
                    with_screenplay=bool(data.scenes))


def is_corpus(folder: str | os.PathLike[str]) -> bool:
    """True when `folder` holds no graph.json itself but subfolders with one (`kgbuild.folders`)."""
    return is_corpus_output(folder)


def _href(page: Path, index: Path) -> str:
    return quote(Path(os.path.relpath(page.absolute(), index.absolute().parent)).as_posix())


def write_corpus_views(folder: str | os.PathLike[str], index: str | os.PathLike[str] | None = None) -> CorpusPages:
    """Write every movie's view page (view.html beside its graph.json) and an index page linking them.

    A movie whose graph cannot be read is listed in `failed` and left off the index; the others
    are written all the same.

    Args:
        folder: The corpus: subfolders each holding a graph.json.
        index: The index page [default: index.html in `folder`].

    Returns:
        The pages, the index and the failures.

    Raises:
        InputError: `folder` holds no movie.
    """
    root = Path(folder)
    movies = find_movies(root)
    if not movies:
        raise InputError("no subfolder holds a graph.json; build the movies first "
                         "('kgbuild build SCRIPT -o FOLDER/MOVIE')", path=str(root))
    target = Path(index) if index is not None else CorpusFolder(root).view_index
    pages: list[ViewPage] = []
    entries: list[IndexEntry] = []
    failed: list[FailedMovie] = []
    for movie in movies:
        try:
            data, page = movie_page(movie)
        except KgbuildError as e:
            logger.debug("no page for %s: %s", movie, e)
            failed.append(FailedMovie(folder=movie, reason=str(e)))
            continue
        pages.append(_record(write_text_atomic(BuildFolder(movie).view, page), data, page))
        entries.append(IndexEntry(href=_href(pages[-1].path, target), movie_id=data.movie.key,
                                  title=data.movie.title or data.movie.key, language=data.movie.language,
                                  scenes=data.last_scene, entities=len(data.nodes), relations=len(data.edges),
                                  top_characters=pages[-1].top_characters))
    entries.sort(key=lambda e: (e.title.casefold(), e.movie_id))
    write_text_atomic(target, render_index(entries, title=root.absolute().name, version=__version__))
    return CorpusPages(index=target, pages=pages, failed=failed)
