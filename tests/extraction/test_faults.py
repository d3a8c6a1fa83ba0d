"""An LLM build under faults (issue 31, items 1 and 2): invented facts stay out, silence and time end it.

A model's invented fact must not reach graph.json or the store: an event placed outside its
chunk is dropped, not moved into the chunk's scenes; the facts of a chunk that stays below the
review threshold are kept out unless --admit-below-threshold lets them in (the report says which);
a fact whose cited sentence shows none of its participants is dropped by grounding. A server that
takes connections and never answers, or a build that runs out of --llm-deadline, ends the build
with exit status 4, one line and the old build kept. Requests go through the real `openai` client
to the local server of `kgbuild.testing`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.llm import INVENTED_EVENT, INVENTED_QUOTE, invented_fact_responder, server_responder
from kgbuild.cli import cli
from kgbuild.extraction.llm.chunk_graph import build_chunk_graph
from kgbuild.extraction.llm.context import ChunkContext, SceneFacts
from kgbuild.extraction.llm.responses import ExtractionResponse
from kgbuild.folders import BuildFolder
from kgbuild.graph import load_graph
from kgbuild.schema import load_schema
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan
from tests.cli_in_process import run_cli
from tests.extraction.extraction_helpers import BRICK_BUDGET, SCRIPT_FIXTURE, FixtureModel

pytestmark = pytest.mark.shared_data


@pytest.fixture
def brick(shared_data: Path) -> Path:
    return shared_data / "screenplays" / "brick-and-steel.fountain"


@pytest.fixture
def lizard(shared_data: Path) -> Path:
    return shared_data / "screenplays" / "lizard-people.fountain"


def read_review(outdir: Path) -> list[dict]:
    return [json.loads(line) for line in (outdir / BuildFolder.REVIEW).read_text().splitlines()]


def stored_names(outdir: Path) -> set[str]:
    """The names of every node of the build's embedded store (graph.lbdb)."""
    result = CliRunner().invoke(cli, ["query", "MATCH (n) RETURN n.name AS name", "--db", str(outdir),
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    return {row["name"] for row in json.loads(result.output)}


def build_args(script: Path, out: Path, tmp: Path, server: FakeOpenAIServer, *extra: str) -> list[str]:
    return ["build", str(script), "-o", str(out), "-q", "--llm-model", "fault-model", "--llm-base-url",
            server.base_url, "--llm-cache-dir", str(tmp / "llm-cache"), "--cache-dir", str(tmp / "emb"), *extra]


# -- an event placed outside its chunk is dropped, not moved in -----------------------------------

def test_an_event_whose_scene_is_outside_the_chunk_is_dropped_with_its_reason():
    context = ChunkContext(chunk_id="scenes_1_5", scenes=[
        SceneFacts(index=i, number=None, heading="INT. VAN - DAY", location=["VAN"], time_of_day="DAY", speakers=[])
        for i in range(1, 6)], known_speakers=[], passage="(not read)")
    answer = {"events": [{"name": "Vader destroys Alderaan", "description": "", "scene": 4242,
                          "links": [{"relation": "performs", "entity": "Vader"}]},
                         {"name": "Sophie drives", "description": "", "scene": 2,
                          "links": [{"relation": "performs", "entity": "Sophie"}]}],
              "entities": [{"name": "Vader", "type": "Character", "description": "", "aliases": [], "scenes": [4242]},
                           {"name": "Sophie", "type": "Character", "description": "", "aliases": [], "scenes": [2]}],
              "relations": [{"source": "Vader", "type": "performs", "target": "Vader destroys Alderaan", "verb": "",
                             "persistence": "momentary", "evidence": ""}]}
    graph = build_chunk_graph(ExtractionResponse.model_validate(answer), context, load_schema())
    events = {e.name: e.scenes for e in graph.entities if e.type == "Event"}
    assert events == {"Sophie drives": [2]}  # not 'Vader destroys Alderaan' in scenes 1-5
    assert all("event:vader_destroys_alderaan" not in (r.source, r.target) for r in graph.relations)
    assert graph.dropped == [("Event 'Vader destroys Alderaan' (chunk scenes_1_5)",
                              "scene 4242 is not one of its chunk's scenes (1, 2, 3, 4, 5); left out with its 1 links")]


# -- the server that invents a fact ---------------------------------------------------------------

def test_an_invented_event_in_scene_4242_reaches_neither_the_graph_nor_the_store(lizard, tmp_path):
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=invented_fact_responder(scene=4242)) as server:
        kept_out = CliRunner().invoke(cli, build_args(lizard, out, tmp_path, server, "--scenes", "1-5"))
        assert kept_out.exit_code == 0, kept_out.output
        graph = load_graph(out / "graph.json")
        names = {e.name for e in graph.entities}
        assert INVENTED_EVENT not in names and "Darth Vader" not in names and "Alderaan" not in names
        assert INVENTED_EVENT not in stored_names(out)
        # The chunk stays below the threshold whatever the reviewer says (the scene is a hard failure),
        # so its facts are kept out; review.jsonl and the report say why.
        [entry] = read_review(out)
        assert entry["status"] == "below_threshold" and entry["in_graph"] is False
        assert any("has scene 4242, not one of this passage's scenes (1, 2, 3, 4, 5)" in r for r in entry["reasons"])
        report = (out / "report.md").read_text()
        assert "- Facts of chunks below the review threshold: kept out of the graph (1 chunk" in report

        # Let in, the chunk's other facts come, and the invented event is dropped: it is not moved into
        # scenes 1-5, so nobody witnesses it.
        let_in = CliRunner().invoke(cli, build_args(lizard, out, tmp_path, server, "--scenes", "1-5",
                                                    "--admit-below-threshold"))
    assert let_in.exit_code == 0, let_in.output
    graph = load_graph(out / "graph.json")
    names = {e.id: e.name for e in graph.entities}
    assert INVENTED_EVENT not in names.values() and "Sophie" in names.values()
    assert all(INVENTED_EVENT not in (names.get(r.source), names.get(r.target)) for r in graph.relations)
    assert INVENTED_EVENT not in stored_names(out)
    assert read_review(out)[0]["in_graph"] is True
    report = (out / "report.md").read_text()
    assert "- Facts of chunks below the review threshold: let into the graph by --admit-below-threshold" in report
    assert (f"  - Event '{INVENTED_EVENT}' (chunk scenes_1_5): its scene is outside its chunk (scene 4242 is not one "
            "of its chunk's scenes (1, 2, 3, 4, 5); left out with its 2 links)") in report


def test_an_invented_event_the_reviewer_accepts_is_dropped_by_its_participants(lizard, tmp_path):
    # Placed in scene 3 of the chunk and scored 9, the invented event passes every check of the
    # answer; the line of scene 3 it matches (Jamal's 'Uh, never mind.') shows nobody of it.
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=invented_fact_responder(scene=3)) as server:
        result = CliRunner().invoke(cli, build_args(lizard, out, tmp_path, server, "--scenes", "1-5"))
    assert result.exit_code == 0, result.output
    assert read_review(out) == []  # accepted
    graph = load_graph(out / "graph.json")
    names = {e.id: e.name for e in graph.entities}
    assert INVENTED_EVENT not in names.values() and "Darth Vader" not in names.values()
    assert not [r for r in graph.relations if INVENTED_EVENT in (names.get(r.source), names.get(r.target))]
    assert all(INVENTED_QUOTE not in ev.quote for r in graph.relations for ev in r.evidence if ev.producer.startswith(
        "llm:"))
    assert INVENTED_EVENT not in stored_names(out)
    report = (out / "report.md").read_text()
    assert f"  - Event '{INVENTED_EVENT}' (scenes 3): its lines name none of its participants" in report


