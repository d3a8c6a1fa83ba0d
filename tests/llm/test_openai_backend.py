"""OpenAIBackend: one real `openai` request per call, errors mapped, structured-output fallback."""

from __future__ import annotations

import asyncio
import email.utils
import time

import pytest
from pydantic import BaseModel

from kgbuild.llm.openai_backend import (
    OpenAIBackend,
    is_strict_compatible,
    parse_retry_after,
    request_body,
)
from kgbuild.llm.types import (
    ChatMessage,
    ChatRequest,
    LLMRequestError,
    LLMTransientError,
)
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan
from tests.llm.transport_helpers import MODEL, Answer, answer_responder, question


def request(n: int = 1, **fields) -> ChatRequest:
    return ChatRequest(model=MODEL, messages=question(n), response_schema=Answer.model_json_schema(),
                       schema_name="Answer", **fields)


def complete_all(backend: OpenAIBackend, requests: list[ChatRequest]):
    """Send each request once; collect results or the raised LLM errors."""
    async def scenario():
        out = []
        for r in requests:
            try:
                out.append(await backend.complete(r))
            except (LLMTransientError, LLMRequestError) as e:
                out.append(e)
        await backend.aclose()
        return out
    return asyncio.run(scenario())


def test_request_body_carries_schema_and_decoding_parameters():
    body = request_body(request(temperature=0.3, max_tokens=50, seed=7))
    assert body["model"] == MODEL
    assert body["messages"][1] == {"role": "user", "content": "Describe item 1."}
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 50, 7)
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "Answer", "schema": Answer.model_json_schema(), "strict": True}}


def test_request_body_without_schema_has_no_response_format():
    plain = ChatRequest(model=MODEL, messages=[ChatMessage(role="user", content="hi")])
    body = request_body(plain)
    assert "response_format" not in body and "max_tokens" not in body and "seed" not in body


def test_fallback_modes_put_the_schema_in_the_prompt():
    body = request_body(request(), "json_object")
    assert body["response_format"] == {"type": "json_object"}
    assert '"count"' in body["messages"][-1]["content"]
    text = request_body(request(), "text")
    assert "response_format" not in text
    assert text["messages"][-1]["role"] == "system" and "JSON schema" in text["messages"][-1]["content"]


def test_strict_only_for_closed_fully_required_schemas():
    class WithDefault(BaseModel):
        name: str
        note: str = ""

    class Open(BaseModel):
        name: str

    assert is_strict_compatible(Answer.model_json_schema())
    assert not is_strict_compatible(WithDefault.model_json_schema())
    assert not is_strict_compatible(Open.model_json_schema())


def test_retry_after_parsing():
    assert parse_retry_after({"retry-after": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    future = email.utils.formatdate(time.time() + 120, usegmt=True)
    assert 100 < parse_retry_after({"retry-after": future}) <= 120


def test_success_maps_content_usage_and_finish_reason():
    with FakeOpenAIServer(responder=answer_responder) as server:
        (result,) = complete_all(OpenAIBackend(base_url=server.base_url, api_key="k"), [request(3)])
    assert result.content == '{"name": "item 3", "count": 3}'
    assert result.finish_reason == "stop"
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def test_failures_map_to_transient_or_request_errors():
    plan = FaultPlan(queue=[Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.TIMEOUT, Fault.DROP, Fault.HTML,
                            Fault.EMPTY], retry_after=4, timeout_sleep=60)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        backend = OpenAIBackend(base_url=server.base_url, api_key="k", timeout=0.5)
        rate, error, timeout, drop, html, empty = complete_all(backend, [request()] * 6)
    assert isinstance(rate, LLMTransientError) and rate.retry_after == 4.0
    assert isinstance(error, LLMTransientError) and "500" in str(error) and error.retry_after is None
    assert isinstance(timeout, LLMTransientError) and "timed out" in str(timeout)
    assert isinstance(drop, LLMTransientError) and "connection" in str(drop)
    assert isinstance(html, LLMTransientError) and "not a chat completion" in str(html)
    assert empty.content == ""
    assert server.count() == 6  # exactly one HTTP request per call: the openai client's retries are off


def test_client_errors_are_not_transient():
    with FakeOpenAIServer(responder=answer_responder) as server:
        backend = OpenAIBackend(base_url=server.base_url.removesuffix("/v1") + "/wrong", api_key="k")
        (error,) = complete_all(backend, [request()])
    assert isinstance(error, LLMRequestError)
    assert "404" in str(error) and "OPENAI_BASE_URL" in str(error)
    assert server.count() == 1


def test_rejected_json_schema_falls_back_to_json_object_and_stays_there():
    plan = FaultPlan(reject_response_format={"json_schema"})
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        backend = OpenAIBackend(base_url=server.base_url, api_key="k")
        first, second = complete_all(backend, [request(1), request(2)])
    assert first.content == answer_responder({"messages": [{"role": "user", "content": "item 1"}]})
    assert second.content.startswith('{"name": "item 2"')
    sent = [(r.status, (r.body.get("response_format") or {}).get("type"),
             (r.body.get("response_format") or {}).get("json_schema", {}).get("strict")) for r in server.requests]
    assert sent == [(400, "json_schema", True), (400, "json_schema", False),
                    (200, "json_object", None), (200, "json_object", None)]
    assert backend.mode == "json_object"
    assert "JSON schema" in server.requests[2].body["messages"][-1]["content"]


def test_server_without_any_response_format_gets_plain_text_requests():
    plan = FaultPlan(reject_response_format={"json_schema", "json_object"})
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        backend = OpenAIBackend(base_url=server.base_url, api_key="k", strict=False)
        (result,) = complete_all(backend, [request(5)])
    assert result.content.startswith('{"name": "item 5"')
    assert [r.status for r in server.requests] == [400, 400, 200]
    assert "response_format" not in server.requests[-1].body
    assert backend.mode == "text"


def test_base_url_and_key_come_from_the_environment(monkeypatch):
    with FakeOpenAIServer(responder=answer_responder) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "env-key")
        backend = OpenAIBackend()
        (result,) = complete_all(backend, [request(2)])
    assert result.content.startswith('{"name": "item 2"')
    assert server.requests[0].authorization == "Bearer env-key"


def test_local_server_needs_no_key_but_openai_does(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LLMRequestError, match="OPENAI_API_KEY"):
        OpenAIBackend()
    with FakeOpenAIServer(responder=answer_responder) as server:
        (result,) = complete_all(OpenAIBackend(base_url=server.base_url), [request(1)])
    assert result.content.startswith('{"name": "item 1"')


def test_unknown_mode_is_rejected():
    with pytest.raises(LLMRequestError, match="json_schema, json_object, text"):
        OpenAIBackend(base_url="http://127.0.0.1:9/v1", api_key="k", mode="grammar")
