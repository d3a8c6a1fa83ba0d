"""`kgbuild diff`: the facts two graphs disagree on, per type, with their evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.diff import diff_graphs
from kgbuild.errors import InputError
from kgbuild.graph import entity_id, save_graph
from kgbuild.model import KnowledgeGraph, MovieInfo
from tests import factories

# Every fact of these graphs is seen in one scene (1 unless told), with its quote.


def ent(type_, name, *, id_=None, aliases=(), scene=1):
    return factories.ent(type_, name, id_=id_, aliases=aliases, scenes=[scene],
                         evidence=[factories.ev(scene, f"{name} here", lines=(scene * 10, scene * 10),
                                                producer="rule:speaks")])


def rel(s, rtype, o, scene=1):
    return factories.rel(s, rtype, o, scenes=[scene], evidence=[factories.ev(scene, f"{s.name} and {o.name}")])


def graphs():
    neil, todd, keating = ent("Character", "Neil"), ent("Character", "Todd"), ent("Character", "Keating")
    room = ent("Location", "Dorm Room")
    old = KnowledgeGraph(movie=MovieInfo(id="m", title="m", language="en"),
                         entities=[neil, todd, keating, room],
                         relations=[rel(neil, "speaks_to", todd), rel(todd, "kinship_with", keating),
                                    rel(neil, "located_at", room)])
    # NEW: Neil is now 'Neil Perry' (alias Neil), kinship written the other way round, Keating's
    # location added, the dorm room gone.
    perry = ent("Character", "Neil Perry", aliases=["Neil"])
    hall = ent("Location", "Hall", scene=2)
    new = KnowledgeGraph(movie=MovieInfo(id="m", title="m", language="en"),
                         entities=[perry, todd, keating, hall],
                         relations=[rel(perry, "speaks_to", todd), rel(keating, "kinship_with", todd),
                                    rel(keating, "located_at", hall, scene=2)])
    return old, new


def test_diff_pairs_renamed_entities_and_maps_relations_through_them():
    old, new = graphs()
    d = diff_graphs(old, new)
    assert [(p.old.name, p.new.name, p.how) for p in d.renamed] == [("Neil", "Neil Perry", "alias")]
    assert [e.name for e in d.entities_only_old] == ["Dorm Room"]
    assert [e.name for e in d.entities_only_new] == ["Hall"]
    # speaks_to survives the rename; kinship_with is symmetric: same fact both ways.
    assert [(r.source, r.type) for r in d.relations_only_old] == [("character:neil", "located_at")]
    assert [(r.source, r.type) for r in d.relations_only_new] == [("character:keating", "located_at")]
    assert d.entity_types["Character"].model_dump() == {"old": 3, "new": 3, "only_old": 0, "only_new": 0,
                                                        "paired": 1}
    assert d.relation_types["located_at"].model_dump() == {"old": 1, "new": 1, "only_old": 1, "only_new": 1,
                                                           "paired": 0}
    assert d.differs and not diff_graphs(old, old).differs
    assert d.of_type("Location").renamed == [] and len(d.of_type("Location").entities_only_old) == 1


def test_names_equal_after_normalization_pair_across_ids():
    a = ent("Character", "Mr. Keating", id_="character:keating_1")
    b = ent("Character", "mr keating", id_="character:keating_2")
    d = diff_graphs(KnowledgeGraph(movie=MovieInfo(title="m", language="en"), entities=[a]),
                    KnowledgeGraph(movie=MovieInfo(title="m", language="en"), entities=[b]))
    assert [(p.old.id, p.new.id, p.how) for p in d.renamed] == [("character:keating_1", "character:keating_2",
                                                                  "name")]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    old, new = graphs()
    return save_graph(old, tmp_path / "old" / "graph.json"), save_graph(new, tmp_path / "new.json")


def test_diff_command_formats_and_exit_status(files, tmp_path):
    old, new = files
    runner = CliRunner()
    table = runner.invoke(cli, ["diff", str(old.parent), str(new)])
    assert table.exit_code == 0, table.output
    assert "1 entities only in OLD, 1 only in NEW, 1 renamed; 1 relations only in OLD, 1 only in NEW." in table.output
    assert 'Location "Dorm Room" [location:dorm_room], scenes 1' in table.output
    assert 'scene 1, lines 10-10: "Dorm Room here" (rule:speaks)' in table.output
    assert 'Character "Keating" -located_at-> Location "Hall", scenes 2' in table.output
    md = runner.invoke(cli, ["diff", str(old), str(new), "--format", "markdown", "--type", "located_at"])
    assert md.exit_code == 0
    assert "| located_at | 1 | 1 | 1 | 1 | - |" in md.output and "Dorm Room" in md.output
    assert "## Entities only in OLD" not in md.output
    data = json.loads(runner.invoke(cli, ["diff", str(old), str(new), "--format", "json", "--limit", "1"]).output)
    assert data["differs"] is True and data["totals"]["relations_only_new"] == 1
    assert data["entities_only_old"][0]["evidence"][0]["quote"] == "Dorm Room here"
    same = runner.invoke(cli, ["diff", str(old), str(old)])
    assert same.exit_code == 0 and "The graphs agree on every fact." in same.output


def test_diff_refuses_what_is_not_a_graph(files, tmp_path):
    old, _ = files
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff", str(old), str(bad)])
    assert isinstance(result.exception, InputError)
    typo = CliRunner().invoke(cli, ["diff", str(old), str(old), "--type", "Charactr"])
    assert isinstance(typo.exception, InputError) and "the types are" in str(typo.exception)
    missing = CliRunner().invoke(cli, ["diff", str(old), str(tmp_path / "nothing")])
    assert missing.exit_code == 2


def test_write_sides_gives_the_removed_and_added_facts_as_graphs_to_audit(files, tmp_path):
    old_path, new_path = files
    out = tmp_path / "sides"
    result = CliRunner().invoke(cli, ["diff", str(old_path), str(new_path), "--write-sides", str(out)])
    assert result.exit_code == 0, result.output
    from kgbuild.graph import load_graph

    removed_rel = load_graph(out / "removed" / "relations" / "graph.json")
    added_rel = load_graph(out / "added" / "relations" / "graph.json")
    removed_ent = load_graph(out / "removed" / "entities" / "graph.json")
    added_ent = load_graph(out / "added" / "entities" / "graph.json")
    # Neil's located_at the dorm room is only in OLD; Keating's located_at the hall only in NEW.
    assert [(r.source, r.type, r.target) for r in removed_rel.relations] == [
        (entity_id("Character", "Neil"), "located_at", entity_id("Location", "Dorm Room"))]
    assert [(r.type, r.target) for r in added_rel.relations] == [("located_at", entity_id("Location", "Hall"))]
    # The relation graphs hold the ends of their relations only; the entity graphs the entities of one side.
    assert {e.name for e in removed_rel.entities} == {"Neil", "Dorm Room"}
    assert [e.name for e in removed_ent.entities] == ["Dorm Room"] and removed_ent.relations == []
    assert [e.name for e in added_ent.entities] == ["Hall"]
    assert removed_rel.relations[0].evidence and added_rel.movie.id == "m"
