"""A `ChatBackend` for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp...).

It sends exactly one HTTP request per `complete` call (the `openai` client's own retries are
off: `LLMClient` owns retrying) and maps failures onto the LLM layer's errors: 429, 408, 409,
5xx, timeouts and dropped connections become `LLMTransientError` (with the server's
Retry-After; a connection refused or never made marked `refused`, a request the server took
but never answered `silent`), anything else `LLMRequestError`.

Structured output is requested as `response_format={"type": "json_schema", ...}`. A server that
rejects that (400/422 naming the response format) is asked again with `json_object`, then with
plain text; from then on the backend stays at the mode that worked and puts the schema into
the prompt instead.
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import time
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from kgbuild.llm.types import (
    ChatRequest,
    ChatResult,
    LLMRequestError,
    LLMTransientError,
    Usage,
)

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0
#: Structured-output modes, best first; the backend falls back along this list.
MODES = ("json_schema", "json_object", "text")
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output", "schema")
_RETRYABLE_STATUS = {408, 409, 429}


def is_strict_compatible(schema: dict[str, Any]) -> bool:
    """Whether OpenAI's strict structured output accepts `schema` unchanged.

    Strict mode needs every object to list all its properties as required and to forbid
    additional ones; pydantic models with `extra="forbid"` and no defaults produce that.

    Args:
        schema: A JSON schema (as from `model_json_schema()`).

    Returns:
        True when every object in the schema is closed and fully required and nothing has a default.
    """
    def ok(node: Any) -> bool:
        if isinstance(node, list):
            return all(ok(item) for item in node)
        if not isinstance(node, dict):
            return True
        if "default" in node:
            return False
        if node.get("type") == "object" or "properties" in node:
            props = node.get("properties", {})
            if node.get("additionalProperties") is not False or set(node.get("required", [])) != set(props):
                return False
        return all(ok(v) for k, v in node.items() if k not in ("required", "enum", "const"))

    return ok(schema)


def schema_instruction(request: ChatRequest) -> str:
    """The system message that carries the schema when the server cannot enforce it."""
    return ("Reply with one JSON object and nothing else. It must validate against this JSON schema:\n"
            + json.dumps(request.response_schema, ensure_ascii=False, separators=(",", ":")))


def request_body(request: ChatRequest, mode: str = "json_schema", *, strict: bool | None = None) -> dict[str, Any]:
    """The `/v1/chat/completions` body for `request` (also the `body` of a Batch API line).

    Args:
        request: The chat request.
        mode: 'json_schema', 'json_object' or 'text' (see `MODES`); ignored without a schema.
        strict: Strict schema enforcement; None means "when the schema allows it".

    Returns:
        A JSON-ready dict whose keys are also `chat.completions.create` keyword arguments.
    """
    messages = [{"role": m.role, "content": m.content} for m in request.messages]
    body: dict[str, Any] = {"model": request.model, "messages": messages,
                            "temperature": request.temperature}
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.seed is not None:
        body["seed"] = request.seed
    schema = request.response_schema
    if schema is None:
        return body
    if mode == "json_schema":
        use_strict = is_strict_compatible(schema) if strict is None else strict
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": request.schema_name or "response", "schema": schema, "strict": use_strict}}
        return body
    body["messages"] = [*messages, {"role": "system", "content": schema_instruction(request)}]
    if mode == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `Retry-After-Ms` / `Retry-After` (seconds or an HTTP date), if present."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class OpenAIBackend:
    """Sends chat requests to an OpenAI-compatible server with the `openai` package.

    Args:
        base_url: Server URL ending in /v1; default `$OPENAI_BASE_URL`, else OpenAI.
        api_key: Default `$OPENAI_API_KEY`; a local server (base URL set) may need none.
        timeout: Seconds per request before it counts as a (retryable) timeout.
        mode: First structured-output mode to try ('json_schema', 'json_object', 'text').
        strict: Strict schema enforcement; None means "when the schema allows it".
        client: An `openai.AsyncOpenAI` to use instead of building one (its retries should be off).

    Raises:
        LLMRequestError: no API key for api.openai.com, or an unknown mode.
    """

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, mode: str = "json_schema", strict: bool | None = None,
                 client: openai.AsyncOpenAI | None = None):
        if mode not in MODES:
            raise LLMRequestError(f"unknown structured-output mode {mode!r}; use one of {', '.join(MODES)}")
        self._mode = mode
        self._strict = strict
        if client is None:
            base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
            api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
            if api_key is None:
                if base_url is None:
                    raise LLMRequestError(
                        "no API key: set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local "
                        "OpenAI-compatible server (vLLM, Ollama, llama.cpp) that needs none")
                api_key = "no-key"
            client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self._client = client

    @property
    def name(self) -> str:
        """'openai' (the protocol, whichever server speaks it)."""
        return "openai"

    @property
    def base_url(self) -> str:
        """The server this backend talks to."""
        return str(self._client.base_url)

    @property
    def mode(self) -> str:
        """The structured-output mode currently in use (it only ever falls back)."""
        return self._mode

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    async def complete(self, request: ChatRequest) -> ChatResult:
        """Send `request` once; fall back to a simpler response format if the server rejects it.

        Args:
            request: The chat request.

        Returns:
            The assistant's content, token usage and finish reason.

        Raises:
            LLMTransientError: 429, 408, 409, 5xx, timeout, dropped connection, or a 200 that is
                not a chat completion (retry it).
            LLMRequestError: any other rejection (bad key, unknown model, invalid request...).
        """
        while True:
            mode, strict = self._mode, self._strict
            body = request_body(request, mode, strict=strict)
            try:
                completion = await self._client.chat.completions.create(**body)
            except openai.APIStatusError as e:
                if self._fall_back(request, mode, body, e):
                    continue
                raise _map_status_error(e, self.base_url) from e
            except openai.APITimeoutError as e:
                if _caused_by(e, "ConnectTimeout"):
                    raise LLMTransientError(f"connection to {self.base_url} timed out", refused=True) from e
                raise LLMTransientError(f"request to {self.base_url} timed out: no answer", silent=True) from e
            except openai.APIConnectionError as e:
                refused = _refused(e)
                raise LLMTransientError(f"connection to {self.base_url} "
                                        + ("refused" if refused else f"failed: {e}"), refused=refused) from e
            return _to_result(completion, self.base_url)

    def _fall_back(self, request: ChatRequest, mode: str, body: dict[str, Any],
                   error: openai.APIStatusError) -> bool:
        """Step down one structured-output mode from `mode` (the one `body` used) when the server
        rejected the response format. Concurrent requests may report the same rejection; stepping
        relative to the mode each one used keeps the backend from skipping a mode."""
        if request.response_schema is None or error.status_code not in (400, 422):
            return False
        text = f"{error.message} {error.body}".lower()
        if not any(word in text for word in _FORMAT_WORDS):
            return False
        used = body.get("response_format", {})
        if used.get("type") == "json_schema" and used["json_schema"]["strict"]:
            if self._strict is not False:
                logger.warning("%s rejected strict JSON schema output (%s); retrying without strict",
                               self.base_url, error.message)
                self._strict = False
            return True
        index = MODES.index(mode)
        if index + 1 >= len(MODES):
            return False
        if MODES.index(self._mode) <= index:
            self._mode = MODES[index + 1]
            logger.warning("%s rejected response_format %r (%s); falling back to %r with the schema in the "
                           "prompt", self.base_url, mode, error.message, self._mode)
        return True


def _caused_by(error: BaseException, name: str) -> bool:
    """True when an exception of the class `name` is in the chain of causes of `error`."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if type(current).__name__ == name:
            return True
        current = current.__cause__ or current.__context__
    return False


