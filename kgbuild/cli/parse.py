"""`kgbuild parse` (a script's scene model and summary) and `kgbuild chunk` (its chunks)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.chunking import DEFAULT_TOKEN_BUDGET, chunk_screenplay
from kgbuild.cli.console import stdout_console
from kgbuild.model import SourceFormat
from kgbuild.paths import check_writable_file
from kgbuild.readers import DEFAULT_MAX_BYTES, read_screenplay
from kgbuild.summary import ScreenplaySummary, summarize

_FORMATS = click.Choice([f.value for f in SourceFormat])


def _show_summary(console: Console, summary: ScreenplaySummary, warnings: list[str], top: int) -> None:
    console.print(
        f"[bold]{summary.title}[/bold]  ({summary.format}, {summary.language}): "
        f"{summary.scenes} scenes, {summary.scenes_with_heading} with a heading, "
        f"{len(summary.characters)} speaking characters"
    )
    table = Table(title="Characters", title_justify="left")
    for col in ("name", "speeches", "first scene"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for c in summary.characters[:top]:
        table.add_row(c.name, str(c.speeches), str(c.first_scene))
    if len(summary.characters) > top:
        table.caption = f"... and {len(summary.characters) - top} more"
    console.print(table)
    locations = Table(title="Locations", title_justify="left")
    locations.add_column("location")
    locations.add_column("scenes", justify="right")
    for name, count in summary.locations[:top]:
        locations.add_row(name, str(count))
    if len(summary.locations) > top:
        locations.caption = f"... and {len(summary.locations) - top} more"
    console.print(locations)
    spread = ", ".join(f"{t} {n}" for t, n in summary.time_of_day) or "none stated"
    console.print(f"Time of day: {spread}")
    console.print("Elements: " + ", ".join(f"{k} {v}" for k, v in summary.elements.items()))
    if warnings:
        console.print(f"[yellow]{len(warnings)} warnings[/yellow] (lines the parser was unsure of):")
        for w in warnings[:top]:
            console.print(f"  {w}")
        if len(warnings) > top:
            console.print(f"  ... and {len(warnings) - top} more (all are in the JSON output)")



@click.command()
@click.argument("script", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the scene model as JSON to this file [default: write nothing, print the summary].",
)
@click.option("--format", "fmt", type=_FORMATS, help="Skip detection and read as this format.")
@click.option("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, show_default=True,
              help="Refuse larger input files.")
@click.option("--top", type=int, default=15, show_default=True, help="Rows per summary table.")
def parse(script: Path, output: Path | None, fmt: str | None, max_bytes: int, top: int) -> None:
    """Parse SCRIPT (Fountain, FDX, PDF, plain text, STAGE script.json) and summarize it."""
    if output is not None:
        check_writable_file(output)
    screenplay = read_screenplay(
        script, format=SourceFormat(fmt) if fmt else None, max_bytes=max_bytes
    )
    console = stdout_console()
    warnings = [f"line {w.line}: {w.message}" if w.line else w.message for w in screenplay.warnings]
    _show_summary(console, summarize(screenplay), warnings, top)
    if output is not None:
        write_text_atomic(output, screenplay.model_dump_json(indent=1))
        console.print(f"Wrote {output}")


@click.command()
@click.argument("script", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the chunks (JSON Lines, one chunk per line).")
@click.option("--budget", type=click.IntRange(min=1), default=DEFAULT_TOKEN_BUDGET,
              show_default=True, help="Token budget per chunk.")
@click.option("--no-pack", is_flag=True, help="One chunk per scene at least (no packing).")
def chunk(script: Path, output: Path, budget: int, no_pack: bool) -> None:
    """Cut SCRIPT into scene-aligned chunks, as the extraction stages see it."""
    check_writable_file(output)
    screenplay = read_screenplay(script)
    chunks = chunk_screenplay(screenplay, token_budget=budget, pack_scenes=not no_pack)
    write_text_atomic(output, "".join(c.model_dump_json() + "\n" for c in chunks))
    sizes = sorted(c.token_estimate for c in chunks)
    click.echo(
        f"{len(chunks)} chunks from {len(screenplay.scenes)} scenes; tokens per chunk: "
        f"median {sizes[len(sizes) // 2]}, max {sizes[-1]}. Wrote {output}"
    )
    over = sum(size > budget for size in sizes)
    if over:
        click.echo(f"Note: {over} chunks exceed the budget of {budget} tokens: a chunk never cuts inside "
                   "a speech or an action paragraph, and those are longer than the budget.")
