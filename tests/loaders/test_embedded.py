"""The embedded store: schema, loading, refusals, read-only queries and their errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kgbuild.folders import BuildFolder
from kgbuild.graph import save_graph
from kgbuild.loaders.embedded import connect, movie_counts, resolve_db_path, run_query, schema_ddl, write_embedded
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.examples import EXAMPLES, example, params_for_graph
from kgbuild.loaders.records import EVIDENCE_PROPERTIES, prepare_rows, store_key
from kgbuild.loaders.store import open_store
from kgbuild.schema import load_schema
from tests.loaders.conftest import MARGO_EVIDENCE, THREAT_EVIDENCE

EVIDENCE_RETURN = ("{v}.evidence_scenes AS scenes, {v}.evidence_lines AS lines, "
                   "{v}.evidence_quotes AS quotes, {v}.evidence_producers AS producers")


def test_schema_has_a_table_per_entity_type_and_a_group_per_relation_type():
    ddl = schema_ddl()
    schema = load_schema()
    # ... and the scene layer: the Scene table and the in_scene relationship.
    assert len(ddl) == len(schema.entity_types) + len(schema.relation_types) + 2
    assert ddl[-2].startswith("CREATE NODE TABLE IF NOT EXISTS Scene(key STRING PRIMARY KEY, movie STRING")
    assert ddl[-1].startswith("CREATE REL TABLE IF NOT EXISTS in_scene(FROM Character TO Scene, key STRING")
    assert ddl[0].startswith("CREATE NODE TABLE IF NOT EXISTS Character(key STRING PRIMARY KEY, id STRING")
    part_of = next(s for s in ddl if " part_of(" in s)
    assert ("FROM Location TO Location, FROM Object TO Location, FROM Object TO Object, "
            "FROM Location TO Occasion, FROM Occasion TO Location, FROM Object TO Concept") in part_of


def test_write_then_read_back_every_property(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    counts = write_embedded(small_graph, db)
    assert (counts.nodes, counts.relations, counts.refused) == (10, 15, [])
    assert counts.movie == "The Harbour" and counts.store == str(db)
    node = run_query(db, "MATCH (c:Character {id: $id}) RETURN c.key AS key, c.name AS name, c.type AS type, "
                     "c.description AS d, c.aliases AS aliases, c.scenes AS scenes, c.first_scene AS f, "
                     "c.last_scene AS l, c.scope AS scope, c.movie AS movie",
                     {"id": "character:margo_vance"})
    assert node.rows == [[store_key("The Harbour", "character:margo_vance"), "Margo Vance", "Character",
                          "A harbour pilot.", ["Margo"], [1, 2, 3], 1, 3, "global", "The Harbour"]]
    rel = run_query(db, "MATCH (:Character)-[r:hostility_with]->(b:Character {name: 'Rook'}) "
                    "RETURN r.name AS name, r.scenes AS scenes, r.first_scene AS f, r.last_scene AS l, "
                    "r.persistence AS p, type(r) AS t ORDER BY f")
    assert rel.rows == [["threatens", [2, 3], 2, 3, "momentary", "hostility_with"],
                        ["", [3], 3, 3, "momentary", "hostility_with"]]
    unscened = run_query(db, "MATCH (:Character {name: 'Rook'})-[r:possesses]->() "
                         "RETURN r.scenes AS s, r.first_scene AS f")
    assert unscened.rows == [[[], None]]


def test_evidence_lists_round_trip(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    margo = run_query(db, "MATCH (n:Character {id: $id}) RETURN " + EVIDENCE_RETURN.format(v="n"),
                      {"id": "character:margo_vance"})
    assert margo.rows == [[[1, 2], ["12-13", ""], [e.quote for e in MARGO_EVIDENCE],
                           ["rule:character_introduction", "migrated:kgbuild.graph/1"]]]
    threat = run_query(db, "MATCH (:Character)-[r:hostility_with {name: 'threatens'}]->() RETURN "
                       + EVIDENCE_RETURN.format(v="r"))
    assert threat.rows == [[[2, 3], ["40-40", "88-90"], [e.quote for e in THREAT_EVIDENCE],
                            ["llm:test-model/relations@1", "rule:hostile_act"]]]
    # Labels and types where no item has evidence (a batch of empty lists) still load, as [].
    bare = run_query(db, "MATCH (o:Object {name: 'Radio'})<-[r:possesses]-() RETURN o.evidence_scenes AS n, "
                     "o.evidence_quotes AS q, r.evidence_scenes AS rs, r.evidence_lines AS rl")
    assert bare.rows == [[[], [], [], []]]
    quoted = run_query(db, "MATCH (n) WHERE size(n.evidence_quotes) > 0 RETURN n.name AS name ORDER BY name")
    assert quoted.rows == [["Dock Nine"], ["Margo Vance"]]


def test_a_store_from_before_evidence_gains_the_columns(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    evidence_columns = "".join(f", {name} {kind}" for name, kind in EVIDENCE_PROPERTIES)
    with connect(db, read_only=False) as connection:
        for statement in schema_ddl():
            connection.execute(statement.replace(evidence_columns, ""))
        columns = [row[1] for row in connection.execute("CALL table_info('Character') RETURN *").get_all()]
        assert "evidence_quotes" not in columns
    write_embedded(small_graph, db)
    rows = run_query(db, "MATCH (a:Character)-[r:hostility_with]->(:Character {name: 'Rook'}) "
                     "RETURN a.evidence_scenes AS source, r.evidence_scenes AS rel ORDER BY r.first_scene").rows
    assert rows == [[[1, 2], [2, 3]], [[], []]]


def test_type_macro_survives_reopening_read_only(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    write_embedded(small_graph, db)  # the macro is not created twice
    result = run_query(db, "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n ORDER BY t")
    assert dict(map(tuple, result.rows))["located_at"] == 4


def test_strict_load_refuses_and_writes_nothing(tmp_path, hostile_graph):
    db = tmp_path / "graph.lbdb"
    with pytest.raises(StoreError, match="items break the schema, nothing loaded") as info:
        write_embedded(hostile_graph, db, strict=True)
    assert "relation type 'loves' is not in the schema" in str(info.value)
    assert not db.exists()


def test_refusals_say_why(tmp_path, hostile_graph):
    refused = {r.id: r.reason for r in prepare_rows(hostile_graph).refused}
    inadmissible = next(r for r in hostile_graph.relations if r.type == "kinship_with"
                        and r.source.startswith("location:"))
    assert refused[inadmissible.id] == ("Location -kinship_with-> Character is not admitted by the schema "
                                        "(kinship_with admits Character->Character)")
    dangling = next(r for r in hostile_graph.relations if r.target == "rogue:1")
    assert refused[dangling.id] == "end 'rogue:1' is not a stored entity"
    assert len(refused) == 5


def test_synonyms_are_stored_under_the_schema_name(tmp_path, small_graph):
    relations = [r.model_copy(update={"type": "affiliated_with"}) if r.type == "member_of" else r
                 for r in small_graph.relations]
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph.model_copy(update={"relations": relations}), db)
    assert run_query(db, "MATCH ()-[r:member_of]->() RETURN count(r) AS n").rows == [[1]]


def test_a_failed_load_changes_nothing(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    twin = small_graph.entities[0].model_copy(update={"id": "character:twin", "name": "Twin"})
    # Same key twice in one movie cannot happen from a graph, so collide through --movie instead:
    collide = small_graph.model_copy(update={"entities": [*small_graph.entities, twin], "relations": []})
    write_embedded(collide, db, movie="Other")
    with connect(db, read_only=False) as connection:
        connection.execute("MATCH (n:Character {id: 'character:twin'}) SET n.movie = 'The Harbour'")
    before = run_query(db, "MATCH (n) RETURN count(n) AS n").rows
    with pytest.raises(StoreError, match="nothing was changed"):
        write_embedded(collide, db, movie="Other", replace=True)  # deletes by movie, then the twin key clashes
    assert run_query(db, "MATCH (n) RETURN count(n) AS n").rows == before


def test_queries_are_read_only_unless_write(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    with pytest.raises(QueryError, match="pass --write"):
        run_query(db, "MATCH (n:Character) DETACH DELETE n")
    run_query(db, "MATCH (n:Character {name: $name}) SET n.description = $d",
              {"name": "Rook", "d": "changed"}, write=True)
    assert run_query(db, "MATCH (n:Character {name: 'Rook'}) RETURN n.description AS d").rows == [["changed"]]


def test_query_errors_name_the_problem(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    with pytest.raises(QueryError, match=r"missing \$name"):
        run_query(db, "MATCH (c:Character {name: $name}) RETURN c.name AS n")
    with pytest.raises(QueryError, match=r"syntax error at line 1, column \d+") as info:
        run_query(db, "MATCH (n) SET n += $m", {"m": {"a": 1}})
    assert "SET n += map is Neo4j's; write one SET n.key = value per property" in str(info.value)
    with pytest.raises(QueryError, match="labels and relationship types in this store: Character, Concept"):
        run_query(db, "MATCH (n:Person) RETURN n")
    with pytest.raises(StoreError, match="no embedded store at"):
        run_query(tmp_path / "missing.lbdb", "RETURN 1 AS one")


def test_nodes_and_relationships_come_back_as_plain_dicts(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    row = run_query(db, "MATCH (c:Character {name: 'Teddy Brake'})-[r:located_at]->(l) RETURN c, r").rows[0]
    assert row[0]["label"] == "Character" and row[0]["name"] == "Teddy Brake"
    assert not any(k.startswith("_") for k in row[0]) and row[1]["label"] == "located_at"


def test_db_path_resolution(tmp_path):
    assert resolve_db_path(None).name == BuildFolder.STORE
    assert resolve_db_path(tmp_path) == tmp_path / BuildFolder.STORE
    assert resolve_db_path(tmp_path / "x.lbdb") == tmp_path / "x.lbdb"


def test_one_store_object_queries_then_loads_then_queries_again(tmp_path, small_graph):
    with open_store(tmp_path / "graph.lbdb") as store:
        assert store.kind == "embedded" and store.where == str(tmp_path / "graph.lbdb")
        with pytest.raises(StoreError, match="no embedded store at"):
            store.movies()
        store.load(small_graph, movie="one", replace=True)
        assert store.movies() == ["one"]  # the read connection is open now
        store.load(small_graph, movie="two", replace=False)  # closes it: one writer, and no reader in the way
        assert store.movies() == ["one", "two"] and store.counts("two") == (10, 15)
        store.query("MATCH (n) WHERE n.movie = 'one' DETACH DELETE n", write=True)
        assert store.movies() == ["two"]


def test_a_store_opened_on_a_graph_json_refuses_loads_and_writes(tmp_path, small_graph, monkeypatch):
    monkeypatch.setenv("KGBUILD_CACHE_DIR", str(tmp_path / "cache"))
    save_graph(small_graph, tmp_path / "out" / "graph.json")
    with open_store(tmp_path / "out" / "graph.json") as store:
        assert store.movies() == [small_graph.movie.key]
        with pytest.raises(StoreError, match="graph.json: a load needs a store; load it into one with 'kgbuild load"):
            store.load(small_graph)
        with pytest.raises(StoreError, match="graph.json: a query that writes needs a store; load it into one"):
            store.query("MATCH (n) DETACH DELETE n", write=True)
        assert store.counts(small_graph.movie.key) == (10, 15)
    assert not (tmp_path / "out" / "graph.lbdb").exists()


def test_a_second_writer_is_told_to_wait(tmp_path, small_graph):
    db = tmp_path / "graph.lbdb"
    write_embedded(small_graph, db)
    code = ("import ladybug, sys; d = ladybug.Database(sys.argv[1]); c = ladybug.Connection(d); "
            "c.execute('RETURN 1'); print('ready', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match="one writer at a time"):
            write_embedded(small_graph, db)
        assert run_query(db, "MATCH (n) RETURN count(n) AS n").rows == [[10]]  # readers still read
    finally:
        holder.communicate("")


def test_examples_exist_and_take_parameters_from_the_graph(small_graph):
    assert example("where-and-when").samples == {"character": "Reggie"}  # shown, never a default
    with pytest.raises(QueryError, match=r"example where-and-when needs -p character=VALUE .*e\.g\. "
                       r"-p character=Reggie"):
        example("where-and-when").values({})
    assert example("characters-by-relations").values({}) == {"limit": 10}
    with pytest.raises(QueryError, match="choose one of: characters-by-relations"):
        example("nope")
    params = {q.name: params_for_graph(q, small_graph) for q in EXAMPLES}
    assert params["where-and-when"] == {"character": "Margo Vance"}
    assert params["known-up-to-scene"] == {"scene": 1}
    assert params["characters-by-relations"] == {"limit": 10}


@pytest.mark.shared_data
def test_stage_graph_loads_with_its_refusals_counted(stage_store, stage_graph):
    with connect(stage_store, read_only=True) as connection:
        nodes, relations = movie_counts(connection, stage_graph.movie.key)
    refused = prepare_rows(stage_graph).refused
    assert nodes == len(stage_graph.entities) > 1000
    assert relations == len(stage_graph.relations) - len(refused) > 2500
    assert refused and all("not admitted by the schema" in r.reason for r in refused)
