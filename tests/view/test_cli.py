"""`kgbuild view`: a build folder's page, -o, a corpus with its index, the errors; the build's page."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.folders import BuildFolder, CorpusFolder
from kgbuild.graph import load_graph, save_graph
from kgbuild.view import is_corpus, write_corpus_views
from kgbuild.view.page import embedded_data


def _movie(folder: Path, story, *, with_screenplay: bool = True) -> Path:
    graph, screenplay = story
    save_graph(graph, folder / "graph.json")
    if with_screenplay:
        (folder / "screenplay.json").write_text(screenplay.model_dump_json(), encoding="utf-8")
    return folder


def test_view_writes_the_page_beside_graph_json(tmp_path, story):
    folder = _movie(tmp_path / "small", story)
    result = CliRunner().invoke(cli, ["view", str(folder)])
    assert result.exit_code == 0, result.output
    page = (folder / BuildFolder.VIEW).read_text(encoding="utf-8")
    data = embedded_data(page)
    assert len(data["nodes"]) == 5 and len(data["edges"]) == 5  # type: ignore[arg-type]
    assert data["size_by"] == "speeches"
    assert f"Wrote {folder / BuildFolder.VIEW} (" in result.output and "5 entities, 5 relations" in result.output
    assert list(tmp_path.rglob(".*")) == []  # no temporary file left


def test_view_takes_a_graph_json_and_writes_where_o_says(tmp_path, story):
    folder = _movie(tmp_path / "small", story, with_screenplay=False)
    target = tmp_path / "pages" / "story.html"
    result = CliRunner().invoke(cli, ["view", str(folder / "graph.json"), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert embedded_data(target.read_text(encoding="utf-8"))["size_by"] == "degree"
    assert "no screenplay.json beside graph.json" in result.output
    assert not (folder / BuildFolder.VIEW).exists()


def test_a_screenplay_of_another_script_is_left_out(tmp_path, story, caplog):
    graph, screenplay = story
    other = screenplay.model_copy(update={"source": screenplay.source.model_copy(update={"sha256": "other"})})
    folder = _movie(tmp_path / "small", (graph, other))
    result = CliRunner().invoke(cli, ["view", str(folder)])
    assert result.exit_code == 0
    assert embedded_data((folder / BuildFolder.VIEW).read_text(encoding="utf-8"))["scenes"] == []
    assert "is the screenplay of another script" in caplog.text


def test_view_of_a_corpus_writes_every_page_and_an_index(tmp_path, story):
    graph, screenplay = story
    corpus = tmp_path / "corpus"
    _movie(corpus / "small", story)
    movie = graph.movie.model_copy(update={"id": "other film", "title": "Another"})
    renamed = graph.model_copy(update={"movie": movie})
    _movie(corpus / "other film", (renamed, screenplay), with_screenplay=False)
    (corpus / "notes").mkdir()
    assert is_corpus(corpus) and not is_corpus(corpus / "small")
    result = CliRunner().invoke(cli, ["view", str(corpus)])
    assert result.exit_code == 0, result.output
    assert (corpus / "small" / BuildFolder.VIEW).is_file() and (corpus / "other film" / BuildFolder.VIEW).is_file()
    index = (corpus / CorpusFolder.VIEW_INDEX).read_text(encoding="utf-8")
    assert index.index('href="other%20film/view.html">Another</a>') < index.index('href="small/view.html">Small Story')
    assert "<td>Anna, Ben</td>" in index
    assert "Wrote 2 movie pages" in result.output


def test_an_index_elsewhere_links_the_pages_relative_to_itself(tmp_path, story):
    corpus = tmp_path / "corpus"
    _movie(corpus / "small", story)
    pages = write_corpus_views(corpus, tmp_path / "site" / "all.html")
    assert pages.index == tmp_path / "site" / "all.html"
    assert 'href="../corpus/small/view.html"' in pages.index.read_text(encoding="utf-8")


def test_a_broken_movie_is_named_and_the_others_still_get_pages(tmp_path, story):
    corpus = tmp_path / "corpus"
    _movie(corpus / "small", story)
    (corpus / "broken").mkdir()
    (corpus / "broken" / "graph.json").write_text("{", encoding="utf-8")
    result = CliRunner().invoke(cli, ["view", str(corpus)])
    assert result.exit_code == 2
    assert "no page for" in result.output and "broken" in result.output
    assert (corpus / "small" / BuildFolder.VIEW).is_file()
    assert "broken" not in (corpus / CorpusFolder.VIEW_INDEX).read_text(encoding="utf-8")


def test_view_refuses_a_folder_without_graphs_and_an_unwritable_output(tmp_path, story):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["view", str(empty)])
    assert result.exit_code != 0
    folder = _movie(tmp_path / "small", story)
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(cli, ["view", str(folder), "-o", str(tmp_path / "file" / "page.html")])
    assert result.exit_code != 0 and not (folder / BuildFolder.VIEW).exists()


def test_a_build_writes_the_page_and_its_report_links_it(example_build):
    graph = load_graph(example_build / "graph.json")
    data = embedded_data((example_build / BuildFolder.VIEW).read_text(encoding="utf-8"))
    assert [n["id"] for n in data["nodes"]] == [e.id for e in graph.entities]  # type: ignore[index]
    assert len(data["edges"]) == len(graph.relations)  # type: ignore[arg-type]
    assert data["size_by"] == "speeches"
    assert f"[{BuildFolder.VIEW}]({BuildFolder.VIEW})" in (example_build / "report.md").read_text(encoding="utf-8")
