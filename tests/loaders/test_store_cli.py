"""`kgbuild load`, `kgbuild query`, `kgbuild export` from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.graph import save_graph
from kgbuild.loaders.errors import QueryError


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
    assert '-p character="Reggie"' in result.output


def test_export_every_format(outdir, tmp_path):
    result = invoke("export", str(outdir), "--format", "graphml", "--format", "csv", "--format", "cypher",
                    "-o", str(tmp_path / "exp"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "exp").iterdir()) == [
        "constraints.cypher", "graph.cypher", "graph.graphml", "neo4j-admin-import.txt", "nodes.csv",
        "relationships.csv"]
    assert "neo4j-admin-import.txt" in result.output


def test_neo4j_needs_a_password():
    env = {k: v for k, v in os.environ.items() if k != "NEO4J_PASSWORD"}
    result = CliRunner().invoke(cli, ["query", "RETURN 1 AS x", "--neo4j", "bolt://localhost:7687"],
                                env={**env, "NEO4J_PASSWORD": ""})
    assert result.exit_code == 2 and "set NEO4J_PASSWORD" in result.output


def _kgbuild(*args: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NEO4J_PASSWORD": "secret-pass"}
    return subprocess.run([sys.executable, "-m", "kgbuild", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path, check=False)


def test_errors_exit_2_with_a_message_and_no_traceback(outdir, tmp_path):
    unreachable = _kgbuild("load", str(outdir), "--neo4j", "bolt://127.0.0.1:9", tmp_path=tmp_path)
    assert unreachable.returncode == 2 and "Traceback" not in unreachable.stderr
    assert "kgbuild: error: cannot reach Neo4j at bolt://127.0.0.1:9" in unreachable.stderr
    no_store = _kgbuild("query", "RETURN 1 AS x", tmp_path=tmp_path)  # default ./graph.lbdb
    assert no_store.returncode == 2 and "no embedded store at graph.lbdb" in no_store.stderr
