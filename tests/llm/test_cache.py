"""ResponseCache: keys from the full request, persistence, WAL, several processes at once."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from kgbuild.llm.cache import (
    CacheError,
    ResponseCache,
    cache_key,
    canonical_json,
    default_cache_path,
)
from kgbuild.llm.types import ChatMessage, ChatRequest, ChatResult, Usage
from tests.race import open_at_once


def request(**fields) -> ChatRequest:
    base = {"model": "m", "messages": [ChatMessage(role="user", content="Who is Bob?")],
            "response_schema": {"type": "object", "properties": {"a": {"type": "string"}}},
            "schema_name": "A"}
    return ChatRequest(**{**base, **fields})


def test_every_part_of_the_request_changes_the_key():
    keys = {
        cache_key(request()),
        cache_key(request(model="m2")),
        cache_key(request(messages=[ChatMessage(role="user", content="Who is Bob? ")])),
        cache_key(request(messages=[ChatMessage(role="system", content="Who is Bob?")])),
        cache_key(request(response_schema={"type": "object"})),
        cache_key(request(schema_name="B")),
        cache_key(request(temperature=0.5)),
        cache_key(request(max_tokens=100)),
        cache_key(request(seed=1)),
    }
    assert len(keys) == 9
    assert cache_key(request()) == cache_key(request())
    assert len(cache_key(request())) == 64


def test_key_ignores_dict_order_in_the_schema():
    a = request(response_schema={"type": "object", "required": ["a"], "properties": {"a": {}}})
    b = request(response_schema={"properties": {"a": {}}, "required": ["a"], "type": "object"})
    assert canonical_json(a) == canonical_json(b)
    assert cache_key(a) == cache_key(b)


def test_put_get_and_persistence(tmp_path):
    path = tmp_path / "sub" / "cache.sqlite"
    result = ChatResult(content='{"a": "x"}', usage=Usage(prompt_tokens=10, completion_tokens=3),
                        finish_reason="stop")
    with ResponseCache(path) as cache:
        assert cache.get(cache_key(request())) is None
        cache.put(cache_key(request()), result, request=request())
    with ResponseCache(path) as reopened:
        entry = reopened.get(cache_key(request()))
        assert entry.content == result.content
        assert entry.usage == result.usage
        assert (entry.finish_reason, entry.model, entry.source) == ("stop", "m", "live")
        assert cache_key(request()) in reopened and "nope" not in reopened
        assert len(reopened) == 1
        assert reopened.delete(cache_key(request())) and len(reopened) == 0


def test_put_replaces_and_is_visible_to_another_connection_at_once(tmp_path):
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as writer, ResponseCache(path) as reader:
        writer.put("k", ChatResult(content="1"), model="m")
        assert reader.get("k").content == "1"  # committed immediately, no close needed
        writer.put("k", ChatResult(content="2"), model="m", source="batch")
        assert reader.get("k").content == "2" and reader.get("k").source == "batch"
        assert len(reader) == 1


def test_wal_mode(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite"):
        pass
    mode = sqlite3.connect(tmp_path / "c.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def _writer(path: str, worker: int, count: int) -> None:
    with ResponseCache(path) as cache:
        for i in range(count):
            cache.put(f"{worker}-{i}", ChatResult(content=f'{{"i": {i}}}'), model="m")


def test_several_processes_write_at_once(tmp_path):
    path = str(tmp_path / "c.sqlite")
    ResponseCache(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, w, 50)) for w in range(4)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    with ResponseCache(path) as cache:
        assert len(cache) == 200
        assert cache.get("3-49").content == '{"i": 49}'


def test_stats(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        cache.put("a", ChatResult(content="{}", usage=Usage(prompt_tokens=5, completion_tokens=1)), model="m1")
        cache.put("b", ChatResult(content="{}", usage=Usage(prompt_tokens=7, completion_tokens=2)),
                  model="m2", source="batch")
        stats = cache.stats()
    assert stats.entries == 2
    assert stats.by_model == {"m1": 1, "m2": 1}
    assert stats.by_source == {"batch": 1, "live": 1}
    assert (stats.prompt_tokens, stats.completion_tokens) == (12, 3)
    assert stats.size_bytes > 0


def test_unusable_path_says_what_to_do(tmp_path):
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(CacheError, match="--cache-dir"):
        ResponseCache(tmp_path / "dir.sqlite")


def test_default_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBUILD_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == tmp_path / "llm-responses.sqlite"
    assert default_cache_path(tmp_path / "x") == tmp_path / "x" / "llm-responses.sqlite"



@pytest.mark.slow
def test_workers_opening_a_new_response_cache_at_the_same_moment_all_succeed(tmp_path):
    # The corpus workers, forked at once from the process server, open the fresh cache together:
    # SQLite refused one's switch to write-ahead logging ("database is locked") and failed its movie.
    paths = [str(tmp_path / str(trial) / "llm-responses.sqlite") for trial in range(40)]
    assert open_at_once(lambda path: ResponseCache(path).close(), paths) == []
