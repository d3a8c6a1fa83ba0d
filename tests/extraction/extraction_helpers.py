"""Shared pieces of the extraction tests: a model scripted from a fixture file, and request helpers."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from kgbuild.chunking import chunk_screenplay
from kgbuild.llm.types import ChatRequest
from kgbuild.model import KnowledgeGraph, Relation
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm"
SCRIPT_FIXTURE = FIXTURES / "brick_and_steel_script.json"
EXPECTED_FIXTURE = FIXTURES / "brick_and_steel_expected.json"
#: The chunk budget the Brick & Steel fixture was written for (4 chunks).
BRICK_BUDGET = 250

_SCENE_LINE = re.compile(r"^- \[scene (\d+)\]", re.MULTILINE)
#: A mention line of an entity-merging question: 1. "Name": description [scenes: ...].
_MENTION = re.compile(r'^\d+\. "(.*)": ', re.MULTILINE)


def request_kind(messages: list[dict[str, Any]]) -> str:
    """'extract' or 'reflect', from the prompt tag at the start of the system message."""
    system = messages[0]["content"]
    match = re.match(r"\[kgbuild prompt (\w+) v\d+\]", system)
    assert match, f"not a kgbuild prompt: {system[:80]!r}"
    return match.group(1)


def scene_ids(messages: list[dict[str, Any]]) -> tuple[int, ...]:
    """The scene ids of the chunk a request is about (from the facts in the first user message)."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    facts = user.split("\n\n", 1)[0]  # the facts block comes first
    return tuple(int(n) for n in _SCENE_LINE.findall(facts))


class FixtureModel:
    """Answers every request of a Brick & Steel build from the fixture file, attempt by attempt.

    The chunk comes from the facts in the request; the attempt is the number of earlier
    requests of the same kind for that chunk. A request the fixture has no answer for fails
    the test (an IndexError or KeyError, which the servers turn into errors).
    """

    def __init__(self, script: Path, screenplay: Path):
        data = json.loads(script.read_text(encoding="utf-8"))
        self.chunks: dict[str, list[dict[str, Any]]] = data["chunks"]
        self.merges: list[dict[str, Any]] = data["merges"]
        sp = read_screenplay(screenplay)
        self.by_scenes = {tuple(c.scene_indices): c.id for c in chunk_screenplay(sp, token_budget=BRICK_BUDGET)}
        assert set(self.by_scenes.values()) == set(self.chunks)
        self.asked: Counter[tuple[str, str]] = Counter()
        self.log: list[tuple[str, str, int, list[dict[str, Any]]]] = []

    def reply_to_messages(self, messages: list[dict[str, Any]]) -> str:
        """The scripted answer (JSON text) to a request given as message dicts."""
        kind = request_kind(messages)
        if kind == "adjudicate":
            return self.merge_reply(messages)
        chunk = self.by_scenes[scene_ids(messages)]
        attempt = self.asked[(chunk, kind)]
        self.asked[(chunk, kind)] += 1
        self.log.append((chunk, kind, attempt, messages))
        field = "extraction" if kind == "extract" else "review"
        return json.dumps(self.chunks[chunk][attempt][field])

    def merge_reply(self, messages: list[dict[str, Any]]) -> str:
        """The fixture's answer to an entity-merging question, found by the names it asks about."""
        asked = set(_MENTION.findall(messages[1]["content"]))
        self.log.append(("merge", "adjudicate", 0, messages))
        found = [m["reply"] for m in self.merges if set(m["names"]) == asked]
        assert found, f"the fixture has no answer to the merging question about {sorted(asked)}"
        return json.dumps(found[0])

    def reply(self, request: ChatRequest) -> str:
        """`ScriptedBackend` responder."""
        return self.reply_to_messages([m.model_dump() for m in request.messages])

    def body_reply(self, body: dict[str, Any]) -> str:
        """`FakeOpenAIServer` responder (and batch results builder)."""
        return self.reply_to_messages(body["messages"])

    def attempts(self) -> dict[str, int]:
        """Extraction requests per chunk so far."""
        return {chunk: self.asked[(chunk, "extract")] for chunk in self.chunks}


def is_story_fact(relation: Relation) -> bool:
    """True for a relation of a type the schema marks derived (witnesses, told_about, life_stage_of)."""
    return relation.type in load_schema().derived_relation_names()


def graph_as_expected(graph: KnowledgeGraph) -> dict[str, Any]:
    """A graph in the expected fixture's shape (order-free), without the relations of derived types
    (witnesses and what characters are told, which `tests/story` checks)."""
    return {
        "entities": sorted([e.id, e.name, e.type, e.scenes, e.aliases] for e in graph.entities),
        "relations": sorted([r.source, r.type, r.target, r.scenes] for r in graph.relations if not is_story_fact(r)),
    }


def expected_graph() -> dict[str, Any]:
    """The hand-written expected graph of the Brick & Steel fixture, in the same shape."""
    data = json.loads(EXPECTED_FIXTURE.read_text(encoding="utf-8"))
    return {"entities": sorted(data["entities"]), "relations": sorted(data["relations"])}


def ungrounded_relations() -> list[list[Any]]:
    """The relations of the Brick & Steel answers the screenplay text does not show (left out)."""
    data = json.loads(EXPECTED_FIXTURE.read_text(encoding="utf-8"))
    return [item["relation"] for item in data["ungrounded"]]


def batch_results(export: Path, answer) -> str:
    """A Batch API output file answering every request of a Batch API input file with `answer(body)`."""
    lines = []
    for n, line in enumerate(export.read_text(encoding="utf-8").splitlines()):
        request = json.loads(line)
        content = answer(request["body"])
        lines.append(json.dumps({
            "id": f"batch_req_{n}", "custom_id": request["custom_id"], "error": None,
            "response": {"status_code": 200, "request_id": f"req_{n}", "body": {
                "id": f"chatcmpl-{n}", "object": "chat.completion", "model": request["body"]["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}}}))
    return "".join(line + "\n" for line in lines)
