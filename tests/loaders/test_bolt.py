"""Bolt servers end to end, and how the loader adapts to what a server supports.

The live tests run on a FalkorDB each test starts on free loopback ports (always, in CI too) and
on Neo4j when NEO4J_URI is set (point it at an empty database: the example queries do not
filter by movie). Killing the server in the middle of a load needs a server the test started,
so that test runs on FalkorDB only.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.graph import save_graph
from kgbuild.loaders.bolt_schema import (
    PARAMETER_PROBE,
    adapt_schema,
    escape_for_text,
    parameters_in_text,
)
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.loaders.examples import EXAMPLES, params_for_graph
from kgbuild.loaders.neo4j_store import (
    FIRST_CONNECT_SECONDS,
    SMALL_MESSAGE_BYTES,
    BoltStore,
)
from kgbuild.loaders.plan import LoadProgress, message_bytes, plan_load
from kgbuild.loaders.records import prepare_rows
from kgbuild.loaders.store import open_store
from kgbuild.model import Evidence
from kgbuild.schema import load_schema
from tests.conftest import REPO
from tests.loaders.conftest import HOSTILE_NAMES
from tests.loaders.stores import expected_rows, same_answer

LABELS = [*load_schema().entity_type_names(), "Scene"]  # the entity types and the scene layer


# ---- what a server supports, found by trying (scripted servers, no network) ----

class ScriptedServer:
    """Refuses every statement containing one of `refuse`; lists `existing` indexes."""

    def __init__(self, refuse: tuple[str, ...] = (), existing: set[tuple[str, str]] | None = None,
                 lists: bool = True) -> None:
        self.refuse, self.existing, self.lists = refuse, existing or set(), lists
        self.tried: list[str] = []

    def attempt(self, cypher: str) -> str | None:
        self.tried.append(cypher)
        return "An unknown error occurred" if any(r in cypher for r in self.refuse) else None

    def indexes(self) -> set[tuple[str, str]] | None:
        return set(self.existing) if self.lists else None


def test_a_server_that_takes_the_neo4j_schema_gets_it_and_no_notes():
    server = ScriptedServer()
    adaptation = adapt_schema(server)
    assert adaptation.takes_constraints and adaptation.notes == []
    assert len(server.tried) == 2 * len(LABELS)
    assert all("IF NOT EXISTS" in cypher for cypher in server.tried)


def test_refused_constraints_and_named_indexes_fall_back_to_plain_indexes():
    server = ScriptedServer(refuse=("CREATE CONSTRAINT", "IF NOT EXISTS"),
                            existing={("Character", "key"), ("Character", "movie")})
    adaptation = adapt_schema(server)
    assert not adaptation.takes_constraints
    assert adaptation.notes == [
        "no uniqueness constraint on key for any label: the server refused CREATE CONSTRAINT "
        "(An unknown error occurred); key is indexed instead, and loads merge on it"]
    plain = [c for c in server.tried if "IF NOT EXISTS" not in c]
    assert plain == [f"CREATE INDEX FOR (n:{label}) ON (n.{prop})"
                     for prop in ("key", "movie") for label in LABELS if label != "Character"]


def test_an_index_the_server_refuses_in_every_form_is_reported():
    server = ScriptedServer(refuse=("CREATE CONSTRAINT", "CREATE INDEX"), lists=False)
    notes = adapt_schema(server).notes
    assert len(notes) == 3
    assert notes[1].startswith(f"no index on key for {', '.join(LABELS)}: the server refused "
                               "CREATE INDEX FOR (n:Character) ON (n.key) (An unknown error occurred)")
    assert notes[2].startswith("no index on movie for ")


def test_parameters_written_into_the_query_text_are_found_by_an_echo():
    assert parameters_in_text(lambda value: value) is False  # Neo4j binds them

    def falkordb(value: str) -> str | None:  # writes '...' around the raw text, then parses it
        raw = value.replace("\\\\", "\0").replace("\\'", "\1")
        if "'" in raw or "\\" in raw:
            return None  # the quote ends the literal: a syntax error
        return raw.replace("\0", "\\").replace("\1", "'")

    assert falkordb(PARAMETER_PROBE) is None
    assert parameters_in_text(falkordb) is True
    with pytest.raises(StoreError, match="garbles query parameters"):
        parameters_in_text(lambda value: "?")
    with pytest.raises(StoreError, match="NUL character"):
        escape_for_text({"rows": [{"name": "a\0b"}]})


def _heavy_graph(small_graph, items: int = 120):
    evidence = [Evidence(scene=i % 3 + 1, lines=(i, i + 1), quote=f"Line {i}: it's \\ quoted " + "x" * 40,
                         producer="rule:test") for i in range(items)]
    entities = [e.model_copy(update={"evidence": evidence}) if e.name == "Margo Vance" else e
                for e in small_graph.entities]
    relations = [r.model_copy(update={"evidence": evidence}) if r.name == "threatens" else r
                 for r in small_graph.relations]
    return small_graph.model_copy(update={"entities": entities, "relations": relations}), evidence


def test_small_statements_cut_batches_and_append_big_evidence_in_pieces(small_graph):
    graph, evidence = _heavy_graph(small_graph)
    rows = prepare_rows(graph)
    plain = plan_load(rows)
    small = plan_load(rows, max_bytes=2000)
    assert max(message_bytes(s.cypher, s.params) for s in plain) > 2000
    assert all(message_bytes(s.cypher, s.params) <= 2000 for s in small)
    written = [row["key"] for s in small for row in s.params.get("rows", [])]
    assert sorted(written) == sorted(row["key"] for s in plain for row in s.params["rows"])
    appended = [s.params for s in small if "rows" not in s.params and s.purpose == "nodes"]
    assert [q for piece in appended for q in piece["evidence_quotes"]] == [e.quote for e in evidence]
    assert LoadProgress.of(small).nodes_total == len(graph.entities)
    with pytest.raises(StoreError, match="too big for this server"):
        plan_load(rows, max_bytes=400)


# ---- live servers ----

def _documented_examples() -> list[str]:
    """The cypher blocks of the "Example queries" section of docs/stores.md."""
    section = (REPO / "docs" / "stores.md").read_text(encoding="utf-8").split("\n## Example queries", 1)[1]
    return re.findall(r"```cypher\n(.*?)\n```", section.split("\n## ", 1)[0], re.DOTALL)


def test_the_docs_show_the_example_queries_that_run():
    assert _documented_examples() == [q.cypher for q in EXAMPLES]


def _kgbuild(bolt, *args: str):
    return CliRunner().invoke(cli, list(args), env=bolt.env)


def test_cli_loads_a_build_reloads_it_with_replace_and_answers_the_documented_queries(bolt, tmp_path,
                                                                                   small_graph):
    outdir = tmp_path / "out"
    save_graph(small_graph, outdir / "graph.json")
    try:
        for extra in ([], ["--replace"]):
            loaded = _kgbuild(bolt, "load", str(outdir), "--neo4j", bolt.uri, *extra)
            assert loaded.exit_code == 0, loaded.output
            assert (f"Loaded movie 'The Harbour' into {bolt.uri}: 10 nodes, 15 relationships"
                    in loaded.stdout)
            notes = [line for line in loaded.stderr.splitlines() if line.startswith("note: ")]
            assert bool(notes) == (bolt.kind == "falkordb"), loaded.stderr
        for query in [q for q in EXAMPLES if not q.needs_scene_layer]:  # the graph has no scene layer
            params = params_for_graph(query, small_graph)
            if "character" in params:
                params["character"] = "MARGO"  # an alias of Margo Vance, in another case
            args = [arg for key, value in params.items() for arg in ("-p", f"{key}={value}")]
            result = _kgbuild(bolt, "query", "--neo4j", bolt.uri, "--example", query.name, *args,
                              "--format", "json")
            assert result.exit_code == 0, (query.name, result.output)
            rows = [list(row.values()) for row in json.loads(result.stdout)]
            wanted = expected_rows(query.name, small_graph, {**params, "character": "Margo Vance"})
            assert rows and same_answer(query.name, rows, wanted), (query.name, rows, wanted)
        unknown = _kgbuild(bolt, "query", "--neo4j", bolt.uri, "--example", "where-and-when", "-p",
                           "character=Margot")
        assert isinstance(unknown.exception, QueryError)
        assert str(unknown.exception).startswith("no character is named or called 'Margot'; close: Margo")
        typed = _kgbuild(bolt, "query", "MATCH ()-[r:kinship_with]->() RETURN type(r), count(*)",
                         "--neo4j", bolt.uri, "--format", "csv")
        assert typed.stdout.splitlines() == ["type(r),count(*)", "kinship_with,1"]
    finally:
        with BoltStore(bolt.uri, database=bolt.database, **bolt.auth) as store:
            store.query("MATCH (n) WHERE n.movie = 'The Harbour' DETACH DELETE n", write=True)


def test_notes_say_how_the_load_adapted_to_the_server(bolt, small_graph):
    with BoltStore(bolt.uri, database=bolt.database, **bolt.auth) as store:
        try:
            first = store.load(small_graph, movie="notes", replace=True)
            second = store.load(small_graph, movie="notes", replace=True)
        finally:
            store.query("MATCH (n) WHERE n.movie = 'notes' DETACH DELETE n", write=True)
        if bolt.kind != "falkordb":
            assert first.notes == second.notes == [] and not store.parameters_in_text
            return
        assert store.parameters_in_text
        indexes = store.query("CALL db.indexes() YIELD label, properties RETURN label, properties").rows
    assert sorted(label for label, props in indexes if {"key", "movie"} <= set(props)) == sorted(LABELS)
    assert first.notes == second.notes  # nothing refused twice, no index made twice
    assert first.notes[0].startswith("no uniqueness constraint on key for any label: the server refused "
                                     "CREATE CONSTRAINT")
    assert first.notes[1].startswith("the server writes parameters into the query text (as FalkorDB "
                                     "does): strings were escaped, and the load went in ")
    assert first.notes[1].endswith(f"statements of at most {SMALL_MESSAGE_BYTES:,} bytes")


def test_quotes_backslashes_and_big_evidence_arrive_intact(bolt, small_graph):
    graph, evidence = _heavy_graph(small_graph, items=200)
    values = [*HOSTILE_NAMES, "it's", "a\\'b", "\\", "x' RETURN 1 //"]
    with BoltStore(bolt.uri, database=bolt.database, **bolt.auth) as store:
        try:
            assert store.query("RETURN $values AS v", {"values": values}).rows == [[values]]
            counts = store.load(graph, movie="heavy", replace=True)
            stored = store.query("MATCH (c:Character) WHERE c.movie = 'heavy' AND c.name = 'Margo Vance' "
                                 "RETURN c.evidence_quotes AS q, c.evidence_lines AS l").rows
            rel = store.query("MATCH ()-[r:hostility_with]->() WHERE r.movie = 'heavy' AND "
                              "r.name = 'threatens' RETURN r.evidence_scenes AS s").rows
        finally:
            store.query("MATCH (n) WHERE n.movie = 'heavy' DETACH DELETE n", write=True)
        if store.parameters_in_text:
            with pytest.raises(QueryError, match="writes parameters into the query text"):
                store.query("RETURN $v AS v", {"v": "x" * 4000})
            assert store.query("RETURN 1 AS one").rows == [[1]]  # refused before sending: still up
    assert (counts.nodes, counts.relations) == (10, 15)
    assert stored == [[[e.quote for e in evidence], [f"{e.lines[0]}-{e.lines[1]}" for e in evidence]]]
    assert rel == [[[e.scene for e in evidence]]]


@pytest.mark.bolt
def test_a_password_for_a_server_without_authentication_is_a_clear_error(falkordb):
    with pytest.raises(StoreError) as info:
        BoltStore(falkordb.uri, user="neo4j", password="secret-pass")
    message = str(info.value)
    assert message.startswith(f"cannot reach the Bolt server at {falkordb.uri}: ")
    assert "NEO4J_PASSWORD='' for a server without authentication (FalkorDB)" in message
    assert "\n" not in message
    with BoltStore(falkordb.uri, password="") as store:
        assert store.query("RETURN 1 AS one").rows == [[1]]


@pytest.mark.bolt
def test_a_load_that_loses_its_server_says_how_far_it_got_and_a_rerun_completes_it(falkordb,
                                                                                    small_graph):
    seen: list[LoadProgress] = []

    def pull_the_plug(progress: LoadProgress) -> None:
        if progress.statements == 3:
            seen.append(progress)
            falkordb.save()  # what was written so far survives the restart below
            falkordb.kill()

    with pytest.raises(StoreError) as info, BoltStore(falkordb.uri, password="", retry_seconds=0.5) as store:
        store.load(small_graph, batch_size=2, on_progress=pull_the_plug)
    message, at = str(info.value), seen[0]
    assert "\n" not in message
    assert message.startswith(
        f"loading movie 'The Harbour' into {falkordb.uri} stopped after {at.nodes} of 10 nodes and "
        f"0 of 15 relationships (3 of {at.statements_total} statements done): ")
    assert message.endswith("; run the same command again to complete it (rows merge on their keys)")
    falkordb.start()
    with BoltStore(falkordb.uri, password="") as store:
        assert store.counts("The Harbour") == (at.nodes, 0) and 0 < at.nodes < 10
    with open_store(falkordb.uri) as store:
        rerun = store.load(small_graph, batch_size=2)
    assert (rerun.nodes, rerun.relations) == (10, 15)
    with BoltStore(falkordb.uri, password="") as store:
        keys = store.query("MATCH (n) RETURN n.id AS id ORDER BY id").rows
    assert [row[0] for row in keys] == sorted(e.id for e in small_graph.entities)


@pytest.mark.bolt
def test_a_connection_stalled_by_another_clients_goodbye_is_tried_again(falkordb):
    import neo4j

    other = neo4j.GraphDatabase.driver(falkordb.uri, auth=None)
    other.execute_query("RETURN 1 AS one")
    other.close()  # says GOODBYE: FalkorDB leaves the next connection on that socket unanswered
    started = time.monotonic()
    with BoltStore(falkordb.uri, password="") as store:
        assert store.query("RETURN 1 AS one").rows == [[1]]
    assert time.monotonic() - started < FIRST_CONNECT_SECONDS + 5
    with BoltStore(falkordb.uri, password="") as store:  # kgbuild closed without goodbye: no stall
        started = time.monotonic()
        assert store.query("RETURN 2 AS two").rows == [[2]]
    assert time.monotonic() - started < FIRST_CONNECT_SECONDS
