"""The HTML: self-contained (no URL to fetch), data embedded safely, the bundled library pinned."""

from __future__ import annotations

import re

from kgbuild.view.data import view_data
from kgbuild.view.page import (
    CYTOSCAPE_VERSION,
    IndexEntry,
    asset,
    embedded_data,
    render_index,
    render_page,
    script_json,
)

#: Anything that would make a browser fetch something: script/link/img sources, CSS imports and urls.
FETCHES = re.compile(r"""<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=|@import|url\(\s*['"]?(https?:)?//""", re.I)


def test_the_page_inlines_everything_and_fetches_nothing(story):
    graph, screenplay = story
    page = render_page(view_data(graph, screenplay), version="9.9")
    assert FETCHES.search(page) is None
    assert "http" not in page.replace(asset("cytoscape.min.js"), "")  # the library's comments name web sites
    assert asset("cytoscape.min.js") in page and asset("view.js") in page and asset("view.css") in page
    assert asset("declutter.js") in page
    assert "<title>Small Story · kgbuild story graph</title>" in page
    assert "kgbuild 9.9" in page and f"Cytoscape.js {CYTOSCAPE_VERSION}" in page
    assert "Copyright (c) 2016-2026, The Cytoscape Consortium" in page  # the licence travels with the code


def test_the_embedded_data_survives_markup_in_quotes(story):
    graph, screenplay = story
    data = view_data(graph, screenplay)
    page = render_page(data, version="9.9")
    assert page.count("</script>") == 4  # the data, the library and the page's 2 scripts; none from a quote
    embedded = embedded_data(page)
    assert embedded == data.model_dump(mode="json")
    event = next(n for n in embedded["nodes"] if n["type"] == "Event")  # type: ignore[union-attr, index]
    assert event["evidence"][0]["quote"].endswith("</script><script>window.pwned=1</script>")
    assert script_json('"a<b>&c"') == '"a\\u003cb\\u003e\\u0026c"'


def test_titles_are_escaped(story):
    graph, screenplay = story
    odd = graph.model_copy(update={"movie": graph.movie.model_copy(update={"title": "<b>Bold</b> & Co"})})
    page = render_page(view_data(odd, screenplay), version="1")
    assert "<b>Bold</b>" not in page and "&lt;b&gt;Bold&lt;/b&gt; &amp; Co" in page


def test_the_bundled_library_is_the_pinned_version_with_its_licence():
    assert f'"{CYTOSCAPE_VERSION}"' in asset("cytoscape.min.js")
    assert f"Cytoscape.js {CYTOSCAPE_VERSION}" in asset("VERSIONS")
    assert "Permission is hereby granted" in asset("cytoscape.LICENSE")


def test_the_index_lists_movies_with_links_counts_and_top_characters():
    entries = [IndexEntry(href="m%201/view.html", movie_id="m 1", title="Night <Train>", language="en", scenes=12,
                          entities=40, relations=90, top_characters=["Ann", "Bo"]),
               IndexEntry(href="zh/view.html", movie_id="zh", title="zh", language="zh", scenes=3, entities=2,
                          relations=0, top_characters=[])]
    page = render_index(entries, title="corpus", version="9.9")
    assert FETCHES.search(page) is None
    assert '<a href="m%201/view.html">Night &lt;Train&gt;</a>' in page
    assert "<td>Ann, Bo</td>" in page and ">none<" in page
    assert re.search(r"<td class=.n.>12</td><td class=.n.>40</td><td class=.n.>90</td>", page)
    assert "2 story graphs" in page
