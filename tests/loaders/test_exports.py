"""Exports: the Cypher script (escaping, replay), neo4j-admin CSV files and command, GraphML.

Every export carries the evidence as the four parallel lists the stores hold.
"""

from __future__ import annotations

import csv
import json
import re

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
from tests.loaders.conftest import HOSTILE_NAMES, MARGO_EVIDENCE, THREAT_EVIDENCE

EVIDENCE_COLUMNS = ["evidence_scenes:int[]", "evidence_lines:string[]", "evidence_quotes:string[]",
                    "evidence_producers:string[]"]

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
             "n.scenes AS s, n.evidence_scenes AS es, n.evidence_lines AS el, n.evidence_quotes AS eq, "
             "n.evidence_producers AS ep ORDER BY key")
    assert run_query(replayed, query).rows == run_query(loaded, query).rows
    rel_query = ("MATCH ()-[r]->() RETURN r.key AS key, r.evidence_scenes AS es, r.evidence_lines AS el, "
                 "r.evidence_quotes AS eq, r.evidence_producers AS ep ORDER BY key")
    assert run_query(replayed, rel_query).rows == run_query(loaded, rel_query).rows
    quotes = [row[0] for row in run_query(replayed, "MATCH (c:Character) RETURN c.evidence_quotes AS q").rows]
    assert sorted(q for qs in quotes for q in qs) == sorted(f"{n} says: {n}" for n in HOSTILE_NAMES)
    hostile = run_query(replayed, "MATCH ()-[r:hostility_with]->() RETURN r.evidence_lines AS l, "
                        "r.evidence_quotes AS q, r.evidence_producers AS p").rows
    assert hostile == [[[""], [HOSTILE_NAMES[1]], [HOSTILE_NAMES[2]]]]
    names = [row[0] for row in run_query(replayed, "MATCH (c:Character) RETURN c.name AS n").rows]
    assert sorted(names) == sorted(HOSTILE_NAMES)


@pytest.mark.shared_data
@pytest.mark.slow
def test_replayed_stage_script_answers_the_examples_like_a_load(tmp_path, stage_graph, stage_store):
    text, _ = render_script(stage_graph)
    replayed = tmp_path / "replayed.lbdb"
    replay_script(text, replayed)
    with connect(replayed, read_only=True) as a, connect(stage_store, read_only=True) as b:
        assert movie_counts(a, stage_graph.movie.title) == movie_counts(b, stage_graph.movie.title)
    for query in EXAMPLES:
        params = params_for_graph(query, stage_graph)
        assert run_query(replayed, query.cypher, params) == run_query(stage_store, query.cypher, params)


