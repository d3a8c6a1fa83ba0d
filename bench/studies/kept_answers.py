"""Kept model answers: a measurement's LLM replies stored without the screenplay's words.

An LLM measurement (docs/results/llm-path.md, "The LLM path, measured") enters a model's answers through
batch import. Keeping those answers lets a test rebuild the measured graphs with no live request
and check the scores. The screenplays measured on (the STAGE release) may not be copied into the
repository, and a model's answers quote them. So every stretch of an answer's strings that occurs
verbatim in its request (`MIN_SPAN` characters or more) is kept as a pointer into the request's
text instead: a string value becomes `{"$s": ["literal", [start, end], ...]}`. Unpacking needs the
same request, rebuilt from the script in ../shared/data by the same code: the kept answers then
match the payloads exactly, or the rebuild says which request has no answer.

    python -m bench.studies.kept_answers pack SET_DIR OUT.jsonl     # round_K/NN.answer.json -> OUT
    python -m bench.studies.kept_answers replay KEPT.jsonl REQ.jsonl RESULTS.jsonl

Example:
    >>> source = "Passage: Anna burns the letter."
    >>> packed = pack_value({"evidence": "Anna burns the letter"}, source)
    >>> unpack_value(packed, source)
    {'evidence': 'Anna burns the letter'}
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.atomic import write_text_atomic
from kgbuild.cli.exits import EXIT_BATCH_PENDING
from kgbuild.errors import InputError
from kgbuild.tokens import estimate_tokens

#: The shortest verbatim stretch of the request kept as a pointer.
MIN_SPAN = 4
#: Rounds after which a rebuild gives up (extraction, reviews, re-extractions, merging).
MAX_ROUNDS = 12
_SEGMENTS = "$s"


def request_source(body: dict[str, Any]) -> str:
    """The text answers point into: the request's messages, joined by blank lines."""
    return "\n\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def pack_text(text: str, source: str) -> list[str | list[int]]:
    """`text` as literal pieces and [start, end] pointers to the stretches of `source` it repeats."""
    out: list[str | list[int]] = []
    literal = ""
    i = 0
    while i < len(text):
        n = MIN_SPAN
        at = source.find(text[i:i + n]) if i + n <= len(text) else -1
        if at < 0:
            literal += text[i]
            i += 1
            continue
        while i + n < len(text) and (found := source.find(text[i:i + n + 1])) >= 0:
            n, at = n + 1, found
        if literal:
            out.append(literal)
            literal = ""
        out.append([at, at + n])
        i += n
    if literal:
        out.append(literal)
    return out


def pack_value(value: Any, source: str) -> Any:
    """A JSON value with every string packed (see the module docstring); other values as they are."""
    if isinstance(value, str):
        segments = pack_text(value, source)
        return value if all(isinstance(s, str) for s in segments) else {_SEGMENTS: segments}
    if isinstance(value, list):
        return [pack_value(v, source) for v in value]
    if isinstance(value, dict):
        return {k: pack_value(v, source) for k, v in value.items()}
    return value


def unpack_value(value: Any, source: str) -> Any:
    """The inverse of `pack_value` for the same source.

    Raises:
        InputError: a pointer falls outside the source (the request is not the one packed against).
    """
    if isinstance(value, dict) and set(value) == {_SEGMENTS}:
        parts = []
        for s in value[_SEGMENTS]:
            if isinstance(s, str):
                parts.append(s)
                continue
            start, end = s
            if not 0 <= start <= end <= len(source):
                raise InputError(f"a kept answer points at {start}-{end}, outside its request ({len(source)} chars)")
            parts.append(source[start:end])
        return "".join(parts)
    if isinstance(value, list):
        return [unpack_value(v, source) for v in value]
    if isinstance(value, dict):
        return {k: unpack_value(v, source) for k, v in value.items()}
    return value


def pack_set(set_dir: Path) -> list[dict[str, Any]]:
    """The kept lines of one answered set: per request of every round, its custom_id and the
    packed answer (requests_K.jsonl beside round_K/, answers in round_K/NN.answer.json)."""
    kept = []
    rounds = sorted((p for p in set_dir.glob("round_*") if p.is_dir()), key=lambda p: int(p.name.split("_")[1]))
    for folder in rounds:
        k = int(folder.name.split("_")[1])
        requests = (set_dir / f"requests_{k}.jsonl").read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(requests, 1):
            request = json.loads(line)
            answer = folder / f"{n:02d}.answer.json"
            if not answer.is_file():
                raise InputError(f"round {k} request {n} has no answer", path=str(answer))
            source = request_source(request["body"])
            kept.append({"custom_id": request["custom_id"], "round": k,
                         "answer": pack_value(json.loads(answer.read_text(encoding="utf-8")), source)})
    return kept


def result_line(custom_id: str, model: str, content: str) -> dict[str, Any]:
    """One Batch API output line holding `content` as the reply."""
    return {"id": f"batch_{custom_id[:12]}", "custom_id": custom_id, "error": None,
            "response": {"status_code": 200, "request_id": custom_id[:12], "body": {
                "id": f"chatcmpl-{custom_id[:12]}", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}]}}}


def replay(kept: dict[str, Any], requests_path: Path) -> list[dict[str, Any]]:
    """Batch API output lines answering every request of `requests_path` from the kept answers.

    Raises:
        InputError: a request has no kept answer (the payloads changed since the measurement).
    """
    out = []
    for n, line in enumerate(requests_path.read_text(encoding="utf-8").splitlines(), 1):
        request = json.loads(line)
        found = kept.get(request["custom_id"])
        if found is None:
            raise InputError(f"request {n} ({request['custom_id']}) has no kept answer: the requests changed "
                             "since the answers were kept; measure again", path=str(requests_path))
        answer = unpack_value(found["answer"], request_source(request["body"]))
        out.append(result_line(request["custom_id"], request["body"].get("model", ""),
                               json.dumps(answer, ensure_ascii=False)))
    return out


