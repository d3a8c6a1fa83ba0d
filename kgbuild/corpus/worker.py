"""What a corpus worker does: name a script, or build one movie and hand its files back.

A worker process is set up once (`init_worker`): its torch threads are limited and it opens one
embedder, so the embedding model is loaded at most once per worker, whatever the number of
movies it builds. `build_movie` runs the whole pipeline of one script into a private temporary
folder and returns the files (`MovieOutcome.files`), so that only the driver writes the corpus
folder, also when the worker runs on another machine (Ray). A failure is returned as data, with
its message; the other movies go on.

Example:
    >>> init_worker(WorkerSetup(options=BuildOptions()))
    >>> outcome = build_movie(MovieTask(movie="fargo", path=Path("fargo.fountain"), key="..."))
"""

from __future__ import annotations

import logging
import os
import resource
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, InstanceOf

from kgbuild.corpus.spec import file_sha256, movie_options
from kgbuild.errors import KgbuildError
from kgbuild.llm.costs import TaskUsage
from kgbuild.model import SourceFormat
from kgbuild.pipeline import BuildOptions

logger = logging.getLogger(__name__)


class WorkerSetup(BaseModel):
    """How every worker of a corpus build is set up."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    options: InstanceOf[BuildOptions] = Field(description="The corpus's shared build options (no embedder: "
                                              "each worker opens its own).")
    torch_threads: int | None = Field(default=None, ge=1,
                                      description="Threads torch may use in each worker; None: torch's default.")
    limits: Any = Field(default=None, description="A handle to the corpus's one LLM rate limit and budget "
                        "(`kgbuild.llm.limits`: a manager proxy or a Ray actor's), installed in every worker.")


class Identity(BaseModel):
    """A script's id by the reader's rule, before de-duplication."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    sha256: str
    movie: str = Field(description="The reader's id: the STAGE folder, the title, else the file stem.")
    error: str | None = Field(default=None, description="Why the script could not be read, if it could not.")


class MovieTask(BaseModel):
    """One movie to build."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    movie: str
    path: Path
    key: str = Field(description="`kgbuild.corpus.spec.input_key` of this movie.")
    title: str | None = None
    language: str | None = None


class MovieOutcome(BaseModel):
    """What building one movie gave: its files, or why it failed, and what it cost."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    status: Literal["done", "failed", "pending"] = Field(
        description="done: files made; failed: see error; pending: batch mode recorded requests.")
    error: str | None = None
    seconds: float = Field(description="Wall time in the worker.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per pipeline stage.")
    counts: dict[str, int] = Field(default_factory=dict, description="scenes, chunks, entities, relations.")
    llm: TaskUsage | None = Field(default=None, description="LLM usage of the extraction, if any.")
    failed_chunks: int = Field(default=0, description="LLM chunks without a valid answer after the retries.")
    files: dict[str, bytes] = Field(default_factory=dict, description="The build folder, by relative path.")
    batch_lines: list[str] = Field(default_factory=list, description="Batch API input lines (pending).")
    worker: str = Field(default="", description="host:pid of the worker process.")
    peak_rss_mb: float = Field(default=0.0, description="Peak resident memory of the worker process so far.")


_state: dict[str, object] = {}


def init_worker(setup: WorkerSetup) -> None:
    """Set up this worker process: torch and BLAS threads, the embedder, the shared LLM limits."""
    from kgbuild.embeddings import default_embedder

    if setup.torch_threads is not None:
        # torch's own threads, and the BLAS and OpenMP pools numpy, scipy and scikit-learn use:
        # a worker limited to N threads uses N cores, whatever library does the arithmetic.
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[name] = str(setup.torch_threads)
        import torch
        from threadpoolctl import threadpool_limits

        torch.set_num_threads(setup.torch_threads)
        threadpool_limits(limits=setup.torch_threads)
    if setup.limits is not None:
        from kgbuild.llm.limits import install_shared_limits

        install_shared_limits(setup.limits)
    _state["setup"] = setup
    _state["embedder"] = default_embedder(setup.options.cache_dir)


def _setup() -> WorkerSetup:
    setup = _state.get("setup")
    if not isinstance(setup, WorkerSetup):
        raise RuntimeError("init_worker was not called in this worker process")
    return setup


