"""OpenAI Batch API round trips: export pending requests, import the results into the cache.

Export writes one line per request in the Batch API input format
(`{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`) with the cache key
as `custom_id` and the same body a live request would send. Import reads the Batch API output
format (`{"custom_id", "response": {"status_code", "body": <chat completion>}, "error"}`) and
stores every successful reply in the response cache under its `custom_id`, so the next build
finds it there. Lines that fail are reported with file and line and stay pending: the next
export writes them again.

Example:
    >>> export_batch(Path("batch.jsonl"), client.pending)
    >>> with ResponseCache.open_default() as cache:
    ...     report = import_batch_results(Path("results.jsonl"), cache)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.llm.cache import ResponseCache
from kgbuild.llm.costs import PriceTable
from kgbuild.llm.json_repair import json_candidates
from kgbuild.llm.openai_backend import request_body
from kgbuild.llm.types import ChatRequest, ChatResult, Usage

logger = logging.getLogger(__name__)

BATCH_URL = "/v1/chat/completions"
#: The OpenAI Batch API's limits on one input file: requests, and bytes.
BATCH_MAX_REQUESTS = 50_000
BATCH_MAX_BYTES = 200 * 1024 * 1024


class BatchLineError(BaseModel):
    """One result line that could not be imported."""

    model_config = ConfigDict(extra="forbid")

    line: int = Field(description="1-based line number in the results file.")
    custom_id: str | None
    message: str = Field(description="'FILE:LINE: what is wrong'.")


class BatchImportReport(BaseModel):
    """What an import did."""

    model_config = ConfigDict(extra="forbid")

    path: str
    lines: int = Field(description="Non-empty lines read.")
    imported: int = Field(description="Responses stored in the cache.")
    errors: list[BatchLineError] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = Field(default=0.0, description="Estimated cost at batch (half) price.")


def batch_line(key: str, request: ChatRequest) -> dict[str, Any]:
    """The Batch API input line for one request."""
    return {"custom_id": key, "method": "POST", "url": BATCH_URL, "body": request_body(request)}


def export_batch(path: str | Path, pending: Mapping[str, ChatRequest]) -> int:
    """Write `pending` (cache key -> request) as a Batch API input file, atomically.

    Args:
        path: The JSONL file to write (replaced if it exists).
        pending: Requests by cache key, e.g. `LLMClient.pending`.

    Returns:
        The number of requests written.
    """
    lines = [json.dumps(batch_line(key, request), ensure_ascii=False) for key, request in pending.items()]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    logger.info("wrote %d batch requests to %s", len(lines), path)
    return len(lines)


def batch_part(path: Path, number: int) -> Path:
    """The file of part `number` (from 1) of an export: `path` itself, then `STEM-2.jsonl`, ..."""
    return path if number == 1 else path.with_name(f"{path.stem}-{number}{path.suffix}")


def export_batch_lines(path: str | Path, lines: list[str], *, max_requests: int = BATCH_MAX_REQUESTS,
                       max_bytes: int = BATCH_MAX_BYTES) -> list[Path]:
    """Write Batch API input lines into as few files as the Batch API's per-file limits allow.

    The first file is `path`, the next ones `STEM-2.jsonl`, `STEM-3.jsonl`, ... (parts left by
    an earlier, longer export are removed). Submit each file as one batch; import each output.

    Args:
        path: The first file.
        lines: Batch API input lines (`batch_line`, as JSON), each at most `max_bytes`.
        max_requests: Requests per file at most.
        max_bytes: Bytes per file at most.

    Returns:
        The files written, in order.
    """
    path = Path(path)
    parts: list[list[str]] = [[]]
    size = 0
    for line in lines:
        length = len(line.encode("utf-8")) + 1
        if parts[-1] and (len(parts[-1]) >= max_requests or size + length > max_bytes):
            parts.append([])
            size = 0
        parts[-1].append(line)
        size += length
    written = []
    for number, part in enumerate(parts, start=1):
        written.append(write_text_atomic(batch_part(path, number), "".join(line + "\n" for line in part)))
    stale = len(parts) + 1
    while batch_part(path, stale).is_file():
        batch_part(path, stale).unlink()
        stale += 1
    logger.info("wrote %d batch requests to %d files", len(lines), len(written))
    return written


class _LineError(ValueError):
    pass


def _parse_result_line(text: str) -> tuple[str, ChatResult, str | None]:
    """(custom_id, result, model) of one output line; raises _LineError with the reason."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise _LineError(f"not JSON ({e.msg} at column {e.colno})") from e
    if not isinstance(record, dict):
        raise _LineError("not a JSON object")
    custom_id = record.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise _LineError("no custom_id")
    if "response" not in record and "body" in record and "method" in record:
        raise _LineError("this is a Batch API *input* line (a request); import the batch's output file")
    error = record.get("error")
    if error:
        detail = error.get("message") if isinstance(error, dict) else error
        raise _LineError(f"the batch reported an error: {detail}")
    response = record.get("response")
    if not isinstance(response, dict):
        raise _LineError("no response object")
    status = response.get("status_code")
    body = response.get("body")
    if status != 200:
        detail = body.get("error", {}).get("message") if isinstance(body, dict) else body
        raise _LineError(f"status {status}: {detail}")
    if not isinstance(body, dict):
        raise _LineError("response.body is not a chat completion object")
    choices = body.get("choices") or []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise _LineError("the chat completion has no assistant content")
    if not any(_is_json(candidate) for candidate, _ in json_candidates(content)):
        raise _LineError("the assistant content holds no JSON")
    reported = body.get("usage")
    usage: dict[str, Any] = reported if isinstance(reported, dict) else {}
    result = ChatResult(content=content,
                        usage=Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                    completion_tokens=int(usage.get("completion_tokens") or 0)),
                        finish_reason=choices[0].get("finish_reason"))
    model = body.get("model") if isinstance(body.get("model"), str) else None
    return custom_id, result, model


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def import_batch_results(path: str | Path, cache: ResponseCache, *,
                         prices: PriceTable | None = None) -> BatchImportReport:
    """Store every successful reply of a Batch API output file in `cache`.

    Args:
        path: The batch's output JSONL file.
        cache: The response cache the build reads.
        prices: Price table for the cost estimate (batch price = half the live price).

    Returns:
        Counts, tokens, estimated cost, and one error per line that was not imported.

    Raises:
        InputError: the file cannot be read.
    """
    path = Path(path)
    prices = prices or PriceTable()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the batch results: {e}", path=str(path)) from e
    report = BatchImportReport(path=str(path), lines=0, imported=0)
    errors: list[BatchLineError] = []
    lines = imported = prompt = completion = 0
    cost = 0.0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        lines += 1
        try:
            custom_id, result, model = _parse_result_line(line)
        except _LineError as e:
            peeked = _peek_custom_id(line)
            errors.append(BatchLineError(line=number, custom_id=peeked,
                                         message=f"{path}:{number}: {peeked or '?'}: {e}"))
            continue
        cache.put(custom_id, result, model=model, source="batch")
        imported += 1
        prompt += result.usage.prompt_tokens
        completion += result.usage.completion_tokens
        cost += prices.cost(model, result.usage, batch=True) if model else 0.0
    for error in errors:
        logger.warning("%s", error.message)
    return report.model_copy(update={"lines": lines, "imported": imported, "errors": errors,
                                     "prompt_tokens": prompt, "completion_tokens": completion,
                                     "cost_usd": cost})


def _peek_custom_id(line: str) -> str | None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    value = record.get("custom_id") if isinstance(record, dict) else None
    return value if isinstance(value, str) else None
