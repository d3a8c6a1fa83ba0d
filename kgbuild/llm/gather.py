"""Running the requests of one task concurrently, with the stops every task shares.

A task's items (clusters to adjudicate, batches of mentions to normalize...) handle the errors
about their own answers (`kgbuild.llm.types.ANSWER_ERRORS`) themselves. What escapes an item
stops them all: `gather_requests` cancels the other items on the first refused request, budget
stop or other error, and raises it. Batch-export mode is the exception: every item runs up to its
first uncached request, so that all of the task's requests are recorded for export, then one
`BatchPendingError` is raised.

Example:
    >>> verdicts = await gather_requests(adjudicate_llm(cluster, client) for cluster in clusters)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

from kgbuild.llm.types import BatchPendingError

T = TypeVar("T")


class _Pending:
    """An item stopped at a request recorded for batch export."""


async def _settle(item: Awaitable[T]) -> T | _Pending:
    try:
        return await item
    except BatchPendingError:
        return _Pending()


async def gather_requests(items: Iterable[Awaitable[T]]) -> list[T]:
    """Await every item concurrently; results in input order.

    Args:
        items: One awaitable per item of the task (each bounded by the client's concurrency).

    Returns:
        The items' results.

    Raises:
        BatchPendingError: batch-export mode and some items need a request that is not cached
            (all of them were recorded before this is raised).
        LLMRequestError, BudgetExceededError, Exception: the first error an item raised; the
            other items are cancelled.
    """
    try:
        async with asyncio.TaskGroup() as group:
            running = [group.create_task(_settle(item)) for item in items]
    except BaseExceptionGroup as errors:
        first = errors.exceptions[0]
        raise first from first.__cause__  # the error itself, not the group the task group wraps it in
    results = [done.result() for done in running]
    pending = sum(isinstance(r, _Pending) for r in results)
    if pending:
        raise BatchPendingError(f"{pending} of {len(results)} items wait for requests recorded for batch export")
    return [r for r in results if not isinstance(r, _Pending)]