def _where() -> tuple[str, float]:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return f"{socket.gethostname()}:{os.getpid()}", peak_kb / 1024


def fallback_id(path: Path) -> str:
    """The id of a script that cannot be read: its STAGE folder for a script.json, else its stem."""
    from kgbuild.readers import movie_id

    fmt = SourceFormat.STAGE_JSON if path.name == "script.json" else SourceFormat.PLAIN
    return movie_id(path, fmt, None)


def stage_id(path: Path) -> str | None:
    """The id of a STAGE script.json, known from its first bytes: its folder's name (None for other scripts).

    The one id rule names a STAGE script by its folder whatever it holds, so such a script need
    not be read (parsed) just to be named; a fault in it shows when it is built.
    """
    from kgbuild.readers import movie_id
    from kgbuild.readers.detect import sniff_binary

    if path.name != "script.json" or not path.parent.name:
        return None
    try:
        with path.open("rb") as file:
            head = file.read(8192)
    except OSError:
        return None
    return movie_id(path, SourceFormat.STAGE_JSON, None) if sniff_binary(head, path.suffix) is SourceFormat.STAGE_JSON \
        else None


def identify(path: Path) -> Identity:
    """Read `path` and return its id by the reader's rule (or the error, with the fallback id)."""
    from kgbuild.readers import read_screenplay

    setup = _setup()
    try:
        sha = file_sha256(path)
    except OSError as e:
        return Identity(path=path, sha256="", movie=fallback_id(path), error=f"cannot read the script: {e}")
    try:
        screenplay = read_screenplay(path, max_bytes=setup.options.max_bytes)
    except KgbuildError as e:
        return Identity(path=path, sha256=sha, movie=fallback_id(path), error=str(e))
    return Identity(path=path, sha256=sha, movie=screenplay.id or fallback_id(path))


def _pack(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def build_movie(task: MovieTask) -> MovieOutcome:
    """Build one movie in a private temporary folder and return its files (or why it failed).

    Batch-export mode records the movie's pending requests in `MovieOutcome.batch_lines` (status
    'pending') instead of writing a file of its own: the driver writes one export for the corpus.
    """
    from kgbuild.embeddings import CachedEmbedder
    from kgbuild.llm.types import BatchPendingError
    from kgbuild.output import failed_chunks, write_build
    from kgbuild.pipeline import run_build

    setup = _setup()
    embedder = _state.get("embedder")
    start = time.perf_counter()

    def outcome(status: Literal["done", "failed", "pending"], **fields: object) -> MovieOutcome:
        worker, peak = _where()
        return MovieOutcome(movie=task.movie, status=status, seconds=round(time.perf_counter() - start, 3),
                            worker=worker, peak_rss_mb=round(peak, 1), **fields)

    with tempfile.TemporaryDirectory(prefix="kgbuild-movie-") as tmp:
        llm = setup.options.llm
        batch_file = Path(tmp) / "batch.jsonl"
        if llm is not None and llm.batch_export is not None:
            llm = llm.model_copy(update={"batch_export": batch_file})
        options = movie_options(setup.options, movie=task.movie,
                                embedder=embedder if isinstance(embedder, CachedEmbedder) else None, llm=llm,
                                title=task.title, language=task.language)
        try:
            state = run_build(task.path, options)
            write_build(state, Path(tmp) / "out")
            files = _pack(Path(tmp) / "out")
        except BatchPendingError as e:
            lines = batch_file.read_text(encoding="utf-8").splitlines() if batch_file.is_file() else []
            return outcome("pending", error=str(e), batch_lines=[line for line in lines if line.strip()])
        except KgbuildError as e:
            return outcome("failed", error=str(e))
        except Exception as e:  # recorded with its movie; the corpus goes on (the log has the traceback)
            logger.exception("building %s (%s) failed", task.movie, task.path)
            return outcome("failed", error=f"{type(e).__name__}: {e}")
    graph = state.graph
    counts = {"scenes": len(state.screenplay.scenes), "chunks": len(state.chunks),
              "entities": len(graph.entities), "relations": len(graph.relations)}
    usage = state.llm.usage.total if state.llm is not None else None
    failed = failed_chunks(state)
    return outcome("done", timings=dict(state.timings), counts=counts, llm=usage, failed_chunks=failed,
                   files=files)
