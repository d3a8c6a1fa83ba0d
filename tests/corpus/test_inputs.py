"""Corpus inputs, movie ids, the input key, atomic movie folders and split batch exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.corpus.folders import built_key, clean_staging, commit_movie
from kgbuild.corpus.ids import safe_id, unique_ids
from kgbuild.corpus.inputs import discover, is_corpus
from kgbuild.corpus.run import build_corpus
from kgbuild.corpus.spec import input_key, movie_options
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder, CorpusFolder
from kgbuild.llm.batch import export_batch_lines
from kgbuild.llm.settings import LLMSettings
from kgbuild.pipeline import BuildOptions
from kgbuild.scenes import parse_scene_ranges
from tests.corpus.helpers import SCRIPTS


def test_ids_are_safe_folder_names_and_unique_in_input_order():
    assert unique_ids(["Fargo", "fargo", "Fargo", "Up/Down", ".hidden", "  "]) == [
        "Fargo", "fargo-2", "Fargo-3", "Up_Down", "_hidden", "untitled"]
    assert safe_id('a:b*c?"d<e>f|g\\h') == "a_b_c__d_e_f_g_h"
    assert unique_ids(["a", "a", "a-2"]) == ["a", "a-2", "a-2-2"]


def test_ids_fit_a_file_name_in_bytes_and_never_take_the_corpus_files_names():
    long = safe_id("我不是药神" * 18)  # 270 bytes of UTF-8
    assert len(long.encode("utf-8")) <= 120 and "我不是药神".startswith(long[:5])
    assert len(safe_id("é" * 200).encode("utf-8")) == 120  # cut between characters, never inside one
    assert unique_ids(["corpus.jsonl", "Report.md", "index.html", "corpus.lbdb", "corpus.lbdb.wal"]) == [
        "corpus.jsonl-2", "Report.md-2", "index.html-2", "corpus.lbdb-2", "corpus.lbdb.wal-2"]


@pytest.mark.shared_data
def test_a_stage_tree_is_every_script_json_below_it(shared_data: Path):
    items = discover([shared_data / "stage"])
    assert len(items) == 11
    assert all(item.path.name == "script.json" for item in items)
    assert is_corpus([shared_data / "stage"])


def test_a_folder_of_scripts_and_the_files_given(tmp_path: Path):
    for source in SCRIPTS[:2]:
        (tmp_path / source.name).write_text(source.read_text())
    (tmp_path / "notes.md").write_text("not a script")
    assert [i.path.name for i in discover([tmp_path])] == ["academy.fountain", "harbour.fountain"]
    assert [i.path for i in discover([SCRIPTS[1], SCRIPTS[0], SCRIPTS[1]])] == [SCRIPTS[1], SCRIPTS[0]]
    assert not is_corpus([SCRIPTS[0]]) and is_corpus(SCRIPTS[:2])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no scripts here"):
        discover([tmp_path / "empty"])


def test_manifests_give_paths_relative_to_themselves_and_ids_titles_languages(tmp_path: Path):
    (tmp_path / "a.fountain").write_text(SCRIPTS[0].read_text())
    csv_file = tmp_path / "corpus.csv"
    csv_file.write_text(f"path,movie,title,language\na.fountain,m1,The A,en\n{SCRIPTS[1]},,,\n")
    items = discover([csv_file])
    assert [(i.path, i.movie, i.title, i.language) for i in items] == [
        (tmp_path / "a.fountain", "m1", "The A", "en"), (SCRIPTS[1], None, None, None)]
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text(json.dumps({"path": "a.fountain", "movie_id": "m2"}) + "\n\n")
    assert [(i.path, i.movie) for i in discover([jsonl])] == [(tmp_path / "a.fountain", "m2")]
    (tmp_path / "bad.csv").write_text("file\nx\n")
    with pytest.raises(InputError, match="'path' column"):
        discover([tmp_path / "bad.csv"])
    (tmp_path / "bad.jsonl").write_text('{"movie": "x"}\n')
    with pytest.raises(InputError, match="bad.jsonl:1: this row has no path"):
        discover([tmp_path / "bad.jsonl"])


def test_the_key_follows_the_input_and_the_options_that_change_a_graph(tmp_path: Path):
    base = BuildOptions()
    key = input_key(base, script_sha256="a" * 64, movie="m")
    assert key == input_key(BuildOptions(cache_dir=tmp_path), script_sha256="a" * 64, movie="m")
    assert key != input_key(base, script_sha256="b" * 64, movie="m")
    assert key != input_key(base, script_sha256="a" * 64, movie="n")
    assert key != input_key(base, script_sha256="a" * 64, movie="m", corrections_sha256="c" * 64)
    assert key != input_key(BuildOptions(merge=False), script_sha256="a" * 64, movie="m")
    fast = BuildOptions(llm=LLMSettings(model="m", concurrency=64, max_cost=1))
    assert input_key(fast, script_sha256="a" * 64, movie="m") == input_key(
        BuildOptions(llm=LLMSettings(model="m")), script_sha256="a" * 64, movie="m")
    assert input_key(fast, script_sha256="a" * 64, movie="m") != input_key(
        BuildOptions(llm=LLMSettings(model="other")), script_sha256="a" * 64, movie="m")


def test_a_movie_folder_is_replaced_whole(tmp_path: Path):
    commit_movie(tmp_path, "m", {"graph.json": b"{}", "old.txt": b"old"}, {"key": "k1"})
    assert built_key(tmp_path, "m") == "k1"
    commit_movie(tmp_path, "m", {"graph.json": b"{}"}, {"key": "k2"})
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [BuildFolder.BUILD_KEY, "graph.json"]
    assert built_key(tmp_path, "m") == "k2"
    commit_movie(tmp_path, "p", {"graph.json": b"{}"}, {"key": "k3", "partial": True})
    assert built_key(tmp_path, "p") is None  # LLM chunks failed: the next run builds it again
    assert built_key(tmp_path, "absent") is None
    clean_staging(tmp_path)
    assert not (tmp_path / CorpusFolder.STAGING).exists()


def test_batch_exports_are_split_at_the_per_file_limits(tmp_path: Path):
    lines = [json.dumps({"custom_id": str(i), "body": "x" * 50}) for i in range(7)]
    files = export_batch_lines(tmp_path / "req.jsonl", lines, max_requests=3)
    assert [f.name for f in files] == ["req.jsonl", "req-2.jsonl", "req-3.jsonl"]
    assert [len(f.read_text().splitlines()) for f in files] == [3, 3, 1]
    size = len(lines[0]) + 1
    files = export_batch_lines(tmp_path / "req.jsonl", lines, max_bytes=2 * size)
    assert [len(f.read_text().splitlines()) for f in files] == [2, 2, 2, 1]
    assert export_batch_lines(tmp_path / "req.jsonl", lines) == [tmp_path / "req.jsonl"]
    assert not (tmp_path / "req-2.jsonl").exists()  # the parts of the longer export are gone


def test_a_corpus_shares_the_options_of_one_build_without_what_names_one_script(tmp_path: Path):
    shared = BuildOptions(merge=False, cache_dir=tmp_path)
    one = movie_options(shared, movie="fargo", embedder=None, title="Fargo", language="en")
    assert (one.movie, one.title, one.language, one.merge, one.cache_dir) == ("fargo", "Fargo", "en", False, tmp_path)
    with pytest.raises(InputError, match="leave movie, scenes unset"):
        build_corpus([], tmp_path / "out", BuildOptions(movie="fargo", scenes=parse_scene_ranges("1-3")), None)
    assert not (tmp_path / "out").exists()
