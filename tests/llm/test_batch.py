"""Batch API round trip: export pending requests, answer them offline, import, resume with no live request."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.llm.batch import BATCH_URL, export_batch, import_batch_results
from kgbuild.llm.cache import ResponseCache, cache_key, default_cache_path
from kgbuild.llm.openai_backend import request_body
from kgbuild.llm.types import BatchPendingError
from kgbuild.testing import FakeOpenAIServer
from tests.cli_in_process import run_cli
from tests.llm.transport_helpers import (
    MODEL,
    Answer,
    answer_responder,
    make_client,
    question,
)


def completion(body: dict, content: str) -> dict:
    """A chat completion object as the Batch API puts in response.body."""
    return {"id": "chatcmpl-b", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def output_line(custom_id: str, body: dict, content: str | None = None) -> str:
    """One Batch API output line answering the exported request `body`."""
    reply = completion(body, answer_responder(body) if content is None else content)
    return json.dumps({"id": f"batch_req_{custom_id[:8]}", "custom_id": custom_id,
                       "response": {"status_code": 200, "request_id": "r", "body": reply}, "error": None})


def export_pending(server_url: str, cache: ResponseCache, numbers: list[int], path: Path) -> dict:
    async def scenario():
        async with make_client(server_url, cache=cache, batch_export=True) as client:
            for n in numbers:
                with contextlib.suppress(BatchPendingError):
                    await client.structured(task="events", messages=question(n), response_model=Answer)
            return client.pending
    pending = asyncio.run(scenario())
    export_batch(path, pending)
    return pending


def test_round_trip_export_answer_import_resume_with_no_live_requests(tmp_path):
    numbers = list(range(7))
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        pending = export_pending(server.base_url, cache, numbers, tmp_path / "batch.jsonl")
        assert server.count() == 0
        lines = [json.loads(line) for line in (tmp_path / "batch.jsonl").read_text().splitlines()]
        assert len(lines) == 7
        for line in lines:
            assert set(line) == {"custom_id", "method", "url", "body"}
            assert (line["method"], line["url"]) == ("POST", BATCH_URL)
            request = pending[line["custom_id"]]
            assert line["custom_id"] == cache_key(request)
            assert line["body"] == request_body(request)
            assert line["body"]["response_format"]["type"] == "json_schema"

        results = tmp_path / "results.jsonl"
        results.write_text("".join(output_line(line["custom_id"], line["body"]) + "\n"
                                   for line in reversed(lines)))
        report = import_batch_results(results, cache)
        assert (report.lines, report.imported, report.errors) == (7, 7, [])
        assert (report.prompt_tokens, report.completion_tokens) == (700, 140)
        assert len(cache) == 7

        async def resumed():
            async with make_client(server.base_url, cache=cache) as client:
                answers = [await client.structured(task="events", messages=question(n), response_model=Answer)
                           for n in numbers]
                return answers, client.usage()
        answers, usage = asyncio.run(resumed())
        assert server.count() == 0
    assert [a.count for a in answers] == numbers
    assert usage.tasks["events"].cache_hits == 7 and usage.tasks["events"].requests == 0


def test_partial_results_leave_the_rest_pending_for_the_next_export(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        export_pending(server.base_url, cache, [1, 2, 3], tmp_path / "batch.jsonl")
        lines = [json.loads(line) for line in (tmp_path / "batch.jsonl").read_text().splitlines()]
        (tmp_path / "results.jsonl").write_text(output_line(lines[0]["custom_id"], lines[0]["body"]) + "\n")
        assert import_batch_results(tmp_path / "results.jsonl", cache).imported == 1
        again = export_pending(server.base_url, cache, [1, 2, 3], tmp_path / "batch2.jsonl")
    assert set(again) == {lines[1]["custom_id"], lines[2]["custom_id"]}
    assert len((tmp_path / "batch2.jsonl").read_text().splitlines()) == 2


def test_a_cached_batch_reply_that_does_not_validate_is_exported_again(tmp_path):
    with FakeOpenAIServer(responder=answer_responder) as server, \
            ResponseCache(tmp_path / "c.sqlite") as cache:
        export_pending(server.base_url, cache, [4], tmp_path / "batch.jsonl")
        (line,) = [json.loads(x) for x in (tmp_path / "batch.jsonl").read_text().splitlines()]
        (tmp_path / "results.jsonl").write_text(
            output_line(line["custom_id"], line["body"], content='{"name": "item 4"}') + "\n")
        assert import_batch_results(tmp_path / "results.jsonl", cache).imported == 1
        again = export_pending(server.base_url, cache, [4], tmp_path / "batch2.jsonl")
    assert list(again) == [line["custom_id"]]


def test_bad_lines_are_reported_with_file_and_line(tmp_path):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Describe item 1."}]}
    good = output_line("a" * 64, body)
    lines = [
        good,
        "{not json",
        json.dumps({"custom_id": "b", "response": {"status_code": 500,
                                                   "body": {"error": {"message": "overloaded"}}}}),
        json.dumps({"custom_id": "c", "response": None, "error": {"code": "x", "message": "expired"}}),
        json.dumps({"custom_id": "d", "method": "POST", "url": BATCH_URL, "body": body}),
        output_line("e", body, content=""),
        output_line("f", body, content="I cannot help with that."),
        json.dumps({"response": {"status_code": 200, "body": completion(body, "{}")}}),
        "",
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        report = import_batch_results(path, cache)
        assert len(cache) == 1 and cache.get("a" * 64).source == "batch"
    assert (report.lines, report.imported) == (8, 1)
    messages = {e.line: e.message for e in report.errors}
    assert sorted(messages) == [2, 3, 4, 5, 6, 7, 8]
    assert all(m.startswith(f"{path}:{n}: ") for n, m in messages.items())
    assert "not JSON" in messages[2]
    assert "status 500: overloaded" in messages[3]
    assert "expired" in messages[4]
    assert "input" in messages[5]
    assert "no assistant content" in messages[6]
    assert "holds no JSON" in messages[7]
    assert "no custom_id" in messages[8]
    assert [e.custom_id for e in report.errors] == [None, "b", "c", "d", "e", "f", None]


def test_missing_results_file_is_an_input_error(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite") as cache, pytest.raises(InputError, match="cannot read"):
        import_batch_results(tmp_path / "absent.jsonl", cache)


def test_cli_import_and_stats(tmp_path):
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Describe item 2."}]}
    path = tmp_path / "results.jsonl"
    path.write_text(output_line("k" * 64, body) + "\n" + "oops\n")
    result = run_cli("llm", "import", str(path), "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 0, result.stderr
    assert "Imported 1 of 2 responses" in result.stdout
    assert f"{path}:2:" in result.stderr
    with ResponseCache(default_cache_path(tmp_path / "cache")) as cache:
        assert cache.get("k" * 64) is not None
    stats = run_cli("llm", "stats", "--cache-dir", str(tmp_path / "cache"))
    assert stats.returncode == 0, stats.stderr
    assert "1 responses" in stats.stdout and "gpt-4o-mini: 1" in stats.stdout


def test_cli_import_with_nothing_usable_exits_2(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text("oops\n")
    result = run_cli("llm", "import", str(path), "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 2
    assert "none of the 1 lines" in result.stderr
