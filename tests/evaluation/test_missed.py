"""`kgbuild score --write-missed`: the reference facts a prediction missed, as graphs to audit.

The reference is the audit fixture's hand-made graph (tests/fixtures/audit/graph.json). Its
scored facts, counted by hand: entities of degree >= 2 are Nora Hale, Owen, Captain Reyes, Mate,
Lamp Room and Harbour; scored relations are the 8 speaks_to, 5 located_at (Owen at the Door and
the Lantern have degree 1) and the kinship of Owen and Nora (filed in both directions, one
symmetric fact). The prediction drops Harbour and, among kept entities, 'Owen speaks_to Mate'
and both kinship relations.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.graph import load_graph, save_graph

FIXTURE = Path(__file__).parent.parent / "fixtures" / "audit"


def _names(graph):
    by_id = {e.id: e.name for e in graph.entities}
    return {(by_id[r.source], r.type, by_id[r.target]) for r in graph.relations}


def _prediction(tmp_path: Path) -> Path:
    ref = load_graph(FIXTURE / "graph.json")
    harbour = next(e.id for e in ref.entities if e.name == "Harbour")
    names = {e.id: e.name for e in ref.entities}
    dropped = {("Owen", "speaks_to", "Mate"), ("Owen", "kinship_with", "Nora Hale"),
               ("Nora Hale", "kinship_with", "Owen")}
    pred = ref.model_copy(update={
        "entities": [e for e in ref.entities if e.id != harbour],
        "relations": [r for r in ref.relations if harbour not in (r.source, r.target)
                      and (names[r.source], r.type, names[r.target]) not in dropped]})
    path = tmp_path / "pred" / "graph.json"
    path.parent.mkdir()
    save_graph(pred, path)
    return path


def test_missed_facts_are_the_unfound_scored_ones_citing_the_reference_scenes(tmp_path):
    pred = _prediction(tmp_path)
    result = CliRunner().invoke(cli, ["score", str(pred), str(FIXTURE / "graph.json"),
                                      "--write-missed", str(tmp_path / "missed")])
    assert result.exit_code == 0, result.output
    assert "Wrote 5 missed relations" in result.output and "1 missed entities" in result.output

    relations = load_graph(tmp_path / "missed" / "relations" / "graph.json")
    assert _names(relations) == {("Captain Reyes", "located_at", "Harbour"), ("Mate", "located_at", "Harbour"),
                                 ("Nora Hale", "located_at", "Harbour"), ("Owen", "speaks_to", "Mate"),
                                 ("Owen", "kinship_with", "Nora Hale")}
    kinship = next(r for r in relations.relations if r.type == "kinship_with")
    assert kinship.scenes == [1, 3]  # both directions' scenes, one fact
    assert [e.scene for e in kinship.evidence] == [1, 3]
    assert all(e.lines is None and e.producer == "reference:The Lighthouse Keeper"
               for r in relations.relations for e in r.evidence)
    assert {e.name for e in relations.entities} == {"Captain Reyes", "Mate", "Nora Hale", "Owen", "Harbour"}

    entities = load_graph(tmp_path / "missed" / "entities" / "graph.json")
    assert [(e.name, [ev.scene for ev in e.evidence]) for e in entities.entities] == [("Harbour", [3])]
    assert entities.relations == []


def test_missed_relations_go_through_the_audit_with_their_scene_text(tmp_path):
    pred = _prediction(tmp_path)
    CliRunner().invoke(cli, ["score", str(pred), str(FIXTURE / "graph.json"), "--write-missed",
                             str(tmp_path / "missed")], catch_exceptions=False)
    result = CliRunner().invoke(cli, [
        "audit", str(tmp_path / "missed" / "relations" / "graph.json"), "--screenplay",
        str(FIXTURE / "screenplay.json"), "--relations", "5", "--entities", "0"])
    assert result.exit_code == 0, result.output
    sheet = (tmp_path / "missed" / "relations" / "audit" / "sheet.md").read_text(encoding="utf-8")
    section = sheet[sheet.index('Character "Mate" —located_at→ Location "Harbour"'):]
    section = section[:section.index("### ", 1)] if "### " in section[1:] else section
    assert "scene 3 (no line numbers), reference:The Lighthouse Keeper" in section
    heading = json.loads((FIXTURE / "screenplay.json").read_text(encoding="utf-8"))["scenes"][2]["heading"]
    assert heading and heading in section


def test_write_missed_refuses_a_corpus(tmp_path):
    result = CliRunner().invoke(cli, ["score", "--corpus", str(tmp_path), str(tmp_path),
                                      "--write-missed", str(tmp_path / "missed")])
    assert result.exit_code == 2 and "--write-missed writes one movie's misses" in result.output
