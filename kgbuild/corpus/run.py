"""`build_corpus`: build every movie of a corpus, skip the complete ones, record what happened.

Steps: name every script (the one id rule; a STAGE script.json by its folder, without reading it;
other scripts read in the workers, or their ids read back from the previous corpus.jsonl when
unchanged), make the ids unique, skip each movie whose folder was
completely built for the same input and options (`kgbuild.corpus.spec.input_key`), build the
rest in the executor's workers, and as each finishes move its files into place
(`kgbuild.corpus.folders.commit_movie`) and append its status line. At the end corpus.jsonl is
rewritten in input order, report.md written, and in batch-export mode one Batch API export
holds every movie's pending requests.

Example:
    >>> options = BuildOptions(merge=False)
    >>> with LocalExecutor(WorkerSetup(options=options), workers=2) as pool:
    ...     result = build_corpus(discover([Path("scripts/")]), Path("out"), options, pool)
    >>> result.count("failed")
    0
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.atomic import write_text_atomic
from kgbuild.corpus.executors import Executor, WorkerLost
from kgbuild.corpus.folders import built_key, clean_staging, commit_movie
from kgbuild.corpus.ids import unique_ids
from kgbuild.corpus.inputs import CorpusItem
from kgbuild.corpus.report import corpus_report
from kgbuild.corpus.spec import PER_SCRIPT, file_sha256, input_key
from kgbuild.corpus.status import MovieStatus, Status, StatusLog, read_statuses, write_statuses
from kgbuild.corpus.worker import Identity, MovieOutcome, MovieTask, build_movie, identify, stage_id
from kgbuild.errors import InputError
from kgbuild.folders import CorpusFolder
from kgbuild.lock import folder_lock
from kgbuild.paths import write_error
from kgbuild.pipeline import BuildOptions
from kgbuild.version import __version__

logger = logging.getLogger(__name__)


class CorpusResult(BaseModel):
    """What a corpus build did."""

    model_config = ConfigDict(extra="forbid")

    statuses: list[MovieStatus] = Field(description="One per movie, in input order.")
    wall_seconds: float
    executor: str
    batch_files: list[Path] = Field(default_factory=list, description="Batch API input files written.")
    batch_requests: int = Field(default=0, description="Requests in those files.")

    def count(self, status: Status) -> int:
        """How many movies have this status."""
        return sum(s.status == status for s in self.statuses)

    @property
    def partial(self) -> int:
        """Movies built with some LLM chunks failed (rebuilt by the next run)."""
        return sum(s.status == "done" and s.failed_chunks > 0 for s in self.statuses)


def _corrections_sha(script: Path) -> str | None:
    from kgbuild.canonicalize.corrections import corrections_file

    beside = corrections_file(script)
    return file_sha256(beside) if beside.is_file() else None


def _identities(items: Sequence[CorpusItem], executor: Executor, cached: dict[tuple[str, str], str]
                ) -> list[Identity]:
    """The reader's id (or the read error) of every item that has no manifest id."""
    known: dict[int, Identity] = {}
    todo: list[int] = []
    for i, item in enumerate(items):
        try:
            sha = file_sha256(item.path)
        except OSError as e:
            from kgbuild.corpus.worker import fallback_id

            known[i] = Identity(path=item.path, sha256="", movie=item.movie or fallback_id(item.path),
                                error=f"cannot read the script: {e}")
            continue
        reader_id = cached.get((str(item.path), sha)) or (stage_id(item.path) if item.movie is None else None)
        if item.movie is not None or reader_id is not None:
            known[i] = Identity(path=item.path, sha256=sha, movie=item.movie or reader_id or "")
        else:
            todo.append(i)
    paths = {items[i].path: i for i in todo}
    for path, identity in executor.map_unordered(identify, list(paths)):
        if isinstance(identity, WorkerLost):
            from kgbuild.corpus.worker import fallback_id

            identity = Identity(path=path, sha256=file_sha256(path), movie=fallback_id(path), error=str(identity))
        known[paths[path]] = identity
    return [known[i] for i in range(len(items))]


def _status(task: MovieTask, identity: Identity, reader_id: str, outcome: MovieOutcome | None,
            status: Status, error: str | None = None) -> MovieStatus:
    fields: dict[str, object] = {}
    if outcome is not None:
        fields = outcome.model_dump(include={"seconds", "timings", "counts", "llm", "failed_chunks", "worker",
                                             "peak_rss_mb"})
        fields["batch_requests"] = len(outcome.batch_lines)
        error = error or outcome.error
    return MovieStatus(movie=task.movie, status=status, script=str(task.path), script_sha256=identity.sha256,
                       reader_id=reader_id, key=task.key, error=error, **fields)


