"""`kgbuild build`: the files it writes, and what it leaves when it fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder
from kgbuild.graph import load_graph
from kgbuild.output import write_build
from kgbuild.pipeline import BuildOptions, run_build
from tests.cli_in_process import Ran, run_cli

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "offline" / "harbour.fountain"


def run(*args: str) -> Ran:
    """`kgbuild ARGS` in this process (tests/cli_in_process.py), with the session's embedding cache."""
    return run_cli(*args)


def test_build_writes_graph_screenplay_report_and_graphml(tmp_path):
    out = tmp_path / "out"
    result = run("build", str(FIXTURE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted([*BuildFolder.BUILD_FILES, "merge_log.jsonl"])
    graph = load_graph(out / "graph.json")
    assert graph.provenance.backend == "offline"
    assert set(graph.provenance.timings) == {"parse", "chunk", "extract", "repair", "merge", "derive", "correct"}
    assert {e.name for e in graph.entities if e.type == "Character"} == {"Margo Vance", "Teddy Brake"}
    screenplay = json.loads((out / "screenplay.json").read_text())
    assert len(screenplay["scenes"]) == 3
    report = (out / "report.md").read_text()
    for section in ("## Entities by type", "## Relations by type", "## Repairs",
                    "## Scenes without any entity", "## Warnings"):
        assert section in report
    graphml = (out / "graph.graphml").read_text()
    assert graphml.count("<node ") == len(graph.entities)
    assert graphml.count("<edge ") == len(graph.relations)
    assert "extract (offline)" in result.stderr  # progress per stage


def test_build_refuses_bad_input_and_writes_nothing(tmp_path):
    src = tmp_path / "novel.txt"
    src.write_text("It was a dark and stormy night. " * 400)
    out = tmp_path / "out"
    result = run("build", str(src), "-o", str(out))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "screenplay" in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_failed_write_leaves_no_complete_looking_output(tmp_path, monkeypatch, embedder):
    state = run_build(FIXTURE, BuildOptions(embedder=embedder))

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("kgbuild.output.export_graphml", broken)
    out = tmp_path / "out"
    with pytest.raises(OutputError, match="cannot write the output folder .*: disk full"):
        write_build(state, out)
    assert not out.exists()  # no graph.json, no staging folder left behind, not even the folder it made


def test_rebuild_replaces_previous_output(tmp_path, embedder):
    options = BuildOptions(embedder=embedder)
    out = tmp_path / "out"
    (out).mkdir()
    (out / "graph.json").write_text("stale")
    write_build(run_build(FIXTURE, options), out)
    assert load_graph(out / "graph.json").movie.title == "The Harbour Job"
    assert not [p for p in out.iterdir() if p.name.startswith(".kgbuild-staging")]


@pytest.mark.slow
def test_build_folder_holds_a_queryable_store_with_the_graph(tmp_path):
    out = tmp_path / "out"
    result = run("build", str(FIXTURE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    graph = load_graph(out / "graph.json")
    query = run("query", "MATCH (n) RETURN count(n) AS nodes", "--db", str(out), "--format", "json")
    assert query.returncode == 0, query.stderr
    # A node per entity and per scene (the scene layer).
    assert json.loads(query.stdout)[0]["nodes"] == len(graph.entities) + len(graph.scenes) == len(graph.entities) + 3
    speakers = run("query", "MATCH (c:Character) RETURN c.name AS name ORDER BY name", "--db", str(out),
                   "--format", "json")
    assert [row["name"] for row in json.loads(speakers.stdout)] == ["Margo Vance", "Teddy Brake"]


def test_build_to_neo4j_needs_a_password_before_any_work(tmp_path, monkeypatch):
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    out = tmp_path / "out"
    result = run("build", str(FIXTURE), "-o", str(out), "--neo4j", "bolt://127.0.0.1:7687")
    assert result.returncode == 2 and "NEO4J_PASSWORD" in result.stderr
    assert not out.exists()


def test_build_to_an_unreachable_neo4j_keeps_the_local_build_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("NEO4J_PASSWORD", "secret")
    out = tmp_path / "out"
    result = run("build", str(FIXTURE), "-o", str(out), "--neo4j", "bolt://127.0.0.1:9")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "127.0.0.1:9" in result.stderr
    assert (out / "graph.json").exists() and (out / "graph.lbdb").exists()


def test_merge_gets_only_the_llm_budget_extraction_left():
    from kgbuild.extraction.llm.run import LLMExtraction
    from kgbuild.llm.costs import LLMUsage, TaskUsage
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.pipeline import remaining_budget

    settings = LLMSettings(model="m", max_cost=1.0, max_requests=10)
    usage = LLMUsage(backend="b", model="m", priced=True, tasks={
        "extract": TaskUsage(requests=3, cost_usd=0.25), "reflect": TaskUsage(requests=4, cost_usd=0.5)})
    spent = LLMExtraction.model_construct(usage=usage)
    left = remaining_budget(settings, spent)
    assert (left.max_requests, left.max_cost) == (3, 0.25)
    assert remaining_budget(settings.model_copy(update={"max_requests": 5}), spent).max_requests == 0
    unlimited = LLMSettings(model="m")
    assert remaining_budget(unlimited, spent) == unlimited
    assert remaining_budget(settings, None) == settings


def test_stages_in_the_wrong_order_fail_at_definition():
    from kgbuild.pipeline import STAGES, PipelineDefinitionError, check_stage_order

    check_stage_order(STAGES)
    by_name = {s.name: s for s in STAGES}
    with pytest.raises(PipelineDefinitionError, match="stage 'repair' reads Extracted but gets Chunked"):
        check_stage_order([by_name["parse"], by_name["chunk"], by_name["repair"]])
    with pytest.raises(PipelineDefinitionError, match="stage 'merge' reads Repaired but gets BuildInput"):
        check_stage_order([by_name["merge"]])
