"""A failure never looks like success: unwritable places, other movies' folders, movie ids,
merging a build folder in place, and small CLI behaviours. Real files; the commands run in this
process as the console script runs them (tests/cli_in_process.py), and one error comes from a
real `python -m kgbuild` process, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.graph import load_graph
from tests.cli_in_process import Ran, run_cli

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "offline"
HARBOUR = FIXTURES / "harbour.fountain"
ACADEMY = FIXTURES / "academy.fountain"
SCOTTY = FIXTURES / "scotty.fountain"


def run(*args: str, cache: Path, cwd: Path | None = None, **env: str) -> Ran:
    """`kgbuild ARGS` in this process, with its embedding cache in `cache`."""
    return run_cli(*args, env={"KGBUILD_CACHE_DIR": str(cache), **env}, cwd=cwd)


def run_process(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """`python -m kgbuild ARGS` in a new process, with its embedding cache in `cache`."""
    environment = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "kgbuild", *args], check=False, capture_output=True,
                          text=True, timeout=300, env=environment)


def one_line_error(result: Ran | subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A regular file: any path under it cannot be written, even by root."""
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


@pytest.mark.slow
def test_unwritable_outputs_fail_before_any_work_with_one_line(tmp_path, blocker, embedding_cache):
    cache = embedding_cache
    graph_dir = tmp_path / "g"
    assert run("build", str(HARBOUR), "-o", str(graph_dir), "-q", cache=cache).returncode == 0
    cases = [
        ("build", str(HARBOUR), "-o", str(blocker / "out")),
        ("parse", str(HARBOUR), "-o", str(blocker / "sp.json")),
        ("chunk", str(HARBOUR), "-o", str(blocker / "chunks.jsonl")),
        ("baseline", str(HARBOUR), "-o", str(blocker / "graph.json")),
        ("merge", str(graph_dir), "-o", str(blocker / "merged")),
        ("score", str(graph_dir), str(graph_dir), "--json", str(blocker / "score.json")),
        ("export", str(graph_dir), "--format", "graphml", "-o", str(blocker / "export")),
    ]
    for args in cases:
        one_line_error(run(*args, cache=cache), "cannot write", "is a file, not a folder")
    assert blocker.read_text() == "not a folder"


def test_unwritable_cache_folder_fails_with_one_line(tmp_path, blocker):
    result = run("build", str(HARBOUR), "-o", str(tmp_path / "out"), "-q", cache=blocker / "cache")
    one_line_error(result, "cannot write the cache folder")
    flag = run("build", str(HARBOUR), "-o", str(tmp_path / "out"), "-q", "--cache-dir", str(blocker / "c"),
               cache=tmp_path / "cache")
    one_line_error(flag, "cannot write the cache folder")
    assert not (tmp_path / "out").exists()


def test_errors_come_without_an_empty_progress_bar(tmp_path):
    # The one error of this file shown by a real process: status 2, one line, no traceback.
    result = run_process("build", str(tmp_path / "missing.fountain"), "-o", str(tmp_path / "out"), cache=tmp_path / "c")
    one_line_error(result, "no such file")


@pytest.mark.slow
def test_a_folder_holding_another_movie_is_not_replaced_without_force(tmp_path, embedding_cache):
    cache, out = embedding_cache, tmp_path / "out"
    assert run("build", str(HARBOUR), "-o", str(out), "-q", cache=cache).returncode == 0
    before = (out / "graph.json").read_bytes()
    other = run("build", str(ACADEMY), "-o", str(out), "-q", cache=cache)
    one_line_error(other, "holds the build of another script (The Harbour Job)", "--force")
    assert (out / "graph.json").read_bytes() == before
    assert run("build", str(HARBOUR), "-o", str(out), "-q", cache=cache).returncode == 0  # same script: fine
    assert run("build", str(ACADEMY), "-o", str(out), "-q", "--force", cache=cache).returncode == 0
    assert load_graph(out / "graph.json").movie.title == "The Academy"


def _stage_copy(shared_data: Path, tmp_path: Path, language: str, index: int, scenes: int = 15) -> Path:
    """A STAGE movie's folder with the first `scenes` scenes of its script.json (its id is the folder's name)."""
    folder = sorted((shared_data / "stage" / language).iterdir())[index]
    target = tmp_path / folder.name
    target.mkdir()
    script = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    (target / "script.json").write_text(json.dumps(script[:scenes], ensure_ascii=False), encoding="utf-8")
    return target