def build_corpus(items: Sequence[CorpusItem], outdir: Path, options: BuildOptions, executor: Executor, *,
                 on_movie: Callable[[MovieStatus], None] | None = None) -> CorpusResult:
    """Build every movie of a corpus into OUTDIR/<movie>/, skipping those already complete.

    Args:
        items: The scripts (`kgbuild.corpus.inputs.discover`).
        outdir: The corpus output folder: OUTDIR/<movie>/ per movie, corpus.jsonl, report.md.
        options: The options every movie is built with (`kgbuild.corpus.spec.movie_options` adds
            each movie's id, title and language).
        executor: Runs the workers (set up with the same `options`).
        on_movie: Called with each movie's status as soon as it is known (progress).

    Returns:
        Every movie's status, in input order, and the batch files written (batch-export mode).

    Raises:
        InputError: `options` name one script (a movie id, title, language, corrections file or
            scene range).
        OutputError: OUTDIR cannot be written, or its disk is full (a movie whose folder alone
            cannot be written is recorded failed, and the others go on).
        FolderBusyError: another build holds OUTDIR (the message names its process).
    """
    named = [name for name in PER_SCRIPT if getattr(options, name) is not None]
    if named:
        raise InputError(f"the options of a corpus name no one script: leave {', '.join(named)} unset (a manifest "
                         "gives each movie its id, title and language)")
    with folder_lock(outdir):
        try:
            return _build_locked(items, outdir, options, executor, on_movie)
        except OSError as e:
            raise write_error(outdir, e, "corpus output folder") from e


def _commit(outdir: Path, task: MovieTask, identity: Identity, outcome: MovieOutcome) -> str | None:
    """Move a built movie's files into place; None, or why its folder could not be written."""
    try:
        commit_movie(outdir, task.movie, outcome.files, {
            "key": task.key, "movie": task.movie, "script": str(task.path), "script_sha256": identity.sha256,
            "kgbuild": __version__, "partial": outcome.failed_chunks > 0})
    except OSError as e:
        logger.info("cannot write the folder of %s", task.movie, exc_info=True)
        return str(write_error(outdir / task.movie, e, "movie folder"))
    return None


def _build_locked(items: Sequence[CorpusItem], outdir: Path, options: BuildOptions, executor: Executor,
                  on_movie: Callable[[MovieStatus], None] | None) -> CorpusResult:
    start = time.perf_counter()
    clean_staging(outdir)
    status_path = CorpusFolder(outdir).status
    cached = {(s.script, s.script_sha256): s.reader_id for s in read_statuses(status_path) if s.reader_id}
    identities = _identities(items, executor, cached)
    reader_ids = [item.movie or identity.movie for item, identity in zip(items, identities, strict=True)]
    movies = unique_ids(reader_ids)
    statuses: dict[str, MovieStatus] = {}
    tasks: dict[str, tuple[MovieTask, Identity, str]] = {}
    log = StatusLog(status_path)

    def record(status: MovieStatus) -> None:
        statuses[status.movie] = status
        log.append(status)
        if on_movie is not None:
            on_movie(status)

    try:
        for item, identity, reader_id, movie in zip(items, identities, reader_ids, movies, strict=True):
            key = input_key(options, script_sha256=identity.sha256, movie=movie, title=item.title,
                            language=item.language, corrections_sha256=_corrections_sha(item.path))
            task = MovieTask(movie=movie, path=item.path, key=key, title=item.title, language=item.language)
            if identity.error is not None:
                record(_status(task, identity, reader_id, None, "failed", identity.error))
            elif built_key(outdir, movie) == key:
                record(_status(task, identity, reader_id, None, "skipped"))
            else:
                tasks[movie] = (task, identity, reader_id)
        batch_lines: dict[str, str] = {}
        # Largest scripts first, so that no long build starts last while the other workers idle.
        queue = sorted((t for t, _, _ in tasks.values()), key=lambda t: -t.path.stat().st_size)
        for task, outcome in executor.map_unordered(build_movie, queue):
            _, identity, reader_id = tasks[task.movie]
            if isinstance(outcome, WorkerLost):
                record(_status(task, identity, reader_id, None, "failed", str(outcome)))
                continue
            failure = _commit(outdir, task, identity, outcome) if outcome.status == "done" else None
            for line in outcome.batch_lines:
                batch_lines.setdefault(_custom_id(line), line)
            record(_status(task, identity, reader_id, outcome, "failed" if failure else outcome.status, failure))
    finally:
        log.close()
    clean_staging(outdir)
    ordered = [statuses[m] for m in movies]
    write_statuses(status_path, ordered)
    wall = time.perf_counter() - start
    write_text_atomic(CorpusFolder(outdir).report,
                      corpus_report(ordered, executor=executor.description, wall_seconds=wall))
    files: list[Path] = []
    if batch_lines and options.llm is not None and options.llm.batch_export is not None:
        from kgbuild.llm.batch import export_batch_lines

        files = export_batch_lines(options.llm.batch_export, list(batch_lines.values()))
    return CorpusResult(statuses=ordered, wall_seconds=round(wall, 3), executor=executor.description,
                        batch_files=files, batch_requests=len(batch_lines))


def _custom_id(line: str) -> str:
    import json

    try:
        record = json.loads(line)
    except ValueError:
        return line
    return str(record.get("custom_id", line)) if isinstance(record, dict) else line
