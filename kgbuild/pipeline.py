"""The build pipeline: a named list of typed stages from a script file to a corrected graph.

Each stage reads one state type and returns the next, a new object (no stage mutates its
input): `BuildInput` -parse-> `Parsed` -chunk-> `Chunked` -extract-> `Extracted` -repair->
`Repaired` -merge-> `Merged` -derive-> `Derived` -correct-> `BuildResult`. Each state holds everything the states
before it held, as required fields, so a stage never checks for something an earlier stage
should have made. `STAGES` is checked when this module is imported: a stage placed before the
stage that makes its input fails at definition, not in the middle of a build.

Timing the stages, reporting progress and resuming an existing build folder from a named stage
(`resume_build`, `kgbuild build OUTDIR --from-stage merge`) all come from this one list.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from kgbuild.canonicalize.repairs import RepairCount, run_repairs
from kgbuild.chunking import DEFAULT_TOKEN_BUDGET, chunk_screenplay
from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder
from kgbuild.model import Chunk, KnowledgeGraph, Screenplay
from kgbuild.readers import DEFAULT_MAX_BYTES, read_screenplay
from kgbuild.schema import Schema, is_default, load_schema, schema_for_graph

if TYPE_CHECKING:
    from kgbuild.canonicalize.corrections import Correction, CorrectionResult
    from kgbuild.canonicalize.merge import MergeLogEntry
    from kgbuild.extraction import Extractor
    from kgbuild.extraction.llm.run import LLMExtraction
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.llm.types import ChatBackend
    from kgbuild.scenes import SceneSelection


class Progress(Protocol):
    """Receives progress; the CLI draws bars, library callers may pass nothing.

    A progress object may also have `note(text: str) -> None`: it then gets a line whenever an
    LLM request waits or is retried, with the reason (`kgbuild.llm.factory.notes_to`).
    """

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
    """What a build can be told: the one set of options `kgbuild build` makes from its command
    line, `kgbuild.build` from its keywords, and a corpus build shares among its movies
    (`kgbuild.corpus.spec`: each movie gets its id, title and language, each worker its embedder).

    Attributes:
        token_budget: Tokens per chunk; None means 600 offline (the STAGE setting) and
            `kgbuild.llm.settings.DEFAULT_LLM_CHUNK_TOKENS` with an LLM.
        strict_repairs: Drop relations the schema repair cannot fix (else flag them).
        max_bytes: Refuse larger input files.
        embedder: Text embedder for the stages that need one; None: the bundled MiniLM model
            behind the cache in `cache_dir`.
        cache_dir: The embedding cache folder of that default embedder; None means
            `$KGBUILD_CACHE_DIR`, else ~/.cache/kgbuild.
        llm: LLM settings; None builds offline (no LLM).
        llm_backend: Send the LLM requests to this backend instead of the OpenAI-compatible
            endpoint of `llm` (a scripted backend in tests); used only with `llm`.
        merge: Run the entity-merging stage (LLM adjudication with `llm`, rules without).
        corrections: The corrections file to apply (see `kgbuild.canonicalize.corrections`);
            None means the one beside the script, when it exists.
        movie: The movie id; None means the reader's (`kgbuild.readers.movie_id`).
        title: The movie's title (a corpus manifest's); None means the reader's.
        language: The language to build in ('en', 'zh'; a corpus manifest's); None means the
            reader's.
        scenes: Build only these scenes (`kgbuild build --scenes`): chunks, LLM requests and
            facts cover them alone, the whole script still naming the cast; the graph records
            the ranges in `movie.scene_ranges`. None: every scene.
        schema: The graph schema every stage uses (extraction, repairs, merging, corrections,
            the stores and the report); None means the default STAGE-KG schema, or for a build
            resumed from its folder the folder's schema.json when it has one.
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
    scenes: SceneSelection | None = None
    schema: Schema | None = None
    title: str | None = None
    language: str | None = None
    cache_dir: Path | None = None

    def graph_schema(self) -> Schema:
        """The schema in effect."""
        return self.schema or load_schema()

    def corrections_path(self, script: Path) -> Path | None:
        """The corrections file this build applies, if any."""
        from kgbuild.canonicalize.corrections import corrections_file

        if self.corrections is not None:
            return self.corrections
        beside = corrections_file(script)
        return beside if beside.is_file() else None

    def text_embedder(self) -> Embedder:
        """The embedder in effect: `embedder`, else the default one over `cache_dir`."""
        if self.embedder is not None:
            return self.embedder
        from kgbuild.embeddings import default_embedder

        return default_embedder(self.cache_dir)

    def extractor(self) -> Extractor:
        """The extractor in effect: the LLM's with `llm`, else the offline rules' over `text_embedder()`."""
        from kgbuild.extraction import LLMExtractor, OfflineExtractor

        if self.llm is not None:
            return LLMExtractor(self.llm, backend=self.llm_backend)
        return OfflineExtractor(self.text_embedder())

    def chunk_budget(self) -> int:
        """The token budget per chunk in effect."""
        if self.token_budget is not None:
            return self.token_budget
        if self.llm is not None:
            from kgbuild.llm.settings import DEFAULT_LLM_CHUNK_TOKENS

            return DEFAULT_LLM_CHUNK_TOKENS
        return DEFAULT_TOKEN_BUDGET


# The states between stages. Each holds what the ones before it hold; every field a later stage
# reads is required, so a state can only be made once its stage has run.


@dataclass(frozen=True, kw_only=True)
class BuildInput:
    """What a build starts from: a script and the options."""

    script: Path
    options: BuildOptions


@dataclass(frozen=True, kw_only=True)
class Parsed(BuildInput):
    """After `parse`: the screenplay and the corrections to apply at the end."""

    screenplay: Screenplay
    corrections: list[tuple[int, Correction]]


@dataclass(frozen=True, kw_only=True)
class Chunked(Parsed):
    """After `chunk`: the scene-aligned chunks (empty for a build resumed from its folder)."""

    chunks: list[Chunk]


@dataclass(frozen=True, kw_only=True)
class Extracted(Chunked):
    """After `extract`: the raw graph, and the LLM run that made it (None offline)."""

    graph: KnowledgeGraph
    llm: LLMExtraction | None


@dataclass(frozen=True, kw_only=True)
class Repaired(Extracted):
    """After `repair`: the schema-repaired graph and what each repair rule changed.

    `prior_merge_log` is the merge log of the build folder a resumed build started from
    (empty for a fresh build); the merge stage continues it.
    """

    repairs: list[RepairCount]
    prior_merge_log: list[MergeLogEntry] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Merged(Repaired):
    """After `merge`: the merged graph and the whole merge log (the prior log, then this run's)."""

    merge_log: list[MergeLogEntry]

    @property
    def new_merge_log(self) -> list[MergeLogEntry]:
        """The entries this build's merge stage wrote."""
        return self.merge_log[len(self.prior_merge_log):]


@dataclass(frozen=True, kw_only=True)
class Derived(Merged):
    """After `derive`: the graph with the facts that follow from others (where and when the
    characters of an event are, `kgbuild.canonicalize.derive`; the scene layer, witnesses and
    what characters are told, `kgbuild.canonicalize.story_facts`), and what each derivation added."""

    derivations: list[RepairCount]


@dataclass(frozen=True, kw_only=True)
class BuildResult(Derived):
    """A finished build: the corrected graph, what each correction did, seconds per stage."""

    corrected: list[CorrectionResult]
    timings: dict[str, float] = field(default_factory=dict)


StateT = TypeVar("StateT", bound=BuildInput)
InT = TypeVar("InT", bound=BuildInput)
OutT = TypeVar("OutT", bound=BuildInput)


def _advance(state: BuildInput, to: type[StateT], **new: Any) -> StateT:
    """The next state: every field of `state`, plus (or replacing) the `new` ones."""
    carried = {f.name: getattr(state, f.name) for f in fields(state) if f.name not in new}
    return to(**carried, **new)


@dataclass(frozen=True)
class Stage(Generic[InT, OutT]):
    """One named step of the build, from one state type to the next."""

    name: str
    consumes: type[InT]
    produces: type[OutT]
    run: Callable[[InT, Progress], OutT]


class PipelineDefinitionError(TypeError):
    """Stages listed in an order where one would not get the state it reads."""


def check_stage_order(stages: Sequence[Stage[Any, Any]], start: type[BuildInput] = BuildInput) -> None:
    """Check that each stage gets the state it reads from the stage before it.

    Args:
        stages: The stages in the order they run.
        start: The state the first stage is given.

    Raises:
        PipelineDefinitionError: a stage reads a state the one before it does not produce.

    Example:
        >>> check_stage_order([STAGES[1], STAGES[0]])
        Traceback (most recent call last):
        ...
        kgbuild.pipeline.PipelineDefinitionError: stage 'chunk' reads Parsed but gets BuildInput
    """
    given = start
    for stage in stages:
        if not issubclass(given, stage.consumes):
            raise PipelineDefinitionError(
                f"stage '{stage.name}' reads {stage.consumes.__name__} but gets {given.__name__}")
        given = stage.produces


def _parse(state: BuildInput, progress: Progress) -> Parsed:
    from kgbuild.canonicalize.corrections import load_corrections

    progress.stage("parse", 1)
    path = state.options.corrections_path(state.script)
    corrections = load_corrections(path) if path is not None else []
    screenplay = read_screenplay(state.script, max_bytes=state.options.max_bytes)
    given = {"id": state.options.movie, "title": state.options.title, "language": state.options.language}
    if any(given.values()):
        screenplay = screenplay.model_copy(update={k: v for k, v in given.items() if v})
    if state.options.scenes is not None:
        from kgbuild.scenes import check_selection

        check_selection(state.options.scenes, screenplay)
    progress.advance()
    return _advance(state, Parsed, screenplay=screenplay, corrections=corrections)


def _chunk(state: Parsed, progress: Progress) -> Chunked:
    from kgbuild.scenes import select_screenplay

    progress.stage("chunk", 1)
    chunks = chunk_screenplay(select_screenplay(state.screenplay, state.options.scenes),
                              token_budget=state.options.chunk_budget())
    progress.advance()
    return _advance(state, Chunked, chunks=chunks)


def _extract(state: Chunked, progress: Progress) -> Extracted:
    extractor = state.options.extractor()
    scenes = state.options.scenes
    progress.stage(f"extract ({extractor.name})", extractor.units(state.screenplay, state.chunks, scenes))
    result = extractor.extract(state.screenplay, state.chunks, schema=state.options.graph_schema(), scenes=scenes,
                               on_unit=progress.advance)
    extracted = _advance(state, Extracted, graph=result.graph, llm=result.llm)
    if scenes is None:
        return extracted
    from kgbuild.scenes import restrict_graph

    # The facts are of the selected scenes already; this also records the ranges in the graph.
    return _advance(extracted, Extracted, graph=restrict_graph(extracted.graph, scenes))


def _repair(state: Extracted, progress: Progress) -> Repaired:
    progress.stage("repair", 1)
    graph, counts = run_repairs(state.graph, schema=state.options.graph_schema(), strict=state.options.strict_repairs)
    progress.advance()
    return _advance(state, Repaired, graph=graph, repairs=counts)


#: The smallest deadline a later stage is given when extraction used up all of it (the settings
#: need a positive number): its first request that is not cached stops it.
_SPENT_DEADLINE = 1e-6


def remaining_budget(settings: LLMSettings, spent: LLMExtraction | None) -> LLMSettings:
    """The LLM settings with --max-cost / --max-requests lowered by what extraction already
    spent, and --llm-deadline by the seconds it took, so that the whole build, merging
    included, stays within the budget and the deadline.

    Args:
        settings: The build's LLM settings.
        spent: The extraction run, if there was one (a resumed build has none).

    Returns:
        New settings; `settings` itself when nothing was spent.
    """
    if spent is None:
        return settings
    total = spent.usage.total
    update: dict[str, float | int] = {}
    if settings.max_cost is not None:
        update["max_cost"] = max(0.0, settings.max_cost - total.cost_usd)
    if settings.max_requests is not None:
        update["max_requests"] = max(0, settings.max_requests - total.requests)
    if settings.deadline is not None:
        update["deadline"] = max(_SPENT_DEADLINE, settings.deadline - spent.seconds)
    return settings.model_copy(update=update)


def _merge(state: Repaired, progress: Progress) -> Merged:
    if not state.options.merge:
        return _advance(state, Merged, merge_log=list(state.prior_merge_log))
    from kgbuild.canonicalize.corrections import keep_apart
    from kgbuild.canonicalize.merge import MergeOptions, merge_graph, merge_graph_llm

    progress.stage("merge", 1)
    embedder = state.options.text_embedder()
    options = MergeOptions(keep_apart=keep_apart(state.corrections))
    schema = state.options.graph_schema()
    if state.options.llm is None:
        graph, log = merge_graph(state.graph, state.screenplay, embedder, None, options, schema=schema)
    else:
        graph, log = merge_graph_llm(state.graph, state.screenplay, embedder,
                                     remaining_budget(state.options.llm, state.llm),
                                     backend=state.options.llm_backend, options=options, schema=schema)
    progress.advance()
    return _advance(state, Merged, graph=graph, merge_log=[*state.prior_merge_log, *log])


def _derive(state: Merged, progress: Progress) -> Derived:
    from kgbuild.canonicalize.derive import derive_whereabouts
    from kgbuild.canonicalize.story_facts import derive_story

    progress.stage("derive", 1)
    schema = state.options.graph_schema()
    graph, count = derive_whereabouts(state.graph, schema, state.screenplay)
    graph, story = derive_story(graph, schema, state.screenplay)
    progress.advance()
    return _advance(state, Derived, graph=graph, derivations=[count, story])


def _correct(state: Derived, progress: Progress) -> BuildResult:
    if not state.corrections:
        return _advance(state, BuildResult, corrected=[])
    from kgbuild.canonicalize.corrections import apply_corrections

    progress.stage("correct", 1)
    graph, results = apply_corrections(state.graph, state.corrections, schema=state.options.graph_schema())
    progress.advance()
    return _advance(state, BuildResult, graph=graph, corrected=results)


#: The stages of `kgbuild build`, in order.
STAGES: tuple[Stage[Any, Any], ...] = (
    Stage("parse", BuildInput, Parsed, _parse),
    Stage("chunk", Parsed, Chunked, _chunk),
    Stage("extract", Chunked, Extracted, _extract),
    Stage("repair", Extracted, Repaired, _repair),
    Stage("merge", Repaired, Merged, _merge),
    Stage("derive", Merged, Derived, _derive),
    Stage("correct", Derived, BuildResult, _correct),
)
check_stage_order(STAGES)

#: The stages a build can be resumed from on an existing build folder.
RESUMABLE = ("merge",)


def _run(state: BuildInput, stages: Sequence[Stage[Any, Any]], progress: Progress) -> BuildResult:
    from kgbuild.llm.factory import notes_to

    check_stage_order(stages, type(state))
    timings: dict[str, float] = {}
    current: BuildInput = state
    with notes_to(getattr(progress, "note", None)):
        for stage in stages:
            start = time.perf_counter()
            current = stage.run(current, progress)
            timings[stage.name] = round(time.perf_counter() - start, 3)
    if not isinstance(current, BuildResult):
        raise PipelineDefinitionError(f"the stages end with {type(current).__name__}, not a BuildResult")
    graph = current.graph
    schema = current.options.graph_schema()
    if graph.provenance is not None:
        graph = graph.model_copy(update={"provenance": graph.provenance.model_copy(update={
            "timings": timings, "graph_schema": None if is_default(schema) else schema.label()})})
    return _advance(current, BuildResult, graph=graph, timings=timings)


def run_build(
    script: str | os.PathLike[str],
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
) -> BuildResult:
    """Run every stage on a script and return the finished build (nothing is written).

    Args:
        script: The screenplay file.
        options: Build options; defaults when None.
        progress: Where progress goes; silent when None.

    Returns:
        The build: screenplay, chunks, the final graph, repair counts, merge log, corrections
        applied and timings.

    Raises:
        InputError: the script cannot be read (see `kgbuild.readers.read_screenplay`).
        BatchPendingError: LLM batch-export mode stopped the build (requests were exported).
        BudgetExceededError: the LLM budget stopped the build (completed responses are cached).
        LLMStallError: time stopped the build: the LLM server took the first request and never
            answered it within --llm-timeout, or --llm-deadline ran out (completed responses are cached).
        LLMRequestError: the LLM server refused the requests.

    Example:
        >>> result = run_build("examples/lizard-people.fountain")  # doctest: +SKIP
        >>> len(result.graph.entities) > 0  # doctest: +SKIP
        True
    """
    state = BuildInput(script=Path(script), options=_one_embedder(options or BuildOptions()))
    return _run(state, STAGES, progress or _Silent())


def _one_embedder(options: BuildOptions) -> BuildOptions:
    """The options with the embedder the stages of one build share (the model loads at most once),
    made at the start of every build, as `kgbuild build` always made it."""
    return options if options.embedder is not None else replace(options, embedder=options.text_embedder())


def prepare_build(
    script: str | os.PathLike[str],
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
) -> Chunked:
    """Run the stages before extraction only (parse, chunk): what `kgbuild build --dry-run` reads.

    Args:
        script: The screenplay file.
        options: Build options; defaults when None (no embedder is needed).
        progress: Where progress goes; silent when None.

    Returns:
        The screenplay and the chunks the build would extract.

    Raises:
        InputError: the script cannot be read, or `options.scenes` goes past its last scene.
    """
    stages = STAGES[: [stage.name for stage in STAGES].index("chunk") + 1]
    current: BuildInput = BuildInput(script=Path(script), options=options or BuildOptions())
    for stage in stages:
        current = stage.run(current, progress or _Silent())
    if not isinstance(current, Chunked):
        raise PipelineDefinitionError(f"the stages up to chunk end with {type(current).__name__}, not Chunked")
    return current


def _read_build_folder(folder: Path, options: BuildOptions) -> Repaired:
    """The state a build folder holds after its repair stage: screenplay, graph, merge log."""
    from kgbuild.canonicalize.corrections import load_corrections
    from kgbuild.canonicalize.merge import MergeLogEntry
    from kgbuild.graph import load_graph

    files = BuildFolder(folder)
    if not files.is_build():
        raise InputError("not a build folder (graph.json and screenplay.json are needed); run 'kgbuild build' "
                         "first", path=str(folder))
    try:
        screenplay = Screenplay.model_validate_json(files.screenplay.read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(f"screenplay.json is not valid ({e}); rebuild the folder", path=str(folder)) from e
    log_file = files.merge_log
    log = [MergeLogEntry.model_validate_json(line) for line in log_file.read_text(encoding="utf-8").splitlines()
           if line.strip()] if log_file.is_file() else []
    script = Path(screenplay.source.path)
    if options.schema is None:
        options = replace(options, schema=schema_for_graph(folder))
    path = options.corrections_path(script)
    return Repaired(script=script, options=options, screenplay=screenplay,
                    corrections=load_corrections(path) if path is not None else [], chunks=[],
                    graph=load_graph(files.graph), llm=None, repairs=[], prior_merge_log=log)


def resume_build(
    build_dir: str | os.PathLike[str],
    from_stage: str,
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
) -> BuildResult:
    """Rerun a build folder's stages from `from_stage` on (nothing is written).

    The folder's screenplay.json and graph.json are the input; its merge_log.jsonl is kept and
    the new entries follow it; the corrections file beside the original script (or
    `options.corrections`) is applied again.

    Args:
        build_dir: A folder written by `kgbuild build`.
        from_stage: One of `RESUMABLE`.
        options: Build options; defaults when None.
        progress: Where progress goes; silent when None.

    Returns:
        The finished build, as `run_build` returns it (no chunks, no repair counts: the folder
        keeps neither).

    Raises:
        InputError: not a build folder, or a stage that cannot be resumed.
    """
    if from_stage not in RESUMABLE:
        raise InputError(f"a build can be resumed from {', '.join(RESUMABLE)}, not from '{from_stage}'")
    state = _read_build_folder(Path(build_dir), _one_embedder(options or BuildOptions()))
    start = [stage.name for stage in STAGES].index(from_stage)
    return _run(state, STAGES[start:], progress or _Silent())
