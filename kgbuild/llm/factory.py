"""The one place an `LLMClient` is made from `LLMSettings`: backend, cache, budget, batch export.

Extraction (`kgbuild.extraction.llm.run`), merge adjudication (`kgbuild.canonicalize.merge`), the
audit's live judge (`kgbuild.evaluation.audit.live`) and the dossiers' personas
(`kgbuild.story.persona`) all open their client with
`open_llm_client`, so the same settings mean the same endpoint, response cache, concurrency,
timeout, deadline, retries, budget and batch-export mode everywhere. In batch-export mode each of them ends
with `raise_pending`: the requests it recorded are written as a Batch API input file and
`BatchPendingError` says what to do next.

Example:
    >>> with open_llm_client(LLMSettings(model="gpt-4o-mini", max_cost=2.0)) as client:
    ...     answers = asyncio.run(ask_everything(client))
    ...     raise_pending(client, settings, "3 of 8 chunks are done")
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kgbuild.llm.batch import export_batch
from kgbuild.llm.cache import ResponseCache, default_cache_path
from kgbuild.llm.client import Budget, LLMClient
from kgbuild.llm.costs import PriceTable, load_prices
from kgbuild.llm.limits import Limits, LimitSettings, SharedLimits, installed_limits
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BatchPendingError, ChatBackend, ChatRequest, ChatResult, LLMRequestError

logger = logging.getLogger(__name__)


class _ExportOnly:
    """The backend of batch-export mode: requests are exported, never sent, so no key is needed."""

    @property
    def name(self) -> str:
        return "batch"

    async def complete(self, request: ChatRequest) -> ChatResult:
        raise LLMRequestError("batch-export mode sends no requests")


def chat_backend(settings: LLMSettings) -> ChatBackend:
    """The backend the settings name: the OpenAI-compatible endpoint, or export-only in batch mode.

    Raises:
        LLMRequestError: no API key for api.openai.com (see `OpenAIBackend`).
    """
    if settings.batch_export is not None:
        return _ExportOnly()
    from kgbuild.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(base_url=settings.base_url, timeout=settings.timeout)


def price_table(settings: LLMSettings) -> PriceTable:
    """The prices the settings use: the built-in list prices, under the --prices file if any.

    Raises:
        InputError: the price file cannot be read or holds an invalid price.
    """
    return load_prices(settings.prices) if settings.prices is not None else PriceTable()


def own_limits(settings: LLMSettings) -> Limits | None:
    """The pacing of a client outside a corpus: --rpm / --tpm for this client alone (None without)."""
    if settings.rpm is None and settings.tpm is None:
        return None
    return SharedLimits(LimitSettings(rpm=settings.rpm, tpm=settings.tpm))


#: Where the clients made now send their notes (a retry and why, a slow answer): `notes_to`.
_NOTES: ContextVar[Callable[[str], None] | None] = ContextVar("kgbuild_llm_notes", default=None)


@contextmanager
def notes_to(receiver: Callable[[str], None] | None) -> Iterator[None]:
    """Send the notes of every client made inside the block to `receiver` (a build's progress
    display): extraction's and merging's alike, without passing it through every caller."""
    token = _NOTES.set(receiver)
    try:
        yield
    finally:
        _NOTES.reset(token)


def make_client(settings: LLMSettings, backend: ChatBackend, cache: ResponseCache | None) -> LLMClient:
    """The client of `settings` on `backend` and `cache`: every LLM caller's, and `--dry-run`'s
    (which builds the requests this client would send, `LLMClient.request_for`, without a cache).
    In a corpus worker it shares the corpus's rate limit and budget (`kgbuild.llm.limits`). The
    deadline counts from now; its notes go where `notes_to` says."""
    return LLMClient(backend, settings.model, cache=cache, concurrency=settings.concurrency,
                     timeout=settings.timeout, max_retries=settings.request_retries,
                     budget=Budget(max_cost=settings.max_cost, max_requests=settings.max_requests),
                     batch_export=settings.batch_export is not None, prices=price_table(settings),
                     limits=installed_limits() or own_limits(settings), deadline=settings.deadline,
                     on_note=_NOTES.get())


@contextmanager
def open_llm_client(settings: LLMSettings, *, backend: ChatBackend | None = None) -> Iterator[LLMClient]:
    """Open the response cache of `settings` and yield the client every LLM caller uses.

    The client is async: run the requests inside `asyncio.run` within the `with` block, and close
    the backend there (`async with client:`). The cache is closed when the block ends.

    Args:
        settings: Model, endpoint, concurrency, timeout, retries, budget, cache folder, and
            batch-export mode (uncached requests are recorded in `client.pending` instead of
            sent; see `raise_pending`).
        backend: Send requests here instead of the settings' endpoint (e.g. a `ScriptedBackend`).

    Yields:
        The `LLMClient`, its cache at `default_cache_path(settings.cache_dir)`.

    Raises:
        CacheError: the cache file cannot be opened.
        LLMRequestError: no API key for api.openai.com.

    Example:
        >>> with open_llm_client(settings, backend=ScriptedBackend('{"n": 1}')) as client:
        ...     asyncio.run(client.structured(task="x", messages=msgs, response_model=N))
    """
    with ResponseCache(default_cache_path(settings.cache_dir)) as cache:
        yield make_client(settings, backend if backend is not None else chat_backend(settings), cache)


def raise_pending(client: LLMClient, settings: LLMSettings, progress: str) -> None:
    """In batch-export mode, write the requests `client` recorded and stop the run.

    Returns without doing anything when nothing is pending (or batch mode is off).

    Args:
        client: The client whose requests just ran.
        settings: Its settings (`batch_export` is the file written).
        progress: What is done so far, for the message (e.g. '3 of 8 chunks are done').

    Raises:
        BatchPendingError: requests were written to `settings.batch_export`; the message says
            how to import the answers and go on.
    """
    if settings.batch_export is None or not client.pending:
        return
    count = export_batch(settings.batch_export, client.pending)
    raise BatchPendingError(
        f"{count} requests pending: written to {settings.batch_export} (OpenAI Batch API input); "
        f"{progress}. Submit the file to a batch service, import its output with 'kgbuild llm import "
        "RESULTS.jsonl' (same cache), then rerun the same command.")
