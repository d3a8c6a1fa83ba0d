"""Corpus benchmark: the STAGE dev movies built offline with 1 and 2 local workers (and on Ray).

Each run builds every movie into a fresh output folder with a fresh (cold) embedding cache, so
every worker loads the embedding model once and embeds what its movies need, as on a first
corpus build. Every worker is limited to the same number of torch threads in every run, so the
speed-up measures the workers, not torch's own threads. Each run's wall time includes starting
its workers and the workers' set-up. What a driver starts once for all its corpora is measured
apart and not counted: the local process server that imports the libraries before it forks
workers (`kgbuild.corpus.executors.start_process_server`), and Ray's local instance
(`ray.init`, and its worker processes importing the same libraries). The speed-up with the
process server's start-up counted in both runs is printed too.

Example:
    >>> result = bench_corpus(Path("../shared/data/stage"))
    >>> print("\\n".join(format_corpus_bench(result)))
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rich.markup import escape

from kgbuild.corpus.executors import Executor
from kgbuild.corpus.inputs import discover
from kgbuild.corpus.run import build_corpus
from kgbuild.corpus.worker import WorkerSetup
from kgbuild.pipeline import BuildOptions


class CorpusRun(BaseModel):
    """One build of the whole corpus."""

    model_config = ConfigDict(extra="forbid")

    executor: str = Field(description="'local' or 'ray'.")
    workers: int
    torch_threads: int = Field(description="Torch threads per worker.")
    movies: int
    failed: int
    seconds: float = Field(description="Wall time of the corpus build (the process server's or Ray's start-up "
                           "not included).")
    startup_seconds: float = Field(default=0.0,
                                   description="Ray: starting the local instance and its workers (not counted).")
    build_seconds: float = Field(description="Sum of the movies' build times in the workers.")
    peak_rss_mb: dict[str, float] = Field(description="Peak resident memory of each worker process (MB).")
    first_error: str | None = Field(default=None, description="The first failed movie's error, if any failed.")


class CorpusBench(BaseModel):
    """The corpus benchmark's runs."""

    model_config = ConfigDict(extra="forbid")

    movies: int
    words: int = Field(description="Words in the movies' scripts.")
    runs: list[CorpusRun]
    ray_note: str | None = Field(default=None, description="Why there is no Ray run, if there is none.")
    server_seconds: float = Field(default=0.0, description="Starting the local process server (not counted).")

    def run(self, executor: str, workers: int) -> CorpusRun | None:
        """The run of that executor with that many workers."""
        return next((r for r in self.runs if r.executor == executor and r.workers == workers), None)


#: Makes an executor for a worker setup; returns it and the seconds its start-up took apart from the build.
MakeExecutor = Callable[[WorkerSetup], tuple[Executor, float]]


def _timed(name: str, workers: int, threads: int, stage: Path, make: MakeExecutor) -> CorpusRun:
    with tempfile.TemporaryDirectory(prefix="kgbuild-bench-corpus-") as tmp:
        setup = WorkerSetup(options=BuildOptions(cache_dir=Path(tmp) / "cache"), torch_threads=threads)
        executor, startup = make(setup)
        start = time.perf_counter()
        try:
            result = build_corpus(discover([stage]), Path(tmp) / "out", setup.options, executor)
        finally:
            executor.close()
        seconds = time.perf_counter() - start
    peaks: dict[str, float] = {}
    for status in result.statuses:
        peaks[status.worker] = max(peaks.get(status.worker, 0.0), status.peak_rss_mb)
    return CorpusRun(executor=name, workers=workers, torch_threads=threads, movies=len(result.statuses),
                     failed=result.count("failed"), seconds=round(seconds, 2), startup_seconds=round(startup, 2),
                     build_seconds=round(sum(s.seconds for s in result.statuses), 2), peak_rss_mb=peaks,
                     first_error=next((f"{s.movie}: {s.error}" for s in result.statuses if s.status == "failed"), None))


def _preload_in_ray_worker() -> int:
    """In a Ray worker: import what a build needs, as the local process server does; stay a moment."""
    import importlib
    import os

    importlib.import_module("kgbuild.corpus.preload")
    time.sleep(1.0)  # hold the worker, so that the next warm-up task starts another one
    return os.getpid()


def _warm_ray_workers(count: int) -> float:
    """Start `count` Ray worker processes with a build's libraries imported; the seconds it took.

    The local pool's workers fork from a process server that has imported the libraries, and that
    server's start-up is not counted; Ray's workers get the same start before they are timed.
    """
    import ray

    start = time.perf_counter()
    task = ray.remote(_preload_in_ray_worker).options(num_cpus=1)
    ray.get([task.remote() for _ in range(count)])
    return time.perf_counter() - start


