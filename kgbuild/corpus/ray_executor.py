"""Corpus workers on Ray: one task per movie, the embedding model loaded once per worker process.

Ray is an optional extra (`pip install 'kgbuild[ray]'`); this module imports it only when used,
and `require_ray` says how to install it when it is missing. `ray_session` connects to a cluster
or starts a local instance (and stops only what it started). `RayExecutor` runs each item as a
Ray task; a Ray worker process sets itself up (`kgbuild.corpus.worker.init_worker`: torch threads,
one embedder, the shared LLM limits) at its first task of a run and keeps that set-up for the
run's later tasks, so the embedding model is loaded once per worker process, not per movie. The
tasks return the movies' files; the driver writes them. `serve_ray_limits` runs the corpus's one
`kgbuild.llm.limits.SharedLimits` as a Ray actor, which every worker asks before each request.

Example:
    >>> with ray_session("local", num_cpus=2):
    ...     with RayExecutor(WorkerSetup(options=options, torch_threads=1)) as pool:
    ...         result = build_corpus(items, Path("out"), options, pool)
"""

from __future__ import annotations

import itertools
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.corpus.executors import WorkerLost
from kgbuild.corpus.worker import WorkerSetup, init_worker
from kgbuild.errors import KgbuildError
from kgbuild.llm.limits import LimitSettings, SharedLimits

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

#: Times Ray reruns a movie whose worker process died (killed, out of memory, node lost): Ray's default,
#: made explicit. A build's own errors are not retried: they come back as a failed outcome.
TASK_RETRIES = 3
#: What to do when Ray is missing.
RAY_MISSING = "Ray is not installed; install the optional extra: pip install 'kgbuild[ray]'"


class RayMissingError(KgbuildError):
    """`--ray` was given but Ray is not installed; the message says how to install it."""


class RayConnectError(KgbuildError):
    """The Ray cluster cannot be reached or started; the message says which address."""


def require_ray() -> ModuleType:
    """The `ray` module.

    Raises:
        RayMissingError: Ray is not installed (the message gives the pip command).
    """
    try:
        import ray
    except ImportError as e:
        raise RayMissingError(RAY_MISSING) from e
    return ray


class RaySession(BaseModel):
    """The Ray instance a corpus build runs on."""

    model_config = ConfigDict(extra="forbid")

    address: str = Field(description="What was asked: 'auto', 'local' or a cluster address.")
    started: bool = Field(description="True when this session connected or started Ray (and stops it at the end).")
    startup_seconds: float = Field(description="Seconds `ray.init` took (0 when Ray was already up).")
    cpus: float = Field(description="CPUs of the cluster when the session began.")


