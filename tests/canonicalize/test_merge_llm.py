"""Merging with an LLM: the client from the shared factory, batch export, fatal errors, `kgbuild merge`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.canonicalize import adjudicate, llm_normalize
from kgbuild.canonicalize.adjudicate import AdjudicationReply, adjudicate_llm, build_messages
from kgbuild.canonicalize.llm_normalize import NormalizationReply, normalize_with_llm
from kgbuild.canonicalize.merge import merge_graph_llm
from kgbuild.cli import cli
from kgbuild.graph import load_graph, save_graph
from kgbuild.llm.batch import import_batch_results
from kgbuild.llm.cache import ResponseCache, cache_key, default_cache_path
from kgbuild.llm.client import LLMClient
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import (
    BatchPendingError,
    BudgetExceededError,
    ChatRequest,
    LLMRequestError,
    LLMTransientError,
)
from kgbuild.model import Entity, KnowledgeGraph, Scope
from kgbuild.testing import FakeOpenAIServer
from tests.canonicalize.test_adjudicate import cand
from tests.canonicalize.test_merge import story
from tests.cli_in_process import run_cli
from tests.extraction.extraction_helpers import batch_results, request_kind

REPO = Path(__file__).resolve().parents[2]


def story_with_a_relative_reference() -> KnowledgeGraph:
    """`story()` plus a mention the rules cannot normalize ('his boss'): one normalization request."""
    graph = story()
    boss = Entity(id="character:his_boss", name="his boss", type="Character", scope=Scope.GLOBAL,
                  description="Moseley's superior.", scenes=[4])
    return graph.model_copy(update={"entities": [*graph.entities, boss]})


def answer_messages(messages: list[dict]) -> str:
    """A scripted merging model: 'his boss' is no stable entity, the Moseleys are one detective."""
    kind = request_kind(messages)
    user = messages[1]["content"]
    if kind == "normalize":
        assert '"his boss"' in user
        return json.dumps({"items": [{"index": 1, "name": "", "type": "Character", "keep_apart": True,
                                      "reason": "relative reference"}]})
    assert kind == "adjudicate", kind
    if "Moseley" in user:
        return json.dumps({"merges": [{"canonical_name": "Robert Moseley", "aliases": ["Moseley"],
                                       "justification": "the same detective"}], "unmerged": []})
    return json.dumps({"merges": [], "unmerged": []})


def answer(request: ChatRequest) -> str:
    return answer_messages([m.model_dump() for m in request.messages])


def answer_body(body: dict) -> str:
    return answer_messages(body["messages"])


# -- prompts: versioned files, the version in every request and cache key -----------------------

def test_merge_prompts_are_versioned_files_whose_version_is_in_the_cache_key(monkeypatch):
    client = LLMClient(ScriptedBackend("{}"), "m")
    cluster = [cand("Marge"), cand("Marge Gunderson")]
    for module, make, reply, name in [
        (adjudicate, lambda: build_messages(cluster), AdjudicationReply, "adjudicate"),
        (llm_normalize, lambda: llm_normalize._messages(cluster, ["Character"]), NormalizationReply, "normalize"),
    ]:
        prompt = load_prompt(name)
        messages = make()
        assert messages[0].content.startswith(f"[kgbuild prompt {name} v{prompt.version}]\n")
        assert '"Marge Gunderson"' in messages[1].content
        before = cache_key(client.request_for(messages, reply))
        monkeypatch.setattr(module, "load_prompt", lambda _, p=prompt: p.model_copy(update={"version": 99}))
        bumped = make()
        assert bumped[0].content.startswith(f"[kgbuild prompt {name} v99]\n")
        assert cache_key(client.request_for(bumped, reply)) != before


# -- fatal errors stop merging; answer problems are logged per cluster --------------------------

@pytest.mark.parametrize("error", [LLMRequestError("401: wrong key"),
                                   BudgetExceededError("request budget reached")])
def test_adjudication_and_normalization_raise_fatal_errors(error):
    cluster = [cand("Marge"), cand("Marge Gunderson")]
    with pytest.raises(type(error)):
        asyncio.run(adjudicate_llm(cluster, LLMClient(ScriptedBackend(error), "m")))
    with pytest.raises(type(error)):
        asyncio.run(normalize_with_llm([cand("his boss")], LLMClient(ScriptedBackend(error), "m"), ["Character"]))


def test_a_server_failing_every_retry_keeps_the_cluster_apart_and_is_logged(embedder, tmp_path):
    settings = LLMSettings(model="m", cache_dir=tmp_path / "c", request_retries=0)
    merged, log = merge_graph_llm(story(), None, embedder, settings,
                                  backend=ScriptedBackend(LLMTransientError("503")))
    errors = [e for e in log if e.action == "error"]
    assert errors and all("failed 1 times in a row" in e.evidence[0] for e in errors)
    assert "Moseley" in {e.name for e in merged.entities}


def test_a_refused_request_or_the_budget_stops_merging(embedder, tmp_path):
    settings = LLMSettings(model="m", cache_dir=tmp_path / "c")
    backend = ScriptedBackend(LLMRequestError("http://x/v1 answered 401: bad key. Check OPENAI_API_KEY"))
    with pytest.raises(LLMRequestError, match="401"):
        merge_graph_llm(story(), None, embedder, settings, backend=backend)
    with pytest.raises(BudgetExceededError, match="the budget stopped entity merging: request budget reached"):
        merge_graph_llm(story(), None, embedder, settings.model_copy(update={"max_requests": 0}),
                        backend=ScriptedBackend(answer))


# -- batch mode: merging is exported like extraction --------------------------------------------

def export_kinds(path: Path) -> list[str]:
    return sorted(request_kind(json.loads(line)["body"]["messages"]) for line in path.read_text().splitlines())


def test_batch_export_covers_normalization_then_adjudication_and_resumes_from_the_cache(embedder, tmp_path):
    export = tmp_path / "batch.jsonl"
    settings = LLMSettings(model="m", cache_dir=tmp_path / "c", batch_export=export)
    nothing = ScriptedBackend(RuntimeError("batch mode sends no request"))
    rounds = []
    for _ in range(4):
        try:
            merged, log = merge_graph_llm(story_with_a_relative_reference(), None, embedder, settings, backend=nothing)
            break
        except BatchPendingError as e:
            assert str(e).startswith(f"{len(export.read_text().splitlines())} requests pending: written to {export}")
            assert "entity merging needs them" in str(e) and "kgbuild llm import" in str(e)
            rounds.append(export_kinds(export))
            (tmp_path / "results.jsonl").write_text(batch_results(export, answer_body))
            with ResponseCache(default_cache_path(tmp_path / "c")) as cache:
                assert not import_batch_results(tmp_path / "results.jsonl", cache).errors
    assert rounds == [["normalize"], ["adjudicate", "adjudicate"]]
    assert nothing.requests == []
    # The same merge live: no request at all, and the result of a live scripted run.
    again = ScriptedBackend(RuntimeError("no request expected"))
    live = settings.model_copy(update={"batch_export": None})
    assert merge_graph_llm(story_with_a_relative_reference(), None, embedder, live, backend=again) == (merged, log)
    assert again.requests == []
    fresh = live.model_copy(update={"cache_dir": tmp_path / "fresh"})
    reference = merge_graph_llm(story_with_a_relative_reference(), None, embedder, fresh,
                                backend=ScriptedBackend(answer))
    assert reference == (merged, log)
    assert "Moseley" not in {e.name for e in merged.entities}
    assert "his boss" in {e.name for e in merged.entities}


# -- `kgbuild merge` with an LLM ------------------------------------------------------------------

def merge_args(tmp_path: Path, *more: str) -> list[str]:
    return ["merge", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--llm-cache-dir", str(tmp_path / "c"),
            "--cache-dir", str(tmp_path / "emb"), *more]


def test_merge_command_batch_round_trip_then_no_live_requests(tmp_path):
    save_graph(story_with_a_relative_reference(), tmp_path / "in" / "graph.json")
    export = tmp_path / "batch.jsonl"
    runner = CliRunner()
    pending = []
    for _ in range(4):
        result = runner.invoke(cli, merge_args(tmp_path, "--llm-model", "m", "--llm-batch-export", str(export)))
        if result.exit_code == 0:
            break
        assert result.exit_code == 3, result.output
        assert "requests pending" in result.stderr and not (tmp_path / "out" / "graph.json").exists()
        pending.append(export_kinds(export))
        (tmp_path / "results.jsonl").write_text(batch_results(export, answer_body))
        imported = runner.invoke(cli, ["llm", "import", str(tmp_path / "results.jsonl"), "--cache-dir",
                                       str(tmp_path / "c")])
        assert imported.exit_code == 0, imported.output
    assert pending == [["normalize"], ["adjudicate", "adjudicate"]]
    assert "Moseley" not in {e.name for e in load_graph(tmp_path / "out" / "graph.json").entities}
    with FakeOpenAIServer(responder=lambda body: "{}") as server:
        result = runner.invoke(cli, merge_args(tmp_path, "--llm-model", "m", "--llm-base-url", server.base_url))
        assert result.exit_code == 0, result.output
        assert server.count() == 0


def test_merge_command_logs_a_malformed_answer_and_exits_0(tmp_path):
    save_graph(story(), tmp_path / "in" / "graph.json")

    def garbage_for_moseley(body: dict) -> str:
        return "I think they are the same." if "Moseley" in body["messages"][1]["content"] else answer_body(body)

    with FakeOpenAIServer(responder=garbage_for_moseley) as server:
        result = CliRunner().invoke(cli, merge_args(tmp_path, "--llm-model", "m", "--llm-base-url", server.base_url))
    assert result.exit_code == 0, result.output
    assert "1 failed adjudications kept apart" in result.output
    log = [json.loads(line) for line in (tmp_path / "out" / "merge_log.jsonl").read_text().splitlines()]
    (error,) = [e for e in log if e["action"] == "error"]
    assert "Moseley" in error["names"] and "no reply validated" in error["evidence"][0]


def test_merge_command_with_a_wrong_key_exits_2_with_one_line(tmp_path):
    save_graph(story(), tmp_path / "in" / "graph.json")
    with FakeOpenAIServer(responder=answer_body, api_key="right-key") as server:
        run = run_cli(*merge_args(tmp_path, "--llm-model", "m", "--llm-base-url", server.base_url),
                      env={"OPENAI_API_KEY": "wrong-key"})
        statuses = {r.status for r in server.requests}
    assert run.returncode == 2, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kgbuild: error: ") and "401" in lines[0], run.stderr
    assert "Check OPENAI_API_KEY" in lines[0]
    assert statuses == {401} and not (tmp_path / "out" / "graph.json").exists()


def test_llm_flags_without_a_model_are_a_usage_error(tmp_path):
    save_graph(story(), tmp_path / "in" / "graph.json")
    result = CliRunner().invoke(cli, merge_args(tmp_path, "--concurrency", "4"), env={"KGBUILD_LLM_MODEL": ""})
    assert result.exit_code == 2 and "--llm-cache-dir, --concurrency need an LLM: add --llm-model" in result.output
