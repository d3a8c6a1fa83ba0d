"""`kgbuild score` and `kgbuild baseline`: STAGE-KG scores as tables, JSON and explanations."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.cli.console import stdout_console
from kgbuild.cli.options import scenes_param, schema_option
from kgbuild.errors import InputError
from kgbuild.evaluation.metrics import PRF, Averaged
from kgbuild.evaluation.stage_kg import PROTOCOLS, Grading, MovieScore, ScoreOptions
from kgbuild.folders import BuildFolder, CorpusFolder
from kgbuild.model import KnowledgeGraph
from kgbuild.scenes import SceneSelection
from kgbuild.schema import Schema

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
    m = score.missed_relations
    console.print(f"Reference relations not found ({m.both_ends_matched + m.one_end_matched + m.no_end_matched}): "
                  f"{m.both_ends_matched} with both entities matched, {m.one_end_matched} with one, "
                  f"{m.no_end_matched} with neither")
    if score.named_otherwise:
        console.print(f"Reference entities not found that a prediction names otherwise ({len(score.named_otherwise)}; "
                      "--alias-identity counts the aliases):")
        for other in score.named_otherwise[:top]:
            how = "an alias of" if other.how == "alias" else "named by"
            console.print(f"  {other.reference_type} {other.reference!r}: {how} {other.predicted_type} "
                          f"{other.predicted!r}")
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
        f"movie id, e.g. {CorpusFolder(pred).movie(example).graph} (`kgbuild baseline --corpus STAGE_DIR -o "
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


def _describe_options(options: ScoreOptions) -> str:
    embedded = "name and description as one text" if options.entity_text == "name_description" else "names"
    return (f"threshold {options.threshold:.2f} on {embedded}"
            + (f" (description weight {options.description_weight:g})" if options.description_weight else "")
            + f", normalized-name identity {'on' if options.name_identity else 'off'}"
            + (" (predicted aliases too)" if options.name_identity and options.alias_identity else "") + ", "
            f"CJK names by {options.cjk_similarity}, "
            f"reference degree >= {options.min_degree}, predicted degree >= {options.pred_min_degree}")


def _protocol_line(protocol: str, options: ScoreOptions, given: Mapping[str, object]) -> str:
    changed = {k: v for k, v in given.items() if getattr(PROTOCOLS[protocol], k) != v}
    flags = [f"--{'' if v else 'no-'}{k.replace('_', '-')}" if isinstance(v, bool) else f"--{k.replace('_', '-')} {v}"
             for k, v in changed.items()]
    suffix = f" with {', '.join(flags)}" if flags else ""
    return f"Protocol: {protocol}{suffix} ({_describe_options(options)})"


def _scenes_line(movies: list[MovieScore], given: SceneSelection | None) -> str | None:
    ranged = [m for m in movies if m.scene_ranges]
    if not ranged:
        return None
    rule = ("each reference restricted to them before scoring, so its degree >= 2 rule counts the "
            "restricted reference's relations only; predictions keep the facts grounded in them")
    if given is not None:
        return f"Scenes: {given.describe()} (--scenes); {rule}"
    ranges = sorted({SceneSelection.of(m.scene_ranges).describe() for m in ranged})
    whose = "the prediction" if len(movies) == 1 else f"{len(ranged)} of {len(movies)} predictions"
    return (f"Scenes: {'; '.join(ranges)}, as recorded in {whose} (built with --scenes; give --scenes to "
            f"override); {rule}")


def _write_missed(folder: Path, reference: KnowledgeGraph, graded: Grading, schema: Schema) -> str:
    """Write the misses (`kgbuild.evaluation.missed`) under `folder`; returns the line saying so."""
    from kgbuild.evaluation.missed import missed_facts
    from kgbuild.graph import save_graph

    missed = missed_facts(reference, graded, schema)
    relations, entities = BuildFolder(folder / "relations"), BuildFolder(folder / "entities")
    for written, graph in ((relations, missed.relations), (entities, missed.entities)):
        written.path.mkdir(parents=True, exist_ok=True)
        save_graph(graph, written.graph)
    return (f"Wrote {len(missed.relations.relations)} missed relations to {relations.graph} "
            f"and {len(missed.entities.entities)} missed entities to {entities.graph}; "
            f"audit them with 'kgbuild audit {relations.graph} --screenplay "
            f"{BuildFolder('BUILD').screenplay} --entities 0' (and --relations 0 for the entities).")


@click.command()
@click.argument("pred", type=click.Path(exists=True, path_type=Path))
@click.argument("ref", type=click.Path(exists=True, path_type=Path))
@click.option("--corpus", is_flag=True,
              help="PRED and REF are folders of many movies (PRED/<id>/graph.json, REF/**/<id>/).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the full scores as JSON here.")
@click.option("--explain", is_flag=True, help="List the largest sources of error.")
@click.option("--write-missed", "missed_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write the scored reference facts the prediction missed as graphs to audit: DIR/relations/"
              "graph.json (the missed relations and their ends) and DIR/entities/graph.json (the missed "
              "entities); each fact cites the reference's scenes for it. One movie only.")
@click.option("--protocol", type=click.Choice(sorted(PROTOCOLS)), default="kgbuild", show_default=True,
              help="Preset of the options below: kgbuild (names embedded, normalized names matched first) or "
              "paper (the paper's reading of app. D.1: name and description embedded as one text, rename map "
              "then embeddings only). The options below override it.")
@click.option("--threshold", type=click.FloatRange(0, 1),
              help=f"Cosine similarity needed for an embedding match [default: {ScoreOptions().threshold}].")
@click.option("--entity-text", type=click.Choice(["name", "name_description"]),
              help="What is embedded for an entity: its name, or its name and description as one text "
              "[default: name; paper: name_description].")
@click.option("--name-identity/--no-name-identity", default=None,
              help="Match names equal after normalization (same type) before the embeddings "
              "[default: on; paper: off].")
@click.option("--alias-identity/--no-alias-identity", default=None,
              help="With name identity, a prediction's aliases count as its names too, as the reference's do "
              "[default: off; the defaults were fixed before the LLM path was measured]. Shows how much of a "
              "score is naming.")
@click.option("--description-weight", type=click.FloatRange(0, 1),
              help="Weight of description similarity next to name similarity "
              f"[default: {ScoreOptions().description_weight}].")
@click.option("--cjk-similarity", type=click.Choice(["characters", "embedding"]),
              help="How names with CJK characters are compared: rapidfuzz's ratio of their characters, or "
              "MiniLM embeddings, which read most CJK characters as [UNK] (the reading before 2026-11-26) "
              f"[default: {ScoreOptions().cjk_similarity}].")
@click.option("--min-degree", type=click.IntRange(min=0),
              help=f"Reference degree an entity needs to be scored [default: {ScoreOptions().min_degree}].")
@click.option("--pred-min-degree", type=click.IntRange(min=0),
              help=f"Predicted degree an entity needs to count [default: {ScoreOptions().pred_min_degree}].")
@click.option("--scenes", metavar="RANGES", callback=scenes_param,
              help="Score only these scenes (A-B, N or A-B,C-D, by kgbuild's scene index): the reference keeps "
              "its parts of those scenes (then the degree rule), the prediction its facts grounded in them "
              "[default: the ranges a prediction built with --scenes records, else every scene].")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Embedding cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")
@click.option("--top", type=int, default=12, show_default=True, help="Examples per list.")
@click.option("--force", is_flag=True, help="Score PRED against REF even when they name different movies (ids "
              "and titles differ).")
@schema_option("The graph schema (a JSON file like kgbuild's schema/stage_kg.json) [default: the schema.json "
               "beside REF's graph, else beside PRED's, else the STAGE-KG schema; with --corpus, STAGE-KG].")
def score(pred: Path, ref: Path, corpus: bool, json_out: Path | None, explain: bool, missed_dir: Path | None,
          protocol: str,
          threshold: float | None, entity_text: str | None, name_identity: bool | None, alias_identity: bool | None,
          description_weight: float | None, cjk_similarity: str | None, min_degree: int | None,
          pred_min_degree: int | None, scenes: SceneSelection | None, cache_dir: Path | None, top: int, force: bool,
          schema_file: Path | None) -> None:
    """Score predicted graph(s) PRED against STAGE reference(s) REF with STAGE-KG P/R/F1.

    PRED is a graph.json (or a STAGE movie folder); REF is a STAGE movie folder
    (extraction_results.json + rename_map.json) or a graph.json. The output says which
    protocol (preset of options) and which scenes were scored. A REF of another movie (neither
    id nor title of one is the other's) is refused unless --force.
    """
    from kgbuild.paths import check_writable_dir, check_writable_file

    if json_out is not None:
        check_writable_file(json_out, "JSON output file")
    if missed_dir is not None:
        if corpus:
            raise click.UsageError("--write-missed writes one movie's misses; leave out --corpus and give one "
                                   "prediction and its reference")
        check_writable_dir(missed_dir, "missed-facts folder")
    from kgbuild.embeddings import default_embedder
    from kgbuild.evaluation.corpus import aggregate, find_predictions, find_references, load_pair, score_corpus
    from kgbuild.evaluation.reference import check_same_movie, scoring_schema
    from kgbuild.evaluation.stage_kg import grade, score_movie
    from kgbuild.readers.stage_json import stage_title
    from kgbuild.schema import load_schema

    given = {k: v for k, v in {"threshold": threshold, "entity_text": entity_text, "name_identity": name_identity,
                               "alias_identity": alias_identity,
                               "description_weight": description_weight, "cjk_similarity": cjk_similarity,
                               "min_degree": min_degree,
                               "pred_min_degree": pred_min_degree}.items()
             if v is not None}
    options = PROTOCOLS[protocol].model_copy(update=given)
    console = stdout_console()
    missing: set[str] = set()
    missed_line = None
    if corpus:
        refs = find_references(ref)
        _check_predictions(pred, refs, find_predictions(pred))
        result = score_corpus(pred, ref, embedder=default_embedder(cache_dir), options=options, scenes=scenes,
                              schema=load_schema(schema_file) if schema_file is not None else None)
        result = result.model_copy(update={"movies": [
            m.model_copy(update={"title": stage_title(refs[m.movie])}) for m in result.movies]})
        movies = result.movies
        groups = result.groups
        missing = set(result.missing_predictions)
        _warn_unpaired(result.movies, missing, result.unused_predictions, pred)
        payload = result.model_dump_json(indent=1)
    else:
        schema = scoring_schema(pred, ref, schema_file)
        predicted, pred_report, reference, ref_report, renames = load_pair(pred, ref, scenes=scenes, schema=schema)
        assert predicted is not None
        if not force:
            check_same_movie(predicted.movie, reference.movie)
        if reference.movie.scene_ranges and not reference.entities:
            raise InputError(f"the reference has no facts in scenes "
                             f"{SceneSelection.of(reference.movie.scene_ranges).describe()}; check the range "
                             "against the reference's script ('kgbuild parse REF/script.json')", path=str(ref))
        embedder = default_embedder(cache_dir)
        graded = grade(predicted, reference, renames=renames, embedder=embedder, options=options, schema=schema)
        single = score_movie(predicted, reference, renames=renames, embedder=embedder, options=options,
                             schema=schema, movie=reference.movie.key, title=reference.movie.title,
                             graded=graded)
        single = single.model_copy(update={"prediction_report": pred_report,
                                           "reference_report": ref_report})
        movies = [single]
        groups = {"all": aggregate(movies)}
        payload = single.model_dump_json(indent=1)
        if missed_dir is not None:
            missed_line = _write_missed(missed_dir, reference, graded, schema)
    console.print(_protocol_line(protocol, options, given))
    scenes_line = _scenes_line(movies, scenes)
    if scenes_line:
        console.print(scenes_line)
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
    if missed_line:
        console.print(missed_line, markup=False)


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
    from kgbuild.evaluation.baselines import stage_scripts, trivial_graph
    from kgbuild.graph import save_graph
    from kgbuild.paths import check_writable_dir, check_writable_file
    from kgbuild.readers import read_screenplay
    from kgbuild.version import __version__

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
        save_graph(trivial_graph(read_screenplay(script), version=__version__), CorpusFolder(output).movie(movie).graph)
    click.echo(f"Wrote {len(scripts)} baseline graphs under {output}")
