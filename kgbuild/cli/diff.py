"""`kgbuild diff OLD NEW`: the facts two builds disagree on, as a table, Markdown or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from kgbuild.cli.console import stdout_console
from kgbuild.cli.options import scenes_param
from kgbuild.diff import GraphDiff, TypeCounts
from kgbuild.model import Entity, Evidence, KnowledgeGraph, Relation
from kgbuild.scenes import SceneSelection

_FORMATS = ("table", "json", "markdown")
_COLUMNS = ("type", "OLD", "NEW", "only OLD", "only NEW", "renamed")


def _evidence(items: list[Evidence], limit: int = 1) -> list[str]:
    out = []
    for ev in items[:limit]:
        lines = f", lines {ev.lines[0]}-{ev.lines[1]}" if ev.lines else ""
        out.append(f'scene {ev.scene}{lines}: "{ev.quote}" ({ev.producer})')
    if not items:
        out.append("no evidence")
    return out


def _scenes(scenes: list[int]) -> str:
    shown = ", ".join(map(str, scenes[:8]))
    return f"scenes {shown}" + (f" (+{len(scenes) - 8} more)" if len(scenes) > 8 else "") if scenes else "no scenes"


def _entity(e: Entity) -> tuple[str, list[str]]:
    return f'{e.type} "{e.name}" [{e.id}], {_scenes(e.scenes)}', _evidence(e.evidence)


def _relation(r: Relation, labels: dict[str, str]) -> tuple[str, list[str]]:
    return (f"{labels.get(r.source, r.source)} -{r.type}-> {labels.get(r.target, r.target)}, {_scenes(r.scenes)}",
            _evidence(r.evidence))


def _sections(diff: GraphDiff, limit: int) -> list[tuple[str, int, list[tuple[str, list[str]]]]]:
    """(title, how many, the first `limit` items as (line, evidence lines)) per kind of difference."""
    def cut(items: list) -> list:
        return items if limit <= 0 else items[:limit]

    renamed = [(f'{p.old.type} "{p.old.name}" [{p.old.id}] -> "{p.new.name}" [{p.new.id}] (by {p.how})',
                _evidence(p.new.evidence)) for p in cut(diff.renamed)]
    return [
        (f"Entities only in OLD ({diff.old})", len(diff.entities_only_old),
         [_entity(e) for e in cut(diff.entities_only_old)]),
        (f"Entities only in NEW ({diff.new})", len(diff.entities_only_new),
         [_entity(e) for e in cut(diff.entities_only_new)]),
        ("Entities renamed (ids differ, same type and name or alias)", len(diff.renamed), renamed),
        (f"Relations only in OLD ({diff.old})", len(diff.relations_only_old),
         [_relation(r, diff.labels) for r in cut(diff.relations_only_old)]),
        (f"Relations only in NEW ({diff.new})", len(diff.relations_only_new),
         [_relation(r, diff.labels) for r in cut(diff.relations_only_new)]),
    ]


def _count_row(name: str, c: TypeCounts, *, entities: bool) -> list[str]:
    return [name, str(c.old), str(c.new), str(c.only_old), str(c.only_new), str(c.paired) if entities else "-"]


def _summary(diff: GraphDiff) -> str:
    if not diff.differs:
        return "The graphs agree on every fact."
    return (f"{len(diff.entities_only_old)} entities only in OLD, {len(diff.entities_only_new)} only in NEW, "
            f"{len(diff.renamed)} renamed; {len(diff.relations_only_old)} relations only in OLD, "
            f"{len(diff.relations_only_new)} only in NEW.")


def _print_table(diff: GraphDiff, limit: int) -> None:
    console = stdout_console()
    console.print(f"OLD: {diff.old}\nNEW: {diff.new}", markup=False)
    for note in diff.notes:
        console.print(f"Note: {note}", style="yellow", markup=False)
    console.print(_summary(diff))
    for title, counts, entities in (("Entities by type", diff.entity_types, True),
                                    ("Relations by type", diff.relation_types, False)):
        table = Table(title=title, title_justify="left")
        for col in _COLUMNS:
            table.add_column(col, justify="left" if col == "type" else "right")
        for name, c in counts.items():
            table.add_row(*_count_row(name, c, entities=entities))
        console.print(table)
    for title, total, items in _sections(diff, limit):
        if not total:
            continue
        console.print(f"[bold]{title}: {total}[/bold]")
        for line, evidence in items:
            console.print(f"  {line}", markup=False)
            for ev in evidence:
                console.print(f"      {ev}", markup=False)
        if len(items) < total:
            console.print(f"  ... and {total - len(items)} more (--limit 0 lists all)")


def _markdown(diff: GraphDiff, limit: int) -> str:
    lines = ["# kgbuild diff", "", f"- OLD: `{diff.old}`", f"- NEW: `{diff.new}`",
             *(f"- Note: {note}" for note in diff.notes), "", _summary(diff), ""]
    for title, counts, entities in (("Entities by type", diff.entity_types, True),
                                    ("Relations by type", diff.relation_types, False)):
        lines += [f"## {title}", "", "| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
        lines += ["| " + " | ".join(_count_row(name, c, entities=entities)) + " |" for name, c in counts.items()]
        lines.append("")
    for title, total, items in _sections(diff, limit):
        if not total:
            continue
        lines += [f"## {title}: {total}", ""]
        for line, evidence in items:
            lines.append(f"- {line.replace('|', '/')}")
            lines += [f"  - {ev}" for ev in evidence]
        if len(items) < total:
            lines.append(f"- ... and {total - len(items)} more (`--limit 0` lists all)")
        lines.append("")
    return "\n".join(lines)


def _json(diff: GraphDiff, limit: int) -> str:
    data = diff.model_dump(mode="json")
    data["differs"] = diff.differs
    data["totals"] = {name: len(getattr(diff, name)) for name in (
        "entities_only_old", "entities_only_new", "renamed", "relations_only_old", "relations_only_new")}
    if limit > 0:
        for name in data["totals"]:
            data[name] = data[name][:limit]
    data["limit"] = limit
    return json.dumps(data, ensure_ascii=False, indent=1)


def _write_sides(result: GraphDiff, old_graph: KnowledgeGraph, new_graph: KnowledgeGraph, sides_dir: Path) -> None:
    from kgbuild.diff import side_graphs
    from kgbuild.folders import BuildFolder
    from kgbuild.graph import save_graph

    for side, graphs in side_graphs(result, old_graph, new_graph).items():
        for kind in ("relations", "entities"):
            save_graph(getattr(graphs, kind), BuildFolder(sides_dir / side / kind).graph)
    click.echo(f"Wrote the removed and added facts to {sides_dir}/{{removed,added}}/{{relations,entities}}/"
               f"{BuildFolder.GRAPH}", err=True)


@click.command()
@click.argument("old", type=click.Path(exists=True, path_type=Path))
@click.argument("new", type=click.Path(exists=True, path_type=Path))
@click.option("--type", "type_name", metavar="TYPE",
              help="Only this entity or relation type (e.g. Character, speaks_to).")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table", show_default=True)
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Facts listed per kind of difference (0: all); the counts are always complete.")
@click.option("--scenes", metavar="RANGES", callback=scenes_param,
              help="Compare only the facts grounded in these scenes (A-B, N or A-B,C-D), e.g. a whole build "
              "against one made with --scenes.")
@click.option("--write-sides", "sides_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the facts only in OLD and only in NEW as graphs to audit: DIR/removed/{relations,"
              "entities}/graph.json and DIR/added/{relations,entities}/graph.json.")
def diff(old: Path, new: Path, type_name: str | None, fmt: str, limit: int, scenes: SceneSelection | None,
         sides_dir: Path | None) -> None:
    """Show the facts two graphs disagree on: OLD and NEW are graph.json files or build folders.

    Entities are compared by id, then paired across ids by type and normalized name or alias
    (renamed); relations by (source, type, target) after that pairing. Each fact only in one
    graph is listed with its first evidence item (scene, lines, quote, producer).

    With --write-sides DIR, the removed and added facts are also written as graphs `kgbuild audit`
    samples (`kgbuild audit DIR/removed/relations/graph.json --screenplay OLD/screenplay.json
    --entities 0`): how a reader judges what a change cost and what it gained.

    Exit status: 0 whether or not the graphs differ; 2 when OLD or NEW is not a graph, or TYPE
    is no type of the schema or of either graph.
    """
    from kgbuild.diff import diff_graphs
    from kgbuild.errors import InputError
    from kgbuild.graph import graph_file, load_graph
    from kgbuild.schema import schema_for_graph

    old_graph, new_graph = load_graph(graph_file(old)), load_graph(graph_file(new))
    if scenes is not None:
        from kgbuild.scenes import restrict_graph

        old_graph, new_graph = restrict_graph(old_graph, scenes), restrict_graph(new_graph, scenes)
    result = diff_graphs(old_graph, new_graph, old_label=str(old), new_label=str(new))
    if type_name is not None:
        schema = schema_for_graph(new)
        known = {*schema.entity_type_names(), *(r.name for r in schema.relation_types),
                 *(e.type for g in (old_graph, new_graph) for e in g.entities),
                 *(r.type for g in (old_graph, new_graph) for r in g.relations)}
        if type_name not in known:
            raise InputError(f"--type {type_name}: no entity or relation type has that name; the types are "
                             f"{', '.join(sorted(known))}")
        result = result.of_type(type_name)
    if sides_dir is not None:
        _write_sides(result, old_graph, new_graph, sides_dir)
    if fmt == "json":
        click.echo(_json(result, limit))
    elif fmt == "markdown":
        click.echo(_markdown(result, limit))
    else:
        _print_table(result, limit)
