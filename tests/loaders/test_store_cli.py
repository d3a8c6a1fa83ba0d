"""`kgbuild load`, `kgbuild query`, `kgbuild export` from the command line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.graph import save_graph
from kgbuild.loaders.dialect import MAX_PARAM_DEPTH
from kgbuild.loaders.errors import QueryError, StoreError
from tests.cli_in_process import Ran, run_cli


@pytest.fixture
def outdir(tmp_path, small_graph):
    folder = tmp_path / "out"
    save_graph(small_graph, folder / "graph.json")
    return folder


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_load_then_query_with_an_example(outdir):
    loaded = invoke("load", str(outdir))
    assert loaded.exit_code == 0, loaded.output
    assert "Loaded movie 'The Harbour' into" in loaded.output and "10 nodes, 15 relationships" in loaded.output
    assert (outdir / "graph.lbdb").exists()
    result = invoke("query", "--db", str(outdir), "--example", "objects-possessed",
                    "-p", "character=Margo Vance", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [
        {"object": "Brass Key", "description": "", "scenes": [3]},
        {"object": "Radio", "description": "A battered handheld radio.", "scenes": [1, 2]},
    ]


def test_query_formats(outdir):
    invoke("load", str(outdir / "graph.json"))
    cypher = "MATCH (c:Character) RETURN c.name AS name, c.scenes AS scenes ORDER BY name"
    as_csv = invoke("query", cypher, "--db", str(outdir / "graph.lbdb"), "--format", "csv")
    assert as_csv.output.splitlines() == ["name,scenes", 'Margo Vance,"[1, 2, 3]"', 'Rook,"[2, 3]"',
                                          'Teddy Brake,"[1, 3]"']
    table = invoke("query", cypher, "--db", str(outdir))
    assert "Margo Vance" in table.output and "3 rows" in table.output


def test_query_refusals_and_notes(outdir):
    invoke("load", str(outdir))
    missing = invoke("query", "MATCH (c:Character {name: $who}) RETURN c.name AS n", "--db", str(outdir))
    assert isinstance(missing.exception, QueryError) and "--param who=VALUE" in str(missing.exception)
    both = invoke("query", "RETURN 1 AS x", "--example", "kinship-and-hostility", "--db", str(outdir))
    assert both.exit_code == 2 and "not both" in both.output
    noted = CliRunner().invoke(cli, ["query", "MATCH (n:Character) RETURN labels(n) AS l LIMIT 1",
                                     "--db", str(outdir)])
    assert noted.exit_code == 0 and "note: line 1, column 28: labels(n) is Neo4j's" in noted.output


def test_list_examples():
    result = invoke("query", "--list-examples")
    assert result.exit_code == 0
    assert result.output.splitlines()[0].startswith("characters-by-relations: Characters by number")
    lines = dict(line.split(": ", 1) for line in result.output.splitlines())
    assert "-p limit=10 (how many characters; the default)" in lines["characters-by-relations"]
    assert ("-p character=VALUE (a character's name or alias, any case; required, "
            "e.g. -p character=Reggie)") in lines["where-and-when"]


def test_an_example_needs_its_required_parameters(outdir):
    invoke("load", str(outdir))
    for name in ("where-and-when", "objects-possessed", "known-up-to-scene"):
        result = invoke("query", "--db", str(outdir), "--example", name)
        assert isinstance(result.exception, QueryError), (name, result.output)
        assert f"example {name} needs -p " in str(result.exception)
    limited = invoke("query", "--db", str(outdir), "--example", "characters-by-relations", "-p", "limit=1",
                     "--format", "json")
    assert json.loads(limited.output) == [{"character": "Margo Vance", "relations": 10}]


def test_a_character_is_found_by_name_or_alias_in_any_case(outdir):
    invoke("load", str(outdir))
    answers = []
    for who in ("Margo Vance", "margo vance", "Margo", "MARGO"):  # 'Margo' is an alias
        result = invoke("query", "--db", str(outdir), "--example", "objects-possessed", "-p",
                        f"character={who}", "--format", "json")
        assert result.exit_code == 0, result.output
        answers.append(json.loads(result.output))
    assert answers[0] == [{"object": "Brass Key", "description": "", "scenes": [3]},
                          {"object": "Radio", "description": "A battered handheld radio.", "scenes": [1, 2]}]
    assert all(answer == answers[0] for answer in answers)


def test_an_unknown_character_is_an_error_naming_the_close_ones(outdir):
    invoke("load", str(outdir))
    typo = invoke("query", "--db", str(outdir), "--example", "where-and-when", "-p", "character=Margot Vance")
    assert isinstance(typo.exception, QueryError)
    assert str(typo.exception).startswith("no character is named or called 'Margot Vance'; close: Margo Vance")
    stranger = invoke("query", "--db", str(outdir), "--example", "where-and-when", "-p", "character=Reggie")
    assert str(stranger.exception) == ("no character is named or called 'Reggie'; the store's 3 characters "
                                       "include Margo Vance, Rook, Teddy Brake")


def test_unaliased_columns_are_named_as_written(outdir):
    invoke("load", str(outdir))
    cypher = ("MATCH (a:Character)-[r:kinship_with]->(b) RETURN a.name, type(r), count(*), "
              "toLower(b.name) ORDER BY a.name")
    as_csv = invoke("query", cypher, "--db", str(outdir), "--format", "csv")
    assert as_csv.output.splitlines() == ["a.name,type(r),count(*),toLower(b.name)",
                                          "Margo Vance,kinship_with,1,teddy brake"]
    as_json = invoke("query", cypher, "--db", str(outdir), "--format", "json")
    assert json.loads(as_json.output) == [{"a.name": "Margo Vance", "type(r)": "kinship_with",
                                           "count(*)": 1, "toLower(b.name)": "teddy brake"}]
    table = invoke("query", "MATCH ()-[r]->() RETURN DISTINCT type(r) ORDER BY type(r) LIMIT 1",
                   "--db", str(outdir))
    assert table.exit_code == 0 and max(map(len, table.output.splitlines())) < 40, table.output
    assert "type(r)" in table.output


def test_export_every_format(outdir, tmp_path):
    result = invoke("export", str(outdir), "--format", "graphml", "--format", "csv", "--format", "cypher",
                    "-o", str(tmp_path / "exp"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "exp").iterdir()) == [
        "constraints.cypher", "graph.cypher", "graph.graphml", "in_scene.csv", "neo4j-admin-import.txt",
        "nodes.csv", "relationships.csv", "scenes.csv"]
    assert "neo4j-admin-import.txt" in result.output


def test_a_bolt_server_needs_neo4j_password_set_but_empty_is_allowed(monkeypatch):
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    unset = CliRunner().invoke(cli, ["query", "RETURN 1 AS x", "--neo4j", "bolt://127.0.0.1:9"])
    assert unset.exit_code == 2 and "set NEO4J_PASSWORD" in unset.output
    assert "NEO4J_PASSWORD='' for a server without authentication" in unset.output
    empty = CliRunner().invoke(cli, ["query", "RETURN 1 AS x", "--neo4j", "bolt://127.0.0.1:9"],
                               env={"NEO4J_PASSWORD": ""})
    assert isinstance(empty.exception, StoreError)  # got past the check, to the (absent) server
    assert "cannot reach the Bolt server at bolt://127.0.0.1:9" in str(empty.exception)


def _kgbuild(*args: str, tmp_path) -> Ran:
    return run_cli(*args, env={"NEO4J_PASSWORD": "secret-pass"}, cwd=tmp_path)


def test_errors_exit_2_with_a_message_and_no_traceback(outdir, tmp_path):
    unreachable = _kgbuild("load", str(outdir), "--neo4j", "bolt://127.0.0.1:9", tmp_path=tmp_path)
    assert unreachable.returncode == 2 and "Traceback" not in unreachable.stderr
    assert "kgbuild: error: cannot reach the Bolt server at bolt://127.0.0.1:9" in unreachable.stderr
    assert len(unreachable.stderr.strip().splitlines()) == 1
    no_store = _kgbuild("query", "RETURN 1 AS x", tmp_path=tmp_path)  # default ./graph.lbdb
    assert no_store.returncode == 2 and "no embedded store at graph.lbdb" in no_store.stderr


def test_a_parameter_nested_too_deep_is_one_line_naming_the_limit(outdir, tmp_path):
    assert invoke("load", str(outdir)).exit_code == 0
    for value in ("[" * 50_000, "[" * 200 + "]" * 200, '{"a": ' * 150 + "1" + "}" * 150):
        result = _kgbuild("query", "RETURN $x AS x", "--db", str(outdir), "-p", f"x={value}", tmp_path=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines() == [
            f"kgbuild: error: --param x: the value nests more than {MAX_PARAM_DEPTH} levels of [ ] and {{ }}; "
            "give a flatter value, or the text as a JSON string in double quotes"]
    deep_enough = "[" * MAX_PARAM_DEPTH + "7" + "]" * MAX_PARAM_DEPTH
    result = invoke("query", "RETURN size($x) AS n", "--db", str(outdir), "-p", f"x={deep_enough}", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.output) == [{"n": 1}], result.output
