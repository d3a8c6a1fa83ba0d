"""The outer layer of an LLM build: the client from the settings, the run, and its clean stops.

`run_llm_extraction` opens the client of the settings (`kgbuild.llm.factory.open_llm_client`:
the OpenAI-compatible endpoint unless a backend is passed in, e.g. a scripted one), extracts
every chunk, and turns the ways a run can stop early into errors that say what to do next:
batch-export mode (the pending requests are written as a Batch API file), the budget, and time
(a server that never answers, or --llm-deadline).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Container

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.llm.context import chunk_contexts
from kgbuild.extraction.llm.extract import (
    TASK_EXTRACT,
    TASK_REFLECT,
    BelowThreshold,
    ChunkStatus,
    ExtractionRun,
    extract_chunks,
)
from kgbuild.extraction.llm.grounding import UngroundedFacts
from kgbuild.extraction.llm.responses import response_models
from kgbuild.llm.cache import default_cache_path
from kgbuild.llm.client import LLMClient
from kgbuild.llm.costs import LLMUsage
from kgbuild.llm.factory import open_llm_client, raise_pending
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BudgetExceededError, ChatBackend, LLMStallError
from kgbuild.model import Chunk, Screenplay
from kgbuild.schema import Schema, load_schema
from kgbuild.tokens import count_words

logger = logging.getLogger(__name__)

#: The tasks whose requests make up a run before any reflection retry.
FIRST_ATTEMPT_TASKS = (TASK_EXTRACT, TASK_REFLECT)


class CostRates(BaseModel):
    """Requests and tokens per 1,000 script words."""

    model_config = ConfigDict(extra="forbid")

    words: int = Field(description="Words in the screenplay's text.")
    requests: float = Field(description="HTTP requests per 1,000 words, everything included.")
    prompt_tokens: float
    completion_tokens: float
    first_requests: float = Field(description="Requests per 1,000 words of first attempts (extract + "
                                              "reflect), before reflection retries.")
    first_prompt_tokens: float
    first_completion_tokens: float

    @property
    def first_tokens(self) -> float:
        """Prompt + completion tokens per 1,000 words before retries."""
        return self.first_prompt_tokens + self.first_completion_tokens


class LLMExtraction(BaseModel):
    """What an LLM extraction produced, for the graph, the report and review.jsonl."""

    model_config = ConfigDict(extra="forbid")

    run: ExtractionRun
    usage: LLMUsage
    rates: CostRates
    cache_path: str
    ungrounded: UngroundedFacts | None = Field(
        default=None, description="Facts the graph assembly left out for want of evidence in the "
        "screenplay (`kgbuild.extraction.llm.extract.assemble`); None until the graph is assembled.")
    below_threshold: list[BelowThreshold] = Field(
        default_factory=list, description="The chunks below the review threshold, and whether their facts were "
        "let into the graph (set when the graph is assembled).")
    seconds: float = Field(default=0.0, description="Seconds the extraction's LLM work took (the deadline of "
                           "what follows is what is left).")


def script_words(screenplay: Screenplay, scenes: Container[int] | None = None) -> int:
    """Words in the screenplay's elements (headings, action, cues, dialogue...), of `scenes` only
    when given (`kgbuild.tokens.count_words`: a Chinese character is a word)."""
    return sum(count_words(el.text) for scene in screenplay.scenes
               if scenes is None or scene.index in scenes for el in scene.elements)


def cost_rates(usage: LLMUsage, words: int) -> CostRates:
    """Usage per 1,000 script words, all tasks and first attempts only."""
    per = 1000 / max(words, 1)
    total = usage.total
    first = [u for name, u in usage.tasks.items() if name in FIRST_ATTEMPT_TASKS]
    return CostRates(
        words=words, requests=total.requests * per, prompt_tokens=total.prompt_tokens * per,
        completion_tokens=total.completion_tokens * per,
        first_requests=sum(u.requests for u in first) * per,
        first_prompt_tokens=sum(u.prompt_tokens for u in first) * per,
        first_completion_tokens=sum(u.completion_tokens for u in first) * per)


def token_usage(usage: LLMUsage) -> dict[str, int]:
    """Usage flattened for a graph's provenance: 'total.requests', 'extract.prompt_tokens', ..."""
    flat: dict[str, int] = {}
    for name, u in [*usage.tasks.items(), ("total", usage.total)]:
        for field in ("calls", "cache_hits", "requests", "prompt_tokens", "completion_tokens"):
            flat[f"{name}.{field}"] = int(getattr(u, field))
    return flat


