"""One LLM rate limit and budget shared by every worker of a corpus build, local or on Ray.

`SharedLimits` paces requests so that, together, all workers stay within `--rpm` requests and
`--tpm` tokens per minute: each request is given the next free slot, and slots are spaced by
60/rpm seconds and by 60/tpm seconds per token of the request, so no minute holds more than the
limits allow. It also holds the corpus's one budget (`--max-requests`, `--max-cost`), so that 16
workers do not each spend the whole budget. It is plain Python with a lock; the workers reach
one instance of it through a `multiprocessing` manager (local processes, `serve_limits`); on Ray
the same object runs as an actor (`kgbuild.corpus.ray_executor.serve_ray_limits`). A worker
installs the handle once (`install_shared_limits`) and every `LLMClient` it makes
(`kgbuild.llm.factory.make_client`) asks it before each request.

Example:
    >>> limits = SharedLimits(rpm=60, tpm=100_000)
    >>> limits.acquire(tokens=1500, cost=0.01)   # (seconds to wait, None) or (0, why refused)
    (0.0, None)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.managers import BaseManager
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field


class LimitSettings(BaseModel):
    """The corpus-wide limits (None: no limit)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rpm: float | None = Field(default=None, gt=0, description="LLM requests per minute, all workers together.")
    tpm: float | None = Field(default=None, gt=0, description="LLM tokens (prompt + expected completion) per "
                              "minute, all workers together.")
    max_requests: int | None = Field(default=None, ge=0, description="LLM requests sent in the whole corpus build.")
    max_cost: float | None = Field(default=None, ge=0, description="Estimated USD of the whole corpus build.")

    @property
    def active(self) -> bool:
        """True when any limit is set."""
        return any(v is not None for v in (self.rpm, self.tpm, self.max_requests, self.max_cost))


class Limits(Protocol):
    """What an `LLMClient` asks before each request (a `SharedLimits` or a handle to one)."""

    def acquire(self, tokens: int, cost: float) -> tuple[float, str | None]:
        """Reserve a slot: (seconds to wait before sending, None), or (0, why the budget refuses)."""
        ...

    def settle(self, cost: float) -> None:
        """Correct the spent cost by `cost` (actual minus estimated, or minus the estimate when not sent)."""
        ...


class SharedLimits:
    """The pacing and the budget, for all workers (thread-safe; share one instance).

    Args:
        settings: The limits.
        clock: Seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, settings: LimitSettings, clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._next = 0.0
        self._requests = 0
        self._cost = 0.0

    def acquire(self, tokens: int, cost: float) -> tuple[float, str | None]:
        """Reserve the next free slot for a request of `tokens` tokens and `cost` estimated USD.

        Returns:
            (seconds to wait, None); or (0, the reason) when the budget refuses the request.
        """
        s = self.settings
        with self._lock:
            if s.max_requests is not None and self._requests + 1 > s.max_requests:
                return 0.0, (f"the corpus's request budget is reached: {self._requests} requests sent "
                             f"(--max-requests {s.max_requests})")
            if s.max_cost is not None and self._cost + cost > s.max_cost:
                return 0.0, (f"the corpus's cost budget is reached: ${self._cost:.4f} spent or in flight, the next "
                             f"request would cost about ${cost:.4f} (--max-cost {s.max_cost:g})")
            self._requests += 1
            self._cost += cost
            now = self._clock()
            slot = max(now, self._next)
            spacing = 0.0
            if s.rpm is not None:
                spacing = 60.0 / s.rpm
            if s.tpm is not None:
                spacing = max(spacing, 60.0 * tokens / s.tpm)
            self._next = slot + spacing
            return slot - now, None

    def settle(self, cost: float) -> None:
        """Correct the spent cost by `cost`."""
        with self._lock:
            self._cost += cost

    def spent(self) -> tuple[int, float]:
        """(requests, estimated USD) so far."""
        with self._lock:
            return self._requests, self._cost


class _Manager(BaseManager):
    pass


_Manager.register("SharedLimits", SharedLimits)


@contextmanager
def serve_limits(settings: LimitSettings) -> Iterator[Any]:
    """Run one `SharedLimits` in a manager process; yield a handle worker processes can be given.

    The handle is a `multiprocessing` proxy: pickled into a worker (e.g. in its set-up), it
    connects back to the manager, so every local worker shares the one instance.
    """
    manager = _Manager()
    manager.start()
    try:
        yield manager.SharedLimits(settings)  # type: ignore[attr-defined]
    finally:
        manager.shutdown()


_installed: list[Limits] = []


def install_shared_limits(limits: Limits) -> None:
    """Make `limits` the shared limits of every `LLMClient` this process makes from now on."""
    _installed[:] = [limits]


def installed_limits() -> Limits | None:
    """The shared limits installed in this process, if any."""
    return _installed[0] if _installed else None
