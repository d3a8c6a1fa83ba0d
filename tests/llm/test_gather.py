"""`gather_requests`: a task's items run together; a fatal error stops them, batch export records all."""

from __future__ import annotations

import asyncio

import pytest

from kgbuild.llm.gather import gather_requests
from kgbuild.llm.types import BatchPendingError, LLMRequestError


def test_results_come_in_input_order():
    async def item(n: int) -> int:
        await asyncio.sleep(0.01 * (3 - n))
        return n

    assert asyncio.run(gather_requests(item(n) for n in range(3))) == [0, 1, 2]


def test_every_item_reaches_its_request_before_batch_pending_is_raised():
    recorded: list[int] = []

    async def item(n: int) -> int:
        await asyncio.sleep(0.01 * n)
        if n % 2:
            recorded.append(n)
            raise BatchPendingError(f"item {n} recorded")
        return n

    with pytest.raises(BatchPendingError, match="2 of 4 items wait"):
        asyncio.run(gather_requests(item(n) for n in range(4)))
    assert recorded == [1, 3]


def test_the_first_fatal_error_cancels_the_other_items_and_keeps_its_cause():
    finished: list[int] = []

    async def item(n: int) -> int:
        if n == 0:
            try:
                raise KeyError("401")
            except KeyError as e:
                raise LLMRequestError("wrong key") from e
        await asyncio.sleep(5)
        finished.append(n)
        return n

    with pytest.raises(LLMRequestError, match="wrong key") as caught:
        asyncio.run(gather_requests(item(n) for n in range(3)))
    assert finished == [] and isinstance(caught.value.__cause__, KeyError)
