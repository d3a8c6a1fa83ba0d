"""Find the JSON in a model's reply and validate it: small, pure, deterministic repairs.

Models wrap JSON in ```json fences, put prose before or after it, or stop mid-object when they
hit the token limit. `json_candidates` yields the texts worth trying, best first: each complete
JSON value in the reply, then for a truncated one, the reply cut back to each earlier element
boundary with its brackets closed (latest cut first, so the least is lost), and last the reply
with its open string and brackets simply closed. `parse_reply` returns the first candidate that
validates against the response model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)

MAX_STARTS = 8
MAX_CUTS = 64
_CLOSERS = {"{": "}", "[": "]"}


class ParsedReply(NamedTuple, Generic[ModelT]):
    """A validated reply: the instance, the JSON text it came from, and whether it was repaired."""

    value: ModelT
    json_text: str
    repaired: bool


class ReplyError(ValueError):
    """A reply that yields no valid instance; the message is meant to be quoted back to the model."""


def _close(stack: list[str]) -> str:
    return "".join(_CLOSERS[b] for b in reversed(stack))


def _scan(text: str, start: int) -> tuple[int | None, list[tuple[int, list[str]]], str | None]:
    """Scan one JSON value starting at `text[start]` ('{' or '[').

    Returns:
        (end, cuts, tail): `end` is the index after the value when it closes, else None; `cuts` are
        (position, open brackets) where the text can be cut and closed; `tail` is the closing text
        for the whole remainder when the value is truncated (None when it cannot be closed).
    """
    stack: list[str] = []
    cuts: list[tuple[int, list[str]]] = []
    in_string = escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "{[":
            stack.append(c)
            cuts.append((i + 1, list(stack)))
        elif c in "}]":
            if not stack or _CLOSERS[stack[-1]] != c:
                return None, cuts, None
            stack.pop()
            if not stack:
                return i + 1, cuts, None
        elif c == ",":
            cuts.append((i, list(stack)))
    if escaped:
        return None, cuts, None
    return None, cuts, ('"' if in_string else "") + _close(stack)


def json_candidates(text: str) -> Iterator[tuple[str, bool]]:
    """Yield (json_text, repaired) pairs worth parsing, best first.

    Args:
        text: The model's reply.

    Yields:
        Complete JSON values found in the reply (repaired=False), then repairs of a truncated
        value (repaired=True): cut back to element boundaries, latest first, then closed as is.
    """
    position = 0
    for _ in range(MAX_STARTS):
        start = next((i for i in range(position, len(text)) if text[i] in "{["), None)
        if start is None:
            return
        end, cuts, tail = _scan(text, start)
        if end is not None:
            yield text[start:end], False
            position = end
            continue
        if tail is None:
            position = start + 1
            continue
        for pos, stack in reversed(cuts[-MAX_CUTS:]):
            if pos > start + 1:  # an empty top-level value is no repair
                yield text[start:pos] + _close(stack), True
        yield text[start:] + tail, True
        return  # a truncated value runs to the end of the reply: no later start can be complete


def describe_validation_error(error: ValidationError, limit: int = 8) -> str:
    """A short, model-readable list of what failed validation ('events.0.name: Field required')."""
    parts = []
    for item in error.errors()[:limit]:
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - limit
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


def parse_reply(text: str, response_model: type[ModelT]) -> ParsedReply[ModelT]:
    """Validate the JSON in `text` against `response_model`, repairing it if needed.

    Args:
        text: The model's reply (may hold fences, prose, or a truncated object).
        response_model: The pydantic model the reply must satisfy.

    Returns:
        The instance, the JSON text that validated, and whether it had to be cut or closed.

    Raises:
        ReplyError: the reply is empty, holds no JSON, or no candidate validates; the message
            says which and quotes the first validation errors.
    """
    if not text.strip():
        raise ReplyError("the reply was empty; it must be a JSON object")
    first_error: ValidationError | None = None
    parsed_any = False
    for candidate, repaired in json_candidates(text):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        parsed_any = True
        try:
            return ParsedReply(response_model.model_validate(value), candidate, repaired)
        except ValidationError as e:
            if first_error is None:
                first_error = e
    if first_error is not None:
        raise ReplyError("the JSON does not match the required schema: "
                         + describe_validation_error(first_error))
    if parsed_any:
        raise ReplyError("the reply holds no JSON object that matches the schema")
    raise ReplyError("the reply is not valid JSON (or is cut off where it cannot be repaired)")
