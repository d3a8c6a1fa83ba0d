"""Shared pieces of the LLM transport tests: a response model, a responder, a recording sleep."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from kgbuild.llm.client import LLMClient
from kgbuild.llm.openai_backend import OpenAIBackend
from kgbuild.llm.types import ChatMessage

MODEL = "test-model"


class Answer(BaseModel):
    """A small closed response model (strict-compatible: no defaults, extra forbidden)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    count: int


class Names(BaseModel):
    """A list-shaped response model, for truncation repairs."""

    model_config = ConfigDict(extra="forbid")

    names: list[str]


def question(n: int) -> list[ChatMessage]:
    """The messages of question number `n`."""
    return [ChatMessage(role="system", content="You answer in JSON."),
            ChatMessage(role="user", content=f"Describe item {n}.")]


def first_user_text(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def answer_responder(body: dict[str, Any]) -> str:
    """Answers question n with {"name": "item n", "count": n}."""
    n = int(re.search(r"item (\d+)", first_user_text(body)).group(1))
    return json.dumps({"name": f"item {n}", "count": n})


def names_responder(body: dict[str, Any]) -> str:
    """Answers with a list of ten names."""
    return json.dumps({"names": [f"person number {i}" for i in range(10)]})


class RecordingSleep:
    """An awaitable sleep that records the requested waits and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_client(base_url: str, *, timeout: float = 30.0, sleep: RecordingSleep | None = None,
                **options: Any) -> LLMClient:
    """An LLMClient over the real openai client pointed at `base_url`."""
    backend = OpenAIBackend(base_url=base_url, api_key="test-key", timeout=timeout)
    return LLMClient(backend, MODEL, timeout=timeout, sleep=sleep or RecordingSleep(), **options)