@contextmanager
def ray_session(address: str = "auto", *, num_cpus: int | None = None) -> Iterator[RaySession]:
    """Connect to a Ray cluster or start a local instance; disconnect (and stop it) at the end.

    Args:
        address: 'auto': Ray's own search (RAY_ADDRESS, else an instance started on this machine
            with `ray start`, else a new local instance); 'local': always a new local instance;
            anything else: a cluster address (HOST:6379, or ray://HOST:10001 for Ray Client).
            When this process is already connected (`ray.init` called before), that connection
            is used and left open.
        num_cpus: CPUs of a new local instance (None: the machine's); only with 'local' or 'auto'.

    Raises:
        RayMissingError: Ray is not installed.
        RayConnectError: the cluster cannot be reached or the instance not started.
    """
    ray = require_ray()
    if ray.is_initialized():
        yield RaySession(address=address, started=False, startup_seconds=0.0,
                         cpus=float(ray.cluster_resources().get("CPU", 0.0)))
        return
    options: dict[str, Any] = {"include_dashboard": False}
    if num_cpus is not None:
        options["num_cpus"] = num_cpus
    start = time.perf_counter()
    try:
        ray.init(address=None if address == "auto" else address, **options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise RayConnectError(f"cannot connect to Ray at {address!r}: {e}. Start a cluster with 'ray start "
                              "--head' and give its address, or use --ray local for a local instance") from e
    startup = time.perf_counter() - start
    try:
        yield RaySession(address=address, started=True, startup_seconds=round(startup, 3),
                         cpus=float(ray.cluster_resources().get("CPU", 0.0)))
    finally:
        ray.shutdown()


class RayLimits:
    """A handle to the one `SharedLimits` of a corpus, running as a Ray actor (a `Limits`).

    It pickles with the worker set-up into every task; each call waits for the actor's answer,
    so all workers, on any node, share one pacing and one budget.
    """

    def __init__(self, actor: Any):
        self._actor = actor

    def acquire(self, tokens: int, cost: float) -> tuple[float, str | None]:
        """Reserve a slot (see `SharedLimits.acquire`)."""
        ray = require_ray()
        delay, refusal = ray.get(self._actor.acquire.remote(tokens, cost))
        return float(delay), refusal

    def settle(self, cost: float) -> None:
        """Correct the spent cost (see `SharedLimits.settle`)."""
        require_ray().get(self._actor.settle.remote(cost))

    def spent(self) -> tuple[int, float]:
        """(requests, estimated USD) so far."""
        requests, cost = require_ray().get(self._actor.spent.remote())
        return int(requests), float(cost)


@contextmanager
def serve_ray_limits(settings: LimitSettings) -> Iterator[RayLimits]:
    """Run one `SharedLimits` as a Ray actor (no CPU reserved); yield the handle for the workers.

    Needs a connected Ray session (`ray_session`); the actor is stopped at the end.
    """
    ray = require_ray()
    actor = ray.remote(num_cpus=0)(SharedLimits).remote(settings)
    try:
        yield RayLimits(actor)
    finally:
        ray.kill(actor)


#: The run whose set-up this Ray worker process holds (a worker process serves many tasks).
_worker_run: list[str] = []


def _run_task(run: str, setup: WorkerSetup, fn: Callable[[T], R], item: T) -> R:
    """In a Ray worker: set the process up at its first task of `run`, then run `fn(item)`."""
    if _worker_run != [run]:
        init_worker(setup)
        _worker_run[:] = [run]
    return fn(item)


class RayExecutor:
    """Ray tasks, one per item, at most `workers` at once (a corpus `Executor`).

    Needs a connected Ray session (`ray_session`). Each task reserves `setup.torch_threads`
    CPUs (1 when unset), so Ray places no more builds on a node than it has cores for.

    Args:
        setup: How each worker process is set up (sent once to the object store).
        workers: Tasks in flight at most; None: the cluster's CPUs over the CPUs per task.
    """

    def __init__(self, setup: WorkerSetup, *, workers: int | None = None):
        ray = require_ray()
        self._ray = ray
        self._cpus_per_task = setup.torch_threads or 1
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        self.workers = workers or max(1, int(cpus // self._cpus_per_task))
        self._cluster_cpus = cpus
        self._run = uuid.uuid4().hex
        self._setup = ray.put(setup)
        self._task = ray.remote(_run_task).options(num_cpus=self._cpus_per_task, max_retries=TASK_RETRIES)

    @property
    def description(self) -> str:
        """What runs the workers."""
        return (f"Ray ({self._cluster_cpus:g} CPUs), {self.workers} task{'s' if self.workers != 1 else ''} at once, "
                f"{self._cpus_per_task} CPU{'s' if self._cpus_per_task != 1 else ''} each")

    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[T, R | WorkerLost]]:
        """Submit the items in order, `workers` at a time; yield (item, result) as each finishes."""
        ray = self._ray
        from ray.exceptions import RayError, RayTaskError

        queue = iter(items)
        pending: dict[Any, T] = {}

        def submit() -> None:
            for item in itertools.islice(queue, 1):
                pending[self._task.remote(self._run, self._setup, fn, item)] = item

        for _ in range(self.workers):
            submit()
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    item = pending.pop(ref)
                    result: R | WorkerLost
                    try:
                        result = ray.get(ref)
                    except RayTaskError as e:
                        logger.info("a Ray task failed: %s", e)
                        cause = e.cause if isinstance(e.cause, BaseException) else e
                        result = WorkerLost(f"error in the worker: {type(cause).__name__}: {cause}")
                    except RayError as e:
                        result = WorkerLost(f"the Ray worker was lost (killed, out of memory, or its node died?): "
                                            f"{type(e).__name__}: {e}")
                    submit()
                    yield item, result
        finally:
            for ref in pending:  # the caller stopped early: the tasks still running are not wanted
                ray.cancel(ref)

    def close(self) -> None:
        """Nothing to stop: the tasks end with the run, and `ray_session` ends the session."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
