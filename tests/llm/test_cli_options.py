"""The shared LLM options: the same flags, help and environment variables on every command."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.cli.options import LLMFlags, llm_options

SHARED = ["--llm-base-url", "--llm-cache-dir", "--concurrency", "--max-cost", "--max-requests"]


def options(command: str) -> dict[str, click.Option]:
    return {p.opts[0]: p for p in cli.commands[command].params if isinstance(p, click.Option)}


def test_build_merge_and_audit_share_the_llm_options():
    build, merge, audit = options("build"), options("merge"), options("audit")
    for flag in SHARED:
        assert build[flag].help == merge[flag].help == audit[flag].help, flag
        assert build[flag].envvar == merge[flag].envvar == audit[flag].envvar, flag
        assert build[flag].default == merge[flag].default == audit[flag].default, flag
    assert build["--llm-batch-export"].help == merge["--llm-batch-export"].help
    assert "--llm-batch-export" not in audit  # the audit exports its requests.jsonl itself
    assert build["--llm-model"].help == merge["--llm-model"].help
    assert build["--llm-model"].envvar == merge["--llm-model"].envvar == "KGBUILD_LLM_MODEL"
    assert (audit["--llm-model"].envvar, audit["--llm-model"].default) == ("KGBUILD_JUDGE_MODEL", "gpt-4o")


def test_the_command_receives_one_flags_object_and_its_settings():
    seen: list[LLMFlags] = []

    @click.command()
    @click.option("--threshold", type=int)
    @llm_options()
    def command(threshold: int | None, llm: LLMFlags) -> None:
        seen.append(llm)
        settings = llm.settings(threshold=threshold)
        click.echo("offline" if settings is None else settings.model_dump_json())

    runner = CliRunner()
    result = runner.invoke(command, ["--llm-model", "m", "--concurrency", "3", "--llm-batch-export", "b.jsonl",
                                     "--threshold", "5"], env={"KGBUILD_LLM_MODEL": ""})
    assert result.exit_code == 0, result.output
    assert seen[-1] == LLMFlags(model="m", concurrency=3, batch_export=Path("b.jsonl"))
    assert '"concurrency":3' in result.output and '"threshold":5' in result.output
    assert runner.invoke(command, [], env={"KGBUILD_LLM_MODEL": ""}).output == "offline\n"
    refused = runner.invoke(command, ["--threshold", "5", "--max-cost", "1"], env={"KGBUILD_LLM_MODEL": ""})
    assert refused.exit_code == 2
    assert "--max-cost, --threshold need an LLM: add --llm-model (or set KGBUILD_LLM_MODEL)" in refused.output


@pytest.mark.parametrize("command", ["build", "merge", "audit"])
def test_each_command_has_each_shared_option_once(command):
    for flag in SHARED:
        assert sum(flag in p.opts for p in cli.commands[command].params) == 1, flag
