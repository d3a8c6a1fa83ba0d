"""The caches under faults, through the command line: a damaged file in four shapes and a full disk.

`kgbuild build` offline for the embedding cache; an LLM build against the local OpenAI-compatible
server (`kgbuild.testing`) for the LLM response cache. The command line runs in this
process as the console script runs it (tests/cli_in_process.py: what reaches stderr is what a new
process would show), on real SQLite files; the full disk is SQLite's own "database or disk is
full", made by keeping every database the command opens from growing.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from unittest import mock

import pytest

from bench.llm import server_responder
from kgbuild.testing import FakeOpenAIServer
from tests.cache_damage import SHAPES, copy_cache, damage, full_disk_connect, healthy_rows, set_aside
from tests.cli_in_process import Ran, run_cli

REPO = Path(__file__).resolve().parent.parent
HARBOUR = REPO / "tests" / "fixtures" / "offline" / "harbour.fountain"
ACADEMY = REPO / "tests" / "fixtures" / "offline" / "academy.fountain"
SAFE_JOB = REPO / "tests" / "fixtures" / "llm" / "safe_job.fountain"


def kgbuild(*args: str, cache: Path, full_disk: bool = False) -> Ran:
    """Run the command line; with `full_disk`, no SQLite file it opens may grow."""
    env = {"KGBUILD_CACHE_DIR": str(cache), "OPENAI_API_KEY": "test"}
    if not full_disk:
        return run_cli(*args, env=env)
    with mock.patch.object(sqlite3, "connect", full_disk_connect(sqlite3.connect)):
        return run_cli(*args, env=env)


def error_line(result: Ran) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def entities(outdir: Path) -> list[str]:
    return sorted(e["id"] for e in json.loads((outdir / "graph.json").read_text(encoding="utf-8"))["entities"])


# -- the embedding cache: set aside and rebuilt, with a warning -----------------------------------

@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An offline build of HARBOUR and the embedding cache it filled."""
    root = tmp_path_factory.mktemp("embedded")
    result = kgbuild("build", str(HARBOUR), "-o", str(root / "out"), "-q", cache=root / "cache")
    assert result.returncode == 0, result.stderr
    return root / "out", root / "cache" / "embeddings.sqlite"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_build_sets_a_damaged_embedding_cache_aside_and_says_so(tmp_path, embedded, shape):
    first, filled = embedded
    cache = copy_cache(filled, tmp_path / "cache")
    rows = healthy_rows(cache, "vec")
    damage(cache, shape)
    result = kgbuild("build", str(HARBOUR), "-o", str(tmp_path / "out"), "-q", cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    [aside] = [p for p in set_aside(tmp_path / "cache", "embeddings.sqlite") if not p.name.endswith(("-wal", "-shm"))]
    warnings = [line for line in result.stderr.splitlines() if line.strip()]
    assert warnings == [line for line in warnings if "damaged" in line] and len(warnings) == 1, result.stderr
    assert f"the embedding cache {cache} was damaged" in warnings[0] and aside.name in warnings[0]
    assert entities(tmp_path / "out") == entities(first)
    assert healthy_rows(cache, "vec") == rows  # rebuilt: every text embedded again


def test_build_on_a_full_disk_ends_with_one_line_and_the_embedding_cache_unchanged(tmp_path, embedded):
    _, filled = embedded
    cache = copy_cache(filled, tmp_path / "cache")
    rows = healthy_rows(cache, "vec")
    result = kgbuild("build", str(ACADEMY), "-o", str(tmp_path / "out"), "-q", cache=tmp_path / "cache",
                     full_disk=True)
    line = error_line(result)
    assert line.startswith(f"kgbuild: error: the disk of the cache folder {tmp_path / 'cache'} is full "
                           "(database or disk is full)")
    assert "free some space there, or point --cache-dir or $KGBUILD_CACHE_DIR at a disk with room" in line
    assert healthy_rows(cache, "vec") == rows


# -- the LLM response cache: one line, the file left for the user --------------------------------

def llm_build(script: Path, root: Path, server: FakeOpenAIServer, *, full_disk: bool = False
              ) -> Ran:
    return kgbuild("build", str(script), "-o", str(root / "out"), "-q", "--force", "--no-merge",
                   "--llm-model", "m", "--llm-base-url", server.base_url, "--llm-cache-dir", str(root / "llm"),
                   "--cache-dir", str(root / "emb"), cache=root / "cache", full_disk=full_disk)


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LLM response cache and embedding cache of an LLM build of SAFE_JOB."""
    root = tmp_path_factory.mktemp("answered")
    with FakeOpenAIServer(responder=server_responder()) as server:
        result = llm_build(SAFE_JOB, root, server)
    assert result.returncode == 0, result.stderr
    return root


@pytest.mark.parametrize("shape", list(SHAPES))
def test_llm_build_on_a_damaged_response_cache_ends_with_one_line(tmp_path, answered, shape):
    cache = copy_cache(answered / "llm" / "llm-responses.sqlite", tmp_path / "llm")
    damage(cache, shape)
    with FakeOpenAIServer(responder=server_responder()) as server:
        result = llm_build(SAFE_JOB, tmp_path, server)
    line = error_line(result)
    assert line.startswith(f"kgbuild: error: the LLM response cache {cache} is damaged (")
    assert line.endswith("): move it away or delete it to start an empty one (its requests are then sent, and "
                         "paid for, again), or point --llm-cache-dir (--cache-dir for 'kgbuild llm') or "
                         "$KGBUILD_CACHE_DIR at another folder")
    assert set_aside(tmp_path / "llm", "llm-responses.sqlite") == []
    assert not (tmp_path / "out" / "graph.json").exists()


def test_llm_build_on_a_full_disk_ends_with_one_line_and_keeps_the_answers(tmp_path, answered):
    cache = copy_cache(answered / "llm" / "llm-responses.sqlite", tmp_path / "llm")
    copy_cache(answered / "emb" / "embeddings.sqlite", tmp_path / "emb")
    rows = healthy_rows(cache, "responses")
    with FakeOpenAIServer(responder=server_responder()) as server:
        result = llm_build(HARBOUR, tmp_path, server, full_disk=True)  # new requests, new answers to store
    line = error_line(result)
    assert line.startswith(f"kgbuild: error: the disk of the cache folder {tmp_path / 'llm'} is full "
                           "(database or disk is full); the LLM response cache keeps what it held")
    assert healthy_rows(cache, "responses") == rows
