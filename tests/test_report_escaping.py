"""report.md shows what it takes from a script as text: Markdown or HTML in a title, a name or an
error is escaped, so no Markdown viewer renders it as markup."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from kgbuild.corpus.report import corpus_report
from kgbuild.corpus.status import MovieStatus
from kgbuild.mdescape import md_text
from kgbuild.pipeline import BuildOptions, run_build
from kgbuild.report import build_report
from tests.test_failures import HARBOUR

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert('t')</script>",
    "*bold* and **strong** and _under_ and __twice__",
    "[click](http://evil.example) ![pic](x.png)",
    "`code` | a | b |",
    "~~gone~~ &amp; &lt;b&gt; \\*kept\\*",
    "Title #",
    "neil_perry -kinship_with-> mr_perry",
]
MARKDOWN = MarkdownIt("commonmark").enable("table")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def test_escaped_text_renders_as_the_text_itself():
    for text in HOSTILE:
        rendered = MARKDOWN.render(f"- {md_text(text)}")
        assert rendered.startswith("<ul>\n<li>") and rendered.count("<") == 4, rendered  # no tag of its own
        assert _text(rendered) == text
    assert md_text("two\nlines") == "two lines"


def test_the_build_report_escapes_the_title_and_the_corpus_report_its_ids_and_errors(tmp_path):
    title = HOSTILE[0] + " " + HOSTILE[2]
    script = tmp_path / "hostile.fountain"
    script.write_text(HARBOUR.read_text().replace("Title: The Harbour Job", f"Title: {title}"))
    state = run_build(script, BuildOptions(merge=False))
    rendered = MARKDOWN.render(build_report(state))
    assert "<img" not in rendered and "<em>" not in rendered
    heading = re.search(r"<h1>(.*?)</h1>", rendered)
    assert state.screenplay.title.startswith(HOSTILE[0])  # (the Fountain reader reads the emphasis)
    assert heading is not None and _text(heading.group(1)) == f"kgbuild report: {state.screenplay.title}"

    failed = MovieStatus(movie="a|b", status="failed", script="s.fountain", error=HOSTILE[1] + " " + HOSTILE[4])
    table = MARKDOWN.render(corpus_report([failed], executor="local processes, 1 worker", wall_seconds=1.0))
    assert "<script" not in table and "<code>" not in table
    row = re.findall(r"<td>(.*?)</td>", table)
    assert len(row) == 7 and _text(row[0]) == "a|b" and _text(row[6]) == failed.error
