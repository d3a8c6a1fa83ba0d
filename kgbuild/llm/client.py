"""`LLMClient`: the `StructuredLLM` that extraction, reflection and merging call.

It turns "these messages, answer as this pydantic model" into validated instances on top of any
`ChatBackend`, and owns everything between: the response cache (hits cost nothing), a bound on
requests in flight, retries with exponential backoff and full jitter (honoring Retry-After),
a per-request timeout, JSON extraction and repair, a repair-and-retry conversation when a reply
does not validate, per-task usage and cost, a hard budget, and batch-export mode.

Example:
    >>> backend = OpenAIBackend(base_url="http://localhost:8000/v1")
    >>> with ResponseCache.open_default() as cache:
    ...     client = LLMClient(backend, "gpt-4o-mini", cache=cache, concurrency=16,
    ...                        budget=Budget(max_cost=2.0))
    ...     events = await client.structured(task="events", messages=msgs, response_model=Events)
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.llm.cache import ResponseCache, cache_key
from kgbuild.llm.costs import LLMUsage, PriceTable, TaskUsage
from kgbuild.llm.json_repair import ParsedReply, ReplyError, parse_reply
from kgbuild.llm.limits import Limits
from kgbuild.llm.types import (
    BatchPendingError,
    BudgetExceededError,
    ChatBackend,
    ChatMessage,
    ChatRequest,
    ChatResult,
    LLMOutputError,
    LLMRequestError,
    LLMTransientError,
    LLMUnavailableError,
    ResponseT,
    Usage,
)
from kgbuild.tokens import estimate_tokens

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[Any]]

#: Completion tokens assumed for the budget check before any reply has been seen.
DEFAULT_COMPLETION_ESTIMATE = 1000
_QUOTE_LIMIT = 1500


def request_prompt_tokens(request: ChatRequest) -> int:
    """Estimated prompt tokens of `request`: its messages and, when it has one, its JSON schema."""
    tokens = sum(estimate_tokens(m.content) for m in request.messages)
    if request.response_schema is not None:
        tokens += estimate_tokens(json.dumps(request.response_schema, ensure_ascii=False, separators=(",", ":")))
    return tokens


class Budget(BaseModel):
    """Hard limits for one run; a request that would break one is not sent.

    Args:
        max_cost: Estimated USD for all requests sent (needs a priced model).
        max_requests: HTTP requests sent, retries and repairs included.
    """

    model_config = ConfigDict(extra="forbid")

    max_cost: float | None = Field(default=None, ge=0, description="USD limit (estimated).")
    max_requests: int | None = Field(default=None, ge=0, description="Limit on HTTP requests sent.")


#: Refused connections before any answer after which a run stops instead of retrying every chunk.
REFUSALS_BEFORE_STOP = 5


def repair_message(error: str, *, truncated: bool) -> str:
    """The user message that asks the model to fix a reply that did not validate."""
    text = error if len(error) <= _QUOTE_LIMIT else error[:_QUOTE_LIMIT] + " ..."
    lines = [f"Your reply could not be used: {text}",
             ("Answer again with only the JSON object, complete and following the schema exactly: "
              "no prose and no code fences.")]
    if truncated:
        lines.append("Your reply was cut off at the length limit: keep every description short.")
    return "\n".join(lines)


def schema_name(response_model: type[BaseModel]) -> str:
    """The model's name as OpenAI accepts it for a JSON schema (letters, digits, _ and -, <= 64)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", response_model.__name__)[:64] or "response"