def test_script_sets_the_evidence_lists(small_graph):
    text, _ = render_script(small_graph)
    margo = next(s for s in script_statements(text) if "character:margo_vance" in s and s.startswith("MERGE"))
    assert ("n.evidence_scenes = [1, 2], n.evidence_lines = ['12-13', ''], "
            f"n.evidence_quotes = ['{MARGO_EVIDENCE[0].quote}', 'Margo, you\\'re late.'], "
            "n.evidence_producers = ['rule:character_introduction', 'migrated:kgbuild.graph/1']") in margo
    threat = next(s for s in script_statements(text) if ":hostility_with" in s and "[2, 3]" in s)
    assert "r.evidence_scenes = [2, 3], r.evidence_lines = ['40-40', '88-90']" in threat
    radio = next(s for s in script_statements(text) if "object:radio" in s and s.startswith("MERGE"))
    assert "n.evidence_scenes = [], n.evidence_lines = [], n.evidence_quotes = []" in radio


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
    assert [f.name for f in files] == ["nodes.csv", "relationships.csv", "scenes.csv", "in_scene.csv",
                                       "constraints.cypher", "neo4j-admin-import.txt"]
    nodes, relationships = _read_csv(files[0]), _read_csv(files[1])
    assert nodes[0] == NODE_HEADER and NODE_HEADER[:2] == ["id:ID(Entity)", ":LABEL"]
    assert "aliases:string[]" in NODE_HEADER and "scenes:int[]" in NODE_HEADER
    assert NODE_HEADER[-4:] == EVIDENCE_COLUMNS and RELATION_HEADER[-4:] == EVIDENCE_COLUMNS
    assert relationships[0] == RELATION_HEADER and RELATION_HEADER[:3] == [":START_ID(Entity)", ":END_ID(Entity)",
                                                                         ":TYPE"]
    assert len(nodes) - 1 == len(HOSTILE_NAMES) + 1 and len(relationships) - 1 == 3 and len(refused) == 5
    by_id = {row[0]: dict(zip(NODE_HEADER, row, strict=True)) for row in nodes[1:]}
    first = hostile_graph.entities[0]
    assert by_id[first.id]["name"] == first.name
    assert by_id[first.id]["aliases:string[]"].split("\x1f") == [first.name, "a;b", "semi;colon"]
    assert [by_id[first.id][c] for c in EVIDENCE_COLUMNS] == ["1", "1-2", f"{first.name} says: {first.name}",
                                                              f"rule:{first.name}"]
    assert {row[2] for row in relationships[1:]} <= {"hostility_with", "kinship_with", "located_at"}
    assert {row[0] for row in relationships[1:]} <= set(by_id)
    command = files[5].read_text(encoding="utf-8")
    assert (f"neo4j-admin database import full stories --overwrite-destination=true --multiline-fields=true "
            f"--array-delimiter=U+001F --nodes={files[0]} --nodes={files[2]} --relationships={files[1]} "
            f"--relationships={files[3]}") in command
    assert "DROP TABLE movies;--" in command.splitlines()[0]  # the title, quoted, on a comment line
    constraints = files[4].read_text(encoding="utf-8").splitlines()
    assert constraints[0] == ("CREATE CONSTRAINT kgbuild_Character_key IF NOT EXISTS "
                              "FOR (n:Character) REQUIRE n.key IS UNIQUE;")
    with pytest.raises(StoreError, match="not a Neo4j database name"):
        export_neo4j_csv(hostile_graph, tmp_path / "x", database="a b; rm -rf /")


def test_csv_export_keeps_parallel_evidence_lists(tmp_path, small_graph):
    files, _ = export_neo4j_csv(small_graph, tmp_path / "csv")
    nodes, relationships = _read_csv(files[0]), _read_csv(files[1])
    margo = next(dict(zip(NODE_HEADER, row, strict=True)) for row in nodes[1:] if row[0] == "character:margo_vance")
    split = {c: margo[c].split("\x1f") for c in EVIDENCE_COLUMNS}
    assert split == {"evidence_scenes:int[]": ["1", "2"], "evidence_lines:string[]": ["12-13", ""],
                     "evidence_quotes:string[]": [e.quote for e in MARGO_EVIDENCE],
                     "evidence_producers:string[]": [e.producer for e in MARGO_EVIDENCE]}
    threat = next(dict(zip(RELATION_HEADER, row, strict=True)) for row in relationships[1:]
                  if row[5] == "threatens")
    assert threat["evidence_quotes:string[]"].split("\x1f") == [e.quote for e in THREAT_EVIDENCE]
    assert threat["evidence_lines:string[]"] == "40-40\x1f88-90"
    radio = next(dict(zip(NODE_HEADER, row, strict=True)) for row in nodes[1:] if row[0] == "object:radio")
    assert [radio[c] for c in EVIDENCE_COLUMNS] == ["", "", "", ""]


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
    assert all(d["label"] == d["name"] for _, d in read.nodes(data=True))


def test_graphml_carries_labels_and_evidence_as_json(tmp_path, small_graph):
    read = nx.read_graphml(export_graphml(small_graph, tmp_path / "graph.graphml"))
    margo = read.nodes["character:margo_vance"]
    assert margo["label"] == "Margo Vance"
    assert json.loads(margo["evidence_scenes"]) == [1, 2]
    assert json.loads(margo["evidence_lines"]) == ["12-13", ""]
    assert json.loads(margo["evidence_quotes"]) == [e.quote for e in MARGO_EVIDENCE]
    assert json.loads(margo["evidence_producers"]) == [e.producer for e in MARGO_EVIDENCE]
    assert "evidence" not in margo  # one shape for every store: the flat lists only
    threat = next(d for _, _, d in read.edges(data=True) if d["name"] == "threatens")
    assert json.loads(threat["evidence_scenes"]) == [2, 3]
    assert json.loads(threat["evidence_quotes"]) == [e.quote for e in THREAT_EVIDENCE]
    assert json.loads(read.nodes["object:radio"]["evidence_quotes"]) == []