def body_prompt_tokens(body: dict[str, Any]) -> int:
    """Estimated prompt tokens of an exported request body: its messages and its JSON schema
    (`kgbuild.tokens.estimate_tokens`, as the client counts a request)."""
    tokens = sum(estimate_tokens(str(m.get("content", ""))) for m in body.get("messages", []))
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
    if schema is not None:
        tokens += estimate_tokens(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
    return tokens


def answer_tokens(answer: Any) -> int:
    """Estimated completion tokens of an answer (its compact JSON)."""
    return estimate_tokens(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))


class Rebuilt(BaseModel):
    """A measured build made again from kept answers."""

    model_config = ConfigDict(extra="forbid")

    graph: Path
    rounds: int = Field(description="Export-import rounds until the build finished.")
    requests: int
    prompt_tokens: int
    completion_tokens: int


#: Runs `kgbuild ARGS` with these environment variables added; returns its exit status and stderr.
Runner = Callable[[list[str], dict[str, str]], tuple[int, str]]


def run_kgbuild(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`python -m kgbuild ARGS` in a new process, `env` added to this one's environment."""
    done = subprocess.run([sys.executable, "-m", "kgbuild", *args], capture_output=True, text=True,
                          env={**os.environ, **env})
    return done.returncode, done.stderr


class Replayed(BaseModel):
    """A measured command run again from kept answers."""

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(description="Export-import rounds until the command finished.")
    requests: int
    prompt_tokens: int
    completion_tokens: int


def replay_rounds(kept: dict[str, Any], command: list[str], work: Path, cache_dir: Path, *,
                  run: Runner = run_kgbuild) -> Replayed:
    """Run `kgbuild *command` in batch mode, answering every exported round from the kept answers,
    until it finishes; no request leaves the machine.

    Args:
        kept: The kept answers by custom_id (`read_kept`).
        command: The command and its arguments (`build SCRIPT -o OUT`, `qa-eval BUILD CSV --answers`).
        work: A folder for the rounds' requests and results.
        cache_dir: The LLM response cache the rounds are imported into.
        run: How a `kgbuild` command is run (default: a new process each; tests run them in theirs).

    Raises:
        InputError: a request has no kept answer, or the command fails.
    """
    work.mkdir(parents=True, exist_ok=True)
    requests = prompt = completion = 0
    for n in range(1, MAX_ROUNDS + 1):
        exported = work / f"requests_{n}.jsonl"
        status, stderr = run([*command, "--llm-cache-dir", str(cache_dir), "--llm-batch-export", str(exported)],
                             {"OPENAI_API_KEY": "kept-answers", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
        if status == 0:
            return Replayed(rounds=n - 1, requests=requests, prompt_tokens=prompt, completion_tokens=completion)
        if status != EXIT_BATCH_PENDING:
            raise InputError(f"kgbuild {command[0]} failed (exit {status}): {stderr.strip()[-800:]}")
        lines = replay(kept, exported)
        for line, body in zip(lines, _bodies(exported), strict=True):
            requests += 1
            prompt += body_prompt_tokens(body)
            completion += answer_tokens(json.loads(line["response"]["body"]["choices"][0]["message"]["content"]))
        results = work / f"results_{n}.jsonl"
        write_text_atomic(results, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
        status, stderr = run(["llm", "import", str(results), "--cache-dir", str(cache_dir)], {})
        if status != 0:
            raise InputError(f"importing round {n} failed: {stderr.strip()[-800:]}")
    raise InputError(f"kgbuild {command[0]} still exported requests after {MAX_ROUNDS} rounds")


def rebuild(kept: dict[str, Any], build_args: list[str], out: Path, cache_dir: Path, *,
            run: Runner = run_kgbuild) -> Rebuilt:
    """Run `kgbuild build *build_args -o out` in batch mode, answering every exported round from
    the kept answers, until it finishes (`replay_rounds`); no request leaves the machine.

    Raises:
        InputError: a request has no kept answer, or the build fails.
    """
    done = replay_rounds(kept, ["build", *build_args, "-o", str(out), "-q"], out.parent / f"{out.name}.rounds",
                         cache_dir, run=run)
    return Rebuilt(graph=out / "graph.json", rounds=done.rounds, requests=done.requests,
                   prompt_tokens=done.prompt_tokens, completion_tokens=done.completion_tokens)


def _bodies(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["body"] for line in path.read_text(encoding="utf-8").splitlines()]


def read_kept(path: Path) -> dict[str, Any]:
    """Kept answers by custom_id."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {line["custom_id"]: line for line in lines}


@click.group()
def main() -> None:
    """Keep a measurement's answers without the screenplay's words, and replay them."""


@main.command("pack")
@click.argument("set_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
def pack_command(set_dir: Path, output: Path) -> None:
    """Pack the answers of SET_DIR (requests_K.jsonl, round_K/NN.answer.json) into OUTPUT."""
    kept = pack_set(set_dir)
    write_text_atomic(output, "".join(json.dumps(k, ensure_ascii=False, separators=(",", ":")) + "\n" for k in kept))
    click.echo(f"kept {len(kept)} answers -> {output}")


@main.command("replay")
@click.argument("kept", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("requests", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
def replay_command(kept: Path, requests: Path, output: Path) -> None:
    """Answer the exported REQUESTS from KEPT as a Batch API output file OUTPUT (for `kgbuild llm import`)."""
    lines = replay(read_kept(kept), requests)
    write_text_atomic(output, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    click.echo(f"answered {len(lines)} requests -> {output}")


if __name__ == "__main__":
    sys.exit(main())
