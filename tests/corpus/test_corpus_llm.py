"""A corpus built with an LLM: two workers under one rate limit, and a batch round trip."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench.llm import plausible_reply, server_responder
from kgbuild.testing import FakeOpenAIServer
from tests.cli_in_process import Ran
from tests.corpus.helpers import (
    LLM_ENV,
    SCRIPTS,
    assert_paced,
    corpus_command,
    llm_env,
    movie_folders,
    run_kgbuild,
    statuses,
)

pytestmark = pytest.mark.slow

EXIT_BATCH_PENDING = 3


def _run(*args: str, cwd: Path) -> Ran:
    return run_kgbuild(*args, cache=cwd / "emb", **LLM_ENV)


def test_two_workers_share_one_rate_limit(tmp_path: Path):
    rpm = 120
    with FakeOpenAIServer(responder=server_responder()) as server:
        # The driver is a process of its own: in this one, its writes would hold up the server's
        # threads and bunch the arrival times the test reads.
        result = subprocess.run(
            corpus_command("build", *map(str, SCRIPTS[:4]), "-o", str(tmp_path / "out"), "--workers", "2",
                           "--no-merge", "--budget", "80", "--llm-model", "limit-model", "--llm-base-url",
                           server.base_url, "--concurrency", "4", "--llm-cache-dir", str(tmp_path / "llm"), "--rpm",
                           str(rpm)),
            check=False, capture_output=True, text=True, timeout=600,
            env={**llm_env(), "KGBUILD_CACHE_DIR": str(tmp_path / "emb")})
        times = sorted(r.received for r in server.requests)
    assert result.returncode == 0, result.stderr
    lines = statuses(tmp_path / "out")
    assert len({line["worker"] for line in lines.values()}) == 2  # two processes sent requests
    assert all(line["llm"]["requests"] >= 2 for line in lines.values())
    assert_paced(times, rpm)


def _answer_batch(request_file: Path, results: Path) -> int:
    """Play the Batch API: answer every request line of the file with the stand-in model."""
    lines = []
    for line in request_file.read_text().splitlines():
        request = json.loads(line)
        content = plausible_reply(request["body"]["messages"])
        body = {"model": request["body"]["model"], "choices": [{"index": 0, "finish_reason": "stop",
                                                                "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 50}}
        lines.append(json.dumps({"custom_id": request["custom_id"], "response": {"status_code": 200, "body": body},
                                 "error": None}))
    results.write_text("\n".join(lines) + "\n")
    return len(lines)


def test_a_corpus_batch_round_trip_sends_no_live_request(tmp_path: Path):
    out, requests = tmp_path / "out", tmp_path / "batch" / "requests.jsonl"
    with FakeOpenAIServer(responder=server_responder()) as server:
        build = ("build", *map(str, SCRIPTS[:3]), "-o", str(out), "--workers", "2", "--no-merge", "--budget", "150",
                 "--llm-model", "batch-model", "--llm-base-url", server.base_url, "--llm-cache-dir",
                 str(tmp_path / "llm"), "--llm-batch-export", str(requests))
        rounds = []
        for _ in range(6):
            result = _run(*build, cwd=tmp_path)
            if result.returncode == 0:
                break
            assert result.returncode == EXIT_BATCH_PENDING, result.stderr
            lines = statuses(out)
            assert {line["status"] for line in lines.values()} == {"pending"}
            ids = [json.loads(line)["custom_id"] for line in requests.read_text().splitlines()]
            assert len(ids) == len(set(ids)) == sum(line["batch_requests"] for line in lines.values())
            rounds.append(_answer_batch(requests, tmp_path / "results.jsonl"))
            imported = _run("llm", "import", str(tmp_path / "results.jsonl"), "--cache-dir", str(tmp_path / "llm"),
                            cwd=tmp_path)
            assert imported.returncode == 0, imported.stderr
        else:
            pytest.fail(f"no complete build after {len(rounds)} batch rounds")
        assert server.count() == 0  # not one live request
    assert len(rounds) == 2  # extraction of every movie's chunks in one export, then every review
    assert {line["status"] for line in statuses(out).values()} == {"done"}
    assert len(movie_folders(out)) == 3
