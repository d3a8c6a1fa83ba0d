"""A STAGE script.json is titled by the release's *_movie_info.csv; `--title` overrides it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.graph import load_graph
from kgbuild.readers import read_screenplay

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "ask" / "script.json"
INFO = "movie_id,title,word_count,num_scenes,genre_1,genre_2,genre_3\nenlight,The Lighthouse,900,4,Drama,,\n"


def _release(root: Path, *, csv_in: str = "root") -> Path:
    """A STAGE-like tree: root/English/enlight/script.json, the csv in root or in root/English."""
    folder = root / "English" / "enlight"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / "script.json")
    (root if csv_in == "root" else root / "English").joinpath("english_movie_info.csv").write_text(INFO, "utf-8")
    return folder / "script.json"


@pytest.mark.parametrize("csv_in", ["root", "language folder"])
def test_the_release_csv_titles_the_movie_its_folder_stays_the_id(tmp_path, csv_in):
    screenplay = read_screenplay(_release(tmp_path, csv_in=csv_in))
    assert (screenplay.id, screenplay.title) == ("enlight", "The Lighthouse")
    assert not screenplay.warnings


def test_without_the_csv_the_title_is_the_id(tmp_path):
    folder = tmp_path / "enlight"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "script.json")
    assert read_screenplay(folder / "script.json").title == "enlight"
    (tmp_path / "english_movie_info.csv").write_bytes(b"movie_id,title\nenlight,\xff\xfe broken\n")
    screenplay = read_screenplay(folder / "script.json")
    assert screenplay.title == "enlight"
    assert any("cannot read the movie titles" in w.message for w in screenplay.warnings)


def test_a_build_shows_the_title_in_its_report_view_and_scores(tmp_path):
    script = _release(tmp_path / "stage")
    out = tmp_path / "out"
    runner = CliRunner()
    built = runner.invoke(cli, ["build", str(script), "-o", str(out), "-q"])
    assert built.exit_code == 0, built.output
    graph = load_graph(out / "graph.json")
    assert (graph.movie.id, graph.movie.title) == ("enlight", "The Lighthouse")
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# kgbuild report: The Lighthouse")
    assert "The Lighthouse" in (out / "view.html").read_text(encoding="utf-8")
    scored = runner.invoke(cli, ["score", str(out), str(out)])
    assert scored.exit_code == 0, scored.output
    assert "The Lighthouse" in scored.output

    renamed = runner.invoke(cli, ["build", str(script), "-o", str(out), "-q", "--title", "Lamp Room"])
    assert renamed.exit_code == 0, renamed.output
    assert load_graph(out / "graph.json").movie.title == "Lamp Room"
    assert json.loads((out / "screenplay.json").read_text(encoding="utf-8"))["id"] == "enlight"


def test_a_corpus_takes_titles_from_its_manifest_not_from_title(tmp_path):
    result = CliRunner().invoke(cli, ["build", str(FIXTURE), str(FIXTURE), "-o", str(tmp_path / "out"),
                                      "--title", "X"])
    assert result.exit_code == 2
    assert "--title names one script; give titles in a manifest" in result.output


@pytest.mark.shared_data
def test_the_stage_dev_movies_are_titled_by_the_release(shared_data):
    movie = shared_data / "stage" / "English" / "en049957b3c0b54085baddbec23e00506c"
    assert read_screenplay(movie / "script.json").title == "Birthday Girl"
