"""The story view: a self-contained HTML page per movie (`kgbuild view`), drawn with the bundled
Cytoscape.js: entities coloured by type, a scene slider, search, and the evidence of every fact.

- `data`: the graph as the page shows it (positions, sizes, first scenes, type styles);
- `layout`: the stable positions, computed once when the page is written;
- `style`: colours and line styles from the schema's type lists;
- `page`: the HTML of a movie's page and of a corpus index;
- `files`: reading build folders and writing the pages.

Example:
    >>> from kgbuild.view import write_view
    >>> write_view("out/lizard-people")  # doctest: +SKIP
"""

from __future__ import annotations

from kgbuild.view.data import ViewData, view_data
from kgbuild.view.files import CorpusPages, ViewPage, is_corpus, write_corpus_views, write_view
from kgbuild.view.page import render_page

__all__ = ["CorpusPages", "ViewData", "ViewPage", "is_corpus", "render_page", "view_data", "write_corpus_views",
           "write_view"]
