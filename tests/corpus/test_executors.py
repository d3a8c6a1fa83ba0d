"""The local executor: workers forked from a process server with the libraries, in the driver's environment."""

from __future__ import annotations

import os
import sys

import pytest

from kgbuild.corpus.executors import PRELOAD, LocalExecutor, WorkerLost, start_process_server
from kgbuild.corpus.preload import MODULES
from kgbuild.corpus.worker import WorkerSetup
from kgbuild.pipeline import BuildOptions

pytestmark = pytest.mark.slow

VARIABLE = "KGBUILD_TEST_EXECUTOR_VALUE"


def environment_value(_: int) -> str | None:
    """In a worker: the test variable as the worker sees it."""
    return os.environ.get(VARIABLE)


def loaded_before_the_task(_: int) -> list[str]:
    """In a worker: which of the preloaded modules were imported before this task ran."""
    return [name for name in MODULES if name in sys.modules]


def fail(_: int) -> None:
    """In a worker: an error of the function itself."""
    raise ValueError("no such movie")


def run(fn, tmp_path, items=(0, 1)) -> list:
    setup = WorkerSetup(options=BuildOptions(cache_dir=tmp_path / "cache"), torch_threads=1)
    with LocalExecutor(setup, workers=2) as pool:
        return [result for _, result in pool.map_unordered(fn, list(items))]


def test_workers_start_with_the_libraries_a_build_needs(tmp_path):
    assert "kgbuild.corpus.preload" in PRELOAD
    start_process_server()
    for loaded in run(loaded_before_the_task, tmp_path):
        assert loaded == list(MODULES)  # torch and sentence-transformers are there before any movie


def test_workers_see_the_drivers_environment_of_now_not_the_servers(tmp_path, monkeypatch: pytest.MonkeyPatch):
    start_process_server()  # the server is up with the environment of before
    monkeypatch.setenv(VARIABLE, "first")
    assert run(environment_value, tmp_path) == ["first", "first"]
    monkeypatch.setenv(VARIABLE, "second")  # e.g. another OPENAI_BASE_URL for the next corpus
    assert run(environment_value, tmp_path) == ["second", "second"]


def test_an_error_in_the_worker_function_comes_back_as_a_lost_item(tmp_path):
    results = run(fail, tmp_path, items=(0,))
    assert len(results) == 1 and isinstance(results[0], WorkerLost)
    assert "ValueError: no such movie" in str(results[0])
