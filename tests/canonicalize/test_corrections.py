"""Corrections: the file format, each action, 'split' in the merge stage, and a rebuild."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.canonicalize.corrections import (
    Correction,
    append_corrections,
    apply_corrections,
    corrections_file,
    keep_apart,
    load_corrections,
)
from kgbuild.canonicalize.merge import MergeOptions, plan_merges
from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.graph import load_graph
from kgbuild.model import Entity, Evidence, KnowledgeGraph, MovieInfo, Scope
from tests.factories import ent, ev, rel

ACADEMY = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "academy.fountain"


def _ev(scene: int = 1) -> list[Evidence]:
    return [ev(scene, "Anna hugs Ben.", lines=(3, 3), producer="rule:embrace")]


def _entity(etype: str, name: str) -> Entity:
    return ent(etype, name, scenes=[1], evidence=_ev(), scope=Scope.GLOBAL)


def _graph() -> KnowledgeGraph:
    anna, ben, benny = _entity("Character", "Anna"), _entity("Character", "Ben"), _entity("Character", "Benny")
    alley = _entity("Location", "Alley")
    rels = [rel(a, t, b, scenes=[1], evidence=_ev())
            for a, t, b in ((anna, "affinity_with", ben), (benny, "speaks_to", anna), (anna, "located_at", alley))]
    return KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=[anna, ben, benny, alley],
                          relations=rels)


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "movie.corrections.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_file_names_its_bad_line(tmp_path):
    path = _write(tmp_path, ["# a comment", "", '{"action": "reject"}'])
    with pytest.raises(InputError, match=r"jsonl:3: .*'reject' needs"):
        load_corrections(path)
    with pytest.raises(InputError, match="jsonl:1: "):
        load_corrections(_write(tmp_path, ["{not json"]))
    assert corrections_file("/x/movie.fountain") == Path("/x/movie.corrections.jsonl")


def test_each_action(tmp_path):
    graph = _graph()
    path = _write(tmp_path, [
        json.dumps({"action": "reject", "relation": ["anna", "affinity_with", "Ben"]}),
        json.dumps({"action": "merge", "entities": ["character:ben", "character:benny"], "name": "Ben"}),
        json.dumps({"action": "rename", "fact": "character:anna", "name": "Anna Karenina"}),
        json.dumps({"action": "retype", "fact": "location:alley", "type": "Character"}),
        json.dumps({"action": "reject", "fact": "rel:nothing"}),
    ])
    fixed, results = apply_corrections(graph, load_corrections(path))
    names = {e.id: e.name for e in fixed.entities}
    assert set(names.values()) == {"Anna Karenina", "Ben", "Alley"}
    assert next(e for e in fixed.entities if e.name == "Anna Karenina").aliases == ["Anna"]
    assert next(e for e in fixed.entities if e.name == "Ben").aliases == ["Benny"]
    triples = {(names[r.source], r.type, names[r.target]) for r in fixed.relations}
    # Benny's speech is now Ben's; located_at a Character is not admitted and goes.
    assert triples == {("Ben", "speaks_to", "Anna Karenina")}
    assert [r.applied for r in results] == [True, True, True, True, False]
    assert results[-1].note == "matches nothing in this build"
    assert "relations the schema no longer admits removed" in results[3].note
    assert graph == _graph()  # the input is not changed



def test_a_merge_follows_the_merge_policy_and_merges_the_relations_it_joins():
    graph = _graph()
    ben, benny = graph.entities[1], graph.entities[2]
    entities = [graph.entities[0], ben.model_copy(update={"description": "A boy.", "scope": Scope.LOCAL}),
                benny.model_copy(update={"description": "A boy with a dog.", "aliases": ["B"]}), graph.entities[3]]
    anna = graph.entities[0]
    extra = rel(ben, "speaks_to", anna, scenes=[2], name="asks", evidence=_ev(2))
    graph = graph.model_copy(update={"entities": entities, "relations": [*graph.relations, extra]})
    fixed, results = apply_corrections(graph, [(1, Correction(action="merge", entities=[ben.id, benny.id]))])
    merged = next(e for e in fixed.entities if e.id == ben.id)
    assert merged.description == "A boy with a dog."  # the longest, no longer the first non-empty
    assert merged.scope is Scope.GLOBAL and merged.aliases == ["Benny", "B"]
    [speaks] = [r for r in fixed.relations if r.type == "speaks_to"]
    assert speaks.source == ben.id and speaks.scenes == [1, 2] and speaks.name == "asks"
    assert [e.scene for e in speaks.evidence] == [1, 2]
    assert results[0].applied

def test_split_keeps_entities_apart_in_the_merge_stage(embedder):
    entities = [_entity("Character", "Scott"), _entity("Character", "Scotty")]
    merged = plan_merges(entities, speakers=None, embedder=embedder)
    assert [g.members for g in merged.groups] == [["character:scott", "character:scotty"]]
    split = [(1, Correction(action="split", entities=["character:scott", "character:scotty"]))]
    apart = plan_merges(entities, speakers=None, embedder=embedder, options=MergeOptions(keep_apart=keep_apart(split)))
    assert apart.groups == []
    assert any(e.action == "keep_apart" and e.adjudicator == "corrections" for e in apart.log)


def test_append_skips_what_the_file_holds(tmp_path):
    path = tmp_path / "c.jsonl"
    reject = Correction(action="reject", fact="rel:1", why="wrong")
    assert append_corrections(path, [reject]) == 1
    assert append_corrections(path, [reject, Correction(action="reject", fact="rel:2")]) == 1
    assert [c.fact for _, c in load_corrections(path)] == ["rel:1", "rel:2"]


def test_corrections_beside_the_script_survive_rebuilds(tmp_path):
    script = tmp_path / "academy.fountain"
    shutil.copy(ACADEMY, script)
    runner = CliRunner()
    assert runner.invoke(cli, ["build", str(script), "-o", str(tmp_path / "a"), "-q"]).exit_code == 0
    first = load_graph(tmp_path / "a" / "graph.json")
    names = {e.id: e.name for e in first.entities}
    thanks = next(r for r in first.relations if r.type == "favorable_toward")
    assert names[thanks.source] == "Mr. Perry"
    corrections_file(script).write_text(
        json.dumps({"action": "reject", "fact": thanks.id, "why": "manners"}) + "\n"
        + json.dumps({"action": "rename", "fact": "character:mr_perry", "name": "Thomas Perry"}) + "\n")
    for out in ("b", "c"):
        result = runner.invoke(cli, ["build", str(script), "-o", str(tmp_path / out), "-q"])
        assert result.exit_code == 0, result.output
        rebuilt = load_graph(tmp_path / out / "graph.json")
        assert thanks.id not in {r.id for r in rebuilt.relations}
        assert "Thomas Perry" in {e.name for e in rebuilt.entities}
        assert "Mr. Perry" not in {e.name for e in rebuilt.entities}
        report = (tmp_path / out / "report.md").read_text()
        assert "## Corrections (2 of 2 applied)" in report
        assert "line 1: reject" in report
