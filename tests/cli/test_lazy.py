"""The command group imports a command's module only when the command runs; `--help` lists all."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from kgbuild.cli import COMMANDS, cli
from kgbuild.cli.lazy import LazyCommand, LazyGroup


def _imported_after(*args: str) -> dict[str, object]:
    """Run the CLI with `args` in a fresh interpreter; its output and the modules it imported."""
    code = ("import json, sys\nfrom kgbuild.cli import cli\n"
            "try:\n    cli.main(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60,
                            check=True)
    return {"stdout": result.stdout, "modules": json.loads(result.stderr.strip().splitlines()[-1])}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_stored_summary_is_the_commands_own_short_help(name):
    command = cli.commands[name]
    assert command.name == name
    for limit in (40, 72, 400):
        stored = click.Command(name, help=COMMANDS[name].summary)
        assert stored.get_short_help_str(limit) == command.get_short_help_str(limit)


def test_help_lists_every_command_without_importing_one():
    seen = _imported_after("--help")
    listed = [line.split()[0] for line in seen["stdout"].split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS)
    assert "Build the story graph of SCRIPT into OUTDIR" in seen["stdout"]
    heavy = [m for m in seen["modules"] if m.startswith(("kgbuild.cli.", "pydantic", "rich", "torch", "numpy"))]
    assert heavy == ["kgbuild.cli.exits", "kgbuild.cli.lazy"]


def test_a_command_imports_its_own_module_only():
    seen = _imported_after("diff", "--help")
    assert "Show the facts two graphs disagree on" in seen["stdout"]
    commands = {m for m in seen["modules"] if m.startswith("kgbuild.cli.")} - {"kgbuild.cli.exits", "kgbuild.cli.lazy"}
    assert commands == {"kgbuild.cli.diff", "kgbuild.cli.options", "kgbuild.cli.console"}


def test_an_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["biuld"])
    assert result.exit_code == 2
    assert "No such command 'biuld'" in result.output


def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "kgbuild", "--version"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "version" in result.stdout


def test_a_lazy_group_takes_ordinary_commands_beside_lazy_ones():
    @click.command("hello")
    def hello() -> None:
        """Say hello."""
        click.echo("hello")

    group = LazyGroup(name="demo", commands={"hello": hello},
                      lazy={"parse": LazyCommand("kgbuild.cli.parse:parse", "Parse SCRIPT.")})
    assert sorted(group.commands) == ["hello", "parse"] and len(group.commands) == 2
    assert CliRunner().invoke(group, ["hello"]).output == "hello\n"
    help_text = CliRunner().invoke(group, ["--help"]).output
    assert "hello  Say hello." in help_text and "parse  Parse SCRIPT." in help_text
    del group.commands["parse"]
    assert list(group.commands) == ["hello"]
