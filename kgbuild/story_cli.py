"""`kgbuild knows OUTDIR CHARACTER --scene N`: what a character can know at a scene."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.graph import graph_file, load_graph
from kgbuild.story.knows import ItemKnowledge, Knowledge, knows
from kgbuild.story.order import Order


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 140)


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
    result = knows(graph, character, scene, order=order, about=about)
    if fmt == "json":
        click.echo(result.model_dump_json(indent=1))
        return
    show_knowledge(_console(), result, single=about is not None)