class LLMClient:
    """Validated structured output from any `ChatBackend`, cached, bounded, retried and budgeted.

    Args:
        backend: Sends one request (e.g. `OpenAIBackend`, or a scripted backend in tests).
        model: Model name sent with every request.
        cache: Response cache; without one every call is sent.
        concurrency: Requests in flight at most.
        max_retries: Retries of one request after transient failures (429, 5xx, timeouts,
            dropped connections) before `LLMUnavailableError`.
        max_repairs: Extra requests asking the model to fix a reply that does not validate.
        timeout: Seconds one request may take before it counts as a transient failure.
        temperature: Default sampling temperature.
        max_tokens: Default completion limit (None: the server's).
        seed: Sampling seed sent to servers that support it.
        budget: Hard limits; None for none.
        batch_export: Record uncached requests in `pending` and raise `BatchPendingError`
            instead of sending them.
        prices: Price table for cost estimates.
        backoff_base: First backoff ceiling in seconds (doubles per retry, full jitter).
        backoff_cap: Largest backoff ceiling in seconds.
        retry_after_cap: Longest Retry-After the client obeys, in seconds.
        sleep: Awaitable sleep (tests inject one that records the waits).
        rng: Random source of the jitter.
        limits: Rate limit and budget shared with other clients, other processes or machines
            (`kgbuild.llm.limits`): asked before every request sent, retries included.
    """

    def __init__(self, backend: ChatBackend, model: str, *, cache: ResponseCache | None = None,
                 concurrency: int = 8, max_retries: int = 6, max_repairs: int = 2, timeout: float = 120.0,
                 temperature: float = 0.0, max_tokens: int | None = None, seed: int | None = None,
                 budget: Budget | None = None, batch_export: bool = False, prices: PriceTable | None = None,
                 backoff_base: float = 1.0, backoff_cap: float = 30.0, retry_after_cap: float = 60.0,
                 sleep: Sleep = asyncio.sleep, rng: random.Random | None = None, limits: Limits | None = None):
        if concurrency < 1:
            raise LLMRequestError(f"concurrency must be at least 1, got {concurrency}")
        if max_retries < 0 or max_repairs < 0:
            raise LLMRequestError("max_retries and max_repairs cannot be negative")
        self.backend = backend
        self.model = model
        self.cache = cache
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.max_repairs = max_repairs
        self.timeout = timeout
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.budget = budget or Budget()
        self.batch_export = batch_export
        self.prices = prices or PriceTable()
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.limits = limits
        #: Requests recorded in batch-export mode, by cache key (= Batch API custom_id).
        self.pending: dict[str, ChatRequest] = {}
        self._tasks: dict[str, TaskUsage] = {}
        self._semaphore: asyncio.Semaphore | None = None
        self._semaphore_loop: asyncio.AbstractEventLoop | None = None
        self._started = 0
        self._spent = 0.0
        self._reserved = 0.0
        self._completions = 0
        self._completion_tokens = 0
        self._answered = 0
        self._refusals = 0
        self._price = self.prices.price(model)
        if self._price is None and self.budget.max_cost is not None:
            logger.warning("no price known for model %r: --max-cost cannot be enforced; give its price with "
                           "--prices FILE, or use --max-requests", model)

    # -- public API --------------------------------------------------------------------------
    def request_for(self, messages: list[ChatMessage], response_model: type[BaseModel], *,
                    temperature: float | None = None, max_tokens: int | None = None) -> ChatRequest:
        """The `ChatRequest` (and so the cache key) `structured` would use for these arguments."""
        return ChatRequest(
            model=self.model, messages=list(messages),
            response_schema=response_model.model_json_schema(), schema_name=schema_name(response_model),
            temperature=self.temperature if temperature is None else temperature,
            max_tokens=self.max_tokens if max_tokens is None else max_tokens, seed=self.seed)

    async def structured(self, *, task: str, messages: list[ChatMessage], response_model: type[ResponseT],
                         temperature: float | None = None, max_tokens: int | None = None) -> ResponseT:
        """Return a validated `response_model` instance for these messages.

        A cached valid response is returned without a request. Otherwise the request is sent
        (retrying transient failures), the JSON in the reply is extracted, repaired if truncated
        and validated; an invalid reply is answered with a message quoting the validation error,
        up to `max_repairs` times. Only a valid response is cached, under the original request.

        Args:
            task: Accounting label of the call ('extract', 'reflect', 'merge'...): usage is
                counted per task; it is not part of the request or its cache key.
            messages: The chat messages.
            response_model: The pydantic model the reply must validate against.
            temperature: Overrides the client's default for this call.
            max_tokens: Overrides the client's default for this call.

        Returns:
            The validated instance.

        Raises:
            LLMOutputError: no valid reply after the repair attempts.
            LLMUnavailableError: the server kept failing after every retry.
            LLMRequestError: the server rejected the request (bad key, unknown model...).
            BudgetExceededError: the budget would be exceeded by the next request.
            BatchPendingError: batch-export mode and this request is not cached yet.
        """
        request = self.request_for(messages, response_model, temperature=temperature, max_tokens=max_tokens)
        key = cache_key(request)
        self._bump(task, calls=1)
        cached = self._lookup(key, response_model)
        if cached is not None:
            self._bump(task, cache_hits=1)
            return cached
        if self.batch_export:
            self.pending[key] = request
            self._bump(task, pending=1)
            raise BatchPendingError(f"task {task}: request {key[:12]} recorded for batch export "
                                    f"({len(self.pending)} pending)")
        try:
            parsed, result = await self._ask(task, request, response_model)
        except (LLMOutputError, LLMUnavailableError, LLMRequestError):
            self._bump(task, failures=1)
            raise
        if self.cache is not None:
            self.cache.put(key, result.model_copy(update={"content": parsed.json_text}), request=request)
        return parsed.value

    def usage(self) -> LLMUsage:
        """Usage and estimated cost per task so far."""
        return LLMUsage(backend=self.backend.name, model=self.model, priced=self._price is not None,
                        tasks=dict(self._tasks))

    async def aclose(self) -> None:
        """Close the backend's connections (if it has any)."""
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the request path --------------------------------------------------------------------
    def _lookup(self, key: str, response_model: type[ResponseT]) -> ResponseT | None:
        if self.cache is None:
            return None
        entry = self.cache.get(key)
        if entry is None:
            return None
        try:
            return parse_reply(entry.content, response_model).value
        except ReplyError as e:
            logger.warning("cached response %s does not validate (%s); asking again", key[:12], e)
            return None

    async def _ask(self, task: str, request: ChatRequest,
                   response_model: type[ResponseT]) -> tuple[ParsedReply[ResponseT], ChatResult]:
        current = request
        error = ""
        for repair in range(self.max_repairs + 1):
            if repair:
                self._bump(task, repairs=1)
            result = await self._send(task, current)
            try:
                parsed = parse_reply(result.content, response_model)
            except ReplyError as e:
                error = str(e)
                logger.info("task %s: reply did not validate (%s)%s", task, error,
                            "; asking the model to repair it" if repair < self.max_repairs else "")
                truncated = result.finish_reason == "length"
                current = current.model_copy(update={"messages": [
                    *current.messages,
                    ChatMessage(role="assistant", content=result.content),
                    ChatMessage(role="user", content=repair_message(error, truncated=truncated)),
                ]})
                continue
            if parsed.repaired:
                logger.warning("task %s: reply was cut off (finish_reason=%s); kept the part that validates",
                               task, result.finish_reason)
            return parsed, result
        raise LLMOutputError(
            f"task {task}: no reply validated as {response_model.__name__} after {self.max_repairs} "
            f"repair attempts; last problem: {error}. Try a stronger model or a larger max_tokens; "
            "the rest of the run is unaffected and this call is retried on the next run.")

    async def _send(self, task: str, request: ChatRequest) -> ChatResult:
        last: LLMTransientError | None = None
        for attempt in range(self.max_retries + 1):
            if last is not None:
                self._bump(task, retries=1)
                await self._sleep(self._delay(attempt, last))
            async with self._slots():
                estimate = self._reserve(request)
                try:
                    await self._pace(request, estimate)
                except BaseException:
                    self._reserved -= estimate
                    raise
                self._bump(task, requests=1)
                try:
                    result = await self._call(request)
                except LLMTransientError as e:
                    self._reserved -= estimate
                    self._settle(-estimate)
                    last = e
                    self._check_refusals(e)
                    logger.info("task %s: transient failure (attempt %d of %d): %s", task, attempt + 1,
                                self.max_retries + 1, e)
                    continue
                except BaseException:
                    self._reserved -= estimate
                    self._settle(-estimate)
                    raise
            self._answered += 1
            cost = self._account(task, request, result, estimate)
            self._settle(cost - estimate)
            return result
        raise LLMUnavailableError(
            f"task {task}: the LLM server failed {self.max_retries + 1} times in a row; last error: {last}. "
            "Check that the server is up and the rate limits; completed requests are cached, so "
            "rerunning continues where this run stopped.") from last

    def _check_refusals(self, error: LLMTransientError) -> None:
        """Stop when the first requests all find nothing listening: a wrong address, not a blip.

        Raises:
            LLMRequestError: `REFUSALS_BEFORE_STOP` requests were refused before any answer.
        """
        if not error.refused or self._answered:
            return
        self._refusals += 1
        if self._refusals >= REFUSALS_BEFORE_STOP:
            raise LLMRequestError(
                f"the first {self._refusals} requests found no LLM server ({error}); check that the server "
                "is up and the base URL (--llm-base-url or OPENAI_BASE_URL, usually ending in /v1)") from error

    async def _pace(self, request: ChatRequest, estimate: float) -> None:
        """Wait for the shared rate limit's slot, or stop at the shared budget.

        Raises:
            BudgetExceededError: the shared budget refuses the request.
        """
        if self.limits is None:
            return
        tokens = request_prompt_tokens(request) + self._expected_completion(request)
        delay, refusal = await asyncio.to_thread(self.limits.acquire, tokens, estimate)
        if refusal is not None:
            self._started -= 1
            raise BudgetExceededError(f"{refusal}. Completed responses are cached; rerun with a larger budget "
                                      "to continue.")
        if delay > 0:
            await self._sleep(delay)

    def _settle(self, cost: float) -> None:
        if self.limits is not None and cost:
            self.limits.settle(cost)

    async def _call(self, request: ChatRequest) -> ChatResult:
        try:
            return await asyncio.wait_for(self.backend.complete(request), self.timeout)
        except TimeoutError as e:
            raise LLMTransientError(f"no reply within {self.timeout:g} s") from e

    def _slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore_loop is not loop:
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._semaphore_loop = loop
        return self._semaphore

    def _delay(self, attempt: int, error: LLMTransientError) -> float:
        if error.retry_after is not None:
            return min(error.retry_after, self.retry_after_cap)
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return self._rng.uniform(0, ceiling)

    # -- budget and accounting ---------------------------------------------------------------
    def _estimate_cost(self, request: ChatRequest) -> float:
        if self._price is None:
            return 0.0
        prompt = request_prompt_tokens(request)
        return self._price.cost(Usage(prompt_tokens=prompt, completion_tokens=self._expected_completion(request)))

    def _expected_completion(self, request: ChatRequest) -> int:
        """Completion tokens expected: the request's limit, else the mean so far, else a default."""
        if request.max_tokens is not None:
            return request.max_tokens
        if self._completions:
            return self._completion_tokens // self._completions
        return DEFAULT_COMPLETION_ESTIMATE

    def _reserve(self, request: ChatRequest) -> float:
        """Check the budget for one more request and reserve its estimated cost."""
        limit = self.budget
        if limit.max_requests is not None and self._started + 1 > limit.max_requests:
            raise BudgetExceededError(
                f"request budget reached: {self._started} requests sent (--max-requests {limit.max_requests}). "
                "Completed responses are cached; rerun with a larger budget to continue.")
        estimate = self._estimate_cost(request)
        if limit.max_cost is not None and self._spent + self._reserved + estimate > limit.max_cost:
            raise BudgetExceededError(
                f"cost budget reached: ${self._spent:.4f} spent, ${self._reserved:.4f} in flight, the next "
                f"request would cost about ${estimate:.4f} (--max-cost {limit.max_cost:g}). Completed "
                "responses are cached; rerun with a larger budget to continue.")
        self._started += 1
        self._reserved += estimate
        return estimate

    def _account(self, task: str, request: ChatRequest, result: ChatResult, estimate: float) -> float:
        usage = result.usage
        if usage.prompt_tokens == 0 and usage.completion_tokens == 0:
            usage = Usage(prompt_tokens=request_prompt_tokens(request),
                          completion_tokens=estimate_tokens(result.content))
        cost = self._price.cost(usage) if self._price is not None else 0.0
        self._reserved -= estimate
        self._spent += cost
        self._completions += 1
        self._completion_tokens += usage.completion_tokens
        self._bump(task, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                   cost_usd=cost)
        return cost

    def _bump(self, task: str, **deltas: float) -> None:
        current = self._tasks.get(task, TaskUsage())
        self._tasks[task] = current.model_copy(
            update={name: getattr(current, name) + value for name, value in deltas.items()})

