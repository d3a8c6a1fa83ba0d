"""Applying merges: ids, names, aliases, relation endpoints, dedupe, the log; merge_graph end to end."""

from __future__ import annotations

import json

from kgbuild.canonicalize.constraints import SpeakerIndex
from kgbuild.canonicalize.merge import (
    MergeOptions,
    MergePlan,
    PlannedMerge,
    apply_merges,
    merge_graph,
    plan_merges,
)
from kgbuild.graph import GraphBuilder
from kgbuild.llm.client import LLMClient
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.model import (
    Element,
    ElementKind,
    Entity,
    KnowledgeGraph,
    Scene,
    Scope,
    Screenplay,
    Source,
    SourceFormat,
)
from tests.factories import ev


def story() -> KnowledgeGraph:
    b = GraphBuilder()
    full = b.entity("Character", "Robert Moseley", 1, description="A police detective.", scope=Scope.GLOBAL,
                    evidence=[ev(1, "ROBERT MOSELEY, 50s, enters.")])
    short = b.entity("Character", "Moseley", 2, description="The detective on the case.", scope=Scope.GLOBAL,
                     evidence=[ev(2, "Moseley sits.")])
    caps = b.entity("Character", "Detective Moseley", 3, aliases=["Bob"], scope=Scope.GLOBAL)
    ann = b.entity("Character", "Ann", 2, description="A witness.", scope=Scope.GLOBAL,
                   evidence=[ev(2, "ANN, 30s, waits.")])
    young = b.entity("Character", "Young Ann", 5, description="Ann as a girl.", scope=Scope.GLOBAL,
                     evidence=[ev(5, "YOUNG ANN, 8, skips rope.")])
    station = b.entity("Location", "Police Station", 1, scope=Scope.GLOBAL)
    b.relation(full, "located_at", station, 1, evidence=[ev(1, "Moseley walks into the station.")])
    b.relation(short, "located_at", station, 2, evidence=[ev(2, "Moseley sits at the station.")])
    b.relation(caps, "affinity_with", ann, 3)
    b.relation(short, "affinity_with", ann, 4)
    b.relation(full, "kinship_with", short, 2)
    b.relation(young, "located_at", station, 5)
    sp = Screenplay(title="t", language="en", scenes=[],
                    source=Source(path="x", format=SourceFormat.PLAIN, sha256="0", size_bytes=0))
    return b.to_graph(sp, backend="offline", version="0")


def assert_endpoints_valid(graph: KnowledgeGraph) -> None:
    ids = {e.id for e in graph.entities}
    assert len(ids) == len(graph.entities)
    assert all(r.source in ids and r.target in ids and r.source != r.target for r in graph.relations)
    keys = [(r.source, r.type, r.target) for r in graph.relations]
    assert len(keys) == len(set(keys))


def test_apply_rewrites_entities_and_every_relation_endpoint():
    graph = story()
    before = graph.model_copy(deep=True)
    plan = MergePlan(groups=[PlannedMerge(members=["character:moseley", "character:robert_moseley"],
                                          canonical_name="Robert Moseley", into="character:robert_moseley")])
    merged, dedupe = apply_merges(graph, plan)
    assert graph == before
    assert_endpoints_valid(merged)
    moseley = next(e for e in merged.entities if e.id == "character:robert_moseley")
    assert moseley.name == "Robert Moseley" and "Moseley" in moseley.aliases
    assert moseley.scenes == [1, 2] and moseley.description == "The detective on the case."
    assert [e.quote for e in moseley.evidence] == ["ROBERT MOSELEY, 50s, enters.", "Moseley sits."]
    assert "character:moseley" not in {e.id for e in merged.entities}
    located = [r for r in merged.relations if r.type == "located_at" and r.source == moseley.id]
    assert len(located) == 1 and located[0].scenes == [1, 2]
    assert [e.quote for e in located[0].evidence] == ["Moseley walks into the station.", "Moseley sits at the station."]
    assert dedupe.changed.get("merged") == 1
    assert not any(r.type == "kinship_with" for r in merged.relations)  # now a self-relation


def test_merge_graph_offline_end_to_end(embedder):
    merged, log = merge_graph(story(), None, embedder, None, MergeOptions())
    assert_endpoints_valid(merged)
    names = {e.name for e in merged.entities}
    assert "Robert Moseley" in names and "Moseley" not in names and "Detective Moseley" not in names
    assert {"Ann", "Young Ann"} <= names
    moseley = next(e for e in merged.entities if e.name == "Robert Moseley")
    assert {"Moseley", "Detective Moseley", "Bob"} <= set(moseley.aliases)
    merges = [e for e in log if e.action == "merge"]
    assert len(merges) == 1 and merges[0].into == moseley.id and merges[0].evidence
    young = next(e for e in merged.entities if e.name == "Young Ann")
    assert "life_stage_of" not in young.attributes
    stages = [(r.source, r.target) for r in merged.relations if r.type == "life_stage_of"]
    assert stages == [(young.id, "character:ann")]
    assert any(e.action == "link" for e in log)
    assert all(json.loads(e.model_dump_json())["action"] for e in log)


def cue(name: str, line: int) -> Element:
    return Element(kind=ElementKind.CHARACTER, text=name, line_start=line, line_end=line, speaker=name)


