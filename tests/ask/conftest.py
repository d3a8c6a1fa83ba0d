"""The build every `ask` test reads: the six-scene lighthouse script of tests/fixtures/ask, built offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.ask import AskSession
from kgbuild.cli import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "ask"


@pytest.fixture(scope="session")
def build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ask") / "lighthouse"
    result = CliRunner().invoke(cli, ["build", str(FIXTURE / "script.json"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def session(build) -> AskSession:
    return AskSession(build)
