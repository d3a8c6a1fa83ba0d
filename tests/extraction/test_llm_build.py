"""LLM builds end to end: the exact graph from scripted answers, faults, reruns, kills, batch mode.

Requests go through the real `LLMClient`, either to a `ScriptedBackend` or, through the real
`openai` client, to the local OpenAI-compatible server of `kgbuild.testing`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.llm import LLMBenchResult, bench_llm, format_llm_bench, server_responder
from kgbuild.cli import cli
from kgbuild.evidence import quote_occurs
from kgbuild.extraction.llm.extract import ChunkStatus, assemble
from kgbuild.folders import BuildFolder
from kgbuild.graph import load_graph
from kgbuild.llm.cache import ResponseCache, default_cache_path
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BudgetExceededError, LLMRequestError, LLMTransientError
from kgbuild.output import write_build
from kgbuild.pipeline import BuildOptions, run_build
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan
from tests.cli_in_process import run_cli
from tests.extraction.extraction_helpers import (
    BRICK_BUDGET,
    SCRIPT_FIXTURE,
    FixtureModel,
    batch_results,
    expected_graph,
    graph_as_expected,
    request_kind,
    scene_ids,
    ungrounded_relations,
)

pytestmark = pytest.mark.shared_data


@pytest.fixture
def brick(shared_data: Path) -> Path:
    return shared_data / "screenplays" / "brick-and-steel.fountain"


@pytest.fixture
def feature(shared_data: Path) -> Path:
    path = shared_data / "screenplays" / "lizard-people.fountain"
    assert len(path.read_text(encoding="utf-8").split()) > 20000  # feature length
    return path


def read_review(outdir: Path) -> list[dict]:
    return [json.loads(line) for line in (outdir / BuildFolder.REVIEW).read_text().splitlines()]


def body_key(body: dict) -> str:
    return json.dumps(body, sort_keys=True)


# -- correctness: scripted answers for every request --------------------------------------------

def test_scripted_build_gives_the_expected_graph_retries_and_review(brick, tmp_path):
    model = FixtureModel(SCRIPT_FIXTURE, brick)
    backend = ScriptedBackend(model.reply)
    # The expected graph holds scene 8, whose chunk stays below the threshold: let it in
    # (tests/extraction/test_faults.py builds the default, which keeps it out).
    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache", admit_below_threshold=True)
    state = run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings, llm_backend=backend))
    out = tmp_path / "out"
    written = write_build(state, out)

    assert graph_as_expected(state.graph) == expected_graph()
    # The scene layer comes from the screenplay's cues and text for the characters the model found.
    names = {e.id: e.name for e in state.graph.entities}
    assert len(state.graph.scenes) == len(state.screenplay.scenes)
    assert {names[p.character] for p in state.graph.scenes[0].presence if p.mode.value == "present"} >= {
        "Brick Braddock"}
    assert load_graph(out / "graph.json") == state.graph
    # Every fact cites lines of the screenplay that hold its quote; the facts without are counted.
    scenes = {s.index: s for s in state.screenplay.scenes}
    for fact in [*state.graph.entities, *state.graph.relations]:
        assert fact.evidence and all(quote_occurs(ev, scenes[ev.scene]) for ev in fact.evidence), fact.id
        producers = {ev.producer for ev in fact.evidence}
        derived_from = {p.removeprefix("derived:") for p in producers if p.startswith("derived:")}
        # Extracted facts cite the model; derived ones cite what they follow from: relations (located_at),
        # the event and the line showing the character there or telling them (witnesses, told_about).
        assert producers - {f"derived:{r}" for r in derived_from} <= {"llm:scripted-model/extract@4"}, fact.id
        known = {r.id for r in state.graph.relations} | {e.id for e in state.graph.entities} | {"presence", "speech"}
        assert derived_from <= known, fact.id
    assembly = assemble(state.screenplay, state.llm.run.outcomes, version="x", model="scripted-model",
                        admit_below_threshold=True)
    assert (assembly.ungrounded.entities, assembly.ungrounded.relations) == (0, len(ungrounded_relations()))
    # Retries exactly where the scripted scores (and the hard failure) say so.
    assert model.attempts() == {"scene_1": 1, "scenes_2_5": 2, "scenes_6_7": 2, "scene_8": 3}
    # Extraction and review per attempt, then one entity-merging question (Brick's Patio or Pool).
    assert len(backend.requests) == 2 * (1 + 2 + 2 + 3) + 1
    assert model.log[-1][:2] == ("merge", "adjudicate")
    outcomes = {o.chunk_id: o for o in state.llm.run.outcomes}
    assert [a.score for a in outcomes["scenes_2_5"].attempts] == [4, 9]
    self_relation = outcomes["scenes_6_7"].attempts[0]
    assert (self_relation.model_score, self_relation.score, self_relation.accepted) == (9, 6, False)
    assert any("links an item to itself" in h for h in self_relation.hard_failures)
    retry = next(m for chunk, kind, n, m in model.log if (chunk, kind, n) == ("scenes_6_7", "extract", 1))
    assert "scored 6/10" in retry[-1]["content"] and "links an item to itself" in retry[-1]["content"]
    assert [o.status for o in outcomes.values()] == [ChunkStatus.ACCEPTED] * 3 + [ChunkStatus.BELOW_THRESHOLD]
    assert outcomes["scene_8"].best_attempt == 1
    # review.jsonl lists exactly the chunk left below the threshold, with scores and reasons.
    assert out / BuildFolder.REVIEW in written
    assert read_review(out) == [{
        "chunk": "scene_8", "scenes": [8], "status": "below_threshold", "best_score": 5, "scores": [3, 5, 4],
        "reasons": ["Brick and Steel, the targets of the order, are not linked",
                    "note: relation 'Minion reports finding Brick and Steel causes Handsome Man orders Brick and "
                    "Steel killed' has no quote; give the words of the passage that show it"],
        "in_graph": True}]
    report = (out / "report.md").read_text()
    assert "## Chunks to review (1, listed in review.jsonl)" in report
    assert "- scene_8 (scenes 8): below_threshold, best score 5" in report
    assert "- Facts of chunks below the review threshold: let into the graph by --admit-below-threshold" in report
    assert "  - scene_8 (scenes 8): below_threshold, best score 5; 5 entities and 6 relations let in" in report
    assert "| reflect_retry | 4 |" in report
    provenance = state.graph.provenance
    assert (provenance.backend, provenance.model) == ("llm", "scripted-model")
    assert provenance.token_usage["total.requests"] == 16
    assert provenance.token_usage["extract_retry.calls"] == 4
    assert set(provenance.timings) == {"parse", "chunk", "extract", "repair", "merge", "derive", "correct"}

    # A second build of the same script is answered from the cache: no request at all.
    again = ScriptedBackend(model.reply)
    second = run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings, llm_backend=again))
    assert again.requests == []
    assert graph_as_expected(second.graph) == expected_graph()
    assert second.llm.usage.total.cache_hits == 16


def test_chunk_whose_requests_keep_failing_is_recorded_not_raised(brick, tmp_path):
    model = FixtureModel(SCRIPT_FIXTURE, brick)

    def flaky(request):
        messages = [m.model_dump() for m in request.messages]
        if scene_ids(messages) == (8,):
            return LLMTransientError("server overloaded", retry_after=0)
        if scene_ids(messages) == (1,) and request_kind(messages) == "extract":
            return "Sorry, I cannot answer that."  # never JSON: repairs cannot help
        return model.reply(request)

    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache", request_retries=1)
    state = run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings,
                                          llm_backend=ScriptedBackend(flaky)))
    write_build(state, tmp_path / "out")
    review = {entry["chunk"]: entry for entry in read_review(tmp_path / "out")}
    assert set(review) == {"scene_1", "scene_8"}
    assert review["scene_8"]["status"] == "failed" and review["scene_8"]["scores"] == [None]
    assert "extraction failed" in review["scene_8"]["reasons"][0]
    assert "failed 2 times in a row" in review["scene_8"]["reasons"][0]
    assert review["scene_1"]["status"] == "failed"
    assert "no reply validated" in review["scene_1"]["reasons"][0]
    # The other chunks are in the graph; the failed ones contributed nothing.
    scenes = {s for e in state.graph.entities for s in e.scenes}
    assert scenes == {2, 3, 4, 6, 7}


# -- faults through the real openai client ------------------------------------------------------

@pytest.mark.slow
def test_feature_build_survives_rate_limits_errors_garbage_and_timeouts(feature, tmp_path):
    plan = FaultPlan(rates={Fault.RATE_LIMIT: 0.10, Fault.SERVER_ERROR: 0.10, Fault.MALFORMED: 0.05,
                            Fault.TRUNCATED: 0.05, Fault.TIMEOUT: 0.05},
                     seed=7, retry_after=0.2, timeout_sleep=2.0)
    with FakeOpenAIServer(responder=server_responder(low_every=4), faults=plan) as server:
        settings = LLMSettings(model="fault-model", base_url=server.base_url, concurrency=8, timeout=1.0,
                               cache_dir=tmp_path / "cache")
        state = run_build(feature, BuildOptions(llm=settings))
        injected = {fault: server.count(fault) for fault in Fault}
    write_build(state, tmp_path / "out")
    assert injected[Fault.RATE_LIMIT] and injected[Fault.SERVER_ERROR] and injected[Fault.TIMEOUT]
    assert injected[Fault.MALFORMED] and injected[Fault.TRUNCATED]
    outcomes = state.llm.run.outcomes
    review = {entry["chunk"]: entry for entry in read_review(tmp_path / "out")}
    for outcome in outcomes:
        assert outcome.status in (ChunkStatus.ACCEPTED, ChunkStatus.BELOW_THRESHOLD, ChunkStatus.FAILED)
        if outcome.status is ChunkStatus.ACCEPTED:
            assert outcome.chunk_id not in review and outcome.graph is not None
        else:
            assert review[outcome.chunk_id]["reasons"], outcome.chunk_id
    assert len(review) == sum(o.status is not ChunkStatus.ACCEPTED for o in outcomes)
    usage = state.llm.usage.total
    assert usage.retries > 0 and usage.repairs > 0
    assert state.graph.entities and state.graph.relations
    # Reflection retries happened for the low-scored chunks (one in four, scored 5 by the stand-in).
    assert state.llm.usage.tasks["extract_retry"].calls > 0


# -- reruns, budget stops and kills -------------------------------------------------------------

def _settings(server: FakeOpenAIServer, cache: Path, **extra) -> LLMSettings:
    return LLMSettings(model="rerun-model", base_url=server.base_url, concurrency=2, cache_dir=cache, **extra)


def test_rerun_is_free_and_a_budget_stop_resumes_with_only_the_remaining_requests(brick, tmp_path):
    options = {"token_budget": 150}
    with FakeOpenAIServer(responder=server_responder()) as server:
        full = run_build(brick, BuildOptions(llm=_settings(server, tmp_path / "a"), **options))
        total = server.count()
        assert total == 2 * len(full.chunks) + 1  # and one entity-merging question
        run_build(brick, BuildOptions(llm=_settings(server, tmp_path / "a"), **options))
        assert server.count() == total  # the second build sent nothing

        half = total // 2
        with pytest.raises(BudgetExceededError, match=r"rerun with a larger --max-requests"):
            run_build(brick, BuildOptions(llm=_settings(server, tmp_path / "b", max_requests=half), **options))
        first = server.requests[total:]
        assert len(first) == half
        resumed = run_build(brick, BuildOptions(llm=_settings(server, tmp_path / "b"), **options))
        second = server.requests[total + half:]
    assert len(second) == total - half
    assert not {body_key(r.body) for r in first} & {body_key(r.body) for r in second}
    assert resumed.graph.entities == full.graph.entities and resumed.graph.relations == full.graph.relations


@pytest.mark.slow
def test_killed_build_restarts_with_only_the_requests_that_had_not_completed(brick, tmp_path):
    no_openai: dict[str, str | None] = {"OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
    env = {k: v for k, v in os.environ.items() if k not in no_openai}
    with FakeOpenAIServer(responder=server_responder(), faults=FaultPlan(latency=0.3)) as server:
        def build(cache: str, out: str) -> list[str]:
            return ["build", str(brick), "-o", str(tmp_path / out), "-q",
                    "--budget", "150", "--llm-model", "kill-model", "--llm-base-url", server.base_url,
                    "--concurrency", "2", "--llm-cache-dir", str(tmp_path / cache),
                    "--cache-dir", str(tmp_path / "emb")]

        # How many requests a whole build makes (with a cache of its own; in this process).
        reference = run_cli(*build("ref-cache", "ref"), env=no_openai)
        assert reference.returncode == 0, reference.stderr
        total = server.count()
        # The build that is killed is a process of its own.
        proc = subprocess.Popen([sys.executable, "-m", "kgbuild", *build("cache", "out")], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert server.wait_for_requests(total + total // 2, timeout=120)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(1.0)  # let the server finish the requests the killed build left in flight
        with ResponseCache(default_cache_path(tmp_path / "cache")) as cache:
            completed = len(cache)
        assert 0 < completed < total
        before = server.count()
        restart = run_cli(*build("cache", "out"), env=no_openai)
        assert restart.returncode == 0, restart.stderr
        assert server.count() - before == total - completed
    assert load_graph(tmp_path / "out" / "graph.json").relations == load_graph(
        tmp_path / "ref" / "graph.json").relations


# -- batch mode through `kgbuild build --llm-batch-export` --------------------------------------

def test_batch_round_trip_through_build_then_no_live_requests(brick, tmp_path):
    model = FixtureModel(SCRIPT_FIXTURE, brick)
    runner = CliRunner()
    cache = tmp_path / "cache"
    export = tmp_path / "batch.jsonl"
    common = [str(brick), "-o", str(tmp_path / "out"), "-q", "--budget", str(BRICK_BUDGET),
              "--llm-model", "batch-model", "--llm-cache-dir", str(cache), "--cache-dir", str(tmp_path / "emb"),
              "--admit-below-threshold"]  # the expected graph holds scene 8, below the threshold
    pending = []
    for _ in range(10):
        result = runner.invoke(cli, ["build", *common, "--llm-batch-export", str(export)])
        if result.exit_code == 0:
            break
        assert result.exit_code == 3, result.output
        assert "requests pending" in result.output and "kgbuild llm import" in result.output
        lines = export.read_text().splitlines()
        pending.append(len(lines))
        assert all(json.loads(line)["url"] == "/v1/chat/completions" for line in lines)
        results = tmp_path / "results.jsonl"
        results.write_text(batch_results(export, model.body_reply))
        imported = runner.invoke(cli, ["llm", "import", str(results), "--cache-dir", str(cache)])
        assert imported.exit_code == 0, imported.output
    # One round per task: extraction, review, and again for each retry; then the merge stage's.
    assert pending == [4, 4, 3, 3, 1, 1, 1]
    assert graph_as_expected(load_graph(tmp_path / "out" / "graph.json")) == expected_graph()
    with FakeOpenAIServer(responder=lambda body: "{}") as server:
        result = runner.invoke(cli, ["build", *common, "--llm-base-url", server.base_url])
        assert result.exit_code == 0, result.output
        assert server.count() == 0
    assert read_review(tmp_path / "out")[0]["chunk"] == "scene_8"


#: An extra mention of scene 1 that the rules cannot normalize: the merge stage asks the LLM about it.
RELATIVE_REFERENCE = {"name": "his former partner", "type": "Character", "description": "Steel, Brick's partner",
                      "aliases": [], "scenes": [1]}


class MergingModel(FixtureModel):
    """The fixture's extraction answers, one more mention in scene 1, and the merge stage's answers."""

    def __init__(self, script: Path, screenplay: Path):
        super().__init__(script, screenplay)
        self.merge_requests: list[str] = []

    def reply_to_messages(self, messages):
        kind = request_kind(messages)
        if kind == "normalize":
            self.merge_requests.append(kind)
            assert '"his former partner"' in messages[1]["content"]
            return json.dumps({"items": [{"index": 1, "name": "", "type": "Character", "keep_apart": True,
                                          "reason": "relative reference"}]})
        reply = super().reply_to_messages(messages)
        if kind == "extract" and self.log[-1][0] == "scene_1":
            answer = json.loads(reply)
            reply = json.dumps({**answer, "entities": [*answer["entities"], RELATIVE_REFERENCE]})
        return reply


def test_batch_mode_covers_the_merge_stage(brick, tmp_path):
    model = MergingModel(SCRIPT_FIXTURE, brick)
    runner = CliRunner()
    cache = tmp_path / "cache"
    export = tmp_path / "batch.jsonl"
    common = [str(brick), "-o", str(tmp_path / "out"), "-q", "--budget", str(BRICK_BUDGET),
              "--llm-model", "batch-model", "--llm-cache-dir", str(cache), "--cache-dir", str(tmp_path / "emb")]
    rounds, messages = [], []
    for _ in range(10):
        result = runner.invoke(cli, ["build", *common, "--llm-batch-export", str(export)])
        if result.exit_code == 0:
            break
        assert result.exit_code == 3, result.output
        messages.append(result.stderr)
        rounds.append(sorted(request_kind(json.loads(line)["body"]["messages"])
                             for line in export.read_text().splitlines()))
        results = tmp_path / "results.jsonl"
        results.write_text(batch_results(export, model.body_reply))
        assert runner.invoke(cli, ["llm", "import", str(results), "--cache-dir", str(cache)]).exit_code == 0
    # Extraction and review rounds as without the extra mention, then the merge stage's two rounds:
    # the name the rules cannot normalize, then the one merging question (Brick's Patio or Pool).
    assert [len(r) for r in rounds] == [4, 4, 3, 3, 1, 1, 1, 1]
    assert rounds[-2:] == [["normalize"], ["adjudicate"]] and "1 requests pending" in messages[-1]
    assert "entity merging needs them" in messages[-1] and "kgbuild llm import" in messages[-1]
    assert model.merge_requests == ["normalize"]
    assert "his former partner" in {e.name for e in load_graph(tmp_path / "out" / "graph.json").entities}
    with FakeOpenAIServer(responder=lambda body: "{}") as server:
        result = runner.invoke(cli, ["build", *common, "--llm-base-url", server.base_url])
        assert result.exit_code == 0, result.output
        assert server.count() == 0


def test_a_refused_merge_request_stops_the_build(brick, tmp_path):
    model = MergingModel(SCRIPT_FIXTURE, brick)

    def refuse_merging(request):
        if request_kind([m.model_dump() for m in request.messages]) == "normalize":
            raise LLMRequestError("http://x/v1 answered 401: wrong key. Check OPENAI_API_KEY (and OPENAI_BASE_URL).")
        return model.reply(request)

    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache")
    with pytest.raises(LLMRequestError, match="answered 401"):
        run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings,
                                      llm_backend=ScriptedBackend(refuse_merging)))


# -- the command line ---------------------------------------------------------------------------

def test_build_command_reports_usage_and_review(brick, tmp_path):
    with FakeOpenAIServer(responder=server_responder(low_every=2)) as server:
        result = CliRunner().invoke(cli, [
            "build", str(brick), "-o", str(tmp_path / "out"), "-q", "--budget", "150",
            "--llm-model", "cli-model", "--llm-base-url", server.base_url, "--llm-cache-dir", str(tmp_path / "c"),
            "--cache-dir", str(tmp_path / "emb"), "--reflection-retries", "0", "--reflection-threshold", "7"])
    assert result.exit_code == 0, result.output
    review = read_review(tmp_path / "out")
    assert review and all(entry["scores"] == [5] for entry in review)
    assert f"{len(review)} of 6 chunks need review: " in result.output
    assert "Per 1,000 script words:" in result.output and "extract" in result.output


def test_build_command_budget_stop_and_llm_options_without_model(brick, tmp_path):
    stop = run_cli("build", str(brick), "-o", str(tmp_path / "out"), "-q", "--llm-model", "m", "--llm-base-url",
                   "http://127.0.0.1:9/v1", "--max-requests", "0",
                   env={"KGBUILD_CACHE_DIR": str(tmp_path / "c"), "KGBUILD_LLM_MODEL": None})
    assert stop.returncode == 2 and "Traceback" not in stop.stderr
    # The script is one chunk at the LLM default of 2,500 tokens.
    assert "budget stopped the build: 0 of 1 chunks done" in stop.stderr and "rerun with a larger" in stop.stderr
    assert not (tmp_path / "out" / "graph.json").exists()
    usage = CliRunner().invoke(cli, ["build", str(brick), "-o", str(tmp_path / "out"), "--concurrency", "4"])
    assert usage.exit_code == 2 and "--concurrency need an LLM: add --llm-model" in usage.output


# -- the benchmark (numbers, not assertions on time) --------------------------------------------

def test_llm_benchmark_returns_its_numbers(brick, tmp_path):
    result = bench_llm(brick, latency=0.0, concurrencies=(1, 4), chunk_tokens=150, tmp_dir=tmp_path)
    assert isinstance(result, LLMBenchResult)
    assert [r.concurrency for r in result.runs] == [1, 4]
    # An extraction and a review per chunk, and one entity-merging question.
    assert result.runs[0].requests == result.runs[1].requests == 2 * result.chunks + 1
    assert result.runs[0].max_in_flight == 1
    assert result.first_requests_per_kword == pytest.approx(1000 * 2 * result.chunks / result.words, abs=1e-3)
    lines = format_llm_bench(result)
    assert "speed-up" in lines[-4] and "per 1,000 words before retries" in lines[-3]


# -- a failure never looks like success ---------------------------------------------------------

def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_no_server_at_the_address_stops_the_build_after_five_refusals(brick, tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = run_cli("build", str(brick), "-o", str(tmp_path / "out"), "-q", "--llm-model", "m", "--llm-base-url", url,
                     "--budget", "150", env={"KGBUILD_CACHE_DIR": str(tmp_path / "c"), "OPENAI_API_KEY": "x"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        f"kgbuild: error: the first 5 requests found no LLM server (connection to {url}/ refused); check "
        "that the server is up and the base URL (--llm-base-url or OPENAI_BASE_URL, usually ending in /v1)"]
    assert not (tmp_path / "out").exists()


def test_failed_chunks_exit_4_and_an_existing_build_is_kept_unless_partial_is_allowed(brick, tmp_path):
    out = tmp_path / "out"
    runner = CliRunner()
    built = runner.invoke(cli, ["build", str(brick), "-o", str(out), "-q", "--cache-dir", str(tmp_path / "e")])
    assert built.exit_code == 0
    good = (out / "graph.json").read_bytes()
    always_429 = FaultPlan(rates={Fault.RATE_LIMIT: 1.0}, retry_after=0)
    args = ["build", str(brick), "-o", str(out), "-q", "--budget", "150", "--llm-model", "m",
            "--llm-cache-dir", str(tmp_path / "c"), "--cache-dir", str(tmp_path / "e")]
    with FakeOpenAIServer(responder=server_responder(), faults=always_429) as server:
        kept = runner.invoke(cli, [*args, "--llm-base-url", server.base_url])
        assert kept.exit_code == 4
        assert "6 of 6 chunks failed; the build in" in kept.output and "--allow-partial" in kept.output
        assert (out / "graph.json").read_bytes() == good
        replaced = runner.invoke(cli, [*args, "--llm-base-url", server.base_url, "--allow-partial"])
    assert replaced.exit_code == 4 and "6 of 6 chunks failed (no valid answer after the retries" in replaced.output
    assert load_graph(out / "graph.json").provenance.backend == "llm"
    assert {entry["status"] for entry in read_review(out)} == {"failed"}
