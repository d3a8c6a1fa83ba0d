"""The types every part of the LLM layer shares: requests, results, the backend protocols, errors.

Two protocols keep the layers apart:

- `ChatBackend` sends one chat request somewhere (an OpenAI-compatible server through the
  `openai` package, or a scripted backend in tests) and returns the raw reply.
- `StructuredLLM` is what extraction, reflection and merging call: give it messages and a
  pydantic response model, get back a validated instance. `kgbuild.llm.client.LLMClient`
  implements it on top of any `ChatBackend`, adding the response cache, bounded concurrency,
  validation with repair-and-retry, usage accounting, the budget and batch export.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.errors import KgbuildError


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessage(_Model):
    """One message of a chat request."""

    role: str = Field(description="'system', 'user' or 'assistant'.")
    content: str


class ChatRequest(_Model):
    """Everything that determines a reply; its canonical JSON is the cache key."""

    model: str
    messages: list[ChatMessage]
    response_schema: dict[str, Any] | None = Field(
        default=None, description="JSON schema the reply must follow (structured output).")
    schema_name: str | None = Field(default=None, description="Name sent with the JSON schema.")
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None


class Usage(_Model):
    """Tokens one request consumed."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResult(_Model):
    """A backend's reply to one request."""

    content: str = Field(description="The assistant message text ('' when the server sent none).")
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = Field(default=None, description="e.g. 'stop', 'length'.")


class ChatBackend(Protocol):
    """Sends one chat request and returns the reply; raises `LLMTransientError` for retryable
    failures (429, 5xx, timeouts, dropped connections) and `LLMRequestError` otherwise."""

    @property
    def name(self) -> str:
        """A short label for provenance, e.g. 'openai' or 'scripted'."""
        ...

    async def complete(self, request: ChatRequest) -> ChatResult:
        """Send `request` once (no retries at this layer beyond what the backend documents)."""
        ...


ResponseT = TypeVar("ResponseT", bound=BaseModel)


class StructuredLLM(Protocol):
    """What extraction, reflection and merge adjudication call."""

    async def structured(
        self,
        *,
        task: str,
        messages: list[ChatMessage],
        response_model: type[ResponseT],
    ) -> ResponseT:
        """Return a validated `response_model` instance for these messages.

        Args:
            task: Accounting label of the call ('extract', 'reflect', 'merge'...): usage is
                counted per task; it is not part of the request or its cache key.
            messages: The chat messages.
            response_model: The pydantic model the reply must validate against.

        Raises:
            LLMOutputError: no valid reply after the repair-and-retry attempts.
            LLMUnavailableError: the server kept failing after every retry.
            BudgetExceededError: the budget would be exceeded by this request.
            BatchPendingError: batch-export mode and this request is not cached yet.
        """
        ...


class LLMError(KgbuildError):
    """Root of the LLM layer's errors."""


class LLMTransientError(LLMError):
    """A failure worth retrying (429, 5xx, timeout, connection dropped).

    Args:
        message: What happened.
        retry_after: Seconds the server asked us to wait, if it said so.
        refused: The connection was refused (nothing listens there): worth retrying once the
            server answered before, a sign of a wrong address when it never has.
        silent: The server took the request but sent no answer within the timeout: worth
            retrying once it answered before, a server that does not answer when it never has.
    """

    def __init__(self, message: str, *, retry_after: float | None = None, refused: bool = False,
                 silent: bool = False):
        super().__init__(message)
        self.retry_after = retry_after
        self.refused = refused
        self.silent = silent


class LLMRequestError(LLMError):
    """A failure retrying cannot fix (bad key, unknown model, request rejected)."""


class LLMUnavailableError(LLMError):
    """Transient failures persisted through every retry."""


class LLMOutputError(LLMError):
    """The model's replies never validated against the response model."""


class BudgetExceededError(LLMError):
    """Sending another request would break --max-cost or --max-requests."""


class BatchPendingError(LLMError):
    """Batch-export mode: the request was recorded for export instead of being sent."""


class LLMStallError(LLMError):
    """The LLM work stopped for time: the server takes connections but its first request got no
    answer within --llm-timeout, or --llm-deadline ran out. Completed answers are cached; a
    build ends with exit status 4 and writes nothing."""


#: Errors about the answer to one request (no valid reply after the repairs, or the server failing
#: through every retry): the caller records them for the item concerned and goes on. Every other
#: `LLMError` (a refused request, the budget, batch export, a stall) stops the run.
ANSWER_ERRORS: tuple[type[LLMError], ...] = (LLMOutputError, LLMUnavailableError)
