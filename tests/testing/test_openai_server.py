"""The fake OpenAI-compatible server itself, spoken to over plain HTTP."""

from __future__ import annotations

import http.client
import json
import threading

import pytest

from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan, wrong_types
from kgbuild.tokens import estimate_tokens


def post(server: FakeOpenAIServer, body: dict | bytes, path: str = "/v1/chat/completions"):
    """(status, headers, parsed body) of one POST; status None when the connection was dropped."""
    host, port = server.base_url.removeprefix("http://").removesuffix("/v1").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    try:
        conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, dict(response.headers), json.loads(response.read())
    except (http.client.RemoteDisconnected, ConnectionError):
        return None, {}, None
    finally:
        conn.close()


BODY = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}


def content(reply: dict) -> str:
    return reply["choices"][0]["message"]["content"]


def test_answers_with_the_responder_and_records_the_request():
    seen = []

    def responder(body):
        seen.append(body)
        return '{"ok": true}'

    with FakeOpenAIServer(responder=responder) as server:
        status, _, reply = post(server, BODY)
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    assert status == 200
    assert content(reply) == '{"ok": true}'
    assert reply["model"] == "m" and reply["choices"][0]["finish_reason"] == "stop"
    assert reply["usage"]["total_tokens"] == reply["usage"]["prompt_tokens"] + reply["usage"]["completion_tokens"]
    assert seen == [BODY]
    (recorded,) = server.requests
    assert (recorded.body, recorded.fault, recorded.status) == (BODY, Fault.OK, 200)


def test_usage_is_the_shared_token_estimate_of_each_message():
    body = {"model": "m", "messages": [{"role": "system", "content": "Answer in JSON."},
                                       {"role": "user", "content": "张父喝酒"}]}
    with FakeOpenAIServer(responder=lambda body: '{"ok": true}') as server:
        _, _, reply = post(server, body)
    assert reply["usage"]["prompt_tokens"] == estimate_tokens("Answer in JSON.") + estimate_tokens("张父喝酒") == 8
    assert reply["usage"]["completion_tokens"] == estimate_tokens('{"ok": true}') == 3


def test_queued_faults_apply_in_order_then_normal_answers():
    plan = FaultPlan(queue=[Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.DROP, Fault.TRUNCATED,
                            Fault.MALFORMED, Fault.SCHEMA_VIOLATION, Fault.EMPTY], retry_after=2.5)
    full = '{"name": "Bob", "count": 3}'
    with FakeOpenAIServer(responder=lambda body: full, faults=plan) as server:
        results = [post(server, BODY) for _ in range(8)]
    (s429, h429, _), (s500, _, _), (sdrop, _, _), (_, _, cut), (_, _, bad), (_, _, wrong), (_, _, empty), \
        (sok, _, ok) = results
    assert (s429, h429["Retry-After"]) == (429, "2.5")
    assert s500 == 500
    assert sdrop is None
    assert content(cut) == full[: len(full) // 2] and cut["choices"][0]["finish_reason"] == "length"
    with pytest.raises(json.JSONDecodeError):
        json.loads(content(bad))
    assert json.loads(content(wrong)) == {"name": 12345, "count": "not a number", "unexpected_field": True}
    assert content(empty) == ""
    assert (sok, content(ok)) == (200, full)
    assert [r.fault for r in server.requests] == [*plan.queue, Fault.OK]


def test_html_fault_sends_a_page_instead_of_json():
    with FakeOpenAIServer(faults=FaultPlan(queue=[Fault.HTML])) as server:
        host, port = server.base_url.removeprefix("http://").removesuffix("/v1").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("POST", "/v1/chat/completions", body=json.dumps(BODY))
        response = conn.getresponse()
        status, ctype, text = response.status, response.getheader("Content-Type"), response.read()
        conn.close()
    assert (status, ctype) == (200, "text/html")
    assert text.startswith(b"<html>")


def test_random_faults_are_reproducible_with_a_seed():
    plan = FaultPlan(rates={Fault.RATE_LIMIT: 0.3, Fault.SERVER_ERROR: 0.2}, seed=11)
    runs = []
    for _ in range(2):
        with FakeOpenAIServer(faults=plan) as server:
            for _ in range(40):
                post(server, BODY)
            runs.append([r.fault for r in server.requests])
    assert runs[0] == runs[1]
    assert {Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.OK} == set(runs[0])


def test_rejected_response_format_and_unknown_routes():
    plan = FaultPlan(reject_response_format={"json_schema"})
    with FakeOpenAIServer(faults=plan) as server:
        status, _, reply = post(server, {**BODY, "response_format": {"type": "json_schema"}})
        assert status == 400 and "response_format" in reply["error"]["message"]
        assert post(server, {**BODY, "response_format": {"type": "json_object"}})[0] == 200
        assert post(server, BODY, path="/v1/embeddings")[0] == 404
        assert post(server, b"{broken")[0] == 400
    assert [r.status for r in server.requests] == [400, 200, 404, 400]


def test_broken_responder_becomes_a_500():
    def responder(body):
        raise RuntimeError("boom")

    with FakeOpenAIServer(responder=responder) as server:
        status, _, reply = post(server, BODY)
    assert status == 500 and "boom" in reply["error"]["message"]


def test_timeout_fault_is_released_when_the_server_stops():
    plan = FaultPlan(queue=[Fault.TIMEOUT], timeout_sleep=600)
    server = FakeOpenAIServer(faults=plan).start()
    results = []
    worker = threading.Thread(target=lambda: results.append(post(server, BODY)))
    worker.start()
    assert server.wait_for_requests(1, timeout=30)
    server.stop()
    worker.join(30)
    assert not worker.is_alive()
    assert server.requests[0].fault == Fault.TIMEOUT


def test_max_in_flight_counts_overlapping_requests():
    barrier = threading.Barrier(4, timeout=30)

    def responder(body):
        barrier.wait()
        return "{}"

    with FakeOpenAIServer(responder=responder) as server:
        threads = [threading.Thread(target=post, args=(server, BODY)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert server.max_in_flight == 4
    assert server.count() == 4


def test_wrong_types_breaks_every_value():
    assert json.loads(wrong_types('{"a": "x", "b": 1, "c": [1], "d": {}, "e": null, "f": true}')) == {
        "a": 12345, "b": "not a number", "c": "not a list", "d": ["not", "an", "object"],
        "e": {"not": "null"}, "f": "not a number", "unexpected_field": True}
    assert wrong_types("not json") == '["not", "an", "object"]'
