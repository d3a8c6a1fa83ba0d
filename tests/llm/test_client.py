"""LLMClient through the real openai client against the local fake server."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kgbuild.llm.cache import ResponseCache, cache_key
from kgbuild.llm.client import Budget, LLMClient
from kgbuild.llm.costs import ModelPrice, PriceTable
from kgbuild.llm.types import (
    BatchPendingError,
    BudgetExceededError,
    ChatRequest,
    ChatResult,
    LLMOutputError,
    LLMStallError,
    LLMUnavailableError,
)
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan
from kgbuild.tokens import estimate_tokens
from tests.llm.transport_helpers import (
    MODEL,
    Answer,
    Names,
    RecordingSleep,
    answer_responder,
    make_client,
    names_responder,
    question,
)

REPO = Path(__file__).resolve().parents[2]


def ask(client: LLMClient, n: int, model: type = Answer, task: str = "events", **kw):
    return client.structured(task=task, messages=question(n), response_model=model, **kw)


def run_one(server: FakeOpenAIServer, n: int = 1, model: type = Answer, **options):
    async def scenario():
        async with make_client(server.base_url, **options) as client:
            return await ask(client, n, model), client.usage()
    return asyncio.run(scenario())


def test_success_sends_the_schema_and_counts_usage():
    with FakeOpenAIServer(responder=answer_responder) as server:
        answer, usage = run_one(server, 4)
    assert answer == Answer(name="item 4", count=4)
    (request,) = server.requests
    assert request.authorization == "Bearer test-key"
    fmt = request.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Answer"
    assert fmt["json_schema"]["schema"] == Answer.model_json_schema()
    assert fmt["json_schema"]["strict"] is True
    assert request.body["temperature"] == 0.0
    events = usage.tasks["events"]
    assert (events.calls, events.requests, events.retries, events.cache_hits) == (1, 1, 0, 0)
    assert events.prompt_tokens > 0 and events.completion_tokens > 0


def test_429_waits_for_retry_after_then_succeeds():
    sleep = RecordingSleep()
    plan = FaultPlan(queue=[Fault.RATE_LIMIT], retry_after=7)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 2, sleep=sleep)
    assert answer.count == 2
    assert [r.status for r in server.requests] == [429, 200]
    assert sleep.waits == [7.0]
    assert usage.tasks["events"].retries == 1
    assert usage.tasks["events"].requests == 2


def test_retry_after_is_capped():
    sleep = RecordingSleep()
    plan = FaultPlan(queue=[Fault.RATE_LIMIT, Fault.RATE_LIMIT], retry_after=3600)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        run_one(server, sleep=sleep, retry_after_cap=45)
    assert sleep.waits == [45.0, 45.0]
    assert server.count() == 3


def test_500_backs_off_with_jitter_within_the_exponential_ceiling():
    sleep = RecordingSleep()
    plan = FaultPlan(queue=[Fault.SERVER_ERROR] * 3)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 5, sleep=sleep, backoff_base=2.0, backoff_cap=5.0)
    assert answer.count == 5
    assert [r.status for r in server.requests] == [500, 500, 500, 200]
    assert len(sleep.waits) == 3
    for wait, ceiling in zip(sleep.waits, [2.0, 4.0, 5.0], strict=True):
        assert 0.0 <= wait <= ceiling
    assert usage.tasks["events"].retries == 3


def test_http_timeout_then_success():
    # Once the server has answered, a request it does not answer in time is retried.
    plan = FaultPlan(queue=[Fault.OK, Fault.TIMEOUT], timeout_sleep=60)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        async def scenario():
            async with make_client(server.base_url, timeout=0.5) as client:
                return await ask(client, 2), await ask(client, 3), client.usage()
        first, answer, usage = asyncio.run(scenario())
    assert (first.count, answer.count) == (2, 3)
    assert [r.fault for r in server.requests] == [Fault.OK, Fault.TIMEOUT, Fault.OK]
    assert usage.tasks["events"].retries == 1


def test_client_side_timeout_covers_a_backend_without_one():
    plan = FaultPlan(queue=[Fault.OK, Fault.TIMEOUT], timeout_sleep=60)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        async def scenario():
            async with make_client(server.base_url, timeout=60) as client:
                client.timeout = 0.5
                await ask(client, 2)
                return await ask(client, 3)
        answer = asyncio.run(scenario())
    assert answer.count == 3
    assert server.count() == 3


def test_a_first_request_the_server_never_answers_stops_at_once_without_retries():
    # The server takes the connection and the request, and never answers: one timeout, no retry,
    # and every later request stops the same way without being sent.
    notes: list[str] = []
    with FakeOpenAIServer(responder=answer_responder, faults=FaultPlan(rates={Fault.SILENT: 1.0})) as server:
        async def scenario():
            async with make_client(server.base_url, timeout=0.6, on_note=notes.append) as client:
                with pytest.raises(LLMStallError) as first:
                    await ask(client, 1)
                with pytest.raises(LLMStallError) as later:
                    await ask(client, 2)
                return first.value, later.value, client.usage()
        first, later, usage = asyncio.run(scenario())
        assert server.count() == 1
    assert str(first) == str(later)
    assert "accepts connections but sent no answer within 0.6 s (--llm-timeout)" in str(first)
    assert "\n" not in str(first)
    assert usage.tasks["events"].retries == 0 and usage.tasks["events"].requests == 1
    # It said it was waiting, half the timeout in.
    waiting = [n for n in notes if "has had no answer for" in n]
    assert waiting and waiting[0].startswith(f"LLM: waiting for the LLM server at {server.base_url}/: a request "
                                             "(events) has had no answer for ")
    assert waiting[0].endswith(" s (--llm-timeout 0.6 s)")


def test_retries_are_noted_with_their_reason_and_wait():
    notes: list[str] = []
    plan = FaultPlan(queue=[Fault.RATE_LIMIT, Fault.SERVER_ERROR], retry_after=2)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, _ = run_one(server, 4, on_note=notes.append)
    assert answer.count == 4
    assert notes[0].startswith("LLM: retrying a request (events) in 2.0 s, try 2 of 7: ")
    assert "answered 429" in notes[0]
    assert notes[1].startswith("LLM: retrying a request (events) in ") and "answered 500" in notes[1]


def test_the_deadline_bounds_every_wait_and_stops_the_client():
    # Each request waits 0.4 s; the deadline allows about two of them, then nothing is sent.
    with FakeOpenAIServer(responder=answer_responder, faults=FaultPlan(latency=0.4)) as server:
        async def scenario():
            async with make_client(server.base_url, timeout=5, deadline=1.0) as client:
                answers = []
                with pytest.raises(LLMStallError) as stop:
                    for n in range(10):
                        answers.append(await ask(client, n))
                return answers, stop.value
        answers, stop = asyncio.run(scenario())
    assert 1 <= len(answers) <= 3
    assert str(stop).startswith("the LLM deadline (--llm-deadline) ran out with ")
    # A retry whose wait would end past the deadline is not waited for.
    plan = FaultPlan(queue=[Fault.OK, Fault.RATE_LIMIT], retry_after=30)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        async def waits():
            async with make_client(server.base_url, timeout=5, deadline=3.0, sleep=asyncio.sleep) as client:
                await ask(client, 1)
                with pytest.raises(LLMStallError, match="deadline"):
                    await ask(client, 2)
        asyncio.run(asyncio.wait_for(waits(), 20))


def test_dropped_connection_then_success():
    plan = FaultPlan(queue=[Fault.DROP, Fault.DROP])
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 6)
    assert answer.count == 6
    assert [r.status for r in server.requests] == [None, None, 200]
    assert usage.tasks["events"].retries == 2


def test_gateway_html_page_is_retried():
    plan = FaultPlan(queue=[Fault.HTML])
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 7)
    assert answer.count == 7
    assert [r.fault for r in server.requests] == [Fault.HTML, Fault.OK]
    assert usage.tasks["events"].retries == 1


def test_truncated_list_is_repaired_without_a_second_request():
    plan = FaultPlan(queue=[Fault.TRUNCATED])
    with FakeOpenAIServer(responder=names_responder, faults=plan) as server:
        names, usage = run_one(server, model=Names)
    assert server.count() == 1
    full = [f"person number {i}" for i in range(10)]
    assert 0 < len(names.names) < len(full)
    assert names.names == full[: len(names.names)]  # a clean prefix: no half-cut name kept
    assert usage.tasks["events"].repairs == 0


def test_truncated_object_that_cannot_be_repaired_is_asked_again():
    plan = FaultPlan(queue=[Fault.TRUNCATED])
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 8)
    assert answer == Answer(name="item 8", count=8)
    first, second = server.requests
    assert len(second.body["messages"]) == len(first.body["messages"]) + 2
    assistant, repair = second.body["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == answer_responder(first.body)[: len(assistant["content"])]
    assert repair["role"] == "user" and "cut off at the length limit" in repair["content"]
    assert usage.tasks["events"].repairs == 1


def test_schema_violation_triggers_a_repair_message_quoting_the_error():
    plan = FaultPlan(queue=[Fault.SCHEMA_VIOLATION])
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        answer, usage = run_one(server, 9)
    assert answer.count == 9
    repair = server.requests[1].body["messages"][-1]["content"]
    assert "does not match the required schema" in repair
    assert "name: Input should be a valid string" in repair
    assert "count: Input should be a valid integer" in repair
    assert "unexpected_field: Extra inputs are not permitted" in repair
    assert usage.tasks["events"].repairs == 1


@pytest.mark.parametrize("fault, phrase", [(Fault.EMPTY, "empty"), (Fault.MALFORMED, "not valid JSON")])
def test_empty_and_malformed_replies_are_asked_again(fault, phrase):
    with FakeOpenAIServer(responder=answer_responder, faults=FaultPlan(queue=[fault])) as server:
        answer, _ = run_one(server, 1)
    assert answer.count == 1
    assert phrase in server.requests[1].body["messages"][-1]["content"]


def test_fenced_reply_with_prose_is_accepted():
    def chatty(body):
        return "Sure! Here it is:\n```json\n" + answer_responder(body) + "\n```\nAnything else?"
    with FakeOpenAIServer(responder=chatty) as server:
        answer, _ = run_one(server, 12)
    assert answer.count == 12
    assert server.count() == 1


def test_persistent_failure_raises_unavailable_after_the_retries():
    sleep = RecordingSleep()
    plan = FaultPlan(rates={Fault.SERVER_ERROR: 1.0})
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        async def scenario():
            async with make_client(server.base_url, sleep=sleep, max_retries=3) as client:
                with pytest.raises(LLMUnavailableError, match="failed 4 times"):
                    await ask(client, 1)
                return client.usage()
        usage = asyncio.run(scenario())
    assert server.count() == 4
    assert len(sleep.waits) == 3
    assert usage.tasks["events"].failures == 1


def test_replies_that_never_validate_raise_output_error_and_are_not_cached(tmp_path):
    plan = FaultPlan(rates={Fault.SCHEMA_VIOLATION: 1.0})
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache, max_repairs=2) as client:
                with pytest.raises(LLMOutputError, match="after 2 repair attempts"):
                    await ask(client, 1)
                return client.usage()
        usage = asyncio.run(scenario())
        assert len(cache) == 0
    assert server.count() == 3
    assert usage.tasks["events"].failures == 1
    assert usage.tasks["events"].repairs == 2


def test_concurrency_bound_is_honoured():
    barrier = threading.Barrier(3, timeout=30)
    counter = itertools.count()
    lock = threading.Lock()

    def responder(body):
        with lock:
            index = next(counter)
        if index < 3:
            barrier.wait()  # proves three requests can be in flight together
        return answer_responder(body)

    with FakeOpenAIServer(responder=responder, faults=FaultPlan(latency=0.02)) as server:
        async def scenario():
            async with make_client(server.base_url, concurrency=3) as client:
                return await asyncio.gather(*(ask(client, n) for n in range(12)))
        answers = asyncio.run(scenario())
    assert [a.count for a in answers] == list(range(12))
    assert server.count() == 12
    assert server.max_in_flight == 3


def test_second_identical_call_is_served_from_the_cache(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache) as client:
                first = await ask(client, 1)
                second = await ask(client, 1)
                return first, second, client.usage()
        first, second, usage = asyncio.run(scenario())
        assert server.count() == 1
        assert first == second
        assert usage.tasks["events"].cache_hits == 1
        assert usage.tasks["events"].requests == 1

        async def rerun():  # a fresh client (a second build) makes no request at all
            async with make_client(server.base_url, cache=cache) as client:
                return await ask(client, 1)
        assert asyncio.run(rerun()) == first
        assert server.count() == 1


def test_the_task_label_counts_usage_but_is_not_part_of_the_request(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache, batch_export=True) as pending:
                with pytest.raises(BatchPendingError):
                    await ask(pending, 1, task="extract")
            async with make_client(server.base_url, cache=cache) as client:
                await ask(client, 1, task="extract")
                await ask(client, 1, task="extract_retry")
                return set(pending.pending), client.usage()
        custom_ids, usage = asyncio.run(scenario())
        (custom_id,) = custom_ids
        assert cache.get(custom_id) is not None  # the batch custom_id is the key the live answer is cached under
    assert server.count() == 1  # the same request under another task is a cache hit
    assert (usage.tasks["extract"].requests, usage.tasks["extract_retry"].cache_hits) == (1, 1)


def test_different_decoding_parameters_are_different_requests(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache) as client:
                await ask(client, 1)
                await ask(client, 1, temperature=0.7)
                await ask(client, 1, max_tokens=300)
                await ask(client, 1, temperature=0.7)
        asyncio.run(scenario())
        assert server.count() == 3
        assert len(cache) == 3
    assert [r.body["temperature"] for r in server.requests] == [0.0, 0.7, 0.0]
    assert server.requests[2].body["max_tokens"] == 300


def test_repaired_answer_is_cached_under_the_original_request(tmp_path):
    plan = FaultPlan(queue=[Fault.SCHEMA_VIOLATION])
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache) as client:
                return await ask(client, 5), client.request_for(question(5), Answer)
        answer, request = asyncio.run(scenario())
        assert server.count() == 2
        assert Answer.model_validate_json(cache.get(cache_key(request)).content) == answer
        assert len(cache) == 1


def test_invalid_cache_entry_is_asked_again(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache) as client:
                key = cache_key(client.request_for(question(2), Answer))
                cache.put(key, ChatResult(content='{"name": 1}'), model=MODEL)
                return await ask(client, 2), key
        answer, key = asyncio.run(scenario())
        assert answer.count == 2
        assert server.count() == 1
        assert Answer.model_validate_json(cache.get(key).content) == answer


def test_budget_on_requests_stops_cleanly_and_keeps_finished_work(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def limited():
            async with make_client(server.base_url, cache=cache, concurrency=1,
                                   budget=Budget(max_requests=3)) as client:
                done = []
                with pytest.raises(BudgetExceededError, match="--max-requests 3"):
                    for n in range(5):
                        done.append(await ask(client, n))
                return done
        done = asyncio.run(limited())
        assert [a.count for a in done] == [0, 1, 2]
        assert server.count() == 3
        assert len(cache) == 3

        async def resumed():
            async with make_client(server.base_url, cache=cache) as client:
                return [await ask(client, n) for n in range(5)]
        assert [a.count for a in asyncio.run(resumed())] == [0, 1, 2, 3, 4]
        assert server.count() == 5


def test_cost_budget_refuses_a_request_it_cannot_afford():
    prices = PriceTable().with_overrides({MODEL: ModelPrice(input_per_mtok=0.0, output_per_mtok=1000.0)})
    with FakeOpenAIServer(responder=answer_responder) as server:
        async def scenario(max_cost):
            async with make_client(server.base_url, prices=prices, max_tokens=100, concurrency=1,
                                   budget=Budget(max_cost=max_cost)) as client:
                sent = 0
                with pytest.raises(BudgetExceededError, match="--max-cost"):
                    for n in range(1000):
                        await ask(client, n)
                        sent += 1
                return sent, client.usage()

        sent, usage = asyncio.run(scenario(0.05))  # one request may cost up to 100 tokens * $0.001
        assert sent == 0 and server.count() == 0
        sent, usage = asyncio.run(scenario(0.25))
    assert sent > 2
    assert server.count() == sent
    total = usage.total
    assert total.cost_usd == pytest.approx(total.completion_tokens * 0.001)
    assert total.cost_usd + 0.1 > 0.25 >= total.cost_usd  # stopped only when the next could overrun


class _NoUsageBackend:
    """Answers every request and reports no usage, as some local servers do."""

    name = "no-usage"

    def __init__(self):
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        return ChatResult(content='{"name": "item 1", "count": 1}')


def test_unreported_usage_and_the_budget_use_the_shared_token_estimate():
    backend = _NoUsageBackend()
    prices = PriceTable().with_overrides({MODEL: ModelPrice(input_per_mtok=1.0, output_per_mtok=0.0)})

    async def scenario(max_cost=None):
        async with LLMClient(backend, MODEL, prices=prices, max_tokens=10,
                             budget=Budget(max_cost=max_cost)) as client:
            await ask(client, 1)
            return client.usage().tasks["events"]

    used = asyncio.run(scenario())
    (request,) = backend.requests
    schema = json.dumps(request.response_schema, ensure_ascii=False, separators=(",", ":"))
    prompt = sum(estimate_tokens(m.content) for m in request.messages) + estimate_tokens(schema)
    assert (used.prompt_tokens, used.completion_tokens) == (prompt, estimate_tokens('{"name": "item 1", "count": 1}'))
    assert used.cost_usd == pytest.approx(prompt / 1e6)
    # The budget check before sending counts the same prompt tokens (completion is free here).
    assert asyncio.run(scenario(max_cost=(prompt + 0.5) / 1e6)).prompt_tokens == prompt
    with pytest.raises(BudgetExceededError):
        asyncio.run(scenario(max_cost=(prompt - 0.5) / 1e6))


def test_batch_export_mode_records_instead_of_sending(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        async def scenario():
            async with make_client(server.base_url, cache=cache) as live:
                await ask(live, 1)
            async with make_client(server.base_url, cache=cache, batch_export=True) as client:
                cached = await ask(client, 1)
                for n in (2, 3, 2):
                    with pytest.raises(BatchPendingError, match="recorded for batch export"):
                        await ask(client, n)
                return cached, client
        cached, client = asyncio.run(scenario())
    assert cached.count == 1
    assert server.count() == 1
    assert len(client.pending) == 2
    assert set(client.pending) == {cache_key(client.request_for(question(n), Answer)) for n in (2, 3)}
    assert client.usage().tasks["events"].pending == 3


_KILLED_RUN = """
import asyncio, sys
from kgbuild.llm.cache import ResponseCache
from tests.llm.transport_helpers import Answer, make_client, question