# -- a chunk below the threshold: kept out by default, let in by the option -----------------------

def test_a_chunk_below_the_threshold_is_kept_out_by_default_and_let_in_by_the_option(brick, tmp_path):
    model = FixtureModel(SCRIPT_FIXTURE, brick)
    out = tmp_path / "out"
    scene_8 = {"Extremely Handsome Man", "Minion", "Palatial Mansion", "Minion reports finding Brick and Steel",
               "Handsome Man orders Brick and Steel killed"}
    with FakeOpenAIServer(responder=model.body_reply) as server:
        default = CliRunner().invoke(cli, build_args(brick, out, tmp_path, server, "--budget", str(BRICK_BUDGET)))
        assert default.exit_code == 0, default.output
        assert not scene_8 & {e.name for e in load_graph(out / "graph.json").entities}
        assert not scene_8 & stored_names(out)
        assert 8 not in {s for e in load_graph(out / "graph.json").entities for s in e.scenes}
        [entry] = read_review(out)
        assert (entry["chunk"], entry["status"], entry["in_graph"]) == ("scene_8", "below_threshold", False)
        assert entry["reasons"][0] == "Brick and Steel, the targets of the order, are not linked"
        report = (out / "report.md").read_text()
        assert ("- Facts of chunks below the review threshold: kept out of the graph (1 chunk, listed in "
                "review.jsonl; --admit-below-threshold lets them in)") in report
        assert "  - scene_8 (scenes 8): below_threshold, best score 5; 5 entities and 6 relations kept out" in report

        admitted = CliRunner().invoke(cli, build_args(brick, out, tmp_path, server, "--budget", str(BRICK_BUDGET),
                                                      "--admit-below-threshold"))
    assert admitted.exit_code == 0, admitted.output
    assert scene_8 <= {e.name for e in load_graph(out / "graph.json").entities}
    assert scene_8 <= stored_names(out)
    assert read_review(out)[0]["in_graph"] is True
    report = (out / "report.md").read_text()
    assert "- Facts of chunks below the review threshold: let into the graph by --admit-below-threshold" in report
    assert "  - scene_8 (scenes 8): below_threshold, best score 5; 5 entities and 6 relations let in" in report


