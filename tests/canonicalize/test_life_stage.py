"""Life-stage links (YOUNG EDWARD -> EDWARD): a `life_stage_of` relation between surviving ids,
grounded in evidence, logged once, and queryable in the embedded store."""

from __future__ import annotations

from kgbuild.canonicalize.merge import (
    LIFE_STAGE_PRODUCER,
    MergeLogEntry,
    MergeOptions,
    MergePlan,
    PlannedLink,
    PlannedMerge,
    apply_merges,
    life_stage_relation,
    merge_graph,
    plan_merges,
)
from kgbuild.graph import GraphBuilder, relation_id
from kgbuild.loaders.embedded import run_query, write_embedded
from kgbuild.model import Entity, KnowledgeGraph, Scope, Screenplay, Source, SourceFormat
from tests.factories import ev

REASON = "'Young Edward' is 'Edward' at another life stage"


def big_fish() -> KnowledgeGraph:
    """Edward Bloom, his short form Edward (they merge), and Young Edward (linked to them)."""
    b = GraphBuilder()
    b.entity("Character", "Edward Bloom", 1, description="A travelling salesman.", scope=Scope.GLOBAL,
             evidence=[ev(1, "EDWARD BLOOM, 60s, tells a story.")])
    edward = b.entity("Character", "Edward", 2, description="Tells tall tales.", scope=Scope.GLOBAL,
                      evidence=[ev(2, "Edward laughs."), ev(4, "Edward sits.")])
    young = b.entity("Character", "Young Edward", 3, description="Edward as a boy.", scope=Scope.GLOBAL,
                     evidence=[ev(3, "YOUNG EDWARD, 10, climbs a tree.")])
    will = b.entity("Character", "Will", 2, description="Edward's son.", scope=Scope.GLOBAL,
                    evidence=[ev(2, "WILL, 30s, sighs.")])
    town = b.entity("Location", "Ashton", 3, scope=Scope.GLOBAL, evidence=[ev(3, "EXT. ASHTON - DAY")])
    b.relation(young, "located_at", town, 3, evidence=[ev(3, "Young Edward runs through Ashton.")])
    b.relation(edward, "kinship_with", will, 2, evidence=[ev(2, "Will sighs at his father.")])
    sp = Screenplay(title="Big Fish", language="en", scenes=[],
                    source=Source(path="x", format=SourceFormat.PLAIN, sha256="0", size_bytes=0))
    return b.to_graph(sp, backend="offline", version="0")


def assert_log_consistent(log: list[MergeLogEntry], graph: KnowledgeGraph) -> None:
    """Links name surviving entities, once per pair, and no keep_apart line holds a linked pair."""
    ids = {e.id for e in graph.entities}
    merged_away = {m for e in log if e.action == "merge" for m in e.members if m != e.into}
    links = [(e.members[0], e.members[1]) for e in log if e.action == "link"]
    assert len(links) == len(set(links))
    for source, target in links:
        assert {source, target} <= ids and not {source, target} & merged_away
        assert not any(source in e.members and target in e.members for e in log if e.action == "keep_apart")
        assert not any(source in e.members for e in log if e.action == "keep_apart")
    stages = {(r.source, r.target) for r in graph.relations if r.type == "life_stage_of"}
    assert stages == set(links)


def test_life_stage_relation_takes_the_first_evidence_item_of_each_entity():
    young = Entity(id="character:young_edward", name="Young Edward", type="Character",
                   evidence=[ev(3, "YOUNG EDWARD climbs."), ev(5, "Young Edward falls.")])
    base = Entity(id="character:edward", name="Edward", type="Character", evidence=[ev(1, "EDWARD, 60s.")])
    rel = life_stage_relation(young, base, REASON)
    assert (rel.source, rel.type, rel.target) == (young.id, "life_stage_of", base.id)
    assert rel.id == relation_id(young.id, "life_stage_of", base.id)
    assert [(e.scene, e.quote) for e in rel.evidence] == [(1, "EDWARD, 60s."), (3, "YOUNG EDWARD climbs.")]
    assert {e.producer for e in rel.evidence} == {LIFE_STAGE_PRODUCER}
    assert rel.scenes == [1, 3] and rel.description == REASON and rel.persistence == "stable"
    assert young.evidence[0].producer == "rule:test"  # inputs unchanged
    bare = base.model_copy(update={"evidence": []})
    assert [e.scene for e in life_stage_relation(young, bare, REASON).evidence] == [3]
    assert life_stage_relation(young.model_copy(update={"evidence": []}), bare, REASON) is None


