"""The build pipeline: a named list of stages from a script file to a repaired graph.

Each stage takes the build state and returns a new one; none mutates its input. Timing the
stages, reporting progress and resuming an existing build folder from a named stage
(`resume_build`, `kgbuild build OUTDIR --from-stage merge`) all come from this one list.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgbuild import __version__
from kgbuild.canonicalize.repairs import RepairCount, run_repairs
from kgbuild.chunking import DEFAULT_TOKEN_BUDGET, chunk_screenplay
from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.model import Chunk, KnowledgeGraph, Screenplay
from kgbuild.paths import MERGE_LOG_FILE
from kgbuild.readers import DEFAULT_MAX_BYTES, read_screenplay

if TYPE_CHECKING:
    from kgbuild.canonicalize.corrections import Correction, CorrectionResult
    from kgbuild.canonicalize.merge import MergeLogEntry
    from kgbuild.llm.run import LLMExtraction
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.llm.types import ChatBackend


class Progress(Protocol):
    """Receives progress; the CLI draws bars, library callers may pass nothing."""

    def stage(self, name: str, total: int | None) -> None:
        """A stage starts; `total` units of work if known."""
        ...

    def advance(self, units: int = 1) -> None:
        """Some units of the current stage are done."""
        ...


class _Silent:
    def stage(self, name: str, total: int | None) -> None:
        return None

    def advance(self, units: int = 1) -> None:
        return None


@dataclass(frozen=True)
class BuildOptions:
    """What `kgbuild build` can be told.

    Attributes:
        token_budget: Tokens per chunk; None means 600 offline (the STAGE setting) and
            `kgbuild.llm.settings.DEFAULT_LLM_CHUNK_TOKENS` with an LLM.
        strict_repairs: Drop relations the schema repair cannot fix (else flag them).
        max_bytes: Refuse larger input files.
        embedder: Text embedder for the stages that need one.
        llm: LLM settings; None builds offline (no LLM).
        llm_backend: Send the LLM requests to this backend instead of the OpenAI-compatible
            endpoint of `llm` (a scripted backend in tests); used only with `llm`.
        merge: Run the entity-merging stage (LLM adjudication with `llm`, rules without).
        corrections: The corrections file to apply (see `kgbuild.canonicalize.corrections`);
            None means the one beside the script, when it exists.
        movie: The movie id; None means the reader's (`kgbuild.readers.movie_id`).
    """

    token_budget: int | None = None
    strict_repairs: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES
    embedder: Embedder | None = None
    llm: LLMSettings | None = None
    llm_backend: ChatBackend | None = None
    merge: bool = True
    corrections: Path | None = None
    movie: str | None = None

    def corrections_path(self, script: Path) -> Path | None:
        """The corrections file this build applies, if any."""
        from kgbuild.canonicalize.corrections import corrections_file

        if self.corrections is not None:
            return self.corrections
        beside = corrections_file(script)
        return beside if beside.is_file() else None

    def chunk_budget(self) -> int:
        """The token budget per chunk in effect."""
        if self.token_budget is not None:
            return self.token_budget
        if self.llm is not None:
            from kgbuild.llm.settings import DEFAULT_LLM_CHUNK_TOKENS

            return DEFAULT_LLM_CHUNK_TOKENS
        return DEFAULT_TOKEN_BUDGET


@dataclass(frozen=True)
class BuildState:
    """Everything the stages have produced so far."""

    script: Path
    options: BuildOptions
    screenplay: Screenplay | None = None
    chunks: list[Chunk] = field(default_factory=list)
    graph: KnowledgeGraph | None = None
    repairs: list[RepairCount] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    llm: LLMExtraction | None = None
    merge_log: list[MergeLogEntry] = field(default_factory=list)
    corrections: list[tuple[int, Correction]] = field(default_factory=list)
    corrected: list[CorrectionResult] = field(default_factory=list)
    earlier_merge_log: int = 0  # entries of merge_log carried over from the build folder resumed


def _parse(state: BuildState, progress: Progress) -> BuildState:
    from kgbuild.canonicalize.corrections import load_corrections

    progress.stage("parse", 1)
    path = state.options.corrections_path(state.script)
    corrections = load_corrections(path) if path is not None else []
    screenplay = read_screenplay(state.script, max_bytes=state.options.max_bytes)
    if state.options.movie:
        screenplay = screenplay.model_copy(update={"id": state.options.movie})
    progress.advance()
    return replace(state, screenplay=screenplay, corrections=corrections)


def _chunk(state: BuildState, progress: Progress) -> BuildState:
    assert state.screenplay is not None
    progress.stage("chunk", 1)
    chunks = chunk_screenplay(state.screenplay, token_budget=state.options.chunk_budget())
    progress.advance()
    return replace(state, chunks=chunks)


def _extract_offline(state: BuildState, progress: Progress) -> BuildState:
    from kgbuild.offline import extract_offline

    assert state.screenplay is not None
    progress.stage("extract (offline)", len(state.screenplay.scenes))
    graph = extract_offline(state.screenplay, embedder=state.options.embedder, version=__version__,
                            on_scene=progress.advance)
    return replace(state, graph=graph)


def _extract_llm(state: BuildState, progress: Progress) -> BuildState:
    from kgbuild.llm.extract import assemble
    from kgbuild.llm.run import run_llm_extraction, token_usage

    assert state.screenplay is not None and state.options.llm is not None
    settings = state.options.llm
    progress.stage("extract (llm)", len(state.chunks))
    result = run_llm_extraction(state.screenplay, state.chunks, settings, backend=state.options.llm_backend,
                                on_chunk=progress.advance)
    assembly = assemble(state.screenplay, result.run.outcomes, version=__version__,
                        model=settings.model, token_usage=token_usage(result.usage))
    return replace(state, graph=assembly.graph,
                   llm=result.model_copy(update={"ungrounded": assembly.ungrounded}))


def _extract(state: BuildState, progress: Progress) -> BuildState:
    if state.options.llm is None:
        return _extract_offline(state, progress)
    return _extract_llm(state, progress)


def _repair(state: BuildState, progress: Progress) -> BuildState:
    assert state.graph is not None
    progress.stage("repair", 1)
    graph, counts = run_repairs(state.graph, strict=state.options.strict_repairs)
    progress.advance()
    return replace(state, graph=graph, repairs=counts)


def _remaining_budget(state: BuildState) -> LLMSettings:
    """The LLM settings with --max-cost / --max-requests lowered by what extraction already spent,
    so that the whole build, merging included, stays within the budget."""
    settings = state.options.llm
    assert settings is not None
    if state.llm is None:
        return settings
    spent = state.llm.usage.total
    update: dict[str, float | int] = {}
    if settings.max_cost is not None:
        update["max_cost"] = max(0.0, settings.max_cost - spent.cost_usd)
    if settings.max_requests is not None:
        update["max_requests"] = max(0, settings.max_requests - spent.requests)
    return settings.model_copy(update=update)


def _merge(state: BuildState, progress: Progress) -> BuildState:
    if not state.options.merge:
        return state
    from kgbuild.canonicalize.merge import merge_graph, merge_graph_llm
    from kgbuild.embeddings import default_embedder

    assert state.graph is not None
    progress.stage("merge", 1)
    embedder = state.options.embedder or default_embedder()
    from kgbuild.canonicalize.corrections import keep_apart
    from kgbuild.canonicalize.merge import MergeOptions

    options = MergeOptions(keep_apart=keep_apart(state.corrections))
    if state.options.llm is None:
        graph, log = merge_graph(state.graph, state.screenplay, embedder, None, options)
    else:
        graph, log = merge_graph_llm(state.graph, state.screenplay, embedder, _remaining_budget(state),
                                     backend=state.options.llm_backend, options=options)
    progress.advance()
    return replace(state, graph=graph, merge_log=[*state.merge_log, *log])


def _correct(state: BuildState, progress: Progress) -> BuildState:
    if not state.corrections:
        return state
    from kgbuild.canonicalize.corrections import apply_corrections

    assert state.graph is not None
    progress.stage("correct", 1)
    graph, results = apply_corrections(state.graph, state.corrections)
    progress.advance()
    return replace(state, graph=graph, corrected=results)


Stage = Callable[[BuildState, Progress], BuildState]

#: The stages of `kgbuild build`, in order.
STAGES: list[tuple[str, Stage]] = [
    ("parse", _parse),
    ("chunk", _chunk),
    ("extract", _extract),
    ("repair", _repair),
    ("merge", _merge),
    ("correct", _correct),
]


#: The stages a build can be resumed from on an existing build folder.
RESUMABLE = ("merge",)


def _run(state: BuildState, stages: list[tuple[str, Stage]], progress: Progress) -> BuildState:
    timings: dict[str, float] = {}
    for name, stage in stages:
        start = time.perf_counter()
        state = stage(state, progress)
        timings[name] = round(time.perf_counter() - start, 3)
    assert state.graph is not None
    provenance = state.graph.provenance.model_copy(update={"timings": timings}) if state.graph.provenance else None
    graph = state.graph.model_copy(update={"provenance": provenance})
    return replace(state, graph=graph, timings=timings)


def run_build(
    script: str | os.PathLike[str],
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
) -> BuildState:
    """Run every stage on a script and return the final state (nothing is written).

    Args:
        script: The screenplay file.
        options: Build options; defaults when None.
        progress: Where progress goes; silent when None.

    Returns:
        The state with the screenplay, chunks, repaired graph, repair counts and timings.

    Raises:
        InputError: the script cannot be read (see `kgbuild.readers.read_screenplay`).
        BatchPendingError: LLM batch-export mode stopped the build (requests were exported).
        BudgetExceededError: the LLM budget stopped the build (completed responses are cached).
        LLMRequestError: the LLM server refused the requests.
    """
    state = BuildState(script=Path(script), options=options or BuildOptions())
    return _run(state, STAGES, progress or _Silent())


def resume_build(
    build_dir: str | os.PathLike[str],
    from_stage: str,
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
) -> BuildState:
    """Rerun a build folder's stages from `from_stage` on (nothing is written).

    The folder's screenplay.json and graph.json are the input; its merge_log.jsonl is kept and
    the new entries follow it; the corrections file beside the original script (or
    `options.corrections`) is applied again.

    Args:
        build_dir: A folder written by `kgbuild build`.
        from_stage: One of `RESUMABLE`.
        options: Build options; defaults when None.
        progress: Where progress goes; silent when None.

    Raises:
        InputError: not a build folder, or a stage that cannot be resumed.
    """
    from kgbuild.canonicalize.corrections import load_corrections
    from kgbuild.canonicalize.merge import MergeLogEntry
    from kgbuild.graph import load_graph

    if from_stage not in RESUMABLE:
        raise InputError(f"a build can be resumed from {', '.join(RESUMABLE)}, not from '{from_stage}'")
    folder = Path(build_dir)
    if not (folder / "graph.json").is_file() or not (folder / "screenplay.json").is_file():
        raise InputError("not a build folder (graph.json and screenplay.json are needed); run 'kgbuild build' "
                         "first", path=str(folder))
    options = options or BuildOptions()
    try:
        screenplay = Screenplay.model_validate_json((folder / "screenplay.json").read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(f"screenplay.json is not valid ({e}); rebuild the folder", path=str(folder)) from e
    log_file = folder / MERGE_LOG_FILE
    log = [MergeLogEntry.model_validate_json(line) for line in log_file.read_text(encoding="utf-8").splitlines()
           if line.strip()] if log_file.is_file() else []
    script = Path(screenplay.source.path)
    path = options.corrections_path(script)
    state = BuildState(script=script, options=options, screenplay=screenplay, graph=load_graph(folder / "graph.json"),
                       merge_log=log, earlier_merge_log=len(log),
                       corrections=load_corrections(path) if path is not None else [])
    start = [name for name, _ in STAGES].index(from_stage)
    return _run(state, STAGES[start:], progress or _Silent())
