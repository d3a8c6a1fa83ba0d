"""`kgbuild score` and `kgbuild baseline`: STAGE-KG scores as tables, JSON and explanations."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.evaluation.metrics import PRF, Averaged
from kgbuild.evaluation.stage_kg import MovieScore, ScoreOptions


def _prf_cells(p: PRF | Averaged) -> list[str]:
    return [f"{p.precision:.3f}", f"{p.recall:.3f}", f"{p.f1:.3f}"]


def _score_table(title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("movie")
    for col in ("ent P", "ent R", "ent F1", "rel P", "rel R", "rel F1"):
        table.add_column(col, justify="right")
    return table


def _type_table(title: str, parts: dict[str, PRF]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("type")
    for col in ("TP", "FP", "FN", "P", "R", "F1"):
        table.add_column(col, justify="right")
    for name, p in parts.items():
        table.add_row(name, str(p.tp), str(p.fp), str(p.fn), *_prf_cells(p))
    return table


def _skipped_summary(console: Console, score: MovieScore) -> None:
    report = score.prediction_report
    if report and (report.unknown_entity_types or report.unknown_relation_types
                   or report.dangling_relations):
        console.print(
            f"[yellow]{score.movie}: not scored from the prediction:[/yellow] "
            f"{sum(report.unknown_entity_types.values())} entities of unknown types "
            f"{dict(report.unknown_entity_types)}, {sum(report.unknown_relation_types.values())} "
            f"relations of unknown types {dict(report.unknown_relation_types)}, "
            f"{report.dangling_relations} relations with missing endpoints"
        )


def _explain(console: Console, score: MovieScore, top: int) -> None:
    console.print(f"[bold]Why {score.movie or 'this graph'} scores what it does[/bold]")
    missed = sorted(score.unmatched_reference.items(), key=lambda kv: -len(kv[1]))
    console.print(f"Reference entities not found ({sum(len(names) for _, names in missed)}):")
    for etype, names in missed:
        console.print(f"  {etype} {len(names)}: " + ", ".join(names[:top]))
    wrong = sorted(score.false_positives.items(), key=lambda kv: -len(kv[1]))
    console.print(f"Predicted entities with no reference match ({sum(len(names) for _, names in wrong)}):")
    for etype, names in wrong:
        console.print(f"  {etype} {len(names)}: " + ", ".join(names[:top]))
    if score.near_misses:
        console.print("Near misses (same type, similarity just under the threshold):")
        for n in score.near_misses[:top]:
            console.print(f"  {n.type}: {n.predicted!r} ~ {n.reference!r} ({n.similarity:.3f})")
    console.print(
        f"Neutral (matched outside the scored set): {score.neutral_entities} entities, "
        f"{score.neutral_relations} relations"
    )
    for label, report in (("prediction", score.prediction_report), ("reference", score.reference_report)):
        if report and (report.unknown_entity_types or report.unknown_relation_types
                       or report.dangling_relations or report.failed_scenes):
            console.print(
                f"Skipped in the {label}: unknown entity types {report.unknown_entity_types}, "
                f"unknown relation types {report.unknown_relation_types}, "
                f"{report.dangling_relations} relations with missing endpoints, "
                f"{report.failed_scenes} failed scenes"
            )


@click.command()
@click.argument("pred", type=click.Path(exists=True, path_type=Path))
@click.argument("ref", type=click.Path(exists=True, path_type=Path))
@click.option("--corpus", is_flag=True,
              help="PRED and REF are folders of many movies (PRED/<id>/graph.json, REF/**/<id>/).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the full scores as JSON here.")
@click.option("--explain", is_flag=True, help="List the largest sources of error.")
@click.option("--threshold", type=click.FloatRange(0, 1), default=ScoreOptions().threshold,
              show_default=True, help="Cosine similarity needed for an embedding match.")
@click.option("--description-weight", type=click.FloatRange(0, 1),
              default=ScoreOptions().description_weight, show_default=True,
              help="Weight of description similarity next to name similarity.")
@click.option("--min-degree", type=click.IntRange(min=0), default=ScoreOptions().min_degree,
              show_default=True, help="Reference degree an entity needs to be scored.")
@click.option("--pred-min-degree", type=click.IntRange(min=0),
              default=ScoreOptions().pred_min_degree, show_default=True,
              help="Predicted degree an entity needs to count.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Embedding cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")
@click.option("--top", type=int, default=12, show_default=True, help="Examples per list.")
def score(pred: Path, ref: Path, corpus: bool, json_out: Path | None, explain: bool,
          threshold: float, description_weight: float, min_degree: int, pred_min_degree: int,
          cache_dir: Path | None, top: int) -> None:
    """Score predicted graph(s) PRED against STAGE reference(s) REF with STAGE-KG P/R/F1.

    PRED is a graph.json (or a STAGE movie folder); REF is a STAGE movie folder
    (extraction_results.json + rename_map.json) or a graph.json.
    """
    from kgbuild.embeddings import default_embedder
    from kgbuild.evaluation.corpus import aggregate, score_corpus
    from kgbuild.evaluation.reference import load_any
    from kgbuild.evaluation.stage_kg import score_movie

    options = ScoreOptions(threshold=threshold, description_weight=description_weight,
                           min_degree=min_degree, pred_min_degree=pred_min_degree)
    embedder = default_embedder(cache_dir)
    console = Console(highlight=False, soft_wrap=True,
                      width=None if sys.stdout.isatty() else 120)
    if corpus:
        result = score_corpus(pred, ref, embedder=embedder, options=options)
        movies = result.movies
        groups = result.groups
        if result.missing_predictions:
            console.print(f"[yellow]No prediction for {len(result.missing_predictions)} movies "
                          f"(scored as empty):[/yellow] {', '.join(result.missing_predictions)}")
        payload = result.model_dump_json(indent=1)
    else:
        predicted, pred_report, _ = load_any(pred)
        reference, ref_report, renames = load_any(ref)
        single = score_movie(predicted, reference, renames=renames, embedder=embedder,
                             options=options, movie=ref.name)
        single = single.model_copy(update={"prediction_report": pred_report,
                                           "reference_report": ref_report})
        movies = [single]
        groups = {"all": aggregate(movies)}
        payload = single.model_dump_json(indent=1)
    table = _score_table("STAGE-KG scores")
    for m in movies:
        table.add_row(m.movie[:28], *_prf_cells(m.entities), *_prf_cells(m.relations))
    if corpus:
        for name, g in groups.items():
            table.add_row(f"[bold]{name} micro[/bold]", *_prf_cells(g.entities_micro),
                          *_prf_cells(g.relations_micro))
            table.add_row(f"[bold]{name} macro[/bold]", *_prf_cells(g.entities_macro),
                          *_prf_cells(g.relations_macro))
    console.print(table)
    for m in movies:
        _skipped_summary(console, m)
    console.print(_type_table("Entities by type", groups["all"].entity_types))
    console.print(_type_table("Relations by type", groups["all"].relation_types))
    if explain:
        for m in movies:
            _explain(console, m, top)
    if json_out:
        write_text_atomic(json_out, payload)
        console.print(f"Wrote {json_out}")


@click.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="graph.json to write; with --corpus, a folder that gets <movie>/graph.json.")
@click.option("--corpus", is_flag=True,
              help="SOURCE is a folder of STAGE movies; build one baseline per script.json.")
def baseline(source: Path, output: Path, corpus: bool) -> None:
    """Build the trivial baseline graph (cues as Characters, heading places as Locations).

    Score it like any prediction to know the floor: `kgbuild score OUT REF`.
    """
    from kgbuild import __version__
    from kgbuild.evaluation.baselines import stage_scripts, trivial_graph
    from kgbuild.graph import save_graph
    from kgbuild.readers import read_screenplay

    if not corpus:
        save_graph(trivial_graph(read_screenplay(source), version=__version__), output)
        click.echo(f"Wrote {output}")
        return
    scripts = stage_scripts(source)
    if not scripts:
        raise click.UsageError(f"no script.json below {source}")
    for movie, script in scripts.items():
        save_graph(trivial_graph(read_screenplay(script), version=__version__),
                   output / movie / "graph.json")
    click.echo(f"Wrote {len(scripts)} baseline graphs under {output}")
