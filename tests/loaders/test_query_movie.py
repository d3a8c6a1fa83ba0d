"""`kgbuild query --movie ID` on a store of several movies, and `--db GRAPH.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import kgbuild
from kgbuild.cli import cli
from kgbuild.graph import save_graph
from kgbuild.loaders.embedded import write_embedded
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.scope import scope_to_movie
from kgbuild.loaders.store import open_store
from tests.loaders.conftest import make_small_graph

MOVIES = ("The Harbour", "Harbour Two")
COUNT = "MATCH (c:Character) RETURN count(c) AS n"


@pytest.mark.parametrize(("cypher", "scoped"), [
    ("MATCH (n) RETURN count(n)", "MATCH (n {movie: $kgbuild_movie}) RETURN count(n)"),
    ("MATCH ()-[r]->() RETURN count(r)",
     "MATCH ({movie: $kgbuild_movie})-[r]->({movie: $kgbuild_movie}) RETURN count(r)"),
    ("MATCH (c:Character {name: 'A (B)'}), (d {}) RETURN toLower(c.name), (1 + 2) AS x",
     "MATCH (c:Character {movie: $kgbuild_movie, name: 'A (B)'}), (d {movie: $kgbuild_movie}) "
     "RETURN toLower(c.name), (1 + 2) AS x"),
    ("MATCH p = (a)<-[:x]-(b:`Odd (Label)`) WHERE (a)-->() RETURN p // (c)",
     "MATCH p = (a {movie: $kgbuild_movie})<-[:x]-(b:`Odd (Label)` {movie: $kgbuild_movie}) "
     "WHERE (a {movie: $kgbuild_movie})-->({movie: $kgbuild_movie}) RETURN p // (c)"),
    ("MATCH (c) WHERE EXISTS { MATCH (c)-[:in_scene]->(s:Scene) } RETURN [(c)-->(x) | x.name], 1 - (2)",
     "MATCH (c {movie: $kgbuild_movie}) WHERE EXISTS { MATCH (c {movie: $kgbuild_movie})-[:in_scene]->"
     "(s:Scene {movie: $kgbuild_movie}) } RETURN [(c {movie: $kgbuild_movie})-->(x {movie: $kgbuild_movie}) | "
     "x.name], 1 - (2)"),
    ("MATCH (c {movie: 'other'}) RETURN c", "MATCH (c {movie: 'other'}) RETURN c"),
])
def test_every_node_pattern_gets_the_movie(cypher, scoped):
    assert scope_to_movie(cypher) == scoped


def _counts(result) -> int:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)[0]["n"]


def test_a_corpus_store_answers_for_one_movie(tmp_path):
    store = tmp_path / "corpus.lbdb"
    write_embedded(make_small_graph(MOVIES[0]), store)
    second = make_small_graph(MOVIES[1])
    write_embedded(second.model_copy(update={"entities": second.entities[:2]}), store)
    runner = CliRunner()
    args = ["query", COUNT, "--db", str(store), "--format", "json"]
    assert _counts(runner.invoke(cli, args)) == 5
    assert _counts(runner.invoke(cli, [*args, "--movie", MOVIES[0]])) == 3
    assert _counts(runner.invoke(cli, [*args, "--movie", MOVIES[1]])) == 2
    example = runner.invoke(cli, ["query", "--example", "where-and-when", "-p", "character=margo", "--db", str(store),
                                  "--movie", MOVIES[1], "--format", "json"])
    assert example.exit_code == 0, example.output
    unknown = runner.invoke(cli, [*args, "--movie", "Harbour Three"])
    assert isinstance(unknown.exception, QueryError)
    assert str(unknown.exception) == "no movie 'Harbour Three' in this store; it holds 'Harbour Two', 'The Harbour'"
    assert kgbuild.query(COUNT, db=store, movie=MOVIES[1]) == [{"n": 2}]


def test_a_bolt_server_answers_for_one_movie(bolt):
    graphs = [make_small_graph(movie) for movie in MOVIES]
    graphs[1] = graphs[1].model_copy(update={"entities": graphs[1].entities[:2]})
    try:
        with open_store(bolt.uri, database=bolt.database, **bolt.auth) as server:
            for graph in graphs:
                server.load(graph, replace=True)
            assert set(MOVIES) <= set(server.movies())
        for movie, wanted in zip(MOVIES, (3, 2), strict=True):
            result = CliRunner().invoke(cli, ["query", COUNT, "--neo4j", bolt.uri, "--movie", movie, "--format",
                                              "json"], env=bolt.env)
            assert _counts(result) == wanted
    finally:
        with open_store(bolt.uri, database=bolt.database, **bolt.auth) as server:
            for movie in MOVIES:
                server.query("MATCH (n) WHERE n.movie = $m DETACH DELETE n", {"m": movie}, write=True)


def test_a_graph_json_is_queried_through_a_cached_store(tmp_path, monkeypatch):
    monkeypatch.setenv("KGBUILD_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "missed"
    save_graph(make_small_graph(), folder / "graph.json")
    runner = CliRunner()
    for db in (folder / "graph.json", folder):  # the file, or a folder holding it and no store
        assert _counts(runner.invoke(cli, ["query", COUNT, "--db", str(db), "--format", "json"])) == 3
    stores = list((tmp_path / "cache" / "stores").glob("*.lbdb"))
    with open_store(folder / "graph.json") as store:
        assert len(stores) == 1 and store.where == str(stores[0])
    save_graph(make_small_graph().model_copy(update={"entities": make_small_graph().entities[:1]}),
               folder / "graph.json")
    assert kgbuild.query(COUNT, db=folder / "graph.json") == [{"n": 1}]  # a changed file is loaded again
    written = runner.invoke(cli, ["query", "MATCH (n) DETACH DELETE n", "--write", "--db", str(folder)])
    assert isinstance(written.exception, StoreError)
    assert "a query that writes needs a store; load it into one" in str(written.exception)
    assert not (folder / "graph.lbdb").exists()


def test_a_build_folder_keeps_its_own_store(tmp_path: Path):
    save_graph(make_small_graph(), tmp_path / "graph.json")
    (tmp_path / "graph.lbdb").touch()
    for given, where in ((tmp_path, tmp_path / "graph.lbdb"), (tmp_path / "x.lbdb", tmp_path / "x.lbdb")):
        with open_store(given) as store:
            assert store.where == str(where)