# -- a server that never answers, and the deadline ------------------------------------------------

def _offline_build(script: Path, out: Path, tmp: Path) -> bytes:
    built = CliRunner().invoke(cli, ["build", str(script), "-o", str(out), "-q", "--cache-dir", str(tmp / "emb")])
    assert built.exit_code == 0, built.output
    return (out / "graph.json").read_bytes()


def _run(args: list[str], tmp: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """The build as a process of its own: what ends it is the point, and a hang ends at the timeout."""
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(tmp / "c"), "OPENAI_API_KEY": "x"}
    env.pop("KGBUILD_LLM_MODEL", None)
    start = time.monotonic()
    # Far more than the build may take, far less than the 14 minutes a silent server used to cost.
    result = subprocess.run([sys.executable, "-m", "kgbuild", *args], check=False, capture_output=True, text=True,
                            env=env, timeout=300)
    return result, time.monotonic() - start


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.slow
def test_a_server_that_never_answers_ends_the_build_at_its_first_timeout(brick, tmp_path):
    out = tmp_path / "out"
    good = _offline_build(brick, out, tmp_path)
    deadline = 120
    with FakeOpenAIServer(responder=server_responder(), faults=FaultPlan(rates={Fault.SILENT: 1.0})) as server:
        result, seconds = _run(build_args(brick, out, tmp_path, server, "--budget", "150", "--llm-timeout", "3",
                                          "--llm-deadline", str(deadline)), tmp_path)
        asked = server.count()
    assert result.returncode == 4, result.stderr
    assert seconds < deadline  # one timeout (3 s) and the build's own work, with room for a busy machine
    assert asked <= 8  # the first requests in flight (--concurrency 8), none of them retried
    assert _lines(result.stderr) == [
        f"kgbuild: the LLM server at {server.base_url}/ accepts connections but sent no answer within 3 s "
        "(--llm-timeout); check that it is the right server and that it is not stuck, or give it a longer "
        f"--llm-timeout if it is slow to start (0 of 6 chunks done); nothing was written (the build in {out} is kept)"]
    assert (out / "graph.json").read_bytes() == good


@pytest.mark.slow
def test_a_build_that_runs_out_of_its_deadline_ends_with_status_4_and_keeps_the_old_build(brick, tmp_path):
    out = tmp_path / "out"
    good = _offline_build(brick, out, tmp_path)
    # Every answer takes 2 s; six chunks, two requests each, one at a time: about 24 s of work.
    slow = FaultPlan(latency=2.0)
    with FakeOpenAIServer(responder=server_responder(), faults=slow) as server:
        result, seconds = _run(build_args(brick, out, tmp_path, server, "--budget", "150", "--concurrency", "1",
                                          "--llm-deadline", "5"), tmp_path)
    assert result.returncode == 4, result.stderr
    assert seconds < 120  # the deadline (5 s) and the build's own work, with room for a busy machine
    [line] = _lines(result.stderr)
    assert line.startswith("kgbuild: the LLM deadline (--llm-deadline) ran out with ")
    assert line.endswith(f"chunks done); nothing was written (the build in {out} is kept)")
    assert (out / "graph.json").read_bytes() == good


def test_merging_gets_the_deadline_extraction_left():
    from kgbuild.extraction.llm.run import LLMExtraction
    from kgbuild.llm.costs import LLMUsage
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.pipeline import remaining_budget

    spent = LLMExtraction.model_construct(usage=LLMUsage(backend="b", model="m", priced=False, tasks={}), seconds=4.0)
    assert remaining_budget(LLMSettings(model="m", deadline=10), spent).deadline == 6.0
    # Used up: the next request that is not cached stops at once.
    assert remaining_budget(LLMSettings(model="m", deadline=3), spent).deadline == pytest.approx(0, abs=1e-3)
    assert remaining_budget(LLMSettings(model="m"), spent).deadline is None


def test_waits_and_retries_are_shown_with_their_reason(brick, tmp_path):
    plan = FaultPlan(queue=[Fault.RATE_LIMIT], retry_after=0.5)
    with FakeOpenAIServer(responder=server_responder(), faults=plan) as server:
        args = build_args(brick, tmp_path / "out", tmp_path, server, "--budget", "150", "--concurrency", "1")
        env = {"KGBUILD_CACHE_DIR": str(tmp_path / "c"), "OPENAI_API_KEY": "x", "KGBUILD_LLM_MODEL": None}
        result = run_cli(*[a for a in args if a != "-q"], env=env)
    assert result.returncode == 0, result.stderr
    assert "LLM: retrying a request (extract) in 0.5 s, try 2 of 7: " in result.stderr
    assert f"{server.base_url}/ answered 429" in result.stderr
