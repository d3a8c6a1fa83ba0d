"""Running `kgbuild build` on a corpus as a user does: a real subprocess, real worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kgbuild.graph import load_graph

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: Six small scripts of several kinds, each a movie of its own.
SCRIPTS = [FIXTURES / "offline" / name for name in ("academy.fountain", "harbour.fountain", "scotty.fountain",
                                                     "watchmaker.fountain")]
SCRIPTS += [FIXTURES / "story" / "vase.fountain", FIXTURES / "llm" / "safe_job.fountain"]


def corpus_command(*args: str) -> list[str]:
    """The argv of `python -m kgbuild ARGS`."""
    return [sys.executable, "-m", "kgbuild", *args]


def run_kgbuild(*args: str, cache: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the CLI with its embedding cache in `cache`."""
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache)}
    return subprocess.run(corpus_command(*args), check=False, capture_output=True, text=True, timeout=timeout,
                          env=env)


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
