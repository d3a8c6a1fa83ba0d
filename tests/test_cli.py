"""End-to-end CLI behaviour, real files: the commands run in this process as the console script
runs them (tests/cli_in_process.py); the first test runs `python -m kgbuild` in a real process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from tests.cli_in_process import Ran, run_cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "lizard-people.fountain"


def run(*args: str, cwd: Path | None = None) -> Ran:
    return run_cli(*args, cwd=cwd)


def test_parse_example_writes_json_and_prints_summary(tmp_path):
    out = tmp_path / "sp.json"
    result = subprocess.run([sys.executable, "-m", "kgbuild", "parse", str(EXAMPLE), "-o", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["source"]["format"] == "fountain"
    assert len(data["scenes"]) == 98
    assert "98 scenes" in result.stdout
    assert "Characters" in result.stdout and "Locations" in result.stdout
    assert not list(tmp_path.glob("*.part"))


def test_chunk_command(tmp_path):
    out = tmp_path / "chunks.jsonl"
    result = run("chunk", str(EXAMPLE), "-o", str(out), "--budget", "600")
    assert result.returncode == 0, result.stderr
    chunks = [json.loads(line) for line in out.read_text().splitlines()]
    covered = sorted({i for c in chunks for i in c["scene_indices"]})
    assert covered == list(range(1, 99))


def _assert_refused(result, out: Path, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr
    assert not out.exists()
    assert not list(out.parent.glob("*.part"))


def test_missing_file(tmp_path):
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(tmp_path / "nope.fountain"), "-o", str(out)), out,
                    "no such file")


def test_empty_file(tmp_path):
    src = tmp_path / "empty.fountain"
    src.write_bytes(b"")
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "empty")


def test_whitespace_only_file(tmp_path):
    src = tmp_path / "blank.txt"
    src.write_text("\n   \n\t\n")
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "white space")


def test_binary_file(tmp_path):
    src = tmp_path / "movie.fountain"
    rng = random.Random(7)
    src.write_bytes(bytes(rng.randrange(256) for _ in range(20000)))
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "binary")


def test_oversized_file_refused_without_reading(tmp_path):
    src = tmp_path / "huge.txt"
    with open(src, "wb") as handle:  # sparse: 60 MB on paper, nothing on disk
        handle.truncate(60 * 1024 * 1024)
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "60.0 MiB", "--max-bytes")


def test_novel_is_not_a_screenplay(tmp_path):
    rng = random.Random(3)
    text = ("the old house stood at the end of the lane and nobody in the village could remember who had built "
            "it or why its windows were always dark when evening came she said that her mother had known the "
            "family once")
    words = text.split()
    paragraphs = []
    for _ in range(120):
        sentence = " ".join(rng.choice(words) for _ in range(60))
        paragraphs.append(sentence.capitalize() + ".")
    src = tmp_path / "novel.txt"
    src.write_text("Chapter One\n\n" + "\n\n".join(paragraphs))
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "screenplay")


def test_essay_with_json_extension_is_refused(tmp_path):
    src = tmp_path / "script.json"
    src.write_text('{"essay": "Screenplays are a form of writing."}')
    out = tmp_path / "o.json"
    _assert_refused(run("parse", str(src), "-o", str(out)), out, "screenplay")


def test_unknown_format_option_is_a_usage_error(tmp_path):
    result = run("parse", str(EXAMPLE), "--format", "docx")
    assert result.returncode == 2
    assert "docx" in result.stderr


def test_failed_parse_keeps_previous_output(tmp_path):
    existing = "old content"
    out = tmp_path / "o.json"
    out.write_text(existing)
    src = tmp_path / "empty.txt"
    src.write_bytes(b"")
    result = run("parse", str(src), "-o", str(out))
    assert result.returncode == 2
    assert out.read_text() == existing


def test_score_reference_against_itself(tmp_path, shared_data):
    movie = next(shared_data.glob("stage/English/*/"))
    out = tmp_path / "score.json"
    result = run("score", str(movie), str(movie), "--json", str(out), "--explain",
                 "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["entities"]["f1"] == 1.0 and data["relations"]["f1"] == 1.0
    assert "Why" in result.stdout


def test_score_bad_inputs(tmp_path):
    empty_dir = tmp_path / "ref"
    empty_dir.mkdir()
    graph = tmp_path / "graph.json"
    graph.write_text("{not json")
    result = run("score", str(graph), str(empty_dir), "--cache-dir", str(tmp_path / "c"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "graph.json" in result.stderr
    good = tmp_path / "good.json"
    good.write_text('{"format": "kgbuild.graph/1", "movie": {"title": "t", "language": "en"}}')
    result = run("score", str(good), str(empty_dir), "--cache-dir", str(tmp_path / "c"))
    assert result.returncode == 2 and "extraction_results.json" in result.stderr
    result = run("score", str(tmp_path / "missing.json"), str(empty_dir))
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_title_page_title_is_used_whatever_its_case(tmp_path):
    out = tmp_path / "sp.json"
    assert run("parse", str(EXAMPLE), "-o", str(out)).returncode == 0
    assert json.loads(out.read_text())["title"].lower() == "lizard people"


def test_score_reports_unknown_types_and_dangling_relations(tmp_path, shared_data):
    movie = next(shared_data.glob("stage/English/*/"))
    pred = {
        "format": "kgbuild.graph/1",
        "movie": {"title": "t", "language": "en"},
        "entities": [
            {"id": "a", "name": "Somebody", "type": "Character"},
            {"id": "b", "name": "Blob", "type": "Spaceship"},
        ],
        "relations": [
            {"id": "r1", "source": "a", "target": "nowhere", "type": "located_at"},
            {"id": "r2", "source": "a", "target": "b", "type": "haunts"},
        ],
    }
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(pred))
    result = run("score", str(path), str(movie), "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 0, result.stderr
    assert "1 entities of unknown types {'Spaceship': 1}" in result.stdout
    assert "1 relations with missing endpoints" in result.stdout
