"""A corpus build under faults: symlinks planted in its folder, a title too long for a file name in
bytes, ids that are the corpus's own file names, a movie whose folder cannot be written, and two
corpus runs into one folder. The command line as users run it (in this process; the first of the two
runs into one folder as a process of its own, stopped while it holds the folder), real worker processes."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

from kgbuild.graph import load_graph
from tests.corpus.helpers import SCRIPTS, corpus_command, movie_folders, run_kgbuild, statuses
from tests.test_failures import one_line_error
from tests.test_output_folder import wait_for_lock

pytestmark = pytest.mark.slow

EXIT_MOVIES_FAILED = 5
ACADEMY, HARBOUR, SCOTTY, WATCHMAKER, VASE = SCRIPTS[:5]


def test_planted_symlinks_long_titles_and_ids_of_the_corpus_files_do_not_stop_a_corpus(tmp_path: Path, cache: Path):
    title = "我不是药神" * 18  # 90 characters, 270 bytes: more than a file name may hold
    cjk = tmp_path / "cjk.fountain"
    cjk.write_text(HARBOUR.read_text().replace("Title: The Harbour Job", f"Title: {title}"), encoding="utf-8")
    manifest = tmp_path / "corpus.csv"
    manifest.write_text(f"path,movie\n{ACADEMY},corpus.jsonl\n{SCOTTY},report.md\n{WATCHMAKER},index.html\n"
                        f"{cjk},\n{VASE},\n", encoding="utf-8")
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    (elsewhere / "folder").mkdir(parents=True)
    (elsewhere / "folder" / "keep.txt").write_text("precious")
    out.mkdir()
    for name in ("corpus.jsonl", "report.md"):
        (elsewhere / name).write_text("precious")
        (out / name).symlink_to(elsewhere / name)
    (out / "The Burnt Letter").symlink_to(elsewhere / "folder", target_is_directory=True)
    (out / ".kgbuild-staging").symlink_to(elsewhere / "folder", target_is_directory=True)

    result = run_kgbuild("build", str(manifest), "-o", str(out), "--workers", "2", cache=cache)
    assert result.returncode == 0, result.stderr
    short = title.encode("utf-8")[:120].decode("utf-8")
    lines = statuses(out)
    assert set(lines) == {"corpus.jsonl-2", "report.md-2", "index.html-2", short, "The Burnt Letter"}
    assert {line["status"] for line in lines.values()} == {"done"}
    assert load_graph(out / short / "graph.json").movie.title == title  # the id is cut, the title is not
    for name in ("corpus.jsonl", "report.md"):
        assert (elsewhere / name).read_text() == "precious"
        assert (out / name).is_file() and not (out / name).is_symlink()
    assert (out / "report.md").read_text().startswith("# Corpus build")
    assert [p.name for p in (elsewhere / "folder").iterdir()] == ["keep.txt"]
    assert (elsewhere / "folder" / "keep.txt").read_text() == "precious"
    assert not os.path.lexists(out / ".kgbuild-staging")
    assert not (out / "The Burnt Letter").is_symlink() and (out / "The Burnt Letter" / "graph.json").is_file()
    assert len(movie_folders(out)) == 5


def academy_disk_full(real: Callable[..., None]) -> Callable[..., None]:
    """`os.replace` on a disk that is full when The Academy's folder is moved into place."""
    def replace(src, dst, *args, **kwargs):
        if os.path.basename(dst) == "The Academy":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(src, dst, *args, **kwargs)

    return replace


def test_a_movie_whose_folder_cannot_be_written_is_failed_with_the_reason_and_the_others_build(
        tmp_path: Path, cache: Path):
    out = tmp_path / "out"
    # In the driver only: the workers are processes of their own, forked from the process server.
    with mock.patch.object(os, "replace", academy_disk_full(os.replace)):
        result = run_kgbuild("build", str(ACADEMY), str(HARBOUR), "-o", str(out), "--workers", "1", cache=cache)
    assert result.returncode == EXIT_MOVIES_FAILED, result.stderr
    assert "Traceback" not in result.stderr and "1 movies failed" in result.stderr
    lines = statuses(out)
    assert lines["The Harbour Job"]["status"] == "done"
    assert lines["The Academy"]["status"] == "failed"
    assert "no space left on the device" in lines["The Academy"]["error"]
    assert [f.name for f in movie_folders(out)] == ["The Harbour Job"]
    assert "1 failed" in (out / "report.md").read_text()


def test_a_second_corpus_run_into_a_held_folder_exits_2_naming_the_first(tmp_path: Path, cache: Path):
    out = tmp_path / "out"
    args = ("build", str(ACADEMY), str(HARBOUR), "-o", str(out), "--workers", "1", "-q")
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    first = subprocess.Popen(corpus_command(*args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        holder = wait_for_lock(out, first)
        first.send_signal(signal.SIGSTOP)
        second = run_kgbuild(*args, cache=cache)
        one_line_error(second, f"process {first.pid}", f"started {holder['started']}")
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    assert {line["status"] for line in statuses(out).values()} == {"done"}
    assert len(statuses(out)) == 2 and len(movie_folders(out)) == 2
