import json

import pytest

from kgbuild.errors import InputError
from kgbuild.graph import entity_id, load_graph, relation_id, save_graph
from kgbuild.model import GRAPH_FORMAT, Entity, Evidence, KnowledgeGraph, MovieInfo, Provenance, Relation

RUNS = Evidence(scene=1, lines=(4, 5), quote="runs through the woods", producer="rule:action")


def _graph():
    a = Entity(id=entity_id("Character", "Clarice Starling"), name="Clarice Starling",
               type="Character", aliases=["STARLING"], scenes=[1, 4], scope="global",
               evidence=[Evidence(scene=1, lines=(3, 3), quote="CLARICE STARLING", producer="rule:cue")])
    b = Entity(id=entity_id("Location", "FBI Academy"), name="FBI Academy", type="Location",
               scenes=[1])
    r = Relation(id=relation_id(a.id, "located_at", b.id), source=a.id, target=b.id,
                 type="located_at", scenes=[1], evidence=[RUNS])
    return KnowledgeGraph(movie=MovieInfo(title="T", language="en", scenes=4),
                          entities=[a, b], relations=[r])


def test_ids_are_stable_and_normalized():
    assert entity_id("Character", "Clarice Starling") == "character:clarice_starling"
    assert entity_id("Character", "  CLARICE   starling ") == "character:clarice_starling"
    assert entity_id("Location", "叶问 家") == "location:叶问_家"
    assert entity_id("Object", "!!!").startswith("object:h")
    assert relation_id("a", "x", "b") == relation_id("a", "x", "b") != relation_id("b", "x", "a")


def test_round_trip(tmp_path):
    g = _graph()
    path = save_graph(g, tmp_path / "graph.json")
    assert load_graph(path) == g


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not a valid graph.json"),
        ("[]", "expected a JSON object"),
        ('{"format": "something/1"}', "not a kgbuild graph"),
        ('{"format": "kgbuild.graph/99", "movie": {}}', "newer kgbuild"),
        ('{"format": "kgbuild.graph/1", "movie": {"title": "t"}}', "movie.language"),
        ('{"format": "kgbuild.graph/2", "movie": {"title": "t"}}', "movie.language"),
        ('{"format": "kgbuild.graph/3", "movie": {"title": "t"}}', "movie.language"),
        ('{"format": "kgbuild.graph/4", "movie": {"title": "t", "language": "en"}}',
         "written by a newer kgbuild"),
    ],
)
def test_corrupt_graph_files_are_refused(tmp_path, content, message):
    path = tmp_path / "graph.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_graph(path)


def test_unknown_fields_are_refused(tmp_path):
    data = json.loads(_graph().model_dump_json())
    data["entities"][0]["colour"] = "red"
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="entities.0.colour"):
        load_graph(path)


def _format_1(**provenance) -> dict:
    """A graph.json as kgbuild.graph/1 wrote it: relation evidence as bare quotes, none on entities."""
    data = json.loads(_graph().model_dump_json())
    data["format"] = "kgbuild.graph/1"
    for entity in data["entities"]:
        del entity["evidence"]
    data["relations"][0].update(scenes=[3, 4], evidence=["runs through the woods", "stops at the gate"])
    data["provenance"] = provenance or None
    return data


def test_format_1_is_migrated_on_reading(tmp_path, caplog):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_format_1(kgbuild_version="0.1.0", backend="offline")))
    graph = load_graph(path)
    assert graph.format == GRAPH_FORMAT == "kgbuild.graph/3"
    assert graph.relations[0].evidence == [
        Evidence(scene=3, lines=None, quote="runs through the woods", producer="migrated:kgbuild.graph/1"),
        Evidence(scene=3, lines=None, quote="stops at the gate", producer="migrated:kgbuild.graph/1"),
    ]
    assert all(e.evidence == [] for e in graph.entities)
    assert graph.provenance == Provenance(kgbuild_version="0.1.0", backend="offline",
                                          migrated_from="kgbuild.graph/1")
    assert "kgbuild.graph/1 file" in caplog.text


def test_a_migrated_graph_is_saved_in_the_current_format(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_format_1(kgbuild_version="0.1.0", backend="offline")))
    graph = load_graph(old)
    new = save_graph(graph, tmp_path / "graph.json")
    data = json.loads(new.read_text(encoding="utf-8"))
    assert data["format"] == "kgbuild.graph/3"
    assert data["relations"][0]["evidence"][0] == {
        "scene": 3, "lines": None, "quote": "runs through the woods",
        "producer": "migrated:kgbuild.graph/1"}
    assert data["provenance"]["migrated_from"] == "kgbuild.graph/1"
    assert load_graph(new) == graph


def test_format_1_without_provenance_still_loads(tmp_path):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(_format_1()))
    graph = load_graph(path)
    assert graph.provenance is None and graph.relations[0].evidence[0].quote == "runs through the woods"


def test_format_2_is_migrated_without_a_scene_layer(tmp_path, caplog):
    data = json.loads(_graph().model_copy(update={
        "provenance": Provenance(kgbuild_version="0.2.0", backend="offline")}).model_dump_json())
    data["format"] = "kgbuild.graph/2"
    del data["scenes"]
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(data))
    with caplog.at_level("INFO"):
        graph = load_graph(path)
    assert graph.format == "kgbuild.graph/3" and graph.scenes == []
    assert graph.provenance.migrated_from == "kgbuild.graph/2"
    assert graph.entities == _graph().entities and graph.relations == _graph().relations
    assert "--from-stage merge" in caplog.text


def test_a_current_graph_is_not_marked_migrated(tmp_path):
    g = _graph().model_copy(update={"provenance": Provenance(kgbuild_version="0.2.0", backend="offline")})
    assert load_graph(save_graph(g, tmp_path / "graph.json")).provenance.migrated_from is None
