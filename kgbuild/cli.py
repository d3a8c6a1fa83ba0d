"""The `kgbuild` command line. Only this module turns exceptions into messages and exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from kgbuild.atomic import write_text_atomic
from kgbuild.chunking import DEFAULT_TOKEN_BUDGET, chunk_screenplay
from kgbuild.errors import KgbuildError
from kgbuild.llm.cli_options import EXIT_BATCH_PENDING, LLMFlags, llm_options
from kgbuild.llm.settings import DEFAULT_LLM_CHUNK_TOKENS
from kgbuild.model import SourceFormat
from kgbuild.paths import cache_dir as resolve_cache_dir
from kgbuild.paths import check_writable_dir, check_writable_file
from kgbuild.readers import DEFAULT_MAX_BYTES, read_screenplay
from kgbuild.scenes import SceneSelection, scenes_param
from kgbuild.schema_option import schema_option
from kgbuild.summary import ScreenplaySummary, summarize

if TYPE_CHECKING:
    from kgbuild.llm.run import LLMExtraction
    from kgbuild.llm.settings import LLMSettings

_FORMATS = click.Choice([f.value for f in SourceFormat])
_DEFAULT_SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def _console() -> Console:
    # Rich assumes 80 columns when writing to a file or pipe, which cuts table labels.
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 120)


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


@click.group()
@click.version_option(package_name="kgbuild")
def cli() -> None:
    """kgbuild: movie screenplays to knowledge graphs."""


@cli.command()
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
    console = _console()
    warnings = [f"line {w.line}: {w.message}" if w.line else w.message for w in screenplay.warnings]
    _show_summary(console, summarize(screenplay), warnings, top)
    if output is not None:
        write_text_atomic(output, screenplay.model_dump_json(indent=1))
        console.print(f"Wrote {output}")


@cli.command()
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


_BENCHES = ("parsing", "scoring", "build", "store", "llm", "merge", "view", "corpus", "faults")


@cli.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=_DEFAULT_SHARED_DATA, show_default=True,
              help="The shared data folder holding the screenplays.")
@click.option("--only", type=click.Choice(_BENCHES), multiple=True,
              help="Run these benchmarks instead of all (repeatable).")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Parsing runs per file; the fastest counts.")
@click.option("--llm-latency", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Seconds the local LLM server waits before each answer (llm benchmark).")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
def bench(data: Path, only: tuple[str, ...], repeat: int, llm_latency: float, as_json: bool) -> None:
    """Time parsing, STAGE-KG scoring, an offline build, the embedded store, an LLM build, merging
    and the story view.

    The LLM benchmark builds a feature-length script against a local OpenAI-compatible server
    (no network) with one request in flight and with 32. The merge benchmark clusters 10,000 and
    50,000 synthetic mentions with cached embeddings, then measures embedding throughput. The view
    benchmark writes the pages of the example and of the largest STAGE reference graph and times
    their first render in headless Chromium (skipped, with the reason, when Chromium is missing).
    The corpus benchmark builds the STAGE dev movies offline with 1 and 2 local workers (one torch
    thread each) and on a local Ray instance with 2 CPUs when Ray is installed.
    """
    from kgbuild.benchmarks.build import bench_build
    from kgbuild.benchmarks.parsing import bench_parsing, discover_inputs
    from kgbuild.benchmarks.scoring import bench_scoring

    chosen = set(only or _BENCHES)
    paths = discover_inputs(data)
    if not paths:
        raise click.UsageError(f"no screenplays found under {data}; pass --data")
    feature = data / "screenplays" / "lizard-people.fountain"
    rows = bench_parsing(paths, repeat=repeat) if "parsing" in chosen else []
    scoring = bench_scoring(data / "stage") if "scoring" in chosen else None
    building = bench_build(feature) if "build" in chosen else None
    store = llm_result = merge_result = view_result = corpus_result = None
    fault_rows = None
    if "store" in chosen:
        from kgbuild.benchmarks.store import bench_embedded_store

        store = bench_embedded_store(data / "stage")
    if "llm" in chosen:
        from kgbuild.benchmarks.llm import bench_llm

        llm_result = bench_llm(feature, latency=llm_latency)
    if "merge" in chosen:
        from kgbuild.benchmarks.merge import bench_merge

        merge_result = bench_merge()
    if "view" in chosen:
        from kgbuild.benchmarks.view import bench_view
        from kgbuild.view.browser import BrowserMissingError

        try:
            view_result = bench_view(feature, data / "stage")
        except BrowserMissingError as e:
            click.echo(f"kgbuild: view benchmark skipped: {e}", err=True)
    if "corpus" in chosen:
        from kgbuild.benchmarks.corpus import bench_corpus

        corpus_result = bench_corpus(data / "stage")
    if "faults" in chosen:
        from kgbuild.benchmarks.faults import bench_faults

        fault_rows = bench_faults()
    if as_json:
        from pydantic import BaseModel

        results: dict[str, Any] = {"parsing": [r.model_dump() for r in rows], "scoring": scoring,
                                   "build": building, "store": store, "llm": llm_result, "merge": merge_result,
                                   "view": view_result, "corpus": corpus_result,
                                   "faults": [r.model_dump() for r in fault_rows] if fault_rows is not None else None}
        click.echo(json.dumps({k: v.model_dump() if isinstance(v, BaseModel) else v
                               for k, v in results.items()}, indent=1))
        return
    console = _console()
    if rows:
        table = Table(title=f"Parsing {len(paths)} files (best of {repeat})", title_justify="left")
        for col in ("format", "files", "MB", "scenes", "pages", "seconds", "MB/s", "scenes/s",
                    "pages/s"):
            table.add_column(col, justify="left" if col == "format" else "right")
        for r in rows:
            table.add_row(
                r.format, str(r.files), f"{r.megabytes:.2f}", str(r.scenes), str(r.pages or "-"),
                f"{r.seconds:.3f}", f"{r.mb_per_s:.1f}", f"{r.scenes_per_s:.0f}",
                f"{r.pages_per_s:.1f}" if r.pages else "-",
            )
        text_rows = [r for r in rows if r.format in {"plain", "fountain", "stage_json"}]
        console.print(table)
        console.print(
            f"Plain text, Fountain and STAGE JSON together: "
            f"{sum(r.seconds for r in text_rows):.2f} s (target < 3 s); PDF target >= 20 pages/s"
        )
    if scoring:
        console.print(
            f"STAGE-KG scoring of {scoring.movies} movies ({scoring.predictions}): "
            f"cold cache {scoring.cold_seconds:.1f} s (target < 30 s, {scoring.texts_embedded} "
            f"texts embedded), warm cache {scoring.warm_seconds:.1f} s (target < 5 s)"
        )
    if building:
        console.print(
            f"Offline build of {building.script} ({building.scenes} scenes): cold cache "
            f"{building.cold_seconds:.1f} s (target < 20 s), warm {building.warm_seconds:.1f} s, "
            f"peak memory {building.peak_rss_mb:.0f} MB"
        )
    if store:
        from kgbuild.benchmarks.store import format_store_bench

        console.print("\n".join(format_store_bench(store)))
    if llm_result:
        from kgbuild.benchmarks.llm import format_llm_bench

        console.print("\n".join(format_llm_bench(llm_result)))
    if merge_result:
        from kgbuild.benchmarks.merge import format_merge_bench

        console.print("\n".join(format_merge_bench(merge_result)))
    if view_result:
        from kgbuild.benchmarks.view import format_view_bench

        console.print("\n".join(format_view_bench(view_result)))
    if corpus_result:
        from kgbuild.benchmarks.corpus import format_corpus_bench

        console.print("\n".join(format_corpus_bench(corpus_result)))
    if fault_rows is not None:
        from kgbuild.benchmarks.faults import format_faults

        console.print("\n".join(format_faults(fault_rows)))


class _Bars:
    """Progress bars on stderr, one per pipeline stage; an LLM request that waits or is retried is
    a line above them (`note`), unless the bars are off (-q)."""

    def __init__(self, progress, *, quiet: bool = False) -> None:
        self._progress = progress
        self._task = None
        self._quiet = quiet

    def note(self, text: str) -> None:
        if not self._quiet:
            self._progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def hide_unstarted(self) -> None:
        """Hide the bars of stages that did no work (an error follows, not an empty bar)."""
        for task in self._progress.tasks:
            if not task.completed:
                self._progress.update(task.id, visible=False)

    def stage(self, name: str, total: int | None) -> None:
        if self._task is not None:
            self._progress.update(self._task, completed=self._progress.tasks[-1].total)
        self._task = self._progress.add_task(name, total=total)

    def advance(self, units: int = 1) -> None:
        if self._task is not None:
            self._progress.advance(self._task, units)


#: Exit status of an LLM build in which some chunks got no valid answer after the retries.
EXIT_PARTIAL = 4


@cli.command()
@click.argument("scripts", metavar="SCRIPT...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for graph.json, screenplay.json, report.md, graph.graphml "
              "(and review.jsonl with an LLM); for a corpus, OUTDIR/<movie>/ per movie, corpus.jsonl and "
              "report.md [required, except with --from-stage: SCRIPT's folder].")
@click.option("--workers", type=click.IntRange(min=1),
              help="Corpus: worker processes building movies at once [default: the number of cores].")
@click.option("--worker-threads", type=click.IntRange(min=1),
              help="Corpus: torch threads per worker [default: cores / workers, at least 1; on Ray 1].")
@click.option("--ray", "ray_address", metavar="auto|local|ADDRESS",
              help="Corpus: build each movie as a Ray task (needs pip install 'kgbuild[ray]'): 'auto' joins "
              "the cluster of RAY_ADDRESS or of 'ray start' on this machine, else starts a local instance; "
              "'local' starts one; else a cluster address. --workers then bounds the movies at once "
              "[default: the cluster's CPUs].")
@click.option("--from-stage", type=click.Choice(["merge"]),
              help="SCRIPT is a build folder: rerun its stages from this one on (merging, corrections) "
              "and rewrite the whole folder.")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help=f"Token budget per chunk [default: {DEFAULT_TOKEN_BUDGET}; with an LLM "
              f"{DEFAULT_LLM_CHUNK_TOKENS}].")
@click.option("--lenient", is_flag=True,
              help="Keep relations that break the schema (flagged) instead of dropping them.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Embedding cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")
@click.option("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, show_default=True,
              help="Refuse larger input files.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
@llm_options()
@click.option("--reflection-threshold", "threshold", type=click.IntRange(0, 10),
              help="Reflection score (0-10) a chunk needs [default: 7].")
@click.option("--reflection-retries", "max_retries", type=click.IntRange(min=0),
              help="Re-extractions of a chunk below the threshold [default: 2].")
@click.option("--admit-below-threshold", "admit", is_flag=True, default=None,
              help="Let into the graph the facts of LLM chunks still below the reflection threshold after "
              "the retries (the report names them); by default they are kept out and listed in review.jsonl.")
@click.option("--neo4j", "neo4j_uri", metavar="URI",
              help="Also load the graph into Neo4j at bolt://HOST:7687 at the end, replacing this "
              "movie there (NEO4J_USERNAME / NEO4J_PASSWORD).")
@click.option("--neo4j-database", help="The Neo4j database [default: the server's default].")
@click.option("--no-merge", is_flag=True,
              help="Skip entity merging (normalize, cluster, adjudicate; logged in merge_log.jsonl).")
@click.option("--movie", help="The movie id stores key on [default: the STAGE folder name of a "
              "script.json, else the title page's title, else the file name without extension].")
@click.option("--force", is_flag=True, help="Replace OUTDIR even when it holds the build of another script.")
@click.option("--allow-partial", is_flag=True,
              help="Replace an existing build even when some LLM chunks failed (exit status 4 all the same).")
@click.option("--corrections", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Corrections to apply (JSON Lines: reject, merge, split, rename, retype) "
              "[default: SCRIPT_STEM.corrections.jsonl beside SCRIPT, if present].")
@click.option("--scenes", metavar="RANGES", callback=scenes_param,
              help="Build only these scenes: A-B, N or A-B,C-D (scene indices as 'kgbuild parse' counts "
              "them, from 1); the graph records the ranges.")
@click.option("--dry-run", is_flag=True,
              help="Parse and chunk, print the scenes, chunks and (with --llm-model) the LLM requests, "
              "tokens and cost the build would need; write nothing, send nothing.")
@schema_option("The graph schema, a JSON file like kgbuild's schema/stage_kg.json; a build with another "
               "schema than the STAGE-KG default writes it as OUTDIR/schema.json [default: STAGE-KG; with "
               "--from-stage, the folder's schema.json].")
def build(scripts: tuple[Path, ...], outdir: Path | None, workers: int | None, worker_threads: int | None,
          ray_address: str | None, from_stage: str | None, budget: int | None, lenient: bool,
          cache_dir: Path | None, max_bytes: int, quiet: bool, threshold: int | None, max_retries: int | None,
          admit: bool | None, neo4j_uri: str | None, neo4j_database: str | None, no_merge: bool, movie: str | None,
          force: bool, allow_partial: bool, corrections: Path | None, scenes: SceneSelection | None, dry_run: bool,
          schema_file: Path | None, llm: LLMFlags) -> None:
    """Build the story graph of SCRIPT into OUTDIR: offline by default, with an LLM if given one.

    Several scripts, a folder (a STAGE tree of */script.json, or a folder of .fountain, .fdx,
    .pdf and .txt files) or a manifest (CSV or JSONL: path, optionally movie, title, language) are
    a corpus: each movie is built in a worker process into OUTDIR/<movie>/, OUTDIR/corpus.jsonl
    gets one status line per movie and OUTDIR/report.md a summary; a rerun skips the movies whose
    folder is complete for the same input and options. Corpus exit status: 0 all built or up to
    date; 3 batch requests written; 4 some movies' LLM chunks failed; 5 some movies failed.

    OUTDIR gets graph.json, the embedded store graph.lbdb (query it with 'kgbuild query --db
    OUTDIR'), screenplay.json, report.md and graph.graphml. A corrections file beside SCRIPT
    (SCRIPT_STEM.corrections.jsonl) is applied after merging on every build, one correction per
    line, e.g. {"action": "reject", "fact": "rel:..."}, {"action": "rename", "fact":
    "character:neil", "name": "Neil Perry"}, {"action": "split", "entities": [ID, ID]}.

    Exit status: 0 built (or --dry-run); 2 bad input, an unwritable place, the LLM server refusing
    the requests or the budget (nothing written); 3 batch-export mode wrote the next round of
    requests (extraction, review or merging); 4 some LLM chunks failed (an existing build is
    kept unless --allow-partial), or the LLM work ran out of time: the server never answered
    its first request within --llm-timeout, or --llm-deadline passed (nothing written).
    """
    from kgbuild.corpus.inputs import is_corpus

    if is_corpus(list(scripts)) and from_stage is None:
        _build_corpus(list(scripts), outdir, workers=workers, worker_threads=worker_threads, quiet=quiet,
                      ray_address=ray_address,
                      refused={"movie": movie, "corrections": corrections, "scenes": scenes, "dry_run": dry_run,
                               "neo4j_uri": neo4j_uri},
                      budget=budget, lenient=lenient, cache_dir=cache_dir, max_bytes=max_bytes, no_merge=no_merge,
                      schema_file=schema_file, settings=llm.settings(threshold=threshold, max_retries=max_retries,
                                                                     admit_below_threshold=admit or None))
        return
    if len(scripts) > 1:
        raise click.UsageError("--from-stage reruns one build folder")
    script = scripts[0]
    if workers is not None or worker_threads is not None or ray_address is not None:
        raise click.UsageError("--workers, --worker-threads and --ray apply to a corpus (several scripts, a folder "
                               "or a manifest)")
    if from_stage is not None and (scenes is not None or dry_run):
        raise click.UsageError("--from-stage reruns a build folder as it was built: --scenes and --dry-run "
                               "apply to a script")
    if dry_run:
        if llm.batch_export is not None:
            raise click.UsageError("--dry-run writes nothing: leave out --llm-batch-export")
        from kgbuild.dry_run import dry_run_lines
        from kgbuild.pipeline import BuildOptions

        settings = llm.settings(threshold=threshold, max_retries=max_retries, admit_below_threshold=admit or None)
        options = BuildOptions(token_budget=budget, max_bytes=max_bytes, llm=settings, movie=movie,
                               corrections=corrections, scenes=scenes)
        for line in dry_run_lines(script, options):
            click.echo(line)
        return
    from kgbuild.store_cli import neo4j_credentials

    credentials = neo4j_credentials() if neo4j_uri else None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from kgbuild.embeddings import default_embedder
    from kgbuild.llm.types import BatchPendingError, LLMStallError
    from kgbuild.output import build_folder, check_build_target, write_build
    from kgbuild.pipeline import BuildOptions, resume_build, run_build
    from kgbuild.schema import load_schema

    if outdir is None and from_stage is None:
        raise click.UsageError("Missing option '-o' / '--output'.")
    outdir = outdir or script
    if from_stage is None:
        check_build_target(outdir, script, force=force)
    else:
        check_writable_dir(outdir)
    settings = llm.settings(threshold=threshold, max_retries=max_retries, admit_below_threshold=admit or None)
    if settings is not None:
        check_writable_dir(resolve_cache_dir(settings.cache_dir), "LLM cache folder")
    schema = load_schema(schema_file) if schema_file is not None else None
    if settings is not None and from_stage is None:
        from kgbuild.llm.responses import response_models

        response_models(schema or load_schema())  # a schema LLM extraction cannot use fails before any work
    options = BuildOptions(token_budget=budget, strict_repairs=not lenient, max_bytes=max_bytes,
                           embedder=default_embedder(cache_dir), llm=settings, merge=not no_merge,
                           corrections=corrections, movie=movie, scenes=scenes, schema=schema)
    columns = (TextColumn("{task.description:<18}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with build_folder(outdir):
        if from_stage is None:
            check_build_target(outdir, script, force=force)  # again, now that no other build can write there
        with Progress(*columns, console=Console(stderr=True), disable=quiet, transient=False) as bars:
            shown = _Bars(bars, quiet=quiet)
            try:
                state = (run_build(script, options, progress=shown) if from_stage is None
                         else resume_build(script, from_stage, options, progress=shown))
            except BatchPendingError as e:
                shown.hide_unstarted()
                bars.stop()
                click.echo(f"kgbuild: {e}", err=True)
                sys.exit(EXIT_BATCH_PENDING)
            except LLMStallError as e:
                shown.hide_unstarted()
                bars.stop()
                kept = f" (the build in {outdir} is kept)" if (outdir / "graph.json").exists() else ""
                click.echo(f"kgbuild: {e}; nothing was written{kept}", err=True)
                sys.exit(EXIT_PARTIAL)
            except BaseException:
                shown.hide_unstarted()
                raise
        failed = _failed_chunks(state.llm)
        chunks = len(state.llm.run.outcomes) if state.llm is not None else 0
        if failed and not allow_partial and (outdir / "graph.json").exists():
            click.echo(f"kgbuild: {failed} of {chunks} chunks failed; the build in {outdir} "
                       "was kept (rerun to retry the failed requests, or add --allow-partial to replace it)", err=True)
            sys.exit(EXIT_PARTIAL)
        written = write_build(state, outdir)
    graph = state.graph
    built = (f"scenes {scenes.describe()} of {len(state.screenplay.scenes)}" if scenes is not None
             else f"{len(state.screenplay.scenes)} scenes")
    click.echo(
        f"{built} -> {len(graph.entities)} entities, "
        f"{len(graph.relations)} relations. Wrote " + ", ".join(str(p) for p in written)
    )
    if neo4j_uri and credentials:
        from kgbuild.loaders.neo4j_store import load_neo4j

        user, password = credentials
        counts = load_neo4j(graph, neo4j_uri, user=user, password=password, database=neo4j_database,
                            replace=True, schema=state.options.graph_schema())
        click.echo(f"Loaded movie {counts.movie!r} into Neo4j at {neo4j_uri}: {counts.nodes} nodes, "
                   f"{counts.relations} relationships ({len(counts.refused)} refused).")
        for note in counts.notes:
            click.echo(f"note: {note}", err=True)
    if state.llm is not None:
        _show_llm_usage(state.llm, outdir)
    if failed:
        click.echo(f"kgbuild: {failed} of {chunks} chunks failed (no valid answer after the "
                   f"retries; listed in {outdir / 'review.jsonl'}); rerun the same command to retry them", err=True)
        sys.exit(EXIT_PARTIAL)


def _build_corpus(scripts: list[Path], outdir: Path | None, *, workers: int | None, worker_threads: int | None,
                  quiet: bool, ray_address: str | None, refused: dict[str, object], budget: int | None, lenient: bool,
                  cache_dir: Path | None, max_bytes: int, no_merge: bool, schema_file: Path | None,
                  settings: LLMSettings | None) -> None:
    from kgbuild.corpus.spec import CorpusSpec
    from kgbuild.corpus_cli import check_corpus_options, run_corpus_build
    from kgbuild.schema import load_schema

    check_corpus_options(refused)
    if ray_address is not None:
        from kgbuild.corpus.ray_executor import require_ray

        require_ray()  # before anything else: say how to install it
    if outdir is None:
        raise click.UsageError("Missing option '-o' / '--output': the corpus output folder.")
    if settings is not None:
        check_writable_dir(resolve_cache_dir(settings.cache_dir), "LLM cache folder")
    check_writable_dir(resolve_cache_dir(cache_dir), "cache folder")
    schema = load_schema(schema_file) if schema_file is not None else None
    if settings is not None:
        from kgbuild.llm.responses import response_models

        response_models(schema or load_schema())
    from kgbuild.llm.limits import LimitSettings

    limits = LimitSettings()
    if settings is not None:
        # One budget and one rate limit for the whole corpus, shared by every worker.
        limits = LimitSettings(rpm=settings.rpm, tpm=settings.tpm, max_requests=settings.max_requests,
                               max_cost=settings.max_cost)
        settings = settings.model_copy(update={"max_requests": None, "max_cost": None})
    spec = CorpusSpec(token_budget=budget, strict_repairs=not lenient, max_bytes=max_bytes, merge=not no_merge,
                      llm=settings, graph_schema=schema, cache_dir=cache_dir)
    run_corpus_build(scripts, outdir, spec, workers=workers, worker_threads=worker_threads, quiet=quiet,
                     limits=limits, ray_address=ray_address)


def _failed_chunks(llm: LLMExtraction | None) -> int:
    """How many LLM chunks got no valid answer after the retries (0 offline)."""
    if llm is None:
        return 0
    from kgbuild.llm.extract import ChunkStatus

    return llm.run.count(ChunkStatus.FAILED)


def _show_llm_usage(llm: LLMExtraction, outdir: Path) -> None:
    from kgbuild.llm.costs import format_usage
    from kgbuild.output import REVIEW_FILE

    rates, review = llm.rates, llm.run.review()
    for line in format_usage(llm.usage):
        click.echo(line)
    click.echo(f"Per 1,000 script words: {rates.requests:.2f} requests, "
               f"{rates.prompt_tokens + rates.completion_tokens:.0f} tokens "
               f"({rates.first_requests:.2f} and {rates.first_tokens:.0f} before reflection retries)")
    click.echo(f"{len(review)} of {len(llm.run.outcomes)} chunks need review"
               + (f": {', '.join(e.chunk for e in review)} (see {outdir / REVIEW_FILE})" if review else "."))


def _register() -> None:
    from kgbuild.score_cli import baseline, score

    cli.add_command(score)
    cli.add_command(baseline)
    from kgbuild.store_cli import export, load, query

    for command in (query, load, export):
        cli.add_command(command)
    from kgbuild.llm.llm_cli import llm

    cli.add_command(llm)
    from kgbuild.merge_cli import merge

    cli.add_command(merge)
    from kgbuild.audit_cli import audit

    cli.add_command(audit)
    from kgbuild.view_cli import view

    cli.add_command(view)
    from kgbuild.diff_cli import diff

    cli.add_command(diff)
    from kgbuild.story_cli import dossier_command, knows_command

    cli.add_command(knows_command)
    cli.add_command(dossier_command)
    from kgbuild.ask_cli import ask_command, qa_eval_command

    cli.add_command(ask_command)
    cli.add_command(qa_eval_command)


_register()


def main() -> None:
    """Entry point: run the CLI, turning kgbuild errors into a message and exit code 2."""
    from kgbuild.journal import settle_named

    try:
        settle_named(sys.argv[1:])  # a folder a build crashed in: its old build back before anything reads it
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except KgbuildError as e:
        click.echo(f"kgbuild: error: {e}", err=True)
        sys.exit(2)
