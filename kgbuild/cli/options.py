"""The options several commands share, defined once: the LLM options, `--schema` and `--scenes`.

`llm_options` adds --llm-model, --llm-base-url, --llm-cache-dir, --concurrency, --max-cost,
--max-requests, --rpm, --tpm, --prices, --llm-timeout, --llm-deadline and, where a command can stop for a Batch
API round trip, --llm-batch-export,
with the same names, help and environment variables everywhere. The command receives them as
one `LLMFlags` argument named `llm`; `LLMFlags.settings` turns them into `LLMSettings`.

`schema_option` adds `--schema FILE` to the commands that build, store, export, merge, score or
audit a graph. A build made with another schema than the default writes it as `schema.json`
beside graph.json; every command reading that folder (or its graph.json) uses it, and
`--schema FILE` overrides it (`kgbuild.schema.schema_for_graph`).

`scenes_param` is the callback of every `--scenes RANGES` option (`kgbuild.scenes`), `bolt_param`
of every `--neo4j URI` option (`kgbuild.loaders.store.is_bolt_address`).

Example:
    >>> @click.command()
    ... @llm_options()
    ... @schema_option()
    ... def merge(graph: Path, schema_file: Path | None, llm: LLMFlags) -> None:
    ...     settings = llm.settings()          # None without --llm-model
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.cli.exits import EXIT_BATCH_PENDING
from kgbuild.errors import InputError
from kgbuild.llm.settings import LLMSettings
from kgbuild.scenes import SceneSelection, parse_scene_ranges

F = TypeVar("F", bound=Callable[..., Any])

#: The environment variable of --llm-model.
MODEL_ENV = "KGBUILD_LLM_MODEL"
MODEL_HELP = (f"Use this LLM (any OpenAI-compatible endpoint; key from $OPENAI_API_KEY) [env {MODEL_ENV}; "
              "default: none, no LLM].")
#: Click parameter name of each flag, by `LLMSettings` field.
_PARAMS = {"model": "llm_model", "base_url": "llm_base_url", "cache_dir": "llm_cache_dir",
           "concurrency": "llm_concurrency", "max_cost": "llm_max_cost", "max_requests": "llm_max_requests",
           "batch_export": "llm_batch_export", "prices": "llm_prices", "rpm": "llm_rpm", "tpm": "llm_tpm",
           "timeout": "llm_timeout", "deadline": "llm_deadline"}


class LLMFlags(BaseModel):
    """The shared LLM options as given on the command line (None: not given)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = Field(default=None, description="--llm-model.")
    base_url: str | None = Field(default=None, description="--llm-base-url.")
    cache_dir: Path | None = Field(default=None, description="--llm-cache-dir.")
    concurrency: int | None = Field(default=None, description="--concurrency.")
    max_cost: float | None = Field(default=None, description="--max-cost.")
    max_requests: int | None = Field(default=None, description="--max-requests.")
    batch_export: Path | None = Field(default=None, description="--llm-batch-export.")
    prices: Path | None = Field(default=None, description="--prices.")
    rpm: float | None = Field(default=None, description="--rpm.")
    tpm: float | None = Field(default=None, description="--tpm.")
    timeout: float | None = Field(default=None, description="--llm-timeout.")
    deadline: float | None = Field(default=None, description="--llm-deadline.")

    def settings(self, **extra: object) -> LLMSettings | None:
        """The `LLMSettings` of these flags and a command's own LLM flags, or None without a model.

        Args:
            extra: Further `LLMSettings` fields from the command's own flags (None: not given),
                named as the command's parameters (e.g. `threshold`).

        Raises:
            click.UsageError: LLM flags were given without --llm-model.
            InputError: the --prices file cannot be used (read here, before any work).
        """
        given = {k: v for k, v in {**self.model_dump(exclude={"model"}), **extra}.items() if v is not None}
        if self.model is None:
            if given:
                raise click.UsageError(f"{', '.join(map(_flag, given))} need an LLM: add --llm-model "
                                       f"(or set {MODEL_ENV})")
            return None
        settings = LLMSettings(model=self.model, **given)
        if settings.prices is not None:
            from kgbuild.llm.factory import price_table

            price_table(settings)
        return settings


def _flag(field: str) -> str:
    """The command-line flag of a settings field in the running command ('--concurrency')."""
    name = _PARAMS.get(field, field)
    params = {p.name: p.opts[0] for p in click.get_current_context().command.params if p.opts}
    return params.get(name, f"--{name.replace('_', '-')}")