def test_apply_moves_links_onto_surviving_ids_and_drops_the_old_attribute():
    graph = big_fish()
    stale = [e.model_copy(update={"attributes": {"life_stage_of": "character:edward"}})
             if e.name == "Young Edward" else e for e in graph.entities]
    graph = graph.model_copy(update={"entities": stale})
    plan = MergePlan(
        groups=[PlannedMerge(members=["character:edward_bloom", "character:edward"], canonical_name="Edward Bloom",
                             into="character:edward_bloom")],
        links=[PlannedLink(source="character:young_edward", target="character:edward", reason=REASON)])
    merged, _ = apply_merges(graph, plan)
    stages = [r for r in merged.relations if r.type == "life_stage_of"]
    assert [(r.source, r.target) for r in stages] == [("character:young_edward", "character:edward_bloom")]
    assert [e.quote for e in stages[0].evidence] == ["EDWARD BLOOM, 60s, tells a story.",
                                                     "YOUNG EDWARD, 10, climbs a tree."]
    assert all("life_stage_of" not in e.attributes for e in merged.entities)


def test_merge_graph_links_young_edward_to_the_entity_edward_merged_into(embedder):
    merged, log = merge_graph(big_fish(), None, embedder, None, MergeOptions())
    owner = {n: e.id for e in merged.entities for n in (e.name, *e.aliases)}
    assert owner["Edward"] == owner["Edward Bloom"] == "character:edward_bloom"
    stages = [r for r in merged.relations if r.type == "life_stage_of"]
    assert [(r.source, r.target) for r in stages] == [("character:young_edward", "character:edward_bloom")]
    assert stages[0].evidence and {e.producer for e in stages[0].evidence} == {LIFE_STAGE_PRODUCER}
    link = next(e for e in log if e.action == "link")
    assert link.members == ["character:young_edward", "character:edward_bloom"]
    assert link.names == ["Young Edward", "Edward Bloom"] and link.into == "character:edward_bloom"
    assert_log_consistent(log, merged)


def test_the_link_wins_over_keeping_the_pair_apart(embedder):
    mentions = [Entity(id=f"m{i}", name=n, type="Character", scope=Scope.GLOBAL, evidence=[ev(i + 1, n.upper())])
                for i, n in enumerate(["Young Ann", "Ann", "Anne"])]
    plan = plan_merges(mentions, speakers=None, embedder=embedder)
    assert [(link.source, link.target) for link in plan.links] == [("m0", "m1")]
    apart = [e for e in plan.log if e.action == "keep_apart"]
    assert all("m0" not in e.members for e in apart)
    assert not any("young" in reason.lower() for e in apart for reason in e.evidence if reason.startswith("Ann:"))
    graph = KnowledgeGraph.model_validate({"movie": {"title": "t", "language": "en"},
                                           "entities": [m.model_dump() for m in mentions]})
    merged, _ = apply_merges(graph, plan)
    assert_log_consistent(plan.log, merged)


def test_life_stages_of_other_types_are_not_linked(embedder):
    places = [Entity(id=f"p{i}", name=n, type="Location", scope=Scope.GLOBAL) for i, n in
              enumerate(["Old Town", "Town"])]
    plan = plan_merges(places, speakers=None, embedder=embedder)
    assert plan.links == [] and not any(e.action == "link" for e in plan.log)
    apart = next(e for e in plan.log if e.action == "keep_apart")
    assert apart.members == ["p0", "p1"] and all("different versions" in r for r in apart.evidence)


def test_the_link_is_a_relationship_of_the_embedded_store(tmp_path, embedder):
    merged, _ = merge_graph(big_fish(), None, embedder, None, MergeOptions())
    db = tmp_path / "graph.lbdb"
    counts = write_embedded(merged, db)
    assert counts.refused == []
    result = run_query(db, "MATCH (a)-[r:life_stage_of]->(b) RETURN a.name, b.name")
    assert result.rows == [["Young Edward", "Edward Bloom"]]
    producers = run_query(db, "MATCH (:Character)-[r:life_stage_of]->(:Character) RETURN r.evidence_producers AS p")
    assert producers.rows == [[[LIFE_STAGE_PRODUCER, LIFE_STAGE_PRODUCER]]]
