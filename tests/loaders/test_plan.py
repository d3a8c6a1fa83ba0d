"""The Neo4j writer's statements: a recorded expectation, whitelisted names, shared Cypher."""

from __future__ import annotations

import re
import socket

import pytest

from kgbuild.graph import save_graph
from kgbuild.loaders.dialect import neo4j_only_constructs
from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.neo4j_store import BoltStore
from kgbuild.loaders.plan import plan_constraints, plan_load
from kgbuild.loaders.records import prepare_rows
from kgbuild.loaders.store import open_store
from kgbuild.model import Entity, Evidence, KnowledgeGraph, MovieInfo, Relation
from kgbuild.schema import load_schema
from tests.cli_in_process import run_cli

ANN = Entity(id="character:ann", name="Ann", type="Character", scenes=[2, 5], aliases=["Annie"],
             evidence=[Evidence(scene=2, lines=(7, 8), quote="ANN (30s) rows in.", producer="rule:intro"),
                       Evidence(scene=5, lines=None, quote="Ann!", producer="migrated:kgbuild.graph/1")])
PIER = Entity(id="location:pier", name="Pier", type="Location", scenes=[5])
WAITS = Relation(id="rel:1", source=ANN.id, target=PIER.id, type="located_at", scenes=[5],
                 name="waits at", evidence=[Evidence(scene=5, lines=(30, 30), quote="Ann waits on the pier.",
                                                     producer="rule:presence")])
TINY = KnowledgeGraph(movie=MovieInfo(title="M", language="en"), entities=[ANN, PIER], relations=[WAITS])

NODE_SET = ("SET n.id = row.id, n.name = row.name, n.type = row.type, n.description = row.description, "
            "n.aliases = row.aliases, n.scenes = row.scenes, n.first_scene = row.first_scene, "
            "n.last_scene = row.last_scene, n.scope = row.scope, n.movie = row.movie, "
            "n.evidence_scenes = row.evidence_scenes, n.evidence_lines = row.evidence_lines, "
            "n.evidence_quotes = row.evidence_quotes, n.evidence_producers = row.evidence_producers")
REL_SET = ("SET r.id = row.id, r.name = row.name, r.description = row.description, r.scenes = row.scenes, "
           "r.first_scene = row.first_scene, r.last_scene = row.last_scene, "
           "r.persistence = row.persistence, r.movie = row.movie, "
           "r.evidence_scenes = row.evidence_scenes, r.evidence_lines = row.evidence_lines, "
           "r.evidence_quotes = row.evidence_quotes, r.evidence_producers = row.evidence_producers")
ANN_ROW = {"key": '["M", "character:ann"]', "id": "character:ann", "name": "Ann", "type": "Character",
           "description": "", "aliases": ["Annie"], "scenes": [2, 5], "first_scene": 2, "last_scene": 5,
           "scope": "local", "movie": "M", "evidence_scenes": [2, 5], "evidence_lines": ["7-8", ""],
           "evidence_quotes": ["ANN (30s) rows in.", "Ann!"],
           "evidence_producers": ["rule:intro", "migrated:kgbuild.graph/1"]}
PIER_ROW = {"key": '["M", "location:pier"]', "id": "location:pier", "name": "Pier", "type": "Location",
            "description": "", "aliases": [], "scenes": [5], "first_scene": 5, "last_scene": 5,
            "scope": "local", "movie": "M", "evidence_scenes": [], "evidence_lines": [],
            "evidence_quotes": [], "evidence_producers": []}
WAITS_ROW = {"source_key": '["M", "character:ann"]', "target_key": '["M", "location:pier"]',
             "key": '["M", "rel:1"]', "id": "rel:1", "name": "waits at", "description": "",
             "scenes": [5], "first_scene": 5, "last_scene": 5, "persistence": "momentary", "movie": "M",
             "evidence_scenes": [5], "evidence_lines": ["30-30"], "evidence_quotes": ["Ann waits on the pier."],
             "evidence_producers": ["rule:presence"]}

#: The recorded plan of TINY without --replace: (purpose, cypher, params).
RECORDED_MERGE = [
    ("nodes", "UNWIND $rows AS row\nMERGE (n:Character {key: row.key})\n" + NODE_SET, {"rows": [ANN_ROW]}),
    ("nodes", "UNWIND $rows AS row\nMERGE (n:Location {key: row.key})\n" + NODE_SET, {"rows": [PIER_ROW]}),
    ("relations", "UNWIND $rows AS row\nMATCH (a:Character {key: row.source_key})\n"
     "MATCH (b:Location {key: row.target_key})\nMERGE (a)-[r:located_at {key: row.key}]->(b)\n" + REL_SET,
     {"rows": [WAITS_ROW]}),
]


