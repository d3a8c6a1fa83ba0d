"""A scripted `ChatBackend`: answers come from the test (or the user), not from a model.

It is a real backend, used through the same `LLMClient` as the OpenAI one, so the cache, the
validation with repair, the budget and the accounting all run. A reply can be fixed, taken from a
queue ("bad answer, then good answer"), or computed from the request. A reply that is an
exception is raised instead, which is how tests inject transient failures. Every request is
recorded.

Example:
    >>> backend = ScriptedBackend('{"answer": 42}')          # always the same reply
    >>> backend = ScriptedBackend(['{"score": 3}', '{"score": 9}'])   # a queue
    >>> backend = ScriptedBackend(lambda request: '{"n": %d}' % len(request.messages))
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable

from kgbuild.llm.types import ChatRequest, ChatResult, LLMRequestError, Usage
from kgbuild.tokens import estimate_tokens

logger = logging.getLogger(__name__)

#: One scripted answer: the assistant's text, a full result, or an exception to raise.
Reply = str | ChatResult | BaseException
#: A reply computed from the request.
Responder = Callable[[ChatRequest], Reply]


def _result(reply: str | ChatResult, request: ChatRequest) -> ChatResult:
    if isinstance(reply, ChatResult):
        return reply
    prompt = sum(estimate_tokens(m.content) for m in request.messages)
    return ChatResult(content=reply, finish_reason="stop",
                      usage=Usage(prompt_tokens=prompt, completion_tokens=estimate_tokens(reply)))


class ScriptedBackend:
    """A `ChatBackend` whose replies are scripted.

    Args:
        script: A fixed reply (str or ChatResult), a function of the request, or an iterable of
            replies used one per request in order. An exception instance as a reply is raised.
        name: The backend label recorded in provenance.
        delay: Seconds each request takes (lets concurrency show up without a server).

    Token usage of a text reply is estimated with `kgbuild.chunking.estimate_tokens`.
    """

    def __init__(self, script: Reply | Responder | Iterable[Reply], *, name: str = "scripted",
                 delay: float = 0.0):
        self._name = name
        self._delay = delay
        self._fixed: Reply | None = None
        self._responder: Responder | None = None
        self._queue: deque[Reply] = deque()
        if isinstance(script, str | ChatResult | BaseException):
            self._fixed = script
        elif callable(script):
            self._responder = script
        else:
            self._queue.extend(script)
        self.requests: list[ChatRequest] = []

    @property
    def name(self) -> str:
        """The label recorded in provenance ('scripted' unless told otherwise)."""
        return self._name

    def enqueue(self, *replies: Reply) -> None:
        """Append replies to the queue (they are used before a fixed reply or responder)."""
        self._queue.extend(replies)

    async def complete(self, request: ChatRequest) -> ChatResult:
        """Answer `request` from the script and record it.

        Raises:
            LLMRequestError: the queue is empty and there is no fixed reply or responder.
            Exception: whatever exception the script supplies for this request.
        """
        self.requests.append(request)
        if self._delay:
            await asyncio.sleep(self._delay)
        if self._queue:
            reply = self._queue.popleft()
        elif self._responder is not None:
            reply = self._responder(request)
        elif self._fixed is not None:
            reply = self._fixed
        else:
            raise LLMRequestError(
                f"the scripted backend has no reply left for request {len(self.requests)}; "
                "enqueue more replies or give it a responder")
        if isinstance(reply, BaseException):
            raise reply
        return _result(reply, request)
