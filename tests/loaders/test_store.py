"""`open_store` picks the store by its argument: a Bolt address, or a path of the embedded store."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.loaders.store import is_bolt_address, open_store
from tests.cli_in_process import run_cli


@pytest.mark.parametrize("target", ["bolt://localhost:7687", "neo4j://db:7687", "neo4j+s://db.example.com",
                                    "bolt+ssc://10.0.0.1:7687", "NEO4J+S://DB.EXAMPLE.COM"])
def test_bolt_addresses(target):
    assert is_bolt_address(target)


@pytest.mark.parametrize("target", [None, "graph.lbdb", "out/lizard-people", "http://localhost:7474",
                                    "bolt:/localhost:7687", Path("bolt://localhost:7687"), "./bolt://x"])
def test_paths_and_other_addresses_are_not_bolt(target):
    assert not is_bolt_address(target)


def test_a_path_opens_the_embedded_store(tmp_path):
    with open_store(tmp_path) as store:
        assert store.kind == "embedded" and store.where == str(tmp_path / "graph.lbdb")
    with open_store(tmp_path / "corpus.lbdb") as store:
        assert store.where == str(tmp_path / "corpus.lbdb")


@pytest.mark.parametrize("command", [["query", "RETURN 1 AS x"], ["load", "GRAPH"]])
def test_neo4j_options_take_a_bolt_address_only(command, tmp_path):
    args = [str(tmp_path) if a == "GRAPH" else a for a in command]
    (tmp_path / "graph.json").write_text("{}")
    ran = run_cli(*args, "--neo4j", str(tmp_path / "graph.lbdb"), env={"NEO4J_PASSWORD": ""})
    assert ran.returncode == 2 and "is not a Bolt address; write e.g. bolt://localhost:7687" in ran.stderr