def llm_options(*, batch_export: bool = True, model_env: str = MODEL_ENV, model_default: str | None = None,
                model_help: str = MODEL_HELP) -> Callable[[F], F]:
    """Add the shared LLM options to a click command; it receives them as `llm: LLMFlags`.

    Place it below `@click.command()`.

    Args:
        batch_export: Add --llm-batch-export (commands that can stop for a Batch API round trip).
        model_env: Environment variable of --llm-model.
        model_default: Default of --llm-model (the audit has a default judge).
        model_help: Help of --llm-model.
    """
    concurrency = LLMSettings.model_fields["concurrency"].default
    timeout = LLMSettings.model_fields["timeout"].default
    options = [
        click.option("--llm-model", "llm_model", envvar=model_env, default=model_default,
                     show_default=model_default is not None, help=model_help),
        click.option("--llm-base-url", "llm_base_url",
                     help="OpenAI-compatible base URL ending in /v1 [default: $OPENAI_BASE_URL, else OpenAI]."),
        click.option("--llm-cache-dir", "llm_cache_dir", type=click.Path(file_okay=False, path_type=Path),
                     help="LLM response cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild]."),
        click.option("--concurrency", "llm_concurrency", type=click.IntRange(min=1),
                     help=f"LLM requests in flight [default: {concurrency}]."),
        click.option("--max-cost", "llm_max_cost", type=click.FloatRange(min=0),
                     help="Stop cleanly before the estimated LLM cost (USD) exceeds this; answers so far "
                     "stay cached."),
        click.option("--max-requests", "llm_max_requests", type=click.IntRange(min=0),
                     help="Stop cleanly before sending more LLM requests than this; answers so far stay cached."),
        click.option("--rpm", "llm_rpm", type=click.FloatRange(min=0, min_open=True),
                     help="LLM requests per minute at most (a corpus: all workers together, local or on Ray)."),
        click.option("--tpm", "llm_tpm", type=click.FloatRange(min=0, min_open=True),
                     help="LLM tokens per minute at most, prompt and expected completion (a corpus: all workers "
                     "together)."),
        click.option("--prices", "llm_prices", type=click.Path(dir_okay=False, path_type=Path),
                     help="Token prices over the built-in list prices (JSON or TOML: model -> input_per_mtok, "
                     "output_per_mtok in USD per 1M tokens, optionally batch_discount)."),
        click.option("--llm-timeout", "llm_timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
                     help=f"Seconds one LLM request may wait for its answer, then it is retried; a server that "
                     f"never answered stops the run at the first one [default: {timeout:g}]."),
        click.option("--llm-deadline", "llm_deadline", type=click.FloatRange(min=0, min_open=True),
                     metavar="SECONDS",
                     help="Seconds all the LLM work may take (extraction and merging together); then the run stops "
                     "(a build with exit status 4, keeping an existing build); answers so far stay cached "
                     "[default: none]."),
    ]
    if batch_export:
        options.append(click.option(
            "--llm-batch-export", "llm_batch_export", type=click.Path(dir_okay=False, path_type=Path),
            help="Batch mode: write the next round of uncached LLM requests (extraction, review, merging) to "
            f"FILE (OpenAI Batch API JSONL) and stop with exit status {EXIT_BATCH_PENDING}; import the "
            "results with 'kgbuild llm import', then rerun."))

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            flags = LLMFlags(**{field: kwargs.pop(name) for field, name in _PARAMS.items() if name in kwargs})
            return command(*args, llm=flags, **kwargs)

        wrapper.__click_params__ = list(getattr(command, "__click_params__", []))  # type: ignore[attr-defined]
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


#: The help of `--schema`, the same on every command that does not say more.
SCHEMA_HELP = ("The graph schema (a JSON file like kgbuild's schema/stage_kg.json) [default: the schema.json "
               "beside the graph when there is one, else the STAGE-KG schema].")


def schema_option(help_text: str = SCHEMA_HELP) -> Callable[[F], F]:
    """Add `--schema FILE` (passed as `schema_file`, a Path or None) to a command."""
    return click.option("--schema", "schema_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        help=help_text)


def bolt_param(ctx: object, param: object, value: str | None) -> str | None:
    """A click callback reading a `--neo4j URI` option: a Bolt address (None when not given).

    Raises:
        click.BadParameter: the value is no Bolt address (exit status 2).
    """
    from kgbuild.loaders.store import BOLT_SCHEMES, is_bolt_address

    if value is None or is_bolt_address(value):
        return value
    raise click.BadParameter(f"{value!r} is not a Bolt address; write e.g. bolt://localhost:7687 "
                             f"(schemes: {', '.join(BOLT_SCHEMES)})")


def scenes_param(ctx: object, param: object, value: str | None) -> SceneSelection | None:
    """A click callback reading a `--scenes` option (None when not given).

    Raises:
        click.BadParameter: the value is not a scene range (exit status 2).
    """
    if value is None:
        return None
    try:
        return parse_scene_ranges(value)
    except InputError as e:
        raise click.BadParameter(str(e)) from e