def test_plan_matches_the_recorded_expectation():
    plan = plan_load(prepare_rows(TINY))
    assert [(s.purpose, s.cypher, s.params) for s in plan] == RECORDED_MERGE
    assert not any(s.repeat_until_zero for s in plan)


def test_replace_deletes_the_movie_in_batches_then_creates():
    plan = plan_load(prepare_rows(TINY), replace=True, batch_size=500)
    deletes = [s for s in plan if s.purpose == "delete"]
    assert [s.cypher.split(")")[0] for s in deletes] == [f"MATCH (n:{t}" for t in
                                                         [*load_schema().entity_type_names(), "Scene"]]
    assert deletes[0].cypher == ("MATCH (n:Character) WHERE n.movie = $movie\nWITH n LIMIT $limit\n"
                                 "DETACH DELETE n\nRETURN count(*) AS deleted")
    assert all(s.params == {"movie": "M", "limit": 500} and s.repeat_until_zero for s in deletes)
    writes = [(s.purpose, s.cypher, s.params) for s in plan if s.purpose != "delete"]
    assert writes == [(p, c.replace("MERGE", "CREATE"), v) for p, c, v in RECORDED_MERGE]


def test_batches_split_rows_and_are_never_empty(small_graph):
    rows = prepare_rows(small_graph)
    plan = plan_load(rows, batch_size=2)
    batches = [len(s.params["rows"]) for s in plan]
    assert all(1 <= n <= 2 for n in batches)
    assert sum(n for s, n in zip(plan, batches, strict=True) if s.purpose == "nodes") == rows.node_count()
    assert sum(n for s, n in zip(plan, batches, strict=True) if s.purpose == "relations") == len(
        small_graph.relations)
    with pytest.raises(ValueError, match="batch_size"):
        plan_load(rows, batch_size=0)


def test_constraints_come_first_and_name_only_schema_labels():
    statements = plan_constraints()
    labels = [*load_schema().entity_type_names(), "Scene"]
    assert len(statements) == 2 * len(labels)
    assert statements[0].cypher == ("CREATE CONSTRAINT kgbuild_Character_key IF NOT EXISTS "
                                    "FOR (n:Character) REQUIRE n.key IS UNIQUE")
    assert statements[1].cypher == "CREATE INDEX kgbuild_Character_movie IF NOT EXISTS FOR (n:Character) ON (n.movie)"
    assert {re.search(r"\(n:(\w+)\)", s.cypher).group(1) for s in statements} == set(labels)


def test_hostile_values_travel_only_as_parameters(hostile_graph):
    schema = load_schema()
    allowed = set(schema.entity_type_names()) | set(schema.relation_type_names()) | {"Scene", "in_scene"}
    plan = plan_load(prepare_rows(hostile_graph), replace=True)
    for statement in plan:
        names = set(re.findall(r"[(\[]\w+:(\w+)", statement.cypher))
        assert names <= allowed, statement.cypher
        assert "DETACH DELETE (n" not in statement.cypher and "'" not in statement.cypher
        assert neo4j_only_constructs(statement.cypher) == []  # runs unchanged on the embedded store
    params = repr([s.params for s in plan])
    assert "'}) DETACH DELETE (n" in params and "Robert'); DROP TABLE movies;--" in params


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_neo4j_is_a_clear_error():
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    with pytest.raises(StoreError, match=r"cannot reach the Bolt server at .*docker compose"):
        open_store(uri, password="secret-pass")
    with pytest.raises(StoreError, match="not a Bolt address"):
        BoltStore("http://localhost:7474", password="secret-pass")


def test_strict_refuses_before_connecting(hostile_graph, tmp_path):
    save_graph(hostile_graph, tmp_path / "graph.json")
    result = run_cli("load", str(tmp_path), "--strict", "--neo4j", f"bolt://127.0.0.1:{_closed_port()}",
                     env={"NEO4J_PASSWORD": "secret-pass"})
    assert result.returncode == 2 and "items break the schema, nothing loaded" in result.stderr
    assert "cannot reach" not in result.stderr