async def main(url, path, total):
    with ResponseCache(path) as cache:
        async with make_client(url, cache=cache, concurrency=1) as client:
            for n in range(total):
                await client.structured(task="events", messages=question(n), response_model=Answer)

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def test_killed_run_resumes_without_repeating_completed_requests(tmp_path):
    total, completed = 10, 6
    release = threading.Event()
    counter = itertools.count()

    def responder(body):
        if next(counter) == completed:
            release.wait(60)  # the run is killed while this request is in flight
        return answer_responder(body)

    script = tmp_path / "run.py"
    script.write_text(_KILLED_RUN)
    cache_path = tmp_path / "cache.sqlite"
    with FakeOpenAIServer(responder=responder) as server:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen([sys.executable, str(script), server.base_url, str(cache_path), str(total)],
                                env=env, cwd=REPO)
        try:
            assert server.wait_for_requests(completed + 1, timeout=120)
        finally:
            proc.kill()
            proc.wait()
            release.set()
        assert proc.returncode != 0
        before = server.count()
        assert before == completed + 1
        with ResponseCache(cache_path) as cache:
            assert len(cache) == completed

            async def resumed():
                async with make_client(server.base_url, cache=cache) as client:
                    return [await ask(client, n) for n in range(total)], client.usage()
            answers, usage = asyncio.run(resumed())
    assert [a.count for a in answers] == list(range(total))
    assert server.count() - before == total - completed
    assert usage.tasks["events"].cache_hits == completed


