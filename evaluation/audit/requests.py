"""Judge requests for an LLM, and verdicts from a Batch API output file.

A judge request has the judge text (`judge.md`) as system message, the fact's section (as on
the sheet, without the verdict line) as user message, and a strict JSON schema response format
`{verdict: supported | not_supported | cant_tell, reason: string}`. `requests.jsonl` holds one
request per fact in the OpenAI Batch API input format the builds export
(`kgbuild.llm.batch.batch_line`), with the fact id as `custom_id`. The batch's output file
(`{"custom_id", "response": {"status_code", "body"}, "error"}` per line) is turned back into
verdicts by `verdicts_from_batch`; a live judge sends the very same request (`judge_request`).

Example:
    >>> lines = request_lines(sections, model="gpt-4o")
    >>> batch = verdicts_from_batch(Path("results.jsonl").read_text(), path="results.jsonl")
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.evaluation.audit.sheet import judge_text
from kgbuild.evaluation.audit.types import JudgeAnswer, Verdict
from kgbuild.llm.batch import batch_line
from kgbuild.llm.client import schema_name
from kgbuild.llm.json_repair import ReplyError, parse_reply
from kgbuild.llm.types import ChatMessage, ChatRequest

#: The judge model of requests.jsonl and --judge when none is given.
DEFAULT_JUDGE_MODEL = "gpt-4o"
#: Task label of judge requests in the LLM client's usage.
JUDGE_TASK = "audit"


def judge_messages(section: str) -> list[ChatMessage]:
    """The chat messages that ask the judge about one fact."""
    return [ChatMessage(role="system", content=judge_text()), ChatMessage(role="user", content=section)]


def judge_request(model: str, section: str) -> ChatRequest:
    """The request for one fact; the same as `LLMClient.request_for` makes, so the cache key matches."""
    return ChatRequest(model=model, messages=judge_messages(section),
                       response_schema=JudgeAnswer.model_json_schema(), schema_name=schema_name(JudgeAnswer))


def request_lines(sections: Mapping[str, str], *, model: str) -> list[str]:
    """Batch API input lines (JSON text), one per fact id of `sections`, custom_id = fact id."""
    return [json.dumps(batch_line(fact_id, judge_request(model, section)), ensure_ascii=False)
            for fact_id, section in sections.items()]


class BatchVerdicts(BaseModel):
    """The verdicts read from a Batch API output file, and the lines that gave none."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[Verdict]
    errors: list[str] = Field(default_factory=list, description="'FILE:LINE: custom_id: what is wrong'.")
    lines: int = Field(default=0, description="Non-empty lines read.")


class _LineError(ValueError):
    pass


def _content(record: Any) -> tuple[str, str]:
    """(custom_id, assistant content) of one output line; raises _LineError."""
    if not isinstance(record, dict):
        raise _LineError("not a JSON object")
    custom_id = record.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise _LineError("no custom_id")
    if "response" not in record and "body" in record:
        raise _LineError("this is a request line (requests.jsonl); pass the batch's output file")
    if record.get("error"):
        error = record["error"]
        raise _LineError(f"the batch reported an error: {error.get('message') if isinstance(error, dict) else error}")
    response = record.get("response")
    body = response.get("body") if isinstance(response, dict) else None
    if not isinstance(response, dict) or response.get("status_code") != 200 or not isinstance(body, dict):
        status = response.get("status_code") if isinstance(response, dict) else None
        raise _LineError(f"no successful response (status {status})")
    choices = body.get("choices") or []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise _LineError("the chat completion has no assistant content")
    return custom_id, content


def verdicts_from_batch(text: str, *, path: str = "results") -> BatchVerdicts:
    """Read the verdicts of a Batch API output file of judge requests.

    Args:
        text: The output file's content (JSON Lines).
        path: Its name, for the error lines.

    Returns:
        A verdict per line whose reply validates as a judge answer, and an error per other line.
    """
    verdicts: list[Verdict] = []
    errors: list[str] = []
    lines = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        lines += 1
        custom_id = "?"
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise _LineError(f"not JSON ({e.msg} at column {e.colno})") from e
            if isinstance(record, dict) and isinstance(record.get("custom_id"), str):
                custom_id = record["custom_id"]
            custom_id, content = _content(record)
            answer = parse_reply(content, JudgeAnswer).value
        except (_LineError, ReplyError) as e:
            errors.append(f"{path}:{number}: {custom_id}: {e}")
            continue
        verdicts.append(Verdict(fact_id=custom_id, verdict=answer.verdict, reason=answer.reason))
    return BatchVerdicts(verdicts=verdicts, errors=errors, lines=lines)
