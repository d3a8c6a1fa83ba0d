"""A corpus output read directly: loaded into one store, scored against the STAGE references."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgbuild.folders import CorpusFolder, find_movies, is_corpus_output
from kgbuild.loaders.embedded import run_query
from tests.corpus.helpers import SCRIPTS, run_kgbuild, statuses

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("embedding-cache")


def test_load_puts_every_movie_of_a_corpus_into_one_store_and_a_reload_changes_nothing(tmp_path: Path, cache: Path):
    out = tmp_path / "out"
    assert run_kgbuild("build", *map(str, SCRIPTS[:3]), "-o", str(out), "--workers", "2", cache=cache).returncode == 0
    (out / ".kgbuild-staging" / "left" ).mkdir(parents=True)
    shutil.copy(out / "The Academy" / "graph.json", out / ".kgbuild-staging" / "left" / "graph.json")
    assert is_corpus_output(out) and [p.name for p in find_movies(out)] == sorted(statuses(out))

    def per_movie() -> dict[str, int]:
        rows = run_query(out / CorpusFolder.STORE, "MATCH (n) WHERE n.movie IS NOT NULL RETURN n.movie AS movie, "
                         "count(n) AS nodes ORDER BY movie", {}).as_dicts()
        return {row["movie"]: row["nodes"] for row in rows}

    result = run_kgbuild("load", str(out), cache=cache)
    assert result.returncode == 0, result.stderr
    loaded = per_movie()
    assert sorted(loaded) == sorted(statuses(out))  # the staging leftover is no movie
    for movie, count in loaded.items():
        graph = json.loads((out / movie / "graph.json").read_text())
        assert count >= len(graph["entities"]) > 0
    assert "3 movies" in result.stdout
    assert run_kgbuild("load", str(out), cache=cache).returncode == 0
    assert per_movie() == loaded


@pytest.mark.shared_data
def test_score_reads_a_corpus_output_directly(tmp_path: Path, cache: Path, shared_data: Path):
    english = shared_data / "stage" / "English"
    movies = sorted(p.name for p in english.iterdir() if (p / "script.json").is_file())[:2]
    manifest = tmp_path / "two.jsonl"
    manifest.write_text("".join(json.dumps({"path": str(english / m / "script.json")}) + "\n" for m in movies))
    out = tmp_path / "out"
    assert run_kgbuild("build", str(manifest), "-o", str(out), "--workers", "2", cache=cache).returncode == 0
    refs = tmp_path / "refs"
    for movie in movies:
        shutil.copytree(english / movie, refs / "English" / movie)
    result = run_kgbuild("score", "--corpus", str(out), str(refs), "--json", str(tmp_path / "score.json"),
                         cache=cache)
    assert result.returncode == 0, result.stderr
    scored = json.loads((tmp_path / "score.json").read_text())
    assert sorted(m["movie"] for m in scored["movies"]) == movies
    assert scored["missing_predictions"] == [] and scored["unused_predictions"] == []
    assert all(m["entities"]["tp"] > 0 for m in scored["movies"])
