"""What an LLM build would ask before it asks: the requests, tokens and cost of `build --dry-run`.

The extraction of every chunk is run exactly as a build runs it (`extract_chunk`, the client of
the build's settings, the build's response cache opened read-only), but on a backend that sends
nothing and in batch-export mode: every request the cache answers is answered, and the first
request of each chunk it does not answer is recorded instead of sent. Those recorded requests
are exactly what the build would send first (same messages, JSON schema and decoding
parameters, so the same cache keys); their prompt tokens are counted with `kgbuild.tokens`, as
the client's budget counts them.

What cannot be built before the model answers is estimated, and the estimate says on what:

- completion tokens of an extraction: `extract_per_user_token` times the tokens of the
  request's user message (the layout facts and the passage). Measured on the model's own
  replies in the response cache when it holds at least `MIN_MEASURED` of them (so a first
  `--scenes` run calibrates the estimate of the whole script); otherwise
  `COMPLETION_PER_USER_TOKEN`, measured on STAGE's own answers recast in kgbuild's answer
  format (the study `bench/studies/completion_density.py` in the repository);
- the review that follows each extraction: its fixed part (instructions, facts, schema) is
  built and counted; the extraction it quotes adds `RENDERED_PER_COMPLETION` of the
  extraction's completion tokens; its answer takes `REVIEW_COMPLETION_TOKENS` (or the mean of
  the cached reviews of the model);
- reflection retries: none on the first attempts; the worst case (every chunk re-extracted
  `max_retries` times, each retry's prompt the first one's plus `FEEDBACK_TOKENS`) is given
  beside it.

Entity merging's LLM requests depend on the extracted entities and are not counted.

Example:
    >>> estimate = estimate_llm_build(screenplay, chunks, LLMSettings(model="gpt-4o-mini"))
    >>> print("\\n".join(format_estimate(estimate)))
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.llm.context import ChunkContext, chunk_contexts
from kgbuild.extraction.llm.extract import (
    TASK_EXTRACT,
    TASK_EXTRACT_RETRY,
    TASK_REFLECT,
    TASK_REFLECT_RETRY,
    extract_chunk,
    extraction_messages,
)
from kgbuild.extraction.llm.reflect import reflection_messages
from kgbuild.extraction.llm.responses import ExtractionResponse, ReflectionResponse, response_models
from kgbuild.llm.cache import ResponseCache, cache_key, default_cache_path
from kgbuild.llm.client import LLMClient, request_prompt_tokens, schema_name
from kgbuild.llm.costs import ModelPrice, no_price_message
from kgbuild.llm.factory import make_client, price_table
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BatchPendingError, ChatRequest, ChatResult, LLMRequestError, Usage
from kgbuild.model import Chunk, Screenplay
from kgbuild.schema import Schema, load_schema
from kgbuild.tokens import estimate_tokens

logger = logging.getLogger(__name__)

#: Completion tokens of an extraction answer per token of its user message: STAGE's answers to
#: the 1,352 scenes of the 11 dev movies, recast in kgbuild's answer format (3.90 English, 4.06
#: Chinese; the repository's study `bench/studies/completion_density.py`). STAGE's model wrote a
#: sentence of description for every entity; kgbuild's prompt asks for a few words, so this leans high.
COMPLETION_PER_USER_TOKEN = 3.93
#: Tokens of an extraction as the reviewer reads it, per completion token (same measurement).
RENDERED_PER_COMPLETION = 0.61
#: Completion tokens of a review (four scores and a few lines of feedback): an assumption.
REVIEW_COMPLETION_TOKENS = 150
#: Tokens the feedback adds to a re-extraction's prompt: an assumption.
FEEDBACK_TOKENS = 200
#: Cached replies of the model needed before their measured length replaces the constants.
MIN_MEASURED = 5


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CompletionBasis(_Model):
    """What the completion estimates rest on."""

    extract_per_user_token: float = Field(description="Extraction completion tokens per user-message token.")
    review_tokens: float = Field(description="Completion tokens of one review.")
    source: str = Field(description="Where the two numbers come from, in words.")


class RequestEstimate(_Model):
    """One request a build would send."""

    chunk: str
    task: str = Field(description="The task label: extract, reflect, extract_retry or reflect_retry.")
    prompt_tokens: int
    completion_tokens: int
    exact_prompt: bool = Field(description="The request was built (else its prompt is estimated).")
    key: str | None = Field(default=None, description="The cache key of a request that was built.")


class BuildEstimate(_Model):
    """The LLM requests, tokens and cost of building some chunks, before anything is sent."""

    model: str
    chunks: int
    done_chunks: int = Field(description="Chunks whose every request the response cache answers.")
    cache_hits: int = Field(description="Requests the response cache answers.")
    requests: list[RequestEstimate] = Field(description="The requests of the first attempts still to send.")
    worst_case_retries: list[RequestEstimate] = Field(
        description="The further requests if every chunk needed all its reflection retries.")
    max_retries: int
    basis: CompletionBasis
    price: ModelPrice | None = Field(description="None when the price table does not know the model.")
    cache_path: str

    def usage(self, items: list[RequestEstimate]) -> Usage:
        """The tokens of `items`."""
        return Usage(prompt_tokens=sum(r.prompt_tokens for r in items),
                     completion_tokens=sum(r.completion_tokens for r in items))

    def cost(self, items: list[RequestEstimate], *, batch: bool = False) -> float | None:
        """USD for `items` (None for an unpriced model)."""
        return self.price.cost(self.usage(items), batch=batch) if self.price is not None else None


class _NoSend:
    """A backend for the dry run: the client is in batch-export mode, so it is never called."""

    @property
    def name(self) -> str:
        return "dry-run"

    async def complete(self, request: ChatRequest) -> ChatResult:
        raise LLMRequestError("a dry run sends no requests")


def measured_basis(cache: ResponseCache, model: str) -> CompletionBasis:
    """The completion basis from the model's cached replies, or the documented constants.

    Args:
        cache: The response cache (read-only is enough).
        model: The model name as requests carry it.
    """
    extract_name, review_name = schema_name(ExtractionResponse), schema_name(ReflectionResponse)
    user = completion = 0
    extractions = 0
    reviews: list[int] = []
    for request_json, tokens in cache.completions(model):
        try:
            request = ChatRequest.model_validate(json.loads(request_json))
        except ValueError:
            continue
        if request.schema_name == extract_name and len(request.messages) >= 2:
            extractions += 1
            user += estimate_tokens(request.messages[1].content)
            completion += tokens
        elif request.schema_name == review_name:
            reviews.append(tokens)
    measured = extractions >= MIN_MEASURED and user > 0
    parts = []
    if measured:
        parts.append(f"extraction answers: {completion / user:.2f} completion tokens per user-message token, "
                     f"measured on {extractions} replies of {model} in the response cache")
    else:
        parts.append(f"extraction answers: {COMPLETION_PER_USER_TOKEN} completion tokens per user-message token, "
                     "STAGE's own answers recast in kgbuild's format (fewer than "
                     f"{MIN_MEASURED} replies of {model} cached)")
    review_measured = len(reviews) >= MIN_MEASURED
    parts.append(f"reviews: {sum(reviews) / len(reviews):.0f} tokens each, measured on {len(reviews)} cached "
                 "replies" if review_measured else f"reviews: {REVIEW_COMPLETION_TOKENS} tokens each, assumed")
    return CompletionBasis(
        extract_per_user_token=completion / user if measured else COMPLETION_PER_USER_TOKEN,
        review_tokens=sum(reviews) / len(reviews) if review_measured else REVIEW_COMPLETION_TOKENS,
        source="; ".join(parts))


def _review_fixed_tokens(client: LLMClient, context: ChunkContext, threshold: int) -> int:
    """Prompt tokens of a review before the extraction it quotes: instructions, facts, passage, schema."""
    empty = ExtractionResponse.model_validate({"events": [], "entities": [], "relations": []})
    request = client.request_for(reflection_messages(empty, context, [], threshold=threshold), ReflectionResponse)
    return request_prompt_tokens(request)


class _Planner:
    """Estimates one chunk's requests from the first one the cache does not answer."""

    def __init__(self, client: LLMClient, settings: LLMSettings, schema: Schema, basis: CompletionBasis):
        self.client, self.settings, self.schema, self.basis = client, settings, schema, basis

    def _extract_completion(self, request: ChatRequest) -> int:
        user = request.messages[1].content if len(request.messages) > 1 else ""
        return round(self.basis.extract_per_user_token * estimate_tokens(user))

    def _review(self, chunk: str, task: str, context: ChunkContext, extracted: int) -> RequestEstimate:
        fixed = _review_fixed_tokens(self.client, context, self.settings.threshold)
        return RequestEstimate(chunk=chunk, task=task,
                               prompt_tokens=fixed + round(RENDERED_PER_COMPLETION * extracted),
                               completion_tokens=round(self.basis.review_tokens), exact_prompt=False)

    def first(self, context: ChunkContext, task: str, request: ChatRequest) -> list[RequestEstimate]:
        """The pending request and, after an extraction, the review that follows it."""
        chunk = context.chunk_id
        prompt = request_prompt_tokens(request)
        key = cache_key(request)
        if task in (TASK_REFLECT, TASK_REFLECT_RETRY):
            return [RequestEstimate(chunk=chunk, task=task, prompt_tokens=prompt,
                                    completion_tokens=round(self.basis.review_tokens), exact_prompt=True, key=key)]
        completion = self._extract_completion(request)
        review = TASK_REFLECT_RETRY if task == TASK_EXTRACT_RETRY else TASK_REFLECT
        return [RequestEstimate(chunk=chunk, task=task, prompt_tokens=prompt, completion_tokens=completion,
                                exact_prompt=True, key=key), self._review(chunk, review, context, completion)]

    def retries(self, context: ChunkContext, count: int) -> list[RequestEstimate]:
        """`count` further re-extractions of the chunk, each with its review."""
        request = self.client.request_for(extraction_messages(context, self.schema),
                                          response_models(self.schema).extraction)
        completion = self._extract_completion(request)
        one = [RequestEstimate(chunk=context.chunk_id, task=TASK_EXTRACT_RETRY,
                               prompt_tokens=request_prompt_tokens(request) + FEEDBACK_TOKENS,
                               completion_tokens=completion, exact_prompt=False),
               self._review(context.chunk_id, TASK_REFLECT_RETRY, context, completion)]
        return one * count


