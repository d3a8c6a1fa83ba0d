"""Running `kgbuild build` on a corpus as a user does: the command line (run in the test's process,
tests/cli_in_process.py, or as a process of its own where a test kills or stops it), real worker
processes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kgbuild.graph import load_graph
from tests.cli_in_process import Ran, run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: Six small scripts of several kinds, each a movie of its own.
SCRIPTS = [FIXTURES / "offline" / name for name in ("academy.fountain", "harbour.fountain", "scotty.fountain",
                                                     "watchmaker.fountain")]
SCRIPTS += [FIXTURES / "story" / "vase.fountain", FIXTURES / "llm" / "safe_job.fountain"]


def corpus_command(*args: str) -> list[str]:
    """The argv of `python -m kgbuild ARGS`."""
    return [sys.executable, "-m", "kgbuild", *args]


def run_kgbuild(*args: str, cache: Path, **env: str | None) -> Ran:
    """Run the CLI in this process with its embedding cache in `cache` and the variables `env` (None removes
    one); its workers are real processes, forked from the process server this process starts once."""
    return run_cli(*args, env={"KGBUILD_CACHE_DIR": str(cache), **env})


def statuses(outdir: Path) -> dict[str, dict]:
    """corpus.jsonl by movie."""
    lines = (outdir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["movie"]: record for record in map(json.loads, lines)}


def graph_without_timings(path: Path) -> dict:
    """graph.json as data, the stage timings left out."""
    graph = load_graph(path)
    assert graph.provenance is not None
    return graph.model_copy(update={"provenance": graph.provenance.model_copy(update={"timings": {}})}).model_dump()


def movie_folders(outdir: Path) -> list[Path]:
    """The movie folders of a corpus output (not the hidden staging area)."""
    return sorted(p for p in outdir.iterdir() if p.is_dir() and not p.name.startswith("."))


def llm_env() -> dict[str, str]:
    """The environment of a CLI process run against a local server: no OpenAI settings but a key."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    return {**env, "OPENAI_API_KEY": "test-key"}


#: The same for a CLI run in this process: the variables to set (a value) or remove (None).
LLM_ENV: dict[str, str | None] = {"OPENAI_BASE_URL": None, "OPENAI_API_KEY": "test-key"}


#: How late a request may reach the server after its slot: the thread hop to the limiter, the HTTP
#: client and, on a busy machine, the scheduler (0.2 s was seen exceeded under another session's load).
JITTER = 0.5


def assert_paced(times: list[float], rpm: float) -> None:
    """The requests (sorted arrival times) kept to `rpm`, and that limit, not the workers, bound them."""
    n = len(times)
    assert n >= 10
    spacing = 60 / rpm
    # No stretch of requests came faster than the limit allows, but for one request's jitter. Two
    # workers each paced alone (twice the rate) fail this over any 3 successive intervals.
    for i in range(n):
        for j in range(i + 1, n):
            assert times[j] - times[i] >= (j - i) * spacing - JITTER, (i, j, times[j] - times[i])
    span = times[-1] - times[0]
    rate = 60 * (n - 1) / span
    assert rate <= rpm * (1 + JITTER / span)  # within the limit, but for the same jitter at the ends
    # ... and the limit is what bound them: 2 workers x 4 requests in flight would go far faster.
    assert rate >= rpm * 0.7
