"""`kgbuild llm import` and `kgbuild llm stats`: the LLM response cache and Batch API imports."""

from __future__ import annotations

from pathlib import Path

import click

from kgbuild.llm.batch import import_batch_results
from kgbuild.llm.cache import ResponseCache, default_cache_path
from kgbuild.llm.types import LLMError

_SHOWN_ERRORS = 20

_CACHE_DIR = click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path),
    help="Cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")


class BatchImportError(LLMError):
    """Not one line of a Batch API results file could be imported."""


@click.group("llm")
def llm() -> None:
    """The LLM response cache and OpenAI Batch API round trips."""


@llm.command("import")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@_CACHE_DIR
def import_results(results: Path, cache_dir: Path | None) -> None:
    """Store the replies of a Batch API output file (RESULTS.jsonl) in the response cache.

    Rerun the command that exported the requests (`kgbuild build` or `kgbuild merge`) afterwards:
    it finds the replies in the cache. Lines that failed stay pending and are exported again by
    its next run with --llm-batch-export.
    """
    with ResponseCache(default_cache_path(cache_dir)) as cache:
        report = import_batch_results(results, cache)
        where = cache.path
    for error in report.errors[:_SHOWN_ERRORS]:
        click.echo(error.message, err=True)
    if len(report.errors) > _SHOWN_ERRORS:
        click.echo(f"... and {len(report.errors) - _SHOWN_ERRORS} more failed lines", err=True)
    if report.imported == 0 and report.errors:
        raise BatchImportError(f"{results}: none of the {report.lines} lines could be imported (see above)")
    click.echo(f"Imported {report.imported} of {report.lines} responses into {where} "
               f"({report.prompt_tokens} prompt + {report.completion_tokens} completion tokens, "
               f"about ${report.cost_usd:.4f} at batch price).")
    if report.errors:
        click.echo(f"{len(report.errors)} failed; they stay pending: rerun the command with --llm-batch-export "
                   "to export them again.")


@llm.command("stats")
@_CACHE_DIR
def stats(cache_dir: Path | None) -> None:
    """Show what the response cache holds."""
    with ResponseCache(default_cache_path(cache_dir)) as cache:
        info = cache.stats()
    click.echo(f"{info.path}: {info.entries} responses, {info.size_bytes / 1e6:.1f} MB, "
               f"{info.prompt_tokens} prompt + {info.completion_tokens} completion tokens")
    for model, count in info.by_model.items():
        click.echo(f"  model {model}: {count}")
    for source, count in info.by_source.items():
        click.echo(f"  from {source}: {count}")