def _counts(client: LLMClient, field: str) -> Counter[str]:
    """Per task, a usage count of the client so far ('calls', 'pending')."""
    return Counter({name: getattr(u, field) for name, u in client.usage().tasks.items()})


async def _plan(client: LLMClient, contexts: list[ChunkContext], planner: _Planner,
                settings: LLMSettings) -> tuple[list[RequestEstimate], list[RequestEstimate], int]:
    first: list[RequestEstimate] = []
    retries: list[RequestEstimate] = []
    done = 0
    for context in contexts:
        before = set(client.pending)
        calls_before, pending_before = _counts(client, "calls"), _counts(client, "pending")
        try:
            await extract_chunk(client, context, planner.schema, threshold=settings.threshold,
                                max_retries=settings.max_retries)
        except BatchPendingError:
            calls = _counts(client, "calls") - calls_before
            pending = _counts(client, "pending") - pending_before
            task = next(iter(pending), TASK_EXTRACT)
            new = [request for key, request in client.pending.items() if key not in before]
            request = new[0] if new else client.request_for(extraction_messages(context, planner.schema),
                                                            response_models(planner.schema).extraction)
            first += planner.first(context, task, request)
            retries += planner.retries(context, max(0, settings.max_retries - calls[TASK_EXTRACT_RETRY]))
            continue
        done += 1
    return first, retries, done


