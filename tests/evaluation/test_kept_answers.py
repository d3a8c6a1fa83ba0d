"""Kept answers: packed without the request's words, unpacked exactly, replayed by custom_id."""

from __future__ import annotations

import json

import pytest

from bench.studies.kept_answers import (
    MIN_SPAN,
    body_prompt_tokens,
    pack_value,
    read_kept,
    replay,
    request_source,
    unpack_value,
)
from kgbuild.errors import InputError

BODY = {"model": "gpt-4o", "messages": [
    {"role": "system", "content": "You extract a graph."},
    {"role": "user", "content": "Passage:\n[scene 1]\nINT. KITCHEN - NIGHT\nAnna burns the letter while Ben watches.\n"
                                "张父喝酒，看着窗外。"}],
    "response_format": {"type": "json_schema", "json_schema": {"name": "X", "schema": {"type": "object"}}}}
ANSWER = {"relations": [{"source": "Anna", "type": "interacts_with", "target": "letter", "verb": "burns",
                         "persistence": "momentary", "evidence": "Anna burns the letter"},
                        {"source": "张父", "type": "located_at", "target": "厨房", "verb": "喝酒",
                         "persistence": "momentary", "evidence": "张父喝酒，看着窗外"}],
          "score": 7, "feedback": ["the letter is not named elsewhere"]}


def literals(value) -> list[str]:
    if isinstance(value, dict) and set(value) == {"$s"}:
        return [s for s in value["$s"] if isinstance(s, str)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in literals(v)]
    if isinstance(value, list):
        return [x for v in value for x in literals(v)]
    return [value] if isinstance(value, str) else []


def test_packing_keeps_no_stretch_of_the_request_and_unpacks_exactly():
    source = request_source(BODY)
    packed = pack_value(ANSWER, source)
    assert unpack_value(packed, source) == ANSWER
    text = json.dumps(packed, ensure_ascii=False)
    assert "Anna burns the letter" not in text and "张父喝酒" not in text
    for piece in literals(packed):
        assert not any(piece[i:i + MIN_SPAN] in source for i in range(len(piece) - MIN_SPAN + 1)), piece
    # Words the request does not hold stay as they are; numbers are untouched.
    assert "elsewhere" in text and '"score": 7' in text


def test_a_different_request_cannot_unpack_an_answer():
    packed = pack_value(ANSWER, request_source(BODY))
    with pytest.raises(InputError, match="outside its request"):
        unpack_value(packed, "short")


def test_replay_answers_by_custom_id_and_names_a_request_without_an_answer(tmp_path):
    kept_file = tmp_path / "kept.jsonl"
    kept_file.write_text(json.dumps({"custom_id": "k1", "round": 1,
                                     "answer": pack_value(ANSWER, request_source(BODY))}) + "\n")
    requests = tmp_path / "requests.jsonl"
    requests.write_text(json.dumps({"custom_id": "k1", "method": "POST", "url": "/v1/chat/completions",
                                    "body": BODY}) + "\n")
    [line] = replay(read_kept(kept_file), requests)
    assert line["custom_id"] == "k1" and line["response"]["status_code"] == 200
    assert json.loads(line["response"]["body"]["choices"][0]["message"]["content"]) == ANSWER
    requests.write_text(json.dumps({"custom_id": "k2", "body": BODY}) + "\n")
    with pytest.raises(InputError, match="request 1 .k2. has no kept answer"):
        replay(read_kept(kept_file), requests)


def test_prompt_tokens_count_the_messages_and_the_schema():
    assert body_prompt_tokens(BODY) == body_prompt_tokens({**BODY, "response_format": None}) + 5
