"""`LLMClient`: the `StructuredLLM` that extraction, reflection and merging call.

It turns "these messages, answer as this pydantic model" into validated instances on top of any
`ChatBackend`, and owns everything between: the response cache (hits cost nothing), a bound on
requests in flight, retries with exponential backoff and full jitter (honoring Retry-After),
a per-request timeout, JSON extraction and repair, a repair-and-retry conversation when a reply
does not validate, per-task usage and cost, a hard budget, and batch-export mode.

Time is bounded too: a server that takes the connection but sends no answer to the first
request within the timeout stops the run at once (`LLMStallError`, one line) instead of being
retried seven times, and a deadline (`deadline`, --llm-deadline) bounds all the client's work:
no request, retry wait or pacing wait runs past it. What waits is said as it happens (`on_note`):
each retry with its reason and delay, and a request that has waited long for its answer.

Example:
    >>> backend = OpenAIBackend(base_url="http://localhost:8000/v1")
    >>> with ResponseCache.open_default() as cache:
    ...     client = LLMClient(backend, "gpt-4o-mini", cache=cache, concurrency=16,
    ...                        budget=Budget(max_cost=2.0))
    ...     events = await client.structured(task="events", messages=msgs, response_model=Events)
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import re
import time
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
    LLMStallError,
    LLMTransientError,
    LLMUnavailableError,
    ResponseT,
    Usage,
)
from kgbuild.tokens import estimate_tokens

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[Any]]
#: Receives a line of what the client waits for (a retry and why, a slow answer).
Note = Callable[[str], None]

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
#: Seconds between the notes about requests still waiting for an answer (at most half the timeout).
WAIT_NOTE_EVERY = 15.0
#: The shortest wait for the rate limit that is noted (shorter ones are the ordinary pacing).
PACING_NOTE_FROM = 1.0


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark the outcome of a request as seen, also when no one awaits it any more (a request given
    up on, a run cancelled by another request's error): asyncio warns of one never retrieved."""
    if not future.cancelled():
        future.exception()


