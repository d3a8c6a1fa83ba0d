"""`kgbuild score` and `kgbuild baseline`: STAGE-KG scores as tables, JSON and explanations."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.evaluation.metrics import PRF, Averaged
from kgbuild.evaluation.stage_kg import MovieScore, ScoreOptions

_ID_CHARS = 14  # enough to tell STAGE ids apart; the JSON output keeps the whole id


def _prf_cells(p: PRF | Averaged) -> list[str]:
    return [f"{p.precision:.3f}", f"{p.recall:.3f}", f"{p.f1:.3f}"]


def _label(score: MovieScore) -> str:
    return score.title or score.movie or "this graph"


def _short_id(movie: str) -> str:
    return movie if len(movie) <= _ID_CHARS + 1 else movie[:_ID_CHARS] + "…"


def _score_table(title: str, caption: str | None = None) -> Table:
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("movie", max_width=32)
    table.add_column("id", no_wrap=True)
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
            f"[yellow]{_label(score)}: not scored from the prediction:[/yellow] "
            f"{sum(report.unknown_entity_types.values())} entities of unknown types "
            f"{dict(report.unknown_entity_types)}, {sum(report.unknown_relation_types.values())} "
            f"relations of unknown types {dict(report.unknown_relation_types)}, "
            f"{report.dangling_relations} relations with missing endpoints"
        )


def _explain(console: Console, score: MovieScore, top: int) -> None:
    console.print(f"[bold]Why {_label(score)} scores what it does[/bold]")
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
    if score.cross_type_matches:
        console.print(f"Grounded by the rename map to another type ({len(score.cross_type_matches)}; "
                      "counted in the row of the predicted type):")
        for c in score.cross_type_matches[:top]:
            console.print(f"  {c.predicted_type} {c.predicted!r} -> {c.reference_type} {c.reference!r}"
                          + ("" if c.counted else " (neutral: the reference entity is not scored)"))
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


def _check_predictions(pred: Path, refs: dict[str, Path], preds: dict[str, Path]) -> None:
    """Refuse a corpus where no reference movie has a prediction: its table would be all zeros."""
    if refs.keys() & preds.keys():
        return
    example = next(iter(refs))
    found = (f"; it holds predictions for {', '.join(sorted(preds)[:5])}, which name no reference movie"
             if preds else "")
    raise InputError(
        f"no prediction for any of the {len(refs)} reference movies{found}. Expected one folder per "
        f"movie id, e.g. {pred / example / 'graph.json'} (`kgbuild baseline --corpus STAGE_DIR -o "
        f"{pred}` writes them)",
        path=str(pred),
    )


def _warn_unpaired(movies: list[MovieScore], missing: set[str], unused: list[str], pred: Path) -> None:
    """Name, on stderr, the reference movies without a prediction and the predictions without one."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if missing:
        names = [f"{_label(m)} ({m.movie})" if m.title else m.movie for m in movies if m.movie in missing]
        err.print(f"[yellow]kgbuild: no prediction for {len(missing)} of {len(movies)} movies "
                  f"(expected {pred}/<movie id>/graph.json; scored as empty graphs, counted in the "
                  f"averages):[/yellow] {', '.join(names)}")
    if unused:
        err.print(f"[yellow]kgbuild: {len(unused)} predictions name no reference movie, not scored:"
                  f"[/yellow] {', '.join(unused)}")


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
    from kgbuild.paths import check_writable_file

    if json_out is not None:
        check_writable_file(json_out, "JSON output file")
    from kgbuild.embeddings import default_embedder
    from kgbuild.evaluation.corpus import aggregate, find_predictions, find_references, score_corpus
    from kgbuild.evaluation.reference import load_any, stage_title
    from kgbuild.evaluation.stage_kg import score_movie

    options = ScoreOptions(threshold=threshold, description_weight=description_weight,
                           min_degree=min_degree, pred_min_degree=pred_min_degree)
    console = Console(highlight=False, soft_wrap=True,
                      width=None if sys.stdout.isatty() else 120)
    missing: set[str] = set()
    if corpus:
        refs = find_references(ref)
        _check_predictions(pred, refs, find_predictions(pred))
        result = score_corpus(pred, ref, embedder=default_embedder(cache_dir), options=options)
        result = result.model_copy(update={"movies": [
            m.model_copy(update={"title": stage_title(refs[m.movie])}) for m in result.movies]})
        movies = result.movies
        groups = result.groups
        missing = set(result.missing_predictions)
        _warn_unpaired(result.movies, missing, result.unused_predictions, pred)
        payload = result.model_dump_json(indent=1)
    else:
        predicted, pred_report, _ = load_any(pred)
        reference, ref_report, renames = load_any(ref)
        title = stage_title(ref) if ref.is_dir() else reference.movie.title
        single = score_movie(predicted, reference, renames=renames,
                             embedder=default_embedder(cache_dir), options=options,
                             movie=ref.name, title=title)
        single = single.model_copy(update={"prediction_report": pred_report,
                                           "reference_report": ref_report})
        movies = [single]
        groups = {"all": aggregate(movies)}
        payload = single.model_dump_json(indent=1)
    caption = ("- : no prediction (an empty graph in the averages)" if missing else None)
    table = _score_table("STAGE-KG scores", caption)
    for m in movies:
        if m.movie in missing:
            table.add_row(_label(m), _short_id(m.movie), *["-"] * 6, style="yellow")
        else:
            table.add_row(_label(m), _short_id(m.movie), *_prf_cells(m.entities), *_prf_cells(m.relations))
    if corpus:
        for name, g in groups.items():
            table.add_row(f"[bold]{name} micro[/bold]", "", *_prf_cells(g.entities_micro),
                          *_prf_cells(g.relations_micro))
            table.add_row(f"[bold]{name} macro[/bold]", "", *_prf_cells(g.entities_macro),
                          *_prf_cells(g.relations_macro))
    console.print(table)
    for m in movies:
        _skipped_summary(console, m)
    console.print(_type_table("Entities by type", groups["all"].entity_types))
    crossed = sum(len(m.cross_type_matches) for m in movies)
    if crossed:
        console.print(f"{crossed} predictions grounded by the rename map to a reference entity of "
                      "another type count in the row of their own type (--explain lists them).")
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
    from kgbuild.paths import check_writable_dir, check_writable_file
    from kgbuild.readers import read_screenplay

    if corpus:
        check_writable_dir(output)
    else:
        check_writable_file(output)
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
