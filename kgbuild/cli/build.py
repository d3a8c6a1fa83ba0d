"""`kgbuild build`: one script into a build folder, or a corpus (several scripts, a folder or a
manifest) into one folder per movie (`kgbuild.cli.corpus`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from kgbuild.chunking import DEFAULT_TOKEN_BUDGET
from kgbuild.cli.exits import EXIT_BATCH_PENDING, EXIT_PARTIAL
from kgbuild.cli.options import LLMFlags, bolt_param, llm_options, scenes_param, schema_option
from kgbuild.folders import BuildFolder
from kgbuild.llm.settings import DEFAULT_LLM_CHUNK_TOKENS
from kgbuild.paths import cache_dir as resolve_cache_dir
from kgbuild.paths import check_writable_dir
from kgbuild.readers import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from kgbuild.extraction.llm.run import LLMExtraction
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.pipeline import BuildOptions
    from kgbuild.scenes import SceneSelection


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


@click.command()
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
@click.option("--neo4j", "neo4j_uri", metavar="URI", callback=bolt_param,
              help="Also load the graph into Neo4j at bolt://HOST:7687 at the end, replacing this "
              "movie there (NEO4J_USERNAME / NEO4J_PASSWORD).")
@click.option("--neo4j-database", help="The Neo4j database [default: the server's default].")
@click.option("--no-merge", is_flag=True,
              help="Skip entity merging (normalize, cluster, adjudicate; logged in merge_log.jsonl).")
@click.option("--movie", help="The movie id stores key on [default: the STAGE folder name of a "
              "script.json, else the title page's title, else the file name without extension].")
@click.option("--title", help="The movie's title in the graph, report.md, the story view and score tables [default: "
              "the title page's title; for a STAGE script.json, the title the release's *_movie_info.csv gives "
              "its folder; else the movie id].")
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
          title: str | None, force: bool, allow_partial: bool, corrections: Path | None, scenes: SceneSelection | None,
          dry_run: bool, schema_file: Path | None, llm: LLMFlags) -> None:
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
    from dataclasses import replace

    from kgbuild.corpus.inputs import is_corpus
    from kgbuild.pipeline import BuildOptions
    from kgbuild.schema import load_schema

    # The one set of build options (kgbuild.pipeline.BuildOptions) of these flags; the LLM settings
    # and the schema join it once the command line is known to be usable.
    given = BuildOptions(token_budget=budget, strict_repairs=not lenient, max_bytes=max_bytes, merge=not no_merge,
                         cache_dir=cache_dir, movie=movie, title=title, corrections=corrections, scenes=scenes)
    if is_corpus(list(scripts)) and from_stage is None:
        _build_corpus(list(scripts), outdir, given, workers=workers, worker_threads=worker_threads, quiet=quiet,
                      ray_address=ray_address, refused={"dry_run": dry_run, "neo4j_uri": neo4j_uri},
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

        settings = llm.settings(threshold=threshold, max_retries=max_retries, admit_below_threshold=admit or None)
        options = replace(given, llm=settings, schema=load_schema(schema_file) if schema_file is not None else None)
        for line in dry_run_lines(script, options):
            click.echo(line)
        return
    from kgbuild.cli.store import neo4j_credentials

    credentials = neo4j_credentials() if neo4j_uri else None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from kgbuild.llm.types import BatchPendingError, LLMStallError
    from kgbuild.output import build_folder, check_build_target, failed_chunks, keeps_existing_build, write_build
    from kgbuild.pipeline import resume_build, run_build

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
        from kgbuild.extraction.llm.responses import response_models

        response_models(schema or load_schema())  # a schema LLM extraction cannot use fails before any work
    check_writable_dir(resolve_cache_dir(cache_dir), "cache folder")
    options = replace(given, llm=settings, schema=schema)
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
                kept = f" (the build in {outdir} is kept)" if BuildFolder(outdir).graph.exists() else ""
                click.echo(f"kgbuild: {e}; nothing was written{kept}", err=True)
                sys.exit(EXIT_PARTIAL)
            except BaseException:
                shown.hide_unstarted()
                raise
        failed = failed_chunks(state)
        chunks = len(state.llm.run.outcomes) if state.llm is not None else 0
        if keeps_existing_build(outdir, failed, allow_partial=allow_partial):
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
        from kgbuild.loaders.store import open_store

        user, password = credentials
        with open_store(neo4j_uri, user=user, password=password, database=neo4j_database) as store:
            counts = store.load(graph, replace=True, schema=state.options.graph_schema())
        click.echo(f"Loaded movie {counts.movie!r} into Neo4j at {neo4j_uri}: {counts.nodes} nodes, "
                   f"{counts.relations} relationships ({len(counts.refused)} refused).")
        for note in counts.notes:
            click.echo(f"note: {note}", err=True)
    if state.llm is not None:
        _show_llm_usage(state.llm, outdir)
    if failed:
        click.echo(f"kgbuild: {failed} of {chunks} chunks failed (no valid answer after the "
                   f"retries; listed in {BuildFolder(outdir).review}); rerun the same command to retry them", err=True)
        sys.exit(EXIT_PARTIAL)


def _build_corpus(scripts: list[Path], outdir: Path | None, given: BuildOptions, *, workers: int | None,
                  worker_threads: int | None, quiet: bool, ray_address: str | None, refused: dict[str, object],
                  schema_file: Path | None, settings: LLMSettings | None) -> None:
    from dataclasses import replace

    from kgbuild.cli.corpus import check_corpus_options, run_corpus_build
    from kgbuild.schema import load_schema

    check_corpus_options({"movie": given.movie, "title": given.title, "corrections": given.corrections,
                          "scenes": given.scenes, **refused})
    if ray_address is not None:
        from kgbuild.corpus.ray_executor import require_ray

        require_ray()  # before anything else: say how to install it
    if outdir is None:
        raise click.UsageError("Missing option '-o' / '--output': the corpus output folder.")
    if settings is not None:
        check_writable_dir(resolve_cache_dir(settings.cache_dir), "LLM cache folder")
    check_writable_dir(resolve_cache_dir(given.cache_dir), "cache folder")
    schema = load_schema(schema_file) if schema_file is not None else None
    if settings is not None:
        from kgbuild.extraction.llm.responses import response_models

        response_models(schema or load_schema())
    from kgbuild.llm.limits import LimitSettings

    limits = LimitSettings()
    if settings is not None:
        # One budget and one rate limit for the whole corpus, shared by every worker.
        limits = LimitSettings(rpm=settings.rpm, tpm=settings.tpm, max_requests=settings.max_requests,
                               max_cost=settings.max_cost)
        settings = settings.model_copy(update={"max_requests": None, "max_cost": None})
    run_corpus_build(scripts, outdir, replace(given, llm=settings, schema=schema), workers=workers,
                     worker_threads=worker_threads, quiet=quiet, limits=limits, ray_address=ray_address)


def _show_llm_usage(llm: LLMExtraction, outdir: Path) -> None:
    from kgbuild.llm.costs import format_usage

    rates, review = llm.rates, llm.run.review()
    for line in format_usage(llm.usage):
        click.echo(line)
    click.echo(f"Per 1,000 script words: {rates.requests:.2f} requests, "
               f"{rates.prompt_tokens + rates.completion_tokens:.0f} tokens "
               f"({rates.first_requests:.2f} and {rates.first_tokens:.0f} before reflection retries)")
    click.echo(f"{len(review)} of {len(llm.run.outcomes)} chunks need review"
               + (f": {', '.join(e.chunk for e in review)} (see {BuildFolder(outdir).review})" if review else "."))