async def _extract(client: LLMClient, screenplay: Screenplay, chunks: list[Chunk], settings: LLMSettings,
                   schema: Schema, on_chunk: Callable[[], None] | None) -> ExtractionRun:
    async with client:
        return await extract_chunks(client, chunk_contexts(screenplay, chunks), schema,
                                    threshold=settings.threshold, max_retries=settings.max_retries,
                                    on_chunk=on_chunk)


def run_llm_extraction(screenplay: Screenplay, chunks: list[Chunk], settings: LLMSettings, *,
                       backend: ChatBackend | None = None, schema: Schema | None = None,
                       on_chunk: Callable[[], None] | None = None,
                       scenes: Container[int] | None = None) -> LLMExtraction:
    """Extract every chunk with the configured LLM.

    Args:
        screenplay: The parsed screenplay.
        chunks: Its chunks.
        settings: Model, endpoint, concurrency, budget, reflection and cache settings.
        backend: Send requests here instead of the OpenAI-compatible endpoint (e.g. a
            `ScriptedBackend`); a fresh one per call.
        schema: The graph schema; the default STAGE-KG schema when None.
        on_chunk: Called once per finished chunk (progress).
        scenes: The scenes the chunks were cut from, when not the whole screenplay
            (`kgbuild build --scenes`): the words per 1,000 count theirs only.

    Returns:
        The chunks' outcomes, usage per task, and usage per 1,000 script words.

    Raises:
        BatchPendingError: batch-export mode and requests are pending; they were written to
            `settings.batch_export`.
        BudgetExceededError: the budget stopped the run; what completed is in the cache.
        LLMStallError: time stopped the run (the server took the first request and never
            answered it within the timeout, or the deadline ran out); what completed is in the cache.
        LLMRequestError: the server refused the requests (key, model, URL).
        SchemaNotExtractableError: the schema has no event type to extract events with.
    """
    schema = schema or load_schema()
    response_models(schema)  # a schema LLM extraction cannot use is refused before any request
    cache_path = default_cache_path(settings.cache_dir)
    start = time.monotonic()
    with open_llm_client(settings, backend=backend) as client:
        run = asyncio.run(_extract(client, screenplay, chunks, settings, schema, on_chunk))
    seconds = time.monotonic() - start
    total = len(run.outcomes)
    finished = total - run.count(ChunkStatus.PENDING) - run.count(ChunkStatus.STOPPED)
    if client.stopped is not None:
        raise LLMStallError(f"{client.stopped} ({finished} of {total} chunks done)")
    raise_pending(client, settings, f"{finished} of {total} chunks are done")
    if run.count(ChunkStatus.STOPPED):
        stopped = run.count(ChunkStatus.STOPPED)
        raise BudgetExceededError(
            f"the budget stopped the build: {finished} of {total} chunks done, {stopped} not "
            f"({client.usage().total.requests} requests sent). Every completed response is saved in "
            f"{cache_path}; rerun with a larger --max-requests/--max-cost to continue without "
            "repeating them.")
    usage = client.usage()
    return LLMExtraction(run=run, usage=usage, rates=cost_rates(usage, script_words(screenplay, scenes)),
                         cache_path=str(cache_path), seconds=round(seconds, 3))
