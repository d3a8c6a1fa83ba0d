"""`kgbuild knows OUTDIR CHARACTER --scene N` (what a character can know at a scene) and
`kgbuild dossier OUTDIR CHARACTER` (a character's dossier)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.cli.console import stdout_console
from kgbuild.cli.exits import EXIT_BATCH_PENDING
from kgbuild.cli.options import LLMFlags, llm_options
from kgbuild.errors import InputError
from kgbuild.folders import graph_folder
from kgbuild.graph import graph_file, load_graph
from kgbuild.model import Screenplay
from kgbuild.schema import schema_for_graph
from kgbuild.story.knows import ItemKnowledge, Knowledge, knows
from kgbuild.story.order import Order


def _evidence(item: ItemKnowledge) -> str:
    return " | ".join(f"scene {e.scene} l.{e.lines[0] if e.lines else '?'}: \"{e.quote[:100]}\"" for e in item.evidence)


def _items_table(title: str, items: list[ItemKnowledge], *, evidence: bool) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("item", "type", "label", "first scene", "why"):
        table.add_column(column)
    if evidence:
        table.add_column("evidence")
    for item in items:
        row = [item.name, item.type, item.label.value, str(item.first_scene), item.how]
        table.add_row(*row, *([_evidence(item)] if evidence else []))
    return table


def show_knowledge(console: Console, k: Knowledge, *, single: bool) -> None:
    """Print a `Knowledge` as tables."""
    console.print(f"{k.character_name} at scene {k.scene}, {k.order.value} order: {k.scene_basis}")
    if single:
        console.print(_items_table("Item", k.items, evidence=True))
        return
    for title, items in (("Took part in", k.took_part), ("Witnessed", k.witnessed), ("Told of", k.told)):
        console.print(_items_table(f"{title} ({len(items)})", items, evidence=True))
    counts = ", ".join(f"{label} {n}" for label, n in k.counts().items())
    console.print(_items_table(f"Every event and entity ({counts})", k.items, evidence=False))


@click.command("knows")
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.argument("character")
@click.option("--scene", "scene", type=int, required=True, help="The scene N (its index in screen order).")
@click.option("--order", type=click.Choice([o.value for o in Order]), default=Order.SCREEN.value, show_default=True,
              help="Compare scenes in screen order (scene numbers) or story order (the time markers of "
                   "headings and titles).")
@click.option("--question-about", "about", metavar="ENTITY",
              help="Only this event or entity (name or alias, any case): its label and the evidence.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def knows_command(outdir: Path, character: str, scene: int, order: str, about: str | None, fmt: str) -> None:
    """What CHARACTER can know at scene N of the graph in OUTDIR (a build folder or a graph.json).

    Every event and entity gets TimeChara's label: future (first happens after N), past-absence
    (before N, the character not there and not told) or past-presence (took part, witnessed, was
    there, or was told by N). The answer says which order it uses.
    """
    graph = load_graph(graph_file(outdir))
    result = knows(graph, character, scene, order=order, about=about, schema=schema_for_graph(outdir))
    if fmt == "json":
        click.echo(result.model_dump_json(indent=1))
        return
    show_knowledge(stdout_console(width=140), result, single=about is not None)


def _screenplay_for(outdir: Path, given: Path | None) -> Screenplay:
    from kgbuild.readers import load_screenplay

    if given is not None:
        return load_screenplay(given)
    folder = graph_folder(outdir)
    if not folder.screenplay.is_file():
        raise InputError("no screenplay.json beside the graph: the lines come from the screenplay; point "
                         "--screenplay at the build's screenplay.json or at the script", path=str(folder.path))
    return load_screenplay(folder.screenplay)


@click.command("dossier")
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.argument("character", required=False)
@click.option("--top", type=click.IntRange(min=1), help="Dossiers of the K characters of highest degree "
              "(STAGE's ICRP rule), written to -o (default OUTDIR/dossiers).")
@click.option("--lines", "lines", type=click.IntRange(min=1),
              help="Keep the N most characteristic lines [default: all].")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True,
              help="For one character printed to stdout.")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Write here instead of stdout: a file for one character, a folder with --top "
                   "(NAME.md and NAME.json each).")
@click.option("--screenplay", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The screenplay.json or script the graph was built from [default: OUTDIR/screenplay.json].")
@llm_options(model_help="Also write a short persona summary with this model, grounded in the dossier's "
             "items (cites scene ids); same cache, budget and batch export as builds.")
def dossier_command(outdir: Path, character: str | None, top: int | None, lines: int | None, fmt: str,
                    output: Path | None, screenplay: Path | None, llm: LLMFlags) -> None:
    """The dossier of CHARACTER in the build OUTDIR: names, life stages, scenes, lines (verbatim, with
    scene ids), actions in story order, relations with evidence, places and objects.

    With --top K, the dossiers of the K characters of highest degree, as Markdown and JSON files.
    """
    from kgbuild.story.dossier import build_dossier, dossier_file_stem, top_characters
    from kgbuild.story.render import dossier_markdown

    if (character is None) == (top is None):
        raise click.UsageError("give a CHARACTER or --top K (not both)")
    settings = llm.settings()
    graph = load_graph(graph_file(outdir))
    schema = schema_for_graph(outdir)
    sp = _screenplay_for(outdir, screenplay)
    # --top finds each character by its id: a name need not be one a user could type.
    names = [character] if character is not None else [e.id for e in top_characters(graph, top or 0, schema)]
    dossiers = [build_dossier(graph, sp, name, lines=lines, schema=schema) for name in names]
    if settings is not None:
        from kgbuild.llm.types import BatchPendingError
        from kgbuild.story.persona import write_personas

        try:
            run = write_personas(dossiers, settings)
        except BatchPendingError as e:
            click.echo(f"kgbuild: {e}", err=True)
            sys.exit(EXIT_BATCH_PENDING)
        dossiers = run.dossiers
        for cid, why in run.failures.items():
            click.echo(f"note: no persona summary for {cid}: {why}", err=True)
    if top is None:
        d = dossiers[0]
        text = d.model_dump_json(indent=1) if fmt == "json" else dossier_markdown(d)
        if output is None:
            click.echo(text, nl=False)
        else:
            write_text_atomic(output, text)
            click.echo(f"Wrote {output}")
        return
    folder = output or graph_folder(outdir).dossiers
    for d in dossiers:
        stem = dossier_file_stem(d.name)
        write_text_atomic(folder / f"{stem}.md", dossier_markdown(d))
        write_text_atomic(folder / f"{stem}.json", d.model_dump_json(indent=1))
        click.echo(f"{d.name}: degree {d.degree}, {d.lines_total} lines, {len(d.actions)} actions, "
                   f"{len(d.relations)} relations -> {folder / stem}.md")