def test_names_equal_up_to_case_merge_even_when_they_cannot_be_normalized(embedder):
    mentions = [Entity(id=f"m{i}", name=n, type="Character", scope=Scope.GLOBAL)
                for i, n in enumerate(["He", "he", "kid", "Kid", "She"])]
    plan = plan_merges(mentions, speakers=None, embedder=embedder)
    assert sorted(sorted(g.members) for g in plan.groups) == [["m0", "m1"], ["m2", "m3"]]
    assert all(e.adjudicator == "normalize" for e in plan.log if e.action == "merge")


def test_common_words_come_from_action_and_dialogue_but_never_from_speakers():
    action = Element(kind=ElementKind.ACTION, text="A tiny SCOTT waves. Will is here, the will of it.",
                     line_start=1, line_end=1)
    speech = Element(kind=ElementKind.DIALOGUE, text="That's so tiny-sized!", line_start=3, line_end=3,
                     speaker="WILL TURNER")
    sp = Screenplay(title="t", language="en",
                    source=Source(path="x", format=SourceFormat.PLAIN, sha256="0", size_bytes=0),
                    scenes=[Scene(index=1, heading="INT. LAB", line_span=(1, 3),
                                  elements=[action, cue("WILL TURNER", 2), speech])])
    words = SpeakerIndex.from_screenplay(sp).common_words
    assert {"tiny", "tiny-sized", "waves", "of"} <= words
    assert not words & {"scott", "will", "turner", "that's", "s"}


def test_speakers_of_one_scene_stay_apart_in_merge_graph(embedder):
    graph = story()
    sp = Screenplay(title="t", language="en",
                    source=Source(path="x", format=SourceFormat.PLAIN, sha256="0", size_bytes=0),
                    scenes=[Scene(index=2, heading="INT. STATION", line_span=(1, 3),
                                  elements=[cue("MOSELEY", 1), cue("ROBERT MOSELEY", 2)])])
    merged, log = merge_graph(graph, sp, embedder, None, MergeOptions())
    owner = {n: e.id for e in merged.entities for n in (e.name, *e.aliases)}
    assert owner["Robert Moseley"] != owner["Moseley"]
    assert any("both speak in scene 2" in " ".join(e.evidence) for e in log if e.action == "keep_apart")


def test_merge_graph_with_a_scripted_llm_adjudicator(embedder):
    def answer(request):
        if request.schema_name == "NormalizationReply":
            return json.dumps({"items": []})
        text = request.messages[1].content
        if "Moseley" in text:
            return json.dumps({"merges": [{"canonical_name": "Robert Moseley", "aliases": ["Moseley"],
                                           "justification": "the same detective"}], "unmerged": []})
        return json.dumps({"merges": [], "unmerged": []})

    client = LLMClient(ScriptedBackend(answer), "test-model")
    merged, log = merge_graph(story(), None, embedder, client, MergeOptions())
    assert_endpoints_valid(merged)
    merges = [e for e in log if e.action == "merge"]
    assert merges and all(e.adjudicator in {"llm", "normalize"} for e in merges)
    assert not [e for e in log if e.action == "error"]
    assert "Moseley" not in {e.name for e in merged.entities}
    stage = next(r for r in merged.relations if r.type == "life_stage_of")
    assert (stage.source, stage.target) == ("character:young_ann", "character:ann")
    assert {e.producer for e in stage.evidence} == {"rule:life_stage"}


def test_merge_command_writes_graph_and_log(tmp_path):
    from click.testing import CliRunner

    from kgbuild.cli import cli
    from kgbuild.graph import load_graph, save_graph

    save_graph(story(), tmp_path / "in" / "graph.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["merge", str(tmp_path / "in"), "-o", str(out),
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    merged = load_graph(out / "graph.json")
    assert_endpoints_valid(merged)
    assert "Moseley" not in {e.name for e in merged.entities}
    log = [json.loads(line) for line in (out / "merge_log.jsonl").read_text().splitlines()]
    assert any(e["action"] == "merge" and e["canonical_name"] == "Robert Moseley" for e in log)
    assert "merges" in result.output
    missing = CliRunner().invoke(cli, ["merge", str(tmp_path / "in"), "--screenplay", str(tmp_path / "nope.json"),
                                       "--cache-dir", str(tmp_path / "cache")])
    assert missing.exit_code != 0


def test_a_name_that_is_another_mentions_alias_is_adjudicated_with_it(embedder):
    # What an LLM build gives when one chunk names 'John Buckingham' (aka John) and a later chunk
    # only 'John': the embeddings alone keep the two apart; the alias brings them to the adjudicator.
    mentions = [Entity(id="character:john_buckingham", name="John Buckingham", type="Character", aliases=["John"],
                       scenes=[1, 2], scope=Scope.GLOBAL, description="a bank clerk"),
                Entity(id="character:john", name="John", type="Character", scenes=[22, 23], scope=Scope.GLOBAL,
                       description="a bank clerk who lives alone"),
                Entity(id="character:nadia", name="Nadia", type="Character", scenes=[10], scope=Scope.GLOBAL)]
    plan = plan_merges(mentions, speakers=None, embedder=embedder)
    assert [(g.members, g.canonical_name) for g in plan.groups] == [
        (["character:john_buckingham", "character:john"], "John Buckingham")]
