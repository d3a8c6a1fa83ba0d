"""Where the workers of a corpus build run: local processes (the default) or Ray.

An executor runs a worker function over items and yields the results as they finish. Every
worker process is set up once with `kgbuild.corpus.worker.init_worker` (torch threads, one
embedder). The local executor is a `concurrent.futures.ProcessPoolExecutor` whose processes are
forked from a process server that imported a build's libraries once (`worker_context`); the
server is a fresh process, so a worker shares no state with the driver but its environment.

Example:
    >>> with LocalExecutor(setup, workers=2) as pool:
    ...     for outcome in pool.map_unordered(build_movie, tasks):
    ...         ...
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, Self, TypeVar

from kgbuild.corpus.worker import WorkerSetup, init_worker

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


#: What the process server imports once, before it forks any worker (`worker_context`).
PRELOAD = ("kgbuild.corpus.preload",)


def worker_context() -> multiprocessing.context.ForkServerContext:
    """The start method of local workers: forked from a process server that has a build's libraries imported.

    The server (`multiprocessing`'s forkserver) is a fresh Python process, not a copy of the
    driver, so a worker shares no state with the driver (it is given the driver's environment
    when it starts: `LocalExecutor`); the server imports torch, the embedding stack
    and the pipeline once (`kgbuild.corpus.preload`), and every worker forked from it starts with
    them loaded: it starts in a fraction of a second, its library pages are shared with the
    others, and it exits without tearing the libraries down. The server lives as long as the
    driver, so a second corpus build in the same process starts its workers at once.
    """
    context = multiprocessing.context.ForkServerContext()
    context.set_forkserver_preload(list(PRELOAD))
    return context


def start_process_server() -> float:
    """Start the process server that forks local workers, and wait until its imports are done.

    Returns:
        The seconds it took (a fraction of a second when it was already running).
    """
    start = time.perf_counter()
    process = worker_context().Process(target=_ready)
    process.start()
    process.join()
    return time.perf_counter() - start


def _init_local_worker(setup: WorkerSetup, environ: dict[str, str]) -> None:
    """Set up a local worker with the driver's environment (the process server's may be older)."""
    os.environ.clear()
    os.environ.update(environ)
    init_worker(setup)


def _ready() -> None:
    """A worker that does nothing: its start shows that the process server is up."""


class WorkerLost(Exception):  # noqa: N818 - a result, not raised
    """A worker process died while it held an item (killed, out of memory)."""


class Executor(Protocol):
    """Runs a worker function over items in set-up worker processes."""

    @property
    def description(self) -> str:
        """What runs the workers, for the report ('local processes, 2 workers')."""
        ...

    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[T, R | WorkerLost]]:
        """(item, result) pairs in the order they finish; a `WorkerLost` result for an item whose worker died."""
        ...

    def close(self) -> None:
        """Stop the workers."""
        ...


class LocalExecutor:
    """Worker processes on this machine (`concurrent.futures.ProcessPoolExecutor`).

    Args:
        setup: How each worker is set up.
        workers: Worker processes.
    """

    def __init__(self, setup: WorkerSetup, *, workers: int):
        self.workers = workers
        context = worker_context()
        # The process server starts now and imports the libraries while the driver hashes and names the inputs.
        multiprocessing.forkserver.ensure_running()
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                         initializer=_init_local_worker, initargs=(setup, dict(os.environ)))

    @property
    def description(self) -> str:
        """What runs the workers."""
        return f"local processes, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[T, R | WorkerLost]]:
        """Submit every item, yield (item, result) as each finishes."""
        futures: dict[Future[R], T] = {self._pool.submit(fn, item): item for item in items}
        remaining = set(futures)
        while remaining:
            done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
            for future in done:
                error = future.exception()
                if error is None:
                    yield futures[future], future.result()
                elif isinstance(error, BrokenProcessPool):
                    yield futures[future], WorkerLost(f"the worker process died (killed, or out of memory?): {error}")
                elif isinstance(error, Exception):
                    logger.info("a worker failed: %s", error)
                    yield futures[future], WorkerLost(f"error in the worker: {type(error).__name__}: {error}")
                else:
                    raise error

    def close(self) -> None:
        """Stop the workers (queued items are cancelled)."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
