"""Another schema end to end: a two-type schema file (Person, Place) drives the offline build,
the repairs, merging, the stores, the exports and the scores, from the command line and the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import kgbuild
from kgbuild.cli import cli
from kgbuild.folders import BuildFolder
from kgbuild.graph import entity_id, load_graph, relation_id, save_graph
from kgbuild.loaders.embedded import run_query
from kgbuild.model import Entity, Evidence, Relation, Scope
from kgbuild.schema import load_schema
from tests.cli_in_process import run_cli

REPO = Path(__file__).resolve().parent.parent.parent
SCHEMA = REPO / "tests" / "fixtures" / "schema" / "people_places.json"
ACADEMY = REPO / "tests" / "fixtures" / "offline" / "academy.fountain"
#: What the offline rules find in the academy fixture, in the two types and three relations.
PEOPLE = {"Neil Perry", "Todd Anderson", "Mr. Perry", "Cameron"}
PLACES = {"Academy Garden", "Perry House", "Study", "Country Road", "Classroom"}


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cache")


def invoke(cache: Path, *args: str):
    result = CliRunner().invoke(cli, [str(a) for a in args], env={"KGBUILD_CACHE_DIR": str(cache)})
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory, cache) -> Path:
    out = tmp_path_factory.mktemp("academy")
    invoke(cache, "build", ACADEMY, "-o", out, "-q", "--schema", SCHEMA)
    return out


def names_by_type(graph) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for e in graph.entities:
        found.setdefault(e.type, set()).add(e.name)
    return found


def test_the_build_speaks_the_schema_and_writes_it_beside_the_graph(built):
    graph = load_graph(built / "graph.json")
    assert names_by_type(graph) == {"Person": PEOPLE, "Place": PLACES}
    assert {r.type for r in graph.relations} == {"located_at", "speaks_to", "part_of"}
    assert all(e.evidence for e in graph.entities) and all(r.evidence for r in graph.relations)
    assert load_schema(built / BuildFolder.SCHEMA) == load_schema(SCHEMA)
    assert graph.provenance is not None and graph.provenance.graph_schema == "people-places v1"
    report = (built / "report.md").read_text(encoding="utf-8")
    # Roles the schema lacks are not extracted (the notebook, the year, the events); relation
    # types it lacks (kinship, attitudes) are dropped by the strict repair and counted.
    assert "- Schema: people-places v1 (schema.json); roles without a type, not extracted: time, event, " \
           "occasion, thing, abstract" in report
    assert "- **schema_types**: dropped_unknown_type 4" in report
    assert "dropped_unknown_type: person:neil_perry -kinship_with-> person:mr_perry (Person->Person)" in report
    # The story view sizes and bolds the schema's person type by its speeches.
    view = (built / "view.html").read_text(encoding="utf-8")
    assert '"character_type":"Person"' in view and '"speeches":3' in view


def test_the_default_schema_writes_no_schema_file_and_removes_a_stale_one(tmp_path, cache):
    out = tmp_path / "out"
    invoke(cache, "build", ACADEMY, "-o", out, "-q", "--schema", SCHEMA)
    assert (out / BuildFolder.SCHEMA).is_file()
    invoke(cache, "build", ACADEMY, "-o", out, "-q")
    assert not (out / BuildFolder.SCHEMA).exists()
    graph = load_graph(out / "graph.json")
    assert {e.type for e in graph.entities} >= {"Character", "Location", "Object"}
    assert "graph_schema" not in json.loads((out / "graph.json").read_text())["provenance"]


def test_the_embedded_store_has_the_schema_tables(built):
    rows = run_query(built / "graph.lbdb",
                     "MATCH (p:Person)-[:located_at]->(l:Place) RETURN p.name AS person, l.name AS place "
                     "ORDER BY person, place").rows
    assert rows == [
        ["Cameron", "Classroom"], ["Cameron", "Country Road"], ["Mr. Perry", "Perry House"], ["Mr. Perry", "Study"],
        ["Neil Perry", "Academy Garden"], ["Neil Perry", "Perry House"], ["Neil Perry", "Study"],
        ["Todd Anderson", "Academy Garden"], ["Todd Anderson", "Classroom"], ["Todd Anderson", "Country Road"]]
    assert run_query(built / "graph.lbdb", "MATCH (a:Place)-[:part_of]->(b:Place) RETURN a.name, b.name").rows == [
        ["Study", "Perry House"]]
    # The scene layer links the schema's person type to the scenes.
    rows = run_query(built / "graph.lbdb", "MATCH (p:Person)-[i:in_scene]->(s:Scene) WHERE s.scene <= 2 "
                     "RETURN s.scene, p.name, i.mode ORDER BY s.scene, p.name").rows
    assert rows == [[1, "Neil Perry", "present"], [1, "Todd Anderson", "present"],
                    [2, "Mr. Perry", "present"], [2, "Neil Perry", "present"]]


def test_load_export_and_merge_use_the_folder_schema_and_schema_overrides_it(built, tmp_path, cache):
    loaded = invoke(cache, "load", built, "--db", tmp_path / "again.lbdb")
    # 9 entities and 4 scenes; 17 relations and 8 in_scene links of the schema's person type.
    assert "13 nodes, 25 relationships" in loaded.output and "Refused" not in loaded.output
    stage = invoke(cache, "load", built, "--db", tmp_path / "stage.lbdb", "--schema", REPO / "schema" / "stage_kg.json")
    # Only the 4 scene nodes fit that schema; its 8 presence links are refused with the entities.
    assert "4 nodes, 0 relationships" in stage.output
    assert "Refused 34 items" in stage.output and "entity type 'Person' is not in the schema" in stage.output
    invoke(cache, "export", built, "--format", "cypher", "-o", tmp_path / "export")
    script = (tmp_path / "export" / "graph.cypher").read_text(encoding="utf-8")
    assert "MERGE (n:Person {key:" in script and "[r:located_at {key:" in script
    folder = tmp_path / "copy"
    invoke(cache, "build", ACADEMY, "-o", folder, "-q", "--schema", SCHEMA, "--no-merge")
    invoke(cache, "merge", folder)  # a build folder: its own merge stage, with its schema.json
    merged = load_graph(folder / "graph.json")
    assert names_by_type(merged) == {"Person": PEOPLE, "Place": PLACES}
    assert (folder / BuildFolder.SCHEMA).is_file() and merged.provenance.graph_schema == "people-places v1"


def reference_from(graph):
    """The built graph, edited by hand: no Classroom (and so none of its two relations), one speech
    fewer (Todd -> Cameron), and a character the rules did not find, Charlie Dalton, in the garden
    and speaking to Neil."""
    classroom = entity_id("Place", "Classroom")
    todd, cameron = entity_id("Person", "Todd Anderson"), entity_id("Person", "Cameron")
    charlie, neil, garden = entity_id("Person", "Charlie Dalton"), entity_id("Person", "Neil Perry"), \
        entity_id("Place", "Academy Garden")
    ev = Evidence(scene=1, lines=(4, 4), quote="NEIL and TODD cross the lawn.", producer="hand")
    entities = [e for e in graph.entities if e.id != classroom]
    entities.append(Entity(id=charlie, name="Charlie Dalton", type="Person", scenes=[1], scope=Scope.GLOBAL,
                           evidence=[ev]))
    relations = [r for r in graph.relations if classroom not in (r.source, r.target)
                 and (r.source, r.type, r.target) != (todd, "speaks_to", cameron)]
    relations += [Relation(id=relation_id(charlie, rtype, target), source=charlie, target=target, type=rtype,
                           scenes=[1], evidence=[ev]) for rtype, target in (("located_at", garden),
                                                                            ("speaks_to", neil))]
    return graph.model_copy(update={"entities": entities, "relations": relations})


def test_scores_with_the_schema_beside_the_graphs(built, tmp_path, cache):
    itself = invoke(cache, "score", built, built, "--json", tmp_path / "self.json")
    assert "Person" in itself.output
    score = json.loads((tmp_path / "self.json").read_text())
    assert (score["entities"]["f1"], score["relations"]["f1"]) == (1.0, 1.0)
    assert score["scored_reference_entities"] == 9 and score["scored_reference_relations"] == 17

    ref = tmp_path / "ref"
    save_graph(reference_from(load_graph(built / "graph.json")), ref / "graph.json")
    (ref / BuildFolder.SCHEMA).write_text((built / BuildFolder.SCHEMA).read_text())
    invoke(cache, "score", built, ref, "--json", tmp_path / "edited.json")
    edited = json.loads((tmp_path / "edited.json").read_text())
    # Entities: 8 of 9 predicted match (Classroom does not), 8 of 9 reference ones are found
    # (Charlie is not). Relations: 14 of 17 predicted are right (Classroom's two and Todd ->
    # Cameron are not), 14 of 16 reference ones found (Charlie's two are not).
    assert {k: edited["entities"][k] for k in ("tp", "fp", "fn")} == {"tp": 8, "fp": 1, "fn": 1}
    assert {k: edited["relations"][k] for k in ("tp", "fp", "fn")} == {"tp": 14, "fp": 3, "fn": 2}
    assert edited["entities"]["f1"] == pytest.approx(8 / 9)
    assert edited["relations"]["precision"] == pytest.approx(14 / 17)
    assert edited["relations"]["recall"] == pytest.approx(14 / 16)
    assert edited["relations"]["f1"] == pytest.approx(28 / 33)
    by_type = {t: tuple(edited["entity_types"][t][k] for k in ("tp", "fp", "fn")) for t in ("Person", "Place")}
    assert by_type == {"Person": (4, 0, 1), "Place": (4, 1, 0)}

    # The same with --schema and with the API; without the schema nothing of it can be scored.
    invoke(cache, "score", built / "graph.json", ref / "graph.json", "--schema", SCHEMA, "--json", tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["relations"]["tp"] == 14
    api = kgbuild.score(load_graph(built / "graph.json"), load_graph(ref / "graph.json"), schema=SCHEMA,
                        cache_dir=cache)
    assert (api.entities.tp, api.relations.tp, api.relations.fn) == (8, 14, 2)
    blind = kgbuild.score(load_graph(built / "graph.json"), load_graph(ref / "graph.json"), cache_dir=cache)
    assert blind.entities.tp == 0 and blind.prediction_report.unknown_entity_types == {"Person": 4, "Place": 5}


def test_the_api_builds_with_a_schema(tmp_path, cache):
    graph = kgbuild.build(ACADEMY, schema=load_schema(SCHEMA), cache_dir=cache, outdir=tmp_path / "api")
    assert names_by_type(graph) == {"Person": PEOPLE, "Place": PLACES}
    assert load_schema(tmp_path / "api" / BuildFolder.SCHEMA) == load_schema(SCHEMA)


def test_a_broken_schema_file_is_one_line_naming_it(tmp_path):
    broken = tmp_path / "broken.json"
    data = json.loads(SCHEMA.read_text())
    data["entity_types"][1]["role"] = "person"
    broken.write_text(json.dumps(data))
    result = run_cli("build", str(ACADEMY), "-o", str(tmp_path / "o"), "--schema", str(broken))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"kgbuild: error: {broken.resolve()}: not a valid kgbuild schema: schema: Value error, role 'person' is given "
        "to several entity types (Person, Place); one type per role"]
    assert not (tmp_path / "o").exists()
