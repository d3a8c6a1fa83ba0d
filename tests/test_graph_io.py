import json

import pytest

from kgbuild.errors import InputError
from kgbuild.graph import entity_id, load_graph, relation_id, save_graph
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation


def _graph():
    a = Entity(id=entity_id("Character", "Clarice Starling"), name="Clarice Starling",
               type="Character", aliases=["STARLING"], scenes=[1, 4], scope="global")
    b = Entity(id=entity_id("Location", "FBI Academy"), name="FBI Academy", type="Location",
               scenes=[1])
    r = Relation(id=relation_id(a.id, "located_at", b.id), source=a.id, target=b.id,
                 type="located_at", scenes=[1], evidence=["runs through the woods"])
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