def _refused(error: BaseException) -> bool:
    """True when the chain of causes says the connection was refused or never established
    (nothing listens at the address), as opposed to a connection that dropped."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError) or type(current).__name__ == "ConnectError":
            return True
        current = current.__cause__ or current.__context__
    return False


def _map_status_error(error: openai.APIStatusError, base_url: str) -> Exception:
    status = error.status_code
    detail = f"{base_url} answered {status}: {error.message.rstrip('.')}"
    if status in _RETRYABLE_STATUS or status >= 500:
        return LLMTransientError(detail, retry_after=parse_retry_after(error.response.headers))
    if status in (401, 403):
        return LLMRequestError(f"{detail}. Check OPENAI_API_KEY (and OPENAI_BASE_URL).")
    if status == 404:
        return LLMRequestError(f"{detail}. Check the model name and OPENAI_BASE_URL (it usually ends in /v1).")
    return LLMRequestError(detail)


def _to_result(completion: Any, base_url: str) -> ChatResult:
    # A proxy or gateway may answer 200 with an HTML page or another JSON shape.
    choices = getattr(completion, "choices", None) if isinstance(completion, ChatCompletion) else None
    if not choices:
        raise LLMTransientError(f"{base_url} answered 200 with something that is not a chat completion")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None) or ""
    return ChatResult(content=content, usage=_usage(completion), finish_reason=choice.finish_reason)


def _usage(completion: Any) -> Usage:
    usage = getattr(completion, "usage", None)
    if usage is None:
        return Usage()
    return Usage(prompt_tokens=usage.prompt_tokens or 0, completion_tokens=usage.completion_tokens or 0)