def test_mixed_random_faults_every_call_ends_valid_or_with_a_known_error():
    plan = FaultPlan(rates={Fault.RATE_LIMIT: 0.1, Fault.SERVER_ERROR: 0.1, Fault.MALFORMED: 0.05,
                            Fault.TRUNCATED: 0.05, Fault.TIMEOUT: 0.05, Fault.DROP: 0.05,
                            Fault.SCHEMA_VIOLATION: 0.05, Fault.EMPTY: 0.05},
                     seed=3, retry_after=0, timeout_sleep=30)
    with FakeOpenAIServer(responder=answer_responder, faults=plan) as server:
        async def scenario():
            async with make_client(server.base_url, timeout=1.5, concurrency=8) as client:
                outcomes = await asyncio.gather(*(ask(client, n) for n in range(60)), return_exceptions=True)
                return outcomes, client.usage()
        outcomes, usage = asyncio.run(scenario())
    for n, outcome in enumerate(outcomes):
        assert outcome == Answer(name=f"item {n}", count=n) or isinstance(
            outcome, LLMOutputError | LLMUnavailableError), repr(outcome)
    events = usage.tasks["events"]
    assert events.requests == server.count()
    assert events.retries > 0 and events.repairs > 0
    assert events.calls == 60 and events.failures == sum(not isinstance(o, Answer) for o in outcomes)
