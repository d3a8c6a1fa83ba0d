"""Corpus builds on Ray: the same graphs as the process pool, one shared rate limit, and Ray missing.

CI installs Ray (it is in the dev extra), so these tests run there; none is skipped without it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from bench.llm import server_responder
from kgbuild.corpus.inputs import discover
from kgbuild.corpus.ray_executor import RAY_MISSING, RayExecutor, ray_session
from kgbuild.corpus.run import build_corpus
from kgbuild.corpus.worker import WorkerSetup
from kgbuild.folders import BuildFolder
from kgbuild.pipeline import BuildOptions
from kgbuild.testing import FakeOpenAIServer
from tests.corpus.helpers import SCRIPTS, assert_paced, graph_without_timings, llm_env, movie_folders, statuses

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance with 2 CPUs, in this process."""
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_a_corpus_on_ray_gives_the_graphs_of_the_process_pool(local_ray: None, uninterrupted: Path, cache: Path,
                                                              tmp_path: Path):
    out = tmp_path / "out"
    options = BuildOptions(cache_dir=cache)
    with ray_session() as session, RayExecutor(WorkerSetup(options=options, torch_threads=1)) as pool:
        result = build_corpus(discover(SCRIPTS), out, options, pool)
    assert not session.started and session.cpus == 2  # the test's instance, used and left running
    assert pool.workers == 2
    assert [s.status for s in result.statuses] == ["done"] * len(SCRIPTS)
    names = [f.name for f in movie_folders(uninterrupted)]
    assert [f.name for f in movie_folders(out)] == names
    for name in names:
        assert graph_without_timings(out / name / "graph.json") == graph_without_timings(
            uninterrupted / name / "graph.json"), name
        files = sorted(p.name for p in (out / name).iterdir())
        assert files == sorted(p.name for p in (uninterrupted / name).iterdir())
        # The same inputs and options: the same build key, so either executor skips the other's movies.
        assert json.loads((out / name / BuildFolder.BUILD_KEY).read_text())["key"] == json.loads(
            (uninterrupted / name / BuildFolder.BUILD_KEY).read_text())["key"]
    workers = {s.worker for s in result.statuses}
    assert 1 <= len(workers) <= 2  # six movies, at most two Ray worker processes, each set up once
    assert f"{os.uname().nodename}:{os.getpid()}" not in workers  # built in the workers, written by the driver
    assert all(s.peak_rss_mb > 0 for s in result.statuses)
    assert "Ray (2 CPUs), 2 tasks at once" in (out / "report.md").read_text()


def test_workers_on_ray_share_one_rate_limit(tmp_path: Path):
    rpm = 120
    with FakeOpenAIServer(responder=server_responder()) as server:
        result = subprocess.run(
            [sys.executable, "-m", "kgbuild", "build", *map(str, SCRIPTS[:4]), "-o", str(tmp_path / "out"), "--ray",
             "local", "--workers", "2", "--no-merge", "--budget", "80", "--llm-model", "limit-model",
             "--llm-base-url", server.base_url, "--concurrency", "4", "--llm-cache-dir", str(tmp_path / "llm"),
             "--rpm", str(rpm)],
            check=False, capture_output=True, text=True, timeout=600,
            env={**llm_env(), "KGBUILD_CACHE_DIR": str(tmp_path / "emb")})
        times = sorted(r.received for r in server.requests)
    assert result.returncode == 0, result.stderr
    lines = statuses(tmp_path / "out")
    assert len({line["worker"] for line in lines.values()}) == 2  # two Ray workers sent requests
    assert all(line["llm"]["requests"] >= 2 for line in lines.values())
    assert "Ray (" in (tmp_path / "out" / "report.md").read_text()
    assert_paced(times, rpm)


def test_without_ray_the_corpus_build_says_how_to_install_it(tmp_path: Path):
    # `import ray` fails in this process as it does where Ray is not installed.
    code = "import sys; sys.modules['ray'] = None; from kgbuild.cli import main; main()"
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-c", code, "build", *map(str, SCRIPTS[:2]), "-o", str(out), "--ray",
                             "auto"], check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert RAY_MISSING in result.stderr and "pip install 'kgbuild[ray]'" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()  # refused before anything was written


def test_ray_is_refused_for_a_single_script(tmp_path: Path):
    result = subprocess.run([sys.executable, "-m", "kgbuild", "build", str(SCRIPTS[0]), "-o", str(tmp_path / "out"),
                             "--ray", "auto"], check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "--ray apply to a corpus" in result.stderr
