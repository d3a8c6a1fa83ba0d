"""The scripted backend: fixed reply, queue, function of the request, injected errors."""

from __future__ import annotations

import asyncio

import pytest

from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.types import ChatMessage, ChatRequest, ChatResult, LLMRequestError, LLMTransientError, Usage


def request(text: str) -> ChatRequest:
    return ChatRequest(model="m", messages=[ChatMessage(role="user", content=text)])


def ask(backend: ScriptedBackend, text: str) -> ChatResult:
    return asyncio.run(backend.complete(request(text)))


def test_fixed_reply_is_repeated_and_requests_are_recorded():
    backend = ScriptedBackend('{"a": 1}')
    assert [ask(backend, t).content for t in ("one", "two")] == ['{"a": 1}', '{"a": 1}']
    assert [r.messages[0].content for r in backend.requests] == ["one", "two"]
    assert backend.name == "scripted"


def test_queue_then_error_when_empty_and_enqueue_refills():
    backend = ScriptedBackend(["first", LLMTransientError("busy", retry_after=2), "third"])
    assert ask(backend, "x").content == "first"
    with pytest.raises(LLMTransientError) as caught:
        ask(backend, "x")
    assert caught.value.retry_after == 2
    assert ask(backend, "x").content == "third"
    with pytest.raises(LLMRequestError, match="no reply left for request 4"):
        ask(backend, "x")
    backend.enqueue("fourth")
    assert ask(backend, "x").content == "fourth"


def test_function_of_the_request_and_usage():
    backend = ScriptedBackend(lambda r: r.messages[0].content.upper(), name="echo")
    result = ask(backend, "He opens the door.")
    assert result.content == "HE OPENS THE DOOR."
    assert result.usage == Usage(prompt_tokens=5, completion_tokens=5) and result.finish_reason == "stop"
    full = ChatResult(content="x", usage=Usage(prompt_tokens=7, completion_tokens=1), finish_reason="length")
    assert ask(ScriptedBackend(full), "y") == full
    assert backend.name == "echo"
