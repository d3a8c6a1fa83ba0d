"""The shared rate limit and budget: pacing by requests and tokens, the budget, across processes."""

from __future__ import annotations

import asyncio
import multiprocessing

import pytest
from pydantic import BaseModel

from kgbuild.llm.client import LLMClient
from kgbuild.llm.limits import LimitSettings, SharedLimits, serve_limits
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.types import BudgetExceededError, ChatMessage


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_requests_are_spaced_by_the_rpm_and_by_their_tokens_under_the_tpm():
    clock = Clock()
    limits = SharedLimits(LimitSettings(rpm=60, tpm=6000), clock=clock)
    assert limits.acquire(10, 0.0) == (0.0, None)
    assert limits.acquire(10, 0.0) == (1.0, None)  # 60 rpm: one a second
    assert limits.acquire(300, 0.0) == (2.0, None)  # its 300 tokens need 3 s of a 6,000 tpm minute
    assert limits.acquire(10, 0.0) == (5.0, None)
    clock.now += 10
    assert limits.acquire(10, 0.0) == (0.0, None)  # an idle limiter does not bank slots


def test_the_budget_is_one_for_everyone():
    limits = SharedLimits(LimitSettings(max_requests=2, max_cost=1.0))
    assert limits.acquire(1, 0.4)[1] is None and limits.acquire(1, 0.4)[1] is None
    delay, refusal = limits.acquire(1, 0.1)
    assert refusal is not None and "--max-requests 2" in refusal
    limits = SharedLimits(LimitSettings(max_cost=1.0))
    assert limits.acquire(1, 0.8)[1] is None
    assert "--max-cost 1" in (limits.acquire(1, 0.3)[1] or "")
    limits.settle(-0.5)  # the first request cost less than estimated
    assert limits.acquire(1, 0.3)[1] is None
    assert limits.spent() == (2, pytest.approx(0.6))


def _take(handle, n: int, out, start) -> None:
    start.wait()  # both processes take their slots at once, however long each took to start
    for _ in range(n):
        out.put(handle.acquire(1, 0.0)[0])


def test_processes_share_one_limiter_through_the_manager():
    spawn = multiprocessing.get_context("spawn")
    with serve_limits(LimitSettings(rpm=600)) as handle:
        queue, start = spawn.Queue(), spawn.Barrier(2)
        workers = [spawn.Process(target=_take, args=(handle, 5, queue, start)) for _ in range(2)]
        for w in workers:
            w.start()
        delays = sorted(queue.get(timeout=60) for _ in range(10))
        for w in workers:
            w.join(timeout=60)
    # Ten slots 0.1 s apart, whichever process took them: the last waits about 0.9 s.
    assert delays[-1] == pytest.approx(0.9, abs=0.15)


class Answer(BaseModel):
    n: int


def test_a_client_waits_for_its_slot_and_stops_at_the_shared_budget():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limits = SharedLimits(LimitSettings(rpm=60, max_requests=3))
    client = LLMClient(ScriptedBackend('{"n": 1}'), "m", sleep=sleep, limits=limits)

    async def ask(i: int) -> Answer:
        return await client.structured(task="t", messages=[ChatMessage(role="user", content=str(i))],
                                       response_model=Answer)

    async def main() -> None:
        for i in range(3):
            await ask(i)
        with pytest.raises(BudgetExceededError, match="corpus's request budget"):
            await ask(3)

    asyncio.run(main())
    assert len(waits) == 2 and all(w > 0.9 for w in waits)
    assert client.usage().total.requests == 3