def estimate_llm_build(screenplay: Screenplay, chunks: list[Chunk], settings: LLMSettings, *,
                       schema: Schema | None = None) -> BuildEstimate:
    """The requests, tokens and cost an LLM build of these chunks would need; nothing is sent or written.

    Args:
        screenplay: The parsed screenplay (the whole script: the prompts name the speakers heard
            before each chunk).
        chunks: The chunks the build would extract (`kgbuild.chunking.chunk_screenplay`).
        settings: The build's LLM settings: model, prices, reflection, response cache.
        schema: The graph schema; the default STAGE-KG schema when None.

    Returns:
        The first-attempt requests still to send, the worst case of retries, the cache hits,
        the basis of the completion estimates and the model's price (None if unknown).

    Raises:
        CacheError: the response cache exists but cannot be read.
        InputError: the --prices file cannot be used.
    """
    schema = schema or load_schema()
    cache_path = default_cache_path(settings.cache_dir)
    with ResponseCache(cache_path, read_only=True) as cache:
        client = make_client(settings, _NoSend(), cache)
        client.batch_export = True
        basis = measured_basis(cache, settings.model)
        planner = _Planner(client, settings, schema, basis)
        first, retries, done = asyncio.run(_plan(client, chunk_contexts(screenplay, chunks), planner, settings))
        hits = client.usage().total.cache_hits
    return BuildEstimate(model=settings.model, chunks=len(chunks), done_chunks=done, cache_hits=hits,
                         requests=first, worst_case_retries=retries, max_retries=settings.max_retries,
                         basis=basis, price=price_table(settings).price(settings.model), cache_path=str(cache_path))


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def format_estimate(estimate: BuildEstimate) -> list[str]:
    """The estimate as lines of text for `kgbuild build --dry-run`."""
    first = estimate.requests
    by_task = Counter(r.task for r in first)
    usage = estimate.usage(first)
    exact = sum(r.prompt_tokens for r in first if r.exact_prompt)
    lines = [
        f"LLM {estimate.model}: {len(first)} requests to send on first attempts ("
        + ", ".join(f"{n} {task}" for task, n in sorted(by_task.items())) + f"); {estimate.cache_hits} answered "
        f"by the response cache ({estimate.done_chunks} of {estimate.chunks} chunks complete there: "
        f"{estimate.cache_path})",
        f"  prompt tokens {usage.prompt_tokens:,} ({exact:,} of requests built exactly, the rest estimated); "
        f"completion tokens about {usage.completion_tokens:,}",
        f"  completion basis: {estimate.basis.source}",
    ]
    if estimate.price is None:
        lines.append(f"  cost: {no_price_message(estimate.model)}")
    else:
        p = estimate.price
        lines.append(f"  cost: {_usd(estimate.cost(first))} live, {_usd(estimate.cost(first, batch=True))} through a "
                     f"Batch API ({estimate.model}: ${p.input_per_mtok:g} in / ${p.output_per_mtok:g} out per 1M "
                     f"tokens, batch x{p.batch_discount:g})")
    retries = estimate.worst_case_retries
    if retries:
        more = estimate.usage(retries)
        lines.append(f"  worst case, every chunk re-extracted {estimate.max_retries} times after its review: "
                     f"{len(retries)} more requests, {more.prompt_tokens + more.completion_tokens:,} more tokens, "
                     f"{_usd(estimate.cost(retries))} more")
    lines.append("  not counted: entity merging's LLM requests (they depend on the extracted entities); "
                 "token counts are kgbuild.tokens estimates (0.85-1.17 of OpenAI's o200k count)")
    return lines