def _seconds(value: float) -> str:
    """Seconds as a note shows them: '45', '2.5'."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


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
        deadline: Seconds from now by which every request must be done (--llm-deadline);
            after it, `LLMStallError`. None: no deadline.
        on_note: Receives a line when a request is retried (the reason and the wait) or has
            waited `WAIT_NOTE_EVERY` seconds (at most half the timeout) for its answer.
        clock: Monotonic seconds (tests may inject one).
    """

    def __init__(self, backend: ChatBackend, model: str, *, cache: ResponseCache | None = None,
                 concurrency: int = 8, max_retries: int = 6, max_repairs: int = 2, timeout: float = 120.0,
                 temperature: float = 0.0, max_tokens: int | None = None, seed: int | None = None,
                 budget: Budget | None = None, batch_export: bool = False, prices: PriceTable | None = None,
                 backoff_base: float = 1.0, backoff_cap: float = 30.0, retry_after_cap: float = 60.0,
                 sleep: Sleep = asyncio.sleep, rng: random.Random | None = None, limits: Limits | None = None,
                 deadline: float | None = None, on_note: Note | None = None,
                 clock: Callable[[], float] = time.monotonic):
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
        self._heard = False
        self._refusals = 0
        self._clock = clock
        self.deadline = deadline
        self._deadline_at = None if deadline is None else clock() + deadline
        self._on_note = on_note
        #: Why the client stopped sending (`LLMStallError`), once it has; every later request raises it.
        self.stopped: LLMStallError | None = None
        self._waiting: dict[int, float] = {}
        self._ids = itertools.count()
        self._last_wait_note = 0.0
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
            self._check_time()
            if last is not None:
                self._bump(task, retries=1)
                delay = self._delay(attempt, last)
                self._note(f"retrying a request ({task}) in {delay:.1f} s, try {attempt + 1} of "
                           f"{self.max_retries + 1}: {last}")
                await self._wait(delay)
            async with self._slots():
                self._check_time()
                estimate = self._reserve(request)
                try:
                    await self._pace(request, estimate)
                except BaseException:
                    self._reserved -= estimate
                    raise
                self._bump(task, requests=1)
                try:
                    result = await self._call(task, request)
                except LLMTransientError as e:
                    self._reserved -= estimate
                    self._settle(-estimate)
                    last = e
                    self._check_refusals(e)
                    self._check_silence(e)
                    logger.info("task %s: transient failure (attempt %d of %d): %s", task, attempt + 1,
                                self.max_retries + 1, e)
                    continue
                except BaseException:
                    self._reserved -= estimate
                    self._settle(-estimate)
                    raise
            self._answered += 1
            self._heard = True
            cost = self._account(task, request, result, estimate)
            self._settle(cost - estimate)
            return result
        raise LLMUnavailableError(
            f"task {task}: the LLM server failed {self.max_retries + 1} times in a row; last error: {last}. "
            "Check that the server is up and the rate limits; completed requests are cached, so "
            "rerunning continues where this run stopped.") from last

    # -- time: the deadline, a server that never answers, and what waits ----------------------
    def _where(self) -> str:
        url = getattr(self.backend, "base_url", None)
        return f"the LLM server at {url}" if url else f"the LLM backend '{self.backend.name}'"

    def _stop(self, message: str) -> LLMStallError:
        """Stop sending: this request and every later one raise the same `LLMStallError`."""
        if self.stopped is None:
            self.stopped = LLMStallError(message)
        return self.stopped

    def _remaining(self) -> float | None:
        """Seconds left before the deadline (None without one)."""
        return None if self._deadline_at is None else self._deadline_at - self._clock()

    def _deadline_error(self) -> LLMStallError:
        return self._stop(f"the LLM deadline (--llm-deadline) ran out with {self._answered} requests answered; "
                          "answered requests are cached, so a rerun continues where this one stopped")

    def _check_time(self) -> None:
        """Raise when the client has stopped or the deadline has passed.

        Raises:
            LLMStallError: no further request may be sent.
        """
        if self.stopped is not None:
            raise self.stopped
        remaining = self._remaining()
        if remaining is not None and remaining <= 0:
            raise self._deadline_error()

    async def _wait(self, seconds: float) -> None:
        """Sleep `seconds`, or stop at once when the deadline comes first.

        Raises:
            LLMStallError: the deadline would pass during the wait.
        """
        remaining = self._remaining()
        if remaining is not None and seconds >= remaining:
            raise self._deadline_error()
        if seconds > 0:
            await self._sleep(seconds)

    def _note(self, text: str) -> None:
        logger.info("%s", text)
        if self._on_note is not None:
            self._on_note(f"LLM: {text}")

    def _check_silence(self, error: LLMTransientError) -> None:
        """Stop when the server took the first request but never answered it: retrying it six
        more times would only wait six more timeouts.

        Raises:
            LLMStallError: no answer of any kind came from the server yet.
        """
        if not error.silent:
            if not error.refused:
                self._heard = True
            return
        if self._heard:
            return
        raise self._stop(f"{self._where()} accepts connections but sent no answer within {self.timeout:g} s "
                         "(--llm-timeout); check that it is the right server and that it is not stuck, or "
                         "give it a longer --llm-timeout if it is slow to start")

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
        if delay >= PACING_NOTE_FROM:
            self._note(f"waiting {delay:.1f} s for the rate limit (--rpm / --tpm)")
        if delay > 0:
            await self._wait(delay)

    def _settle(self, cost: float) -> None:
        if self.limits is not None and cost:
            self.limits.settle(cost)

    async def _call(self, task: str, request: ChatRequest) -> ChatResult:
        """Send one request, within the timeout and the deadline; say when it waits long.

        Raises:
            LLMTransientError: no reply within the timeout (`silent`), or the backend's own error.
            LLMStallError: the deadline came first.
        """
        remaining = self._remaining()
        limit = self.timeout if remaining is None else max(0.0, min(self.timeout, remaining))
        by_deadline = remaining is not None and remaining < self.timeout
        key = next(self._ids)
        started = self._clock()
        self._waiting[key] = started
        sending = asyncio.ensure_future(self.backend.complete(request))
        sending.add_done_callback(_retrieve)  # an outcome no one awaits any more (a cancelled run) is seen
        try:
            every = min(WAIT_NOTE_EVERY, self.timeout / 2)
            while True:
                left = limit - (self._clock() - started)
                if left <= 0:
                    break
                done, _ = await asyncio.wait({sending}, timeout=min(left, every))
                if done:
                    return sending.result()
                self._note_waiting(key, task)
        finally:
            del self._waiting[key]
            if not sending.done():
                sending.cancel()
        if by_deadline:
            raise self._deadline_error()
        raise LLMTransientError(f"no reply within {self.timeout:g} s", silent=True)

    def _note_waiting(self, key: int, task: str) -> None:
        """A note about the requests still waiting for an answer: from the one waiting longest,
        at most once per `WAIT_NOTE_EVERY` seconds (or half the timeout)."""
        now = self._clock()
        every = min(WAIT_NOTE_EVERY, self.timeout / 2)
        oldest = min(self._waiting, key=self._waiting.__getitem__)
        if oldest != key or now - self._last_wait_note < every * 0.9:
            return
        self._last_wait_note = now
        waited = now - self._waiting[key]
        others = len(self._waiting) - 1
        self._note(f"waiting for {self._where()}: a request ({task}) has had no answer for {_seconds(waited)} s "
                   f"(--llm-timeout {self.timeout:g} s)" + (f"; {others} more in flight" if others else ""))

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