# -- every layer of the store: entities and relations, scenes and who is in them ------------------

def _store_counts(db) -> tuple[dict[str, int], dict[str, int]]:
    labels = run_query(db, "MATCH (n) RETURN label(n) AS l, count(*) AS c").rows
    types = run_query(db, "MATCH ()-[r]->() RETURN label(r) AS t, count(*) AS c").rows
    return dict(labels), dict(types)


def _header_counts(line: str) -> tuple[int, int]:
    match = re.search(r"(\d+) nodes,? and (\d+) relationships|(\d+) nodes, (\d+) relationships", line)
    assert match, line
    numbers = [int(g) for g in match.groups() if g is not None]
    return numbers[0], numbers[1]


def test_the_cypher_script_carries_every_layer_the_store_holds(tmp_path, story_graph):
    loaded, replayed = tmp_path / "graph.lbdb", tmp_path / "replayed.lbdb"
    write_embedded(story_graph, loaded)
    text, _ = render_script(story_graph)
    replay_script(text, replayed)
    labels, types = _store_counts(loaded)
    assert labels["Scene"] == len(story_graph.scenes) and types["in_scene"] > 0
    assert _store_counts(replayed) == (labels, types)
    assert _header_counts(text.splitlines()[0]) == (sum(labels.values()), sum(types.values()))
    scenes = ("MATCH (s:Scene) RETURN s.key, s.movie, s.scene, s.number, s.heading, s.years, s.marker_kinds, "
              "s.marker_texts, s.marker_sources, s.evidence_scenes, s.evidence_lines, s.evidence_quotes, "
              "s.evidence_producers ORDER BY s.key")
    presence = ("MATCH (c)-[r:in_scene]->(s:Scene) RETURN c.key, s.key, r.key, r.movie, r.scene, r.mode, "
                "r.evidence_scenes, r.evidence_lines, r.evidence_quotes, r.evidence_producers ORDER BY r.key")
    for query in (scenes, presence):
        assert run_query(replayed, query).rows == run_query(loaded, query).rows


def test_the_csv_files_carry_every_layer_the_store_holds(tmp_path, story_graph):
    loaded = tmp_path / "graph.lbdb"
    write_embedded(story_graph, loaded)
    labels, types = _store_counts(loaded)
    files, _ = export_neo4j_csv(story_graph, tmp_path / "csv")
    tables = {f.name: _read_csv(f) for f in files if f.suffix == ".csv"}
    node_files = [t for t in tables.values() if any(":ID" in c for c in t[0])]
    relation_files = [t for t in tables.values() if ":TYPE" in t[0]]
    exported_labels: dict[str, int] = {}
    ids: dict[str, set[str]] = {}
    for table in node_files:
        id_column = next(i for i, c in enumerate(table[0]) if ":ID" in c)
        space = table[0][id_column].partition(":ID")[2]
        label = table[0].index(":LABEL")
        for row in table[1:]:
            exported_labels[row[label]] = exported_labels.get(row[label], 0) + 1
            ids.setdefault(space, set()).add(row[id_column])
    exported_types: dict[str, int] = {}
    for table in relation_files:
        header = table[0]
        start = next(i for i, c in enumerate(header) if c.startswith(":START_ID"))
        end = next(i for i, c in enumerate(header) if c.startswith(":END_ID"))
        for row in table[1:]:
            exported_types[row[header.index(":TYPE")]] = exported_types.get(row[header.index(":TYPE")], 0) + 1
            assert row[start] in ids[header[start].removeprefix(":START_ID")]
            assert row[end] in ids[header[end].removeprefix(":END_ID")]
    assert (exported_labels, exported_types) == (labels, types)
    command = files[-1].read_text(encoding="utf-8")
    assert _header_counts(command.splitlines()[0]) == (sum(labels.values()), sum(types.values()))
    for f in files:
        if f.suffix == ".csv":
            assert f"={f}" in command
