"""Finding, repairing and validating the JSON in a model's reply."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from kgbuild.llm.json_repair import ReplyError, json_candidates, parse_reply


class Item(BaseModel):
    name: str
    count: int


class Items(BaseModel):
    items: list[Item]


def test_plain_fenced_and_chatty_replies():
    assert parse_reply('{"name": "a", "count": 1}', Item).value == Item(name="a", count=1)
    fenced = 'Here you go:\n```json\n{"name": "a", "count": 1}\n```\nHope that helps {:'
    parsed = parse_reply(fenced, Item)
    assert parsed.value == Item(name="a", count=1) and not parsed.repaired
    assert parsed.json_text == '{"name": "a", "count": 1}'


def test_braces_in_prose_before_the_json_are_skipped():
    assert parse_reply('Use {curly} braces: {"name": "b", "count": 2}', Item).value.name == "b"


def test_strings_with_brackets_and_escapes_are_scanned_correctly():
    text = '{"name": "a \\"quoted\\" [x] {y}", "count": 3} trailing'
    assert parse_reply(text, Item).value.name == 'a "quoted" [x] {y}'


def test_truncated_list_keeps_the_complete_elements():
    text = '{"items": [{"name": "a", "count": 1}, {"name": "b", "count": 2}, {"name": "c", "co'
    parsed = parse_reply(text, Items)
    assert parsed.repaired
    assert parsed.value == Items(items=[Item(name="a", count=1), Item(name="b", count=2)])


def test_truncated_inside_a_string_drops_the_partial_element():
    text = '{"items": [{"name": "a", "count": 1}, {"name": "bro'
    assert parse_reply(text, Items).value.items == [Item(name="a", count=1)]


def test_truncated_scalar_is_closed_as_a_last_resort():
    parsed = parse_reply('{"name": "a", "count": 7', Item)
    assert parsed.value == Item(name="a", count=7) and parsed.repaired


def test_candidates_come_latest_cut_first():
    candidates = [c for c, _ in json_candidates('{"a": [1, 2, 3')]
    assert candidates == ['{"a": [1, 2]}', '{"a": [1]}', '{"a": []}', '{"a": [1, 2, 3]}']


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("   \n", "empty"),
    ("I could not find anything.", "not valid JSON"),
    ("{'name': 'a', 'count': 1}", "not valid JSON"),
    ('{"name": "a"}', "count: Field required"),
    ('{"name": "a", "count": "many"}', "count: Input should be a valid integer"),
    ('[1, 2]', "Input should be a valid dictionary"),
])
def test_unusable_replies_explain_why(text, message):
    with pytest.raises(ReplyError, match=message):
        parse_reply(text, Item)


def test_mismatched_brackets_are_not_repaired():
    assert list(json_candidates('{"a": [1, 2}')) == []