def _words(stage: Path) -> int:
    from kgbuild.extraction.llm.run import script_words
    from kgbuild.readers import read_screenplay

    return sum(script_words(read_screenplay(item.path)) for item in discover([stage]))


def bench_corpus(stage: Path, *, workers: tuple[int, ...] = (1, 2), torch_threads: int = 1,
                 ray: bool = True) -> CorpusBench:
    """Build the STAGE movies under `stage` with each number of local workers, then on local Ray.

    Args:
        stage: A STAGE tree (*/script.json).
        workers: The local pool sizes to time.
        torch_threads: Torch threads of every worker, in every run.
        ray: Also time a local Ray instance with max(workers) CPUs, when Ray is installed.
    """
    from kgbuild.corpus.executors import LocalExecutor, start_process_server

    server = start_process_server()
    runs = []
    for count in workers:
        def local(setup: WorkerSetup, count: int = count) -> tuple[Executor, float]:
            return LocalExecutor(setup, workers=count), 0.0

        runs.append(_timed("local", count, torch_threads, stage, local))
    note = None
    if ray:
        from kgbuild.corpus.ray_executor import RayExecutor, RayMissingError, ray_session, require_ray

        try:
            require_ray()
        except RayMissingError as e:
            note = str(e)
        else:
            count = max(workers)
            with ray_session("local", num_cpus=count) as session:
                startup = session.startup_seconds + _warm_ray_workers(count)

                def on_ray(setup: WorkerSetup) -> tuple[Executor, float]:
                    return RayExecutor(setup, workers=count), startup

                runs.append(_timed("ray", count, torch_threads, stage, on_ray))
    return CorpusBench(movies=runs[0].movies, words=_words(stage), runs=runs, ray_note=note,
                       server_seconds=round(server, 2))


def format_corpus_bench(result: CorpusBench) -> list[str]:
    """The runs as a text table, with the speed-ups, for `scripts/dev bench`.

    'builds s' is the sum of the movies' build times in the workers and 'busy' that sum over
    workers x wall time: how much of the workers' time went into builds (the rest is start-up,
    naming the scripts and waiting for the last movie). A speed-up below the workers' count
    with 'busy' near 100% means each build got slower, i.e. the cores were shared.
    """
    one = result.run("local", 1)
    lines = [f"Corpus build of {result.movies} STAGE movies ({result.words:,} words), offline, cold embedding cache:",
             f"{'executor':<8} {'workers':>7} {'threads':>7} {'seconds':>8} {'start-up':>8} {'movies/min':>10} "
             f"{'speed-up':>8} {'builds s':>8} {'busy':>5}  peak MB per worker"]
    for run in result.runs:
        speed = f"{one.seconds / run.seconds:.2f}x" if one is not None and run.seconds else "-"
        startup = f"{run.startup_seconds if run.executor == 'ray' else result.server_seconds:.1f}"
        peaks = ", ".join(f"{mb:.0f}" for _, mb in sorted(run.peak_rss_mb.items()))
        lines.append(f"{run.executor:<8} {run.workers:>7} {run.torch_threads:>7} {run.seconds:>8.1f} {startup:>8} "
                     f"{60 * run.movies / run.seconds:>10.1f} {speed:>8} {run.build_seconds:>8.1f} "
                     f"{run.build_seconds / (run.workers * run.seconds):>5.0%}  {peaks}"
                     + (f"  ({run.failed} failed; first: {escape(run.first_error or '')})" if run.failed else ""))
    pool = result.run("local", 2)
    ray = result.run("ray", 2)
    if pool is not None and ray is not None:
        lines.append(f"Ray / process pool with 2 workers: {ray.seconds / pool.seconds:.2f} (target within 1.20); "
                     f"Ray's start-up {ray.startup_seconds:.1f} s not counted")
    if one is not None and pool is not None:
        server = result.server_seconds
        lines.append(f"2 workers / 1 worker speed-up {one.seconds / pool.seconds:.2f}x (target >= 1.7x); "
                     f"{(one.seconds + server) / (pool.seconds + server):.2f}x counting the process server's "
                     f"start-up ({server:.1f} s, once per driver) in both runs")
    if result.ray_note:
        lines.append(f"Ray: {escape(result.ray_note)}")
    return lines
