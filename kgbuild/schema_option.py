"""The `--schema FILE` option of the commands that build, store, export, merge, score or audit a
graph, and how a command finds the schema of a graph it reads.

A build made with another schema than the default writes it as `schema.json` beside graph.json;
every command reading that folder (or its graph.json) uses it, and `--schema FILE` overrides it
(`kgbuild.schema.schema_for_graph`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: The option's help, the same on every command.
SCHEMA_HELP = ("The graph schema (a JSON file like kgbuild's schema/stage_kg.json) [default: the schema.json "
               "beside the graph when there is one, else the STAGE-KG schema].")


def schema_option(help_text: str = SCHEMA_HELP) -> Callable[[F], F]:
    """Add `--schema FILE` (passed as `schema_file`, a Path or None) to a command."""
    return click.option("--schema", "schema_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        help=help_text)
