"""Exports: the Cypher script (escaping, replay), neo4j-admin CSV files and command, GraphML."""

from __future__ import annotations

import csv

import ladybug
import networkx as nx
import pytest

from kgbuild.loaders.cypher_script import cypher_literal, export_cypher, render_script
from kgbuild.loaders.embedded import (
    connect,
    movie_counts,
    replay_script,
    run_query,
    script_statements,
    write_embedded,
)
from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.examples import EXAMPLES, params_for_graph
from kgbuild.loaders.graphml import export_graphml
from kgbuild.loaders.neo4j_csv import NODE_HEADER, RELATION_HEADER, export_neo4j_csv
from kgbuild.model import Entity
from tests.loaders.conftest import HOSTILE_NAMES

AWKWARD = [*HOSTILE_NAMES, "", "\r\n\x00\x07\x1b", "\u2028\u2029\x85", "quote ' and \" and \\'"]


def test_literals_round_trip_through_the_store():
    database = ladybug.Database(None)
    connection = ladybug.Connection(database)
    for text in AWKWARD:
        assert connection.execute(f"RETURN {cypher_literal(text)} AS s").get_all() == [[text]]
        assert "\n" not in cypher_literal(text) and "\u2028" not in cypher_literal(text)
    assert cypher_literal([1, None, "a'b"]) == "[1, null, 'a\\'b']"
    with pytest.raises(TypeError):
        cypher_literal(1.5)


def test_script_is_one_statement_per_line_with_schema_names_only(hostile_graph):
    text, refused = render_script(hostile_graph)
    statements = script_statements(text)
    assert len(statements) == len(HOSTILE_NAMES) + 1 + 3
    assert len(refused) == 5
    assert all(s.startswith(("MERGE (n:Character {key: '", "MERGE (n:Location {key: '", "MATCH (a:Character "))
               for s in statements)
    assert "loves" not in text and "Rogue" not in text
    assert text.splitlines()[0].startswith("// kgbuild ") and "DROP TABLE movies;--" in text.splitlines()[0]


def test_replayed_script_gives_the_same_store(tmp_path, hostile_graph):
    loaded, replayed = tmp_path / "loaded.lbdb", tmp_path / "replayed.lbdb"
    write_embedded(hostile_graph, loaded)
    path, _ = export_cypher(hostile_graph, tmp_path / "graph.cypher")
    assert replay_script(path.read_text(encoding="utf-8"), replayed) == len(HOSTILE_NAMES) + 4
    replay_script(path.read_text(encoding="utf-8"), replayed)  # MERGE: a second replay changes nothing
    query = ("MATCH (n) RETURN n.key AS key, n.name AS name, n.aliases AS a, n.description AS d, "
             "n.scenes AS s ORDER BY key")
    assert run_query(replayed, query).rows == run_query(loaded, query).rows
    names = [row[0] for row in run_query(replayed, "MATCH (c:Character) RETURN c.name AS n").rows]
    assert sorted(names) == sorted(HOSTILE_NAMES)


@pytest.mark.shared_data
def test_replayed_stage_script_answers_the_examples_like_a_load(tmp_path, stage_graph, stage_store):
    text, _ = render_script(stage_graph)
    replayed = tmp_path / "replayed.lbdb"
    replay_script(text, replayed)
    with connect(replayed, read_only=True) as a, connect(stage_store, read_only=True) as b:
        assert movie_counts(a, stage_graph.movie.title) == movie_counts(b, stage_graph.movie.title)
    for query in EXAMPLES:
        params = params_for_graph(query, stage_graph)
        assert run_query(replayed, query.cypher, params) == run_query(stage_store, query.cypher, params)


def test_a_failing_script_changes_nothing(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    with pytest.raises(StoreError, match="script statement 2 failed, nothing was changed"):
        replay_script("MATCH (n:Character) DETACH DELETE n;\nMERGE (n:Nope {key: 'x'});\n", db)
    assert run_query(db, "MATCH (n:Character) RETURN count(n) AS n").rows == [[3]]


def _read_csv(path):
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_csv_export_for_neo4j_admin(tmp_path, hostile_graph):
    files, refused = export_neo4j_csv(hostile_graph, tmp_path / "csv", database="stories")
    assert [f.name for f in files] == ["nodes.csv", "relationships.csv", "constraints.cypher",
                                       "neo4j-admin-import.txt"]
    nodes, relationships = _read_csv(files[0]), _read_csv(files[1])
    assert nodes[0] == NODE_HEADER and NODE_HEADER[:2] == ["id:ID", ":LABEL"]
    assert "aliases:string[]" in NODE_HEADER and "scenes:int[]" in NODE_HEADER
    assert relationships[0] == RELATION_HEADER and RELATION_HEADER[:3] == [":START_ID", ":END_ID", ":TYPE"]
    assert len(nodes) - 1 == len(HOSTILE_NAMES) + 1 and len(relationships) - 1 == 3 and len(refused) == 5
    by_id = {row[0]: dict(zip(NODE_HEADER, row, strict=True)) for row in nodes[1:]}
    first = hostile_graph.entities[0]
    assert by_id[first.id]["name"] == first.name
    assert by_id[first.id]["aliases:string[]"].split("\x1f") == [first.name, "a;b", "semi;colon"]
    assert {row[2] for row in relationships[1:]} <= {"hostility_with", "kinship_with", "located_at"}
    assert {row[0] for row in relationships[1:]} <= set(by_id)
    command = files[3].read_text(encoding="utf-8")
    assert (f"neo4j-admin database import full --overwrite-destination=true --multiline-fields=true "
            f"--array-delimiter=U+001F --nodes={files[0]} --relationships={files[1]} stories") in command
    assert "DROP TABLE movies;--" in command.splitlines()[0]  # the title, quoted, on a comment line
    constraints = files[2].read_text(encoding="utf-8").splitlines()
    assert constraints[0] == ("CREATE CONSTRAINT kgbuild_Character_key IF NOT EXISTS "
                              "FOR (n:Character) REQUIRE n.key IS UNIQUE;")
    with pytest.raises(StoreError, match="not a Neo4j database name"):
        export_neo4j_csv(hostile_graph, tmp_path / "x", database="a b; rm -rf /")


def test_csv_export_refuses_the_array_delimiter_in_a_value(tmp_path, small_graph):
    bad = Entity(id="object:x", name="X", type="Object", aliases=["a\x1fb"])
    with pytest.raises(StoreError, match="U\\+001F"):
        export_neo4j_csv(small_graph.model_copy(update={"entities": [bad]}), tmp_path)


def test_graphml_keeps_every_node_and_edge(tmp_path, hostile_graph):
    path = export_graphml(hostile_graph, tmp_path / "graph.graphml")
    read = nx.read_graphml(path)
    assert read.number_of_nodes() == len(hostile_graph.entities)
    assert read.number_of_edges() == len(hostile_graph.relations)
    assert sorted(d["name"] for _, d in read.nodes(data=True) if d["type"] == "Character") == sorted(
        HOSTILE_NAMES)
