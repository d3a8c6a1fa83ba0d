"""`kgbuild audit GRAPH`: the truth audit, from sampling facts to the supported share."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from kgbuild.cli.console import stdout_console
from kgbuild.cli.options import LLMFlags, llm_options, schema_option
from kgbuild.errors import InputError
from kgbuild.evaluation.audit.requests import DEFAULT_JUDGE_MODEL
from kgbuild.evaluation.audit.sample import DEFAULT_ENTITIES, DEFAULT_RELATIONS
from kgbuild.evaluation.audit.types import AuditReport, AuditSample, TypeShare, Verdict, WeightedShare
from kgbuild.folders import AuditFolder, BuildFolder
from kgbuild.llm.settings import LLMSettings
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema

_SHOWN_ERRORS = 20


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{100 * low:.1f}–{100 * high:.1f}%"


def _type_table(title: str, types: list[TypeShare]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("type")
    for col in ("in graph", "judged", "supported", "not supported", "cant tell", "share", "95% interval"):
        table.add_column(col, justify="right")
    for t in types:
        table.add_row(t.type, str(t.in_graph), str(t.judged), str(t.supported), str(t.not_supported),
                      str(t.cant_tell), _pct(t.share), _interval(t.low, t.high))
    return table


def _weighted_line(label: str, w: WeightedShare) -> str:
    line = (f"{label}: weighted supported share {_pct(w.share)} (95% {_interval(w.low, w.high)}); "
            f"{w.supported} of {w.judged} judged supported, {w.cant_tell} cant_tell")
    if w.judged and w.coverage < 1:
        line += f"; the judged types cover {_pct(w.coverage)} of the graph's {label.lower()}"
    return line


def _show_report(console: Console, report: AuditReport) -> None:
    console.print(_type_table("Relations by type", report.relation_types))
    console.print(_type_table("Entities by type", report.entity_types))
    console.print(_weighted_line("Relations", report.relations))
    console.print(_weighted_line("Entities", report.entities))
    if report.not_judged:
        shown = ", ".join(report.not_judged[:_SHOWN_ERRORS])
        more = f" and {len(report.not_judged) - _SHOWN_ERRORS} more" if len(report.not_judged) > _SHOWN_ERRORS else ""
        console.print(f"[yellow]Not judged ({len(report.not_judged)}):[/yellow] {shown}{more}")


@click.command()
@click.argument("graph", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False, path_type=Path),
              help="The audit folder [default: GRAPH's folder/audit].")
@click.option("--relations", type=click.IntRange(min=0), default=DEFAULT_RELATIONS, show_default=True,
              help="Relations to sample, stratified by relation type.")
@click.option("--entities", type=click.IntRange(min=0), default=DEFAULT_ENTITIES, show_default=True,
              help="Entities to sample, stratified by entity type.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Sampling seed: the same graph and seed give the same facts and ids.")
@click.option("--screenplay", type=click.Path(dir_okay=False, path_type=Path),
              help="The screenplay.json of the build, or the script file [default: screenplay.json "
              "beside GRAPH].")
@click.option("--verdicts", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Tally these verdicts: a verdicts JSONL file or a marked sheet.md.")
@click.option("--results", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Tally the output file of a Batch API run of requests.jsonl (written to "
              "DIR/verdicts.jsonl first).")
@click.option("--judge", is_flag=True,
              help="Judge live with --llm-model (response cache, retries, budget as in builds: the LLM "
              "options below apply), write DIR/verdicts.jsonl and tally.")
@llm_options(batch_export=False, model_env="KGBUILD_JUDGE_MODEL", model_default=DEFAULT_JUDGE_MODEL,
             model_help="The judge model of requests.jsonl and --judge [env KGBUILD_JUDGE_MODEL].")
@click.option("--apply", "apply_verdicts", is_flag=True,
              help="With the verdicts: add a 'reject' line for every fact judged not_supported to the "
              "corrections file, so every later build leaves it out.")
@click.option("--corrections", type=click.Path(dir_okay=False, path_type=Path),
              help="The corrections file --apply writes [default: SCRIPT_STEM.corrections.jsonl "
              "beside the build's script].")
@schema_option()
def audit(graph: Path, outdir: Path | None, relations: int, entities: int, seed: int,
          screenplay: Path | None, verdicts: Path | None, results: Path | None, judge: bool,
          apply_verdicts: bool, corrections: Path | None, schema_file: Path | None, llm: LLMFlags) -> None:
    """Audit whether the scenes GRAPH's facts cite support them (GRAPH: graph.json or a build folder).

    Without --verdicts, --results or --judge: sample facts (stratified by type, seeded) and write
    DIR/sheet.md (for a person to mark), DIR/facts.jsonl and DIR/requests.jsonl (OpenAI Batch API
    input, custom_id = fact id). With one of them: tally the verdicts, print the supported share
    per type and weighted by type frequency with 95% intervals, and write DIR/audit.md and
    DIR/audit.json. Tally with the same --seed, --relations and --entities as the sheet.
    With --apply, facts judged not_supported become 'reject' lines of the corrections file.
    """
    from kgbuild.evaluation.audit import files
    from kgbuild.evaluation.audit.sample import sample_facts
    from kgbuild.graph import graph_file, load_graph
    from kgbuild.schema import schema_for_graph

    if sum((verdicts is not None, results is not None, judge)) > 1:
        raise click.UsageError("give at most one of --verdicts, --results and --judge")
    if apply_verdicts and verdicts is None and results is None and not judge:
        raise click.UsageError("--apply needs the verdicts: give --verdicts, --results or --judge")
    llm_model = llm.model or DEFAULT_JUDGE_MODEL
    source = graph_file(graph)
    schema = schema_for_graph(source, schema_file)
    kg = load_graph(source)
    target = AuditFolder(outdir) if outdir is not None else BuildFolder(source.parent).audit
    sample = sample_facts(kg, relations=relations, entities=entities, seed=seed)
    console = stdout_console()
    if verdicts is None and results is None and not judge:
        sp = files.load_screenplay(source, kg, screenplay)
        sheet_files = files.write_audit(target.path, sample, sp, schema, model=llm_model)
        picked = sum(f.kind == "relation" for f in sample.facts)
        bare = sum(not f.evidence for f in sample.facts)
        console.print(
            f"Sampled {picked} of {len(kg.relations)} relations ({len(sample.relation_counts)} types) and "
            f"{len(sample.facts) - picked} of {len(kg.entities)} entities ({len(sample.entity_counts)} "
            f"types), seed {seed}; {len(sample.facts) - bare} judge requests for {llm_model}"
            + (f", {bare} {'fact cites' if bare == 1 else 'facts cite'} no evidence (not supported, no request)"
               if bare else "") + ".")
        console.print("Wrote " + ", ".join(str(p) for p in sheet_files))
        console.print(f"Next: mark {target.sheet} and run 'kgbuild audit {graph} --verdicts {target.sheet}', "
                      f"or submit {target.requests} to a Batch API and run 'kgbuild audit {graph} --results "
                      "RESULTS.jsonl', or judge live with --judge (same --seed, --relations, --entities).")
        return
    files.check_facts_file(target.facts, sample)
    written: list[Path] = []
    if verdicts is not None:
        judged = files.read_verdicts_file(verdicts)
        where = str(verdicts)
    elif results is not None:
        judged, where = _from_results(results, target, console), str(results)
        written.append(target.verdicts)
    else:
        settings = llm.model_copy(update={"model": llm_model}).settings()
        assert settings is not None  # the judge model has a default
        judged, where = _judge_live(source, kg, screenplay, sample, target, console, settings, schema)
        written.append(target.verdicts)
    from kgbuild.evaluation.audit.tally import tally

    report = tally(sample, judged, path=where)
    _show_report(console, report)
    written += files.write_report(target.path, report)
    console.print("Wrote " + ", ".join(str(p) for p in written))
    if apply_verdicts:
        _apply(judged, sample, corrections or _beside_script(source, kg, screenplay), console)


def _beside_script(source: Path, kg: KnowledgeGraph, screenplay: Path | None) -> Path:
    from kgbuild.canonicalize.corrections import corrections_file
    from kgbuild.evaluation.audit import files

    return corrections_file(files.load_screenplay(source, kg, screenplay).source.path)


def _apply(judged: list[Verdict], sample: AuditSample, path: Path, console: Console) -> None:
    """Turn not_supported verdicts into 'reject' corrections."""
    from kgbuild.canonicalize.corrections import Correction, append_corrections

    refs = {f.id: f for f in sample.facts}
    rejects = [Correction(action="reject", fact=refs[v.fact_id].ref,
                          why=f"audit {v.fact_id}: {v.reason}".strip())
               for v in judged if v.verdict == "not_supported" and v.fact_id in refs]
    try:
        added = append_corrections(path, rejects)
    except OSError as e:
        raise InputError(f"cannot write the corrections file ({e.strerror})", path=str(path)) from e
    console.print(f"Added {added} rejections to {path} ({len(rejects) - added} were there already); "
                  "rebuild to apply them.")


def _from_results(results: Path, target: AuditFolder, console: Console) -> list[Verdict]:
    from kgbuild.evaluation.audit import files
    from kgbuild.evaluation.audit.requests import verdicts_from_batch

    try:
        text = results.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the batch results: {e}", path=str(results)) from e
    batch = verdicts_from_batch(text, path=str(results))
    for error in batch.errors[:_SHOWN_ERRORS]:
        click.echo(error, err=True)
    if len(batch.errors) > _SHOWN_ERRORS:
        click.echo(f"... and {len(batch.errors) - _SHOWN_ERRORS} more failed lines", err=True)
    if not batch.verdicts and batch.errors:
        raise InputError(f"none of the {batch.lines} lines holds a verdict (see above)", path=str(results))
    target.path.mkdir(parents=True, exist_ok=True)
    files.write_verdicts(target.verdicts, batch.verdicts)
    console.print(f"Read {len(batch.verdicts)} verdicts from {batch.lines} result lines"
                  + (f"; {len(batch.errors)} lines failed (their facts stay unjudged)" if batch.errors else ""))
    return batch.verdicts


def _judge_live(source: Path, kg: KnowledgeGraph, screenplay: Path | None, sample: AuditSample,
                target: AuditFolder, console: Console, settings: LLMSettings,
                schema: Schema) -> tuple[list[Verdict], str]:
    from kgbuild.evaluation.audit import files
    from kgbuild.evaluation.audit.live import judge_live
    from kgbuild.llm.costs import format_usage

    llm_model = settings.model
    if kg.provenance is not None and kg.provenance.model == llm_model:
        console.print(f"[yellow]The judge {llm_model} is the model that built this graph; a judge that "
                      "did not produce the facts is fairer (--llm-model).[/yellow]")
    sp = files.load_screenplay(source, kg, screenplay)
    sections = files.judge_sections(sample, sp, schema)
    run = judge_live(sections, settings)
    target.path.mkdir(parents=True, exist_ok=True)
    files.write_verdicts(target.verdicts, run.verdicts)
    for line in format_usage(run.usage):
        console.print(line)
    for failure in run.failures[:_SHOWN_ERRORS]:
        click.echo(f"{failure.fact_id}: {failure.message}", err=True)
    if run.failures:
        console.print(f"[yellow]{len(run.failures)} facts got no verdict (see above); rerun --judge to retry "
                      f"them (judged ones come from the cache {run.cache_path}).[/yellow]")
    return run.verdicts, f"{llm_model} verdicts"
