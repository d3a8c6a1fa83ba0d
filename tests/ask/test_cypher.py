"""`ask --cypher`: the read-only guard, the checks against the store, one retry with the problem,
on the embedded store and on FalkorDB over Bolt, with the real `openai` client and the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgbuild.ask import AskSession
from kgbuild.ask.cypher import (
    ask_cypher,
    named_labels,
    static_problem,
    store_counts,
    write_words,
)
from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.graph import load_graph
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.loaders.results import QueryResult
from kgbuild.loaders.store import GraphStore, open_store
from kgbuild.schema import load_schema
from kgbuild.testing import FakeOpenAIServer

SPEAKERS = ("MATCH (a:Character {movie: $movie})-[:speaks_to]->(b:Character {movie: $movie}) "
            "WHERE toLower(b.name) CONTAINS 'nora' RETURN a.name AS speaker ORDER BY speaker")
WRITE = "MATCH (c:Character {movie: $movie}) SET c.name = 'Nobody' RETURN c.name"
NAMES = "MATCH (c:Character) RETURN c.name AS name ORDER BY name"


def queue(*queries: str):
    """A responder answering each request with the next query."""
    replies = iter(queries)
    return lambda body: json.dumps({"cypher": next(replies)})


def llm_args(server: FakeOpenAIServer, cache: Path) -> list[str]:
    return ["--cypher", "--llm-model", "cypher-model", "--llm-base-url", server.base_url, "--llm-cache-dir", str(cache)]


class Recording:
    """A store that records every query that reaches it."""

    def __init__(self, store: GraphStore):
        self.store = store
        self.seen: list[str] = []

    def query(self, cypher: str, params: dict[str, Any] | None = None, *, write: bool = False) -> QueryResult:
        self.seen.append(cypher)
        return self.store.query(cypher, params, write=write)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


# -- the checks ------------------------------------------------------------------------------------

@pytest.mark.parametrize("query, words", [
    ("CREATE (n:Character {name: 'x'})", ["CREATE"]),
    ("MATCH (n) MERGE (m:Object {name: n.name})", ["MERGE"]),
    (WRITE, ["SET"]),
    ("MATCH (n) DETACH DELETE n", ["DETACH", "DELETE"]),
    ("MATCH (n) REMOVE n.name", ["REMOVE"]),
    ("DROP TABLE Character", ["DROP"]),
    ("LOAD CSV FROM 'file:///x' AS row RETURN row", ["LOAD"]),
    ("COPY Character FROM 'x.csv'", ["COPY"]),
    ("CALL dbms.killQueries(['1'])", ["CALL dbms.killQueries"]),
    ("MATCH (n) CALL { WITH n DELETE n } RETURN 1", ["CALL {", "DELETE"]),
    ("MATCH (n) FOREACH (x IN [1] | SET n.a = x)", ["FOREACH", "SET"]),
    ("RETURN apoc.create.uuid()", ["apoc."]),
    ("match (n) set n.a = 1", ["SET"]),
    ("PROFILE MATCH (n) RETURN n", ["PROFILE"]),
])
def test_every_write_is_found(query, words):
    assert write_words(query) == words


@pytest.mark.parametrize("query", [
    "MATCH (c:Character) WHERE c.name = 'SET the table; DROP it' RETURN c.name // CREATE nothing",
    "MATCH (c:Character) /* MERGE */ RETURN c.set, c.created AS create_date",
    "CALL db.labels()",
    # A word that begins with CALL is no CALL (found measuring --cypher: 'p.name AS caller').
    "MATCH (p:Character)-[:speaks_to]->(c:Character) RETURN p.name AS caller, c.name AS callee",
    SPEAKERS,
])
def test_reading_queries_pass_the_guard(query):
    assert write_words(query) == []


def test_labels_and_types_named_by_patterns():
    query = ("MATCH (a:Character {movie: $movie})-[r:speaks_to|kinship_with]->(:Character:Object), "
             "(b)-[:`part_of`*1..2]-(s:Scene) WHERE toLower(a.name) = 'x:y' RETURN count(a)")
    assert named_labels(query) == (["Character", "Object", "Scene"], ["speaks_to", "kinship_with", "part_of"])


def test_static_problems():
    nodes, rels = {"Character": 3, "Scene": 6}, {"speaks_to": 4}
    assert static_problem(SPEAKERS, nodes, rels, "embedded") is None
    assert "does not only read (SET)" in static_problem(WRITE, nodes, rels, "embedded")
    assert "more than one statement" in static_problem("MATCH (n) RETURN n; MATCH (m) RETURN m", nodes, rels, "bolt")
    assert "$name" in static_problem("MATCH (c:Character {name: $name}) RETURN c", nodes, rels, "bolt")
    assert "no label Person" in static_problem("MATCH (p:Person) RETURN p", nodes, rels, "bolt")
    assert "no relationship type kinship_with" in static_problem("MATCH ()-[:kinship_with]->() RETURN 1", nodes,
                                                                 rels, "bolt")
    shortest = "MATCH p = shortestPath((a:Character)-[*]-(b:Character)) RETURN p"
    assert "shortestPath(...) is Neo4j's" in static_problem(shortest, nodes, rels, "embedded")
    assert static_problem(shortest, nodes, rels, "bolt") is None
    assert static_problem("  ", nodes, rels, "bolt") == "the query is empty"


# -- against the embedded store ----------------------------------------------------------------------

@pytest.fixture
def store(build):
    opened = open_store(build / "graph.lbdb")
    yield opened
    opened.close()


def test_counts_are_of_this_movie(build, store):
    movie = load_graph(build / "graph.json").movie.key
    nodes, rels = store_counts(store, movie)
    assert nodes["Character"] == 3 and nodes["Scene"] == 6 and rels["speaks_to"] == 4
    assert store_counts(store, "another movie") == ({}, {})


def test_a_write_never_reaches_the_store_and_a_bad_query_is_retried_once(build, store, tmp_path):
    movie = load_graph(build / "graph.json").movie.key
    settings = LLMSettings(model="cypher-model", cache_dir=tmp_path / "cache")
    spy = Recording(store)
    backend = ScriptedBackend([json.dumps({"cypher": WRITE}), json.dumps({"cypher": WRITE})])
    answer = ask_cypher("Rename everyone", spy, settings, movie=movie, schema=load_schema(), backend=backend)
    assert answer.error is not None and "does not only read (SET)" in answer.error
    assert [a.problem is not None for a in answer.attempts] == [True, True] and answer.rows == []
    assert not any("SET" in q for q in spy.seen)  # only the counting queries reached the store
    assert "That query cannot be used: it does not only read (SET)" in backend.requests[1].messages[-1].content
    # A query the store refuses (a syntax error its EXPLAIN finds) is sent back once, with the error.
    backend = ScriptedBackend([json.dumps({"cypher": "MATCH (c:Character RETURN c.name"}),
                               json.dumps({"cypher": SPEAKERS})])
    answer = ask_cypher("Who speaks to Nora?", spy, settings, movie=movie, schema=load_schema(), backend=backend)
    assert answer.error is None and answer.cypher == SPEAKERS
    assert answer.columns == ["speaker"] and answer.rows == [["Owen"]]
    assert "the store refused it: syntax error at line 1" in answer.attempts[0].problem
    assert "syntax error" in backend.requests[1].messages[-1].content
    assert len(backend.requests) == 2
    with pytest.raises(InputError, match="holds nothing of the movie 'elsewhere'"):
        ask_cypher("x", spy, settings, movie="elsewhere", schema=load_schema(), backend=backend)


def test_ask_cypher_command_on_the_embedded_store(build, tmp_path):
    runner = CliRunner()
    with FakeOpenAIServer(responder=queue("MATCH (p:Person {movie: $movie}) RETURN p.name", SPEAKERS)) as server:
        result = runner.invoke(cli, ["ask", str(build), "Who speaks to Nora?", *llm_args(server, tmp_path / "c")])
        assert result.exit_code == 0, result.output
        assert server.count() == 2
        first = server.requests[0].body["messages"]
        assert "- speaks_to (Character -> Character; 4)" in first[1]["content"]
        assert "embedded store" in first[0]["content"]
        assert "no label Person" in server.requests[1].body["messages"][-1]["content"]
    assert "Query 1 (cypher-model, refused: this movie has no label Person" in result.output
    assert "Query 2 (cypher-model, ran):" in result.output and "\nspeaker\nOwen\n" in result.output
    # The same question again: both replies come from the cache.
    with FakeOpenAIServer(responder=queue()) as server:
        again = runner.invoke(cli, ["ask", str(build), "Who speaks to Nora?", "--format", "json",
                                    *llm_args(server, tmp_path / "c")])
        assert again.exit_code == 0 and server.count() == 0
    assert json.loads(again.output)["rows"] == [["Owen"]]


def test_a_write_query_is_refused_and_the_command_fails(build, tmp_path):
    with FakeOpenAIServer(responder=queue(WRITE, "MATCH (c:Character) DETACH DELETE c")) as server:
        result = CliRunner().invoke(cli, ["ask", str(build), "Delete them", *llm_args(server, tmp_path / "c")])
    assert result.exit_code != 0
    assert "no query could be run after 2 attempts" in str(result.exception)
    with AskSession(build) as session:
        assert {e.name for e in session.graph.entities if e.type == "Character"} == {"Owen", "Nora", "Ivers"}
    names = CliRunner().invoke(cli, ["query", NAMES, "--db", str(build), "--format", "json"])
    assert [row["name"] for row in json.loads(names.output)] == ["Ivers", "Nora", "Owen"]


def test_cypher_needs_an_llm_and_batch_export_writes_the_request(build, tmp_path):
    runner = CliRunner()
    bare = runner.invoke(cli, ["ask", str(build), "Who?", "--cypher"])
    assert bare.exit_code == 2 and "--cypher needs an LLM" in bare.output
    bounded = runner.invoke(cli, ["ask", str(build), "Who?", "--cypher", "--scene", "2", "--llm-model", "m"])
    assert bounded.exit_code == 2 and "--scene bounds the evidence" in bounded.output
    stray = runner.invoke(cli, ["ask", str(build), "Who?", "--db", str(build)])
    assert stray.exit_code == 2 and "are for --cypher" in stray.output
    requests = tmp_path / "requests.jsonl"
    exported = runner.invoke(cli, ["ask", str(build), "Who?", "--cypher", "--llm-model", "m", "--llm-cache-dir",
                                   str(tmp_path / "c"), "--llm-batch-export", str(requests)])
    assert exported.exit_code == 3, exported.output
    assert json.loads(requests.read_text())["body"]["messages"][1]["content"].startswith("Question: Who?")


# -- against FalkorDB over Bolt (which runs writes even in a read transaction) -------------------------

def test_ask_cypher_on_falkordb(build, tmp_path):
    from kgbuild.loaders.neo4j_store import BoltStore
    from tests.loaders.bolt_server import FalkorServer

    server = FalkorServer(tmp_path / "falkor").start()
    try:
        with BoltStore(server.uri, password="") as store:
            store.load(load_graph(build / "graph.json"))
        env = {"NEO4J_USERNAME": "neo4j", "NEO4J_PASSWORD": ""}
        runner = CliRunner()
        with FakeOpenAIServer(responder=queue(SPEAKERS)) as llm:
            result = runner.invoke(cli, ["ask", str(build), "Who speaks to Nora?", "--db", server.uri,
                                         *llm_args(llm, tmp_path / "c")], env=env)
            assert result.exit_code == 0, result.output
            assert "Neo4j or FalkorDB" in llm.requests[0].body["messages"][0]["content"]
        assert "\nspeaker\nOwen\n" in result.output
        with FakeOpenAIServer(responder=queue(WRITE, WRITE)) as llm:
            refused = runner.invoke(cli, ["ask", str(build), "Rename them", "--db", server.uri,
                                          *llm_args(llm, tmp_path / "c")], env=env)
        assert refused.exit_code != 0
        with BoltStore(server.uri, password="") as store:
            assert "Nobody" not in {row[0] for row in store.query("MATCH (c:Character) RETURN c.name").rows}
    finally:
        server.stop()
