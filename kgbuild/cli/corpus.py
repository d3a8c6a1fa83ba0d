"""`kgbuild build` over a corpus (several scripts, a folder or a manifest): options, progress, exit status."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgbuild.cli.exits import EXIT_BATCH_PENDING, EXIT_MOVIES_FAILED, EXIT_PARTIAL
from kgbuild.corpus.status import MovieStatus
from kgbuild.folders import CorpusFolder
from kgbuild.llm.limits import LimitSettings, serve_limits

if TYPE_CHECKING:
    from kgbuild.corpus.executors import Executor
    from kgbuild.pipeline import BuildOptions

#: Single-build options a corpus build refuses, with what to do instead.
REFUSED = {
    "from_stage": "--from-stage reruns one build folder",
    "movie": "--movie names one script; give ids in a manifest (CSV or JSONL with path,movie)",
    "title": "--title names one script; give titles in a manifest (CSV or JSONL with path,title)",
    "corrections": "--corrections is per script; put SCRIPT_STEM.corrections.jsonl beside each script",
    "scenes": "--scenes selects scenes of one script",
    "dry_run": "--dry-run reads one script",
    "neo4j_uri": "--neo4j loads one build; load the corpus with 'kgbuild load OUTDIR --neo4j URI'",
}


def default_workers() -> int:
    """Worker processes by default: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def check_corpus_options(given: dict[str, object]) -> None:
    """Refuse the single-build options that mean nothing for a corpus.

    Raises:
        click.UsageError: naming the option and what to do instead.
    """
    for name, why in REFUSED.items():
        if given.get(name):
            raise click.UsageError(f"{why}: it cannot be used with a corpus (several scripts, a folder or a manifest)")


def _progress(total: int) -> Callable[[MovieStatus], None]:
    done = [0]

    def show(status: MovieStatus) -> None:
        done[0] += 1
        detail = f" ({status.seconds:.1f} s)" if status.status == "done" else ""
        if status.error:
            detail += f": {status.error}"
        click.echo(f"[{done[0]}/{total}] {status.movie}: {status.status}{detail}", err=True)

    return show


def run_corpus_build(paths: list[Path], outdir: Path, options: BuildOptions, *, workers: int | None,
                     worker_threads: int | None, quiet: bool, limits: LimitSettings | None = None,
                     ray_address: str | None = None) -> None:
    """Build a corpus with local worker processes (or on Ray) and exit with its status.

    `limits` (--rpm, --tpm, --max-requests, --max-cost) are served once, by a manager process
    (on Ray, by an actor), and shared by every worker. With `ray_address` ('auto', 'local' or a
    cluster address) each movie is a Ray task; `workers` then bounds the tasks in flight (default:
    the cluster's CPUs) and `worker_threads` the CPUs of each (default 1).

    Exit status: 0 every movie built or up to date; 3 batch-export mode wrote requests; 4 some
    movies' LLM chunks failed; 5 some movies failed (recorded in OUTDIR/corpus.jsonl).

    Raises:
        FolderBusyError: another build holds OUTDIR.
        RayMissingError: `ray_address` is given and Ray is not installed.
        RayConnectError: the Ray cluster cannot be reached.
    """
    from kgbuild.corpus.inputs import discover
    from kgbuild.corpus.run import build_corpus
    from kgbuild.lock import folder_lock
    from kgbuild.paths import check_writable_dir

    if ray_address is not None:
        from kgbuild.corpus.ray_executor import require_ray

        require_ray()
    check_writable_dir(outdir)
    with ExitStack() as stack:
        stack.enter_context(folder_lock(outdir))  # before any work: a second build into OUTDIR stops at once
        items = discover(paths)
        if ray_address is None:
            executor, threads = _local_executor(stack, options, len(items), workers, worker_threads, limits)
        else:
            executor, threads = _ray_executor(stack, options, ray_address, workers, worker_threads, limits)
        if not quiet:
            click.echo(f"kgbuild: {len(items)} scripts, {executor.description}, {threads} torch thread"
                       f"{'s' if threads != 1 else ''} each", err=True)
        result = build_corpus(items, outdir, options, executor,
                              on_movie=None if quiet else _progress(len(items)))
    done, skipped, failed = result.count("done"), result.count("skipped"), result.count("failed")
    folder = CorpusFolder(outdir)
    click.echo(f"{len(result.statuses)} movies: {done} built, {skipped} up to date, {failed} failed"
               + (f", {result.count('pending')} waiting for batch results" if result.count("pending") else "")
               + f" ({result.wall_seconds:.1f} s). Wrote {folder.status} and {folder.report}")
    if failed:
        click.echo(f"kgbuild: {failed} movies failed (see {folder.status}); fix them and rerun the same "
                   "command: complete movies are skipped", err=True)
        sys.exit(EXIT_MOVIES_FAILED)
    if result.batch_files:
        files = ", ".join(str(p) for p in result.batch_files)
        click.echo(f"kgbuild: {result.batch_requests} requests of {result.count('pending')} movies pending: written "
                   f"to {files} (OpenAI Batch API input, one batch per file). Import each output with 'kgbuild llm "
                   "import RESULTS.jsonl', then rerun the same command.", err=True)
        sys.exit(EXIT_BATCH_PENDING)
    if result.partial:
        click.echo(f"kgbuild: {result.partial} movies have LLM chunks that failed (their folders are written and "
                   "rebuilt by the next run); rerun the same command to retry them", err=True)
        sys.exit(EXIT_PARTIAL)


def _local_executor(stack: ExitStack, options: BuildOptions, scripts: int, workers: int | None,
                    worker_threads: int | None, limits: LimitSettings | None) -> tuple[Executor, int]:
    from kgbuild.corpus.executors import LocalExecutor
    from kgbuild.corpus.worker import WorkerSetup

    count = min(workers or default_workers(), scripts)
    threads = worker_threads or max(1, default_workers() // count)
    handle = stack.enter_context(serve_limits(limits)) if limits is not None and limits.active else None
    setup = WorkerSetup(options=options, torch_threads=threads, limits=handle)
    return stack.enter_context(LocalExecutor(setup, workers=count)), threads


def _ray_executor(stack: ExitStack, options: BuildOptions, address: str, workers: int | None,
                  worker_threads: int | None, limits: LimitSettings | None) -> tuple[Executor, int]:
    from kgbuild.corpus.ray_executor import RayExecutor, ray_session, serve_ray_limits
    from kgbuild.corpus.worker import WorkerSetup

    threads = worker_threads or 1
    stack.enter_context(ray_session(address))
    handle = stack.enter_context(serve_ray_limits(limits)) if limits is not None and limits.active else None
    setup = WorkerSetup(options=options, torch_threads=threads, limits=handle)
    return stack.enter_context(RayExecutor(setup, workers=workers)), threads