@pytest.mark.shared_data
@pytest.mark.slow
def test_movie_ids_follow_one_rule_and_two_movies_share_a_store(shared_data, tmp_path, embedding_cache):
    cache = embedding_cache
    first, second = _stage_copy(shared_data, tmp_path, "English", 0), _stage_copy(shared_data, tmp_path, "English", 1)
    for movie in (first, second):
        assert run("build", str(movie / "script.json"), "-o", str(tmp_path / "b" / movie.name), "-q",
                   "--no-merge", cache=cache).returncode == 0
    graphs = [load_graph(tmp_path / "b" / m.name / "graph.json") for m in (first, second)]
    assert [g.movie.id for g in graphs] == [first.name, second.name]
    db = tmp_path / "shared.lbdb"
    loads = [run("load", str(tmp_path / "b" / m.name), "--db", str(db), "--replace", cache=cache)
             for m in (first, second)]
    assert all(r.returncode == 0 for r in loads), [r.stderr for r in loads]
    counts = json.loads(run("query", "MATCH (n) RETURN n.movie AS movie, count(*) AS nodes ORDER BY movie",
                            "--db", str(db), "--format", "json", cache=cache).stdout)
    assert {row["movie"]: row["nodes"] for row in counts} == {
        g.movie.id: len(g.entities) + len(g.scenes) for g in graphs}
    for graph, load in zip(graphs, loads, strict=True):
        assert f"{len(graph.entities) + len(graph.scenes)} nodes" in load.stdout
    # The title page's title, else the file stem; --movie wins.
    fountain = load_graph(_built(HARBOUR, tmp_path / "h", cache))
    assert (fountain.movie.id, fountain.movie.title) == ("The Harbour Job", "The Harbour Job")
    plain = tmp_path / "untitled_draft.fountain"
    plain.write_text("\n".join(HARBOUR.read_text().splitlines()[3:]))
    assert load_graph(_built(plain, tmp_path / "p", cache)).movie.id == "untitled_draft"
    assert load_graph(_built(HARBOUR, tmp_path / "m", cache, "--movie", "harbour-v2")).movie.id == "harbour-v2"


def _built(script: Path, out: Path, cache: Path, *extra: str) -> Path:
    result = run("build", str(script), "-o", str(out), "-q", *extra, cache=cache)
    assert result.returncode == 0, result.stderr
    return out / "graph.json"


@pytest.mark.slow
def test_merge_on_a_build_folder_rewrites_the_whole_folder_and_the_log_grows(tmp_path, embedding_cache):
    cache, out = embedding_cache, tmp_path / "out"
    assert run("build", str(SCOTTY), "-o", str(out), "-q", "--no-merge", cache=cache).returncode == 0
    assert {e.name for e in load_graph(out / "graph.json").entities if e.type == "Character"} == {"Scott", "Scotty"}
    merged = run("merge", str(out), cache=cache)
    assert merged.returncode == 0, merged.stderr
    assert {e.name for e in load_graph(out / "graph.json").entities if e.type == "Character"} == {"Scott"}
    # The store and the report changed with graph.json.
    rows = json.loads(run("query", "MATCH (c:Character) RETURN c.name AS name", "--db", str(out),
                          "--format", "json", cache=cache).stdout)
    assert rows == [{"name": "Scott"}]
    assert "1 merges" in (out / "report.md").read_text()
    log = (out / "merge_log.jsonl").read_text().splitlines()
    assert any(json.loads(line)["action"] == "merge" for line in log)
    again = run("build", str(out), "--from-stage", "merge", "-q", cache=cache)
    assert again.returncode == 0, again.stderr
    assert (out / "merge_log.jsonl").read_text().splitlines()[: len(log)] == log


def test_parse_writes_only_where_told_and_chunk_says_when_the_budget_is_exceeded(tmp_path):
    result = run("parse", str(HARBOUR), cache=tmp_path / "c", cwd=tmp_path)
    assert result.returncode == 0 and list(tmp_path.glob("*.json")) == []
    chunks = run("chunk", str(HARBOUR), "-o", str(tmp_path / "c.jsonl"), "--budget", "5", cache=tmp_path / "c")
    assert chunks.returncode == 0 and "exceed the budget of 5 tokens" in chunks.stdout
