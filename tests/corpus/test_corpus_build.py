"""`kgbuild build` on a corpus: a broken script, a killed build and its rerun, skipping by content."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from kgbuild.folders import BuildFolder, CorpusFolder
from tests.corpus.helpers import SCRIPTS, corpus_command, graph_without_timings, movie_folders, run_kgbuild, statuses

pytestmark = pytest.mark.slow

EXIT_MOVIES_FAILED = 5


def assert_complete(folder: Path) -> None:
    names = {p.name for p in folder.iterdir()}
    assert {*BuildFolder.BUILD_FILES, BuildFolder.BUILD_KEY} <= names, f"{folder} is incomplete: {sorted(names)}"


def test_a_corpus_build_writes_a_folder_per_movie_with_status_and_report(uninterrupted: Path):
    folders = movie_folders(uninterrupted)
    assert len(folders) == len(SCRIPTS)
    for folder in folders:
        assert_complete(folder)
        key = json.loads((folder / BuildFolder.BUILD_KEY).read_text())
        graph = json.loads((folder / "graph.json").read_text())
        assert graph["movie"]["id"] == folder.name  # the folder is the id the stores key on
        assert key["movie"] == folder.name and len(key["key"]) == 64
    lines = statuses(uninterrupted)
    assert set(lines) == {f.name for f in folders}
    assert {line["status"] for line in lines.values()} == {"done"}
    for line in lines.values():
        assert line["counts"]["entities"] > 0 and line["seconds"] > 0 and line["timings"]["extract"] >= 0
        assert line["peak_rss_mb"] > 0 and line["worker"]
    assert "The Academy" in lines  # a Fountain title page names its movie
    assert all(line["reader_id"] == movie for movie, line in lines.items())  # no two scripts share an id here
    report = (uninterrupted / "report.md").read_text()
    assert "6 done" in report and "local processes, 2 workers" in report
    assert not (uninterrupted / CorpusFolder.STAGING).exists()


def test_a_broken_script_is_recorded_and_the_others_are_built(tmp_path: Path, cache: Path):
    broken = tmp_path / "broken.fountain"
    broken.write_bytes(bytes(range(256)) * 8)
    out = tmp_path / "out"
    result = run_kgbuild("build", str(SCRIPTS[0]), str(broken), str(SCRIPTS[1]), "-o", str(out), "--workers", "2",
                         cache=cache)
    assert result.returncode == EXIT_MOVIES_FAILED, result.stderr
    assert "Traceback" not in result.stderr
    lines = statuses(out)
    assert lines["broken"]["status"] == "failed"
    assert "binary" in lines["broken"]["error"] or "decode" in lines["broken"]["error"]
    assert [lines[m]["status"] for m in ("The Academy", "The Harbour Job")] == ["done", "done"]
    assert [f.name for f in movie_folders(out)] == ["The Academy", "The Harbour Job"]
    assert "1 failed" in (out / "report.md").read_text()
    assert "1 movies failed" in result.stderr

    rerun = run_kgbuild("build", str(SCRIPTS[0]), str(broken), str(SCRIPTS[1]), "-o", str(out), "--workers", "2",
                        cache=cache)
    assert rerun.returncode == EXIT_MOVIES_FAILED
    assert [statuses(out)[m]["status"] for m in ("The Academy", "broken", "The Harbour Job")] == [
        "skipped", "failed", "skipped"]


def test_a_killed_corpus_build_leaves_whole_folders_and_the_rerun_builds_only_the_rest(
        tmp_path: Path, cache: Path, uninterrupted: Path):
    out = tmp_path / "out"
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    process = subprocess.Popen(corpus_command("build", *map(str, SCRIPTS), "-o", str(out), "--workers", "1", "-q"),
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    half = len(SCRIPTS) // 2
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if out.is_dir() and len(movie_folders(out)) >= half:
                break
            time.sleep(0.01)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the driver and its workers, as a user's kill -9 of the job
        process.wait()
    before = {f.name for f in movie_folders(out)}
    assert half <= len(before) < len(SCRIPTS), "the kill came too late to test a restart"
    for folder in movie_folders(out):
        assert_complete(folder)

    rerun = run_kgbuild("build", *map(str, SCRIPTS), "-o", str(out), "--workers", "2", cache=cache)
    assert rerun.returncode == 0, rerun.stderr
    lines = statuses(out)
    assert {m for m, line in lines.items() if line["status"] == "skipped"} == before
    assert {m for m, line in lines.items() if line["status"] == "done"} == set(lines) - before
    assert not (out / CorpusFolder.STAGING).exists()
    expected = {f.name for f in movie_folders(uninterrupted)}
    assert {f.name for f in movie_folders(out)} == expected
    for name in expected:
        assert graph_without_timings(out / name / "graph.json") == graph_without_timings(
            uninterrupted / name / "graph.json"), name


def test_other_options_rebuild_and_a_changed_script_rebuilds_only_its_movie(tmp_path: Path, cache: Path):
    scripts = [tmp_path / "one.fountain", tmp_path / "two.fountain"]
    for source, target in zip(SCRIPTS[2:4], scripts, strict=True):
        target.write_text(source.read_text())
    out = tmp_path / "out"
    assert run_kgbuild("build", str(tmp_path), "-o", str(out), "--workers", "1", cache=cache).returncode == 0
    names = sorted(statuses(out))
    scripts[0].write_text(scripts[0].read_text() + "\nINT. CELLAR - NIGHT\n\nA lamp swings.\n")
    assert run_kgbuild("build", str(tmp_path), "-o", str(out), "--workers", "1", cache=cache).returncode == 0
    assert sorted(line["status"] for line in statuses(out).values()) == ["done", "skipped"]
    assert run_kgbuild("build", str(tmp_path), "-o", str(out), "--no-merge", "--workers", "1",
                       cache=cache).returncode == 0
    assert sorted(statuses(out)) == names
    assert {line["status"] for line in statuses(out).values()} == {"done"}
    assert not any((out / name / "merge_log.jsonl").exists() for name in names)
