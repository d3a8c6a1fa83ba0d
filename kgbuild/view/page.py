"""The HTML of the view: one self-contained page per movie, and the index page of a corpus.

Everything the page needs is inlined: the bundled Cytoscape.js (with its licence header), the
page's own scripts (view.js, and declutter.js: which names and relations to draw) and style, and
the graph data as JSON. Opened from disk it needs no server and
no network. Rendering is pure: data in, text out.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from kgbuild.view.data import ViewData

#: The Cytoscape.js release bundled in kgbuild/view/assets (see VERSIONS there).
CYTOSCAPE_VERSION = "3.34.4"
_SLOT = re.compile(r"\{\{(\w+)\}\}")


@cache
def asset(name: str) -> str:
    """The text of a file in kgbuild/view/assets."""
    return resources.files("kgbuild.view").joinpath("assets", name).read_text(encoding="utf-8")


def script_json(value: str) -> str:
    """JSON text made safe inside a <script> element: '<', '>' and '&' become escapes, so no
    '</script>' or '<!--' in the data can end or change the element.

    Example:
        >>> script_json('{"quote": "</script>"}')
        '{"quote": "\\\\u003c/script\\\\u003e"}'
    """
    return value.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _fill(template: str, values: dict[str, str]) -> str:
    """`template` with every {{name}} replaced by its value, in one pass (values are not rescanned)."""
    return _SLOT.sub(lambda m: values[m.group(1)], template)


def render_page(data: ViewData, *, version: str) -> str:
    """The self-contained HTML page of one movie.

    Args:
        data: What the page shows (see `kgbuild.view.data.view_data`).
        version: The kgbuild version named on the page.

    Returns:
        The page as text.

    Example:
        >>> page = render_page(view_data(graph), version="0.1.0")  # doctest: +SKIP
    """
    title = data.movie.title or data.movie.key
    return _fill(asset("page.html"), {
        "lang": html.escape(data.movie.language or "en"),
        "title": html.escape(title),
        "version": html.escape(version),
        "cytoscape_version": CYTOSCAPE_VERSION,
        "css": asset("view.css"),
        "data": script_json(data.model_dump_json()),
        "cytoscape": asset("cytoscape.min.js"),
        "declutter": asset("declutter.js"),
        "js": asset("view.js"),
    })


class IndexEntry(BaseModel):
    """One movie of a corpus on the index page."""

    model_config = ConfigDict(extra="forbid")

    href: str
    movie_id: str
    title: str
    language: str
    scenes: int
    entities: int
    relations: int
    top_characters: list[str]


def _index_row(entry: IndexEntry) -> str:
    """One table row of the index page."""
    movie_id = f'<div class="id">{html.escape(entry.movie_id)}</div>' if entry.movie_id != entry.title else ""
    top = html.escape(", ".join(entry.top_characters)) or '<span class="none">none</span>'
    return (f'<tr><td><a href="{html.escape(entry.href)}">{html.escape(entry.title)}</a>{movie_id}</td>'
            f"<td>{html.escape(entry.language)}</td><td class='n'>{entry.scenes}</td>"
            f'<td class="n">{entry.entities}</td><td class="n">{entry.relations}</td><td>{top}</td></tr>')


def render_index(entries: list[IndexEntry], *, title: str, version: str) -> str:
    """The index page of a corpus: a table of the movies, each linking its page.

    Args:
        entries: The movies, in the order shown.
        title: The page's title (the corpus folder's name).
        version: The kgbuild version named on the page.

    Returns:
        The page as text (no script; it works offline).
    """
    rows = "\n".join(_index_row(e) for e in entries)
    return _fill(asset("index.html"), {
        "title": html.escape(title), "version": html.escape(version), "count": str(len(entries)),
        "rows": rows, "css": asset("index.css"),
    })


def embedded_data(page: str) -> dict[str, object]:
    """The view data embedded in a page written by `render_page` (for tests and tools).

    Raises:
        ValueError: the text holds no kgbuild view data.
    """
    match = re.search(r'<script type="application/json" id="kgview-data">(.*?)</script>', page, re.S)
    if match is None:
        raise ValueError("not a kgbuild view page: no kgview-data element")
    value = json.loads(match.group(1))
    if not isinstance(value, dict):
        raise ValueError("not a kgbuild view page: kgview-data is not an object")
    return value
