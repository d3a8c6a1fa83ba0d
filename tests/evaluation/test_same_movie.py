"""`kgbuild score` refuses a reference of another movie unless --force."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.evaluation.reference import check_same_movie
from kgbuild.graph import save_graph
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation


def movie(title: str, movie_id: str = "") -> MovieInfo:
    return MovieInfo(id=movie_id, title=title, language="en")


@pytest.mark.parametrize(("pred", "ref"), [
    (movie("en0499", "en0499"), movie("Birthday Girl", "en0499")),
    (movie("FARGO", "FARGO"), movie("Fargo (film)", "en44fd")),
    (movie("Birthday Girl!", "birthday-girl"), movie("Birthday Girl", "en0499")),
    (movie("anything"), movie("Birthday Girl", "en0499")),  # no id: nothing says which movie it is
])
def test_the_same_movie_by_id_or_title(pred, ref):
    check_same_movie(pred, ref)


def test_another_movie_is_refused_naming_both():
    with pytest.raises(InputError) as raised:
        check_same_movie(movie("LIZARD PEOPLE", "LIZARD PEOPLE"), movie("Birthday Girl", "en0499"))
    assert str(raised.value) == ("the prediction is of 'LIZARD PEOPLE' and the reference of 'Birthday Girl' (id "
                                 "en0499): another movie; give the reference of the same movie, or --force to score "
                                 "them anyway")


def _graph(movie: MovieInfo) -> KnowledgeGraph:
    anna = Entity(id="character:anna", name="Anna", type="Character", scenes=[1])
    ship = Entity(id="object:ship", name="Ship", type="Object", scenes=[1])
    return KnowledgeGraph(movie=movie, entities=[anna, ship], relations=[
        Relation(id="r1", source=anna.id, target=ship.id, type="possesses", scenes=[1])])


def test_score_refuses_another_movie_in_one_line_unless_forced(tmp_path):
    save_graph(_graph(MovieInfo(id="harbour", title="Harbour", language="en")), tmp_path / "pred" / "graph.json")
    save_graph(_graph(MovieInfo(id="academy", title="Academy", language="en")), tmp_path / "ref" / "graph.json")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    refused = subprocess.run([sys.executable, "-m", "kgbuild", "score", str(tmp_path / "pred"), str(tmp_path / "ref"),
                              *cache], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "kgbuild: error: the prediction is of 'Harbour' (id harbour) and the reference of 'Academy' (id academy): "
        "another movie; give the reference of the same movie, or --force to score them anyway"]
    forced = CliRunner().invoke(cli, ["score", str(tmp_path / "pred"), str(tmp_path / "ref"), "--force", *cache])
    assert forced.exit_code == 0, forced.output
    assert "Academy" in forced.output


@pytest.mark.shared_data
def test_a_stage_build_is_scored_against_its_own_reference_only(shared_data, tmp_path):
    english = shared_data / "stage" / "English"
    runner = CliRunner()
    built = runner.invoke(cli, ["baseline", str(english / "en049957b3c0b54085baddbec23e00506c" / "script.json"),
                                "-o", str(tmp_path / "graph.json")])
    assert built.exit_code == 0, built.output
    pred, cache = str(tmp_path / "graph.json"), ["--cache-dir", str(tmp_path / "cache")]
    own = runner.invoke(cli, ["score", pred, str(english / "en049957b3c0b54085baddbec23e00506c"), *cache])
    assert own.exit_code == 0, own.output
    assert "Birthday Girl" in own.output
    other = runner.invoke(cli, ["score", pred, str(english / "en44fd740e98fd44c186677b99ad139c57"), *cache])
    assert isinstance(other.exception, InputError)
    assert "and the reference of 'Fargo (film)'" in str(other.exception)
