"""kgbuild: movie screenplays to knowledge graphs.

The library face: build a story graph from a script (options as keywords or one
`BuildOptions`), load and save graph.json, query the embedded Cypher store (or open any graph
store, `open_store`), score a graph with STAGE-KG, merge entities, and the model types. Every
name is imported on first use, so `import kgbuild` loads neither pydantic nor torch; the
embedding model loads only when some text was never embedded before (a cache on disk,
`$KGBUILD_CACHE_DIR`).

Example:
    >>> import kgbuild
    >>> graph = kgbuild.build("examples/lizard-people.fountain")  # doctest: +SKIP
    >>> sum(e.type == "Character" for e in graph.entities)  # doctest: +SKIP
    28

Errors are `kgbuild.errors.KgbuildError` and its subclasses: `InputError` for a file or graph
that cannot be used, `OutputError` for a place that cannot be written, and
`kgbuild.loaders.errors.StoreError` / `QueryError` for the graph store.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from kgbuild.evaluation.stage_kg import MovieScore, ScoreOptions
    from kgbuild.loaders.store import GraphStore, open_store
    from kgbuild.model import Entity, Evidence, KnowledgeGraph, Relation, Screenplay
    from kgbuild.pipeline import BuildOptions
    from kgbuild.scenes import SceneSelection
    from kgbuild.schema import Schema

from kgbuild.version import __version__

__all__ = [
    "BuildOptions",
    "Entity",
    "Evidence",
    "GraphStore",
    "KnowledgeGraph",
    "MovieScore",
    "Relation",
    "ScoreOptions",
    "Screenplay",
    "__version__",
    "build",
    "load_graph",
    "merge",
    "open_store",
    "query",
    "read_screenplay",
    "save_graph",
    "score",
]

#: Names served lazily from other modules (PEP 562), so importing the package stays cheap.
_LAZY = {
    "Entity": "kgbuild.model",
    "Evidence": "kgbuild.model",
    "KnowledgeGraph": "kgbuild.model",
    "Relation": "kgbuild.model",
    "Screenplay": "kgbuild.model",
    "BuildOptions": "kgbuild.pipeline",
    "MovieScore": "kgbuild.evaluation.stage_kg",
    "ScoreOptions": "kgbuild.evaluation.stage_kg",
    "GraphStore": "kgbuild.loaders.store",
    "open_store": "kgbuild.loaders.store",
}

PathLike = str | os.PathLike[str]


def _schema(given: Schema | PathLike | None) -> Schema | None:
    """A schema given as a Schema or a schema file, loaded; None stays None (the default)."""
    from kgbuild.schema import Schema, load_schema

    return given if given is None or isinstance(given, Schema) else load_schema(given)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kgbuild' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def build(
    script: PathLike,
    *,
    options: BuildOptions | None = None,
    outdir: PathLike | None = None,
    force: bool = False,
    merge: bool = True,
    lenient: bool = False,
    movie: str | None = None,
    title: str | None = None,
    corrections: PathLike | None = None,
    cache_dir: PathLike | None = None,
    llm_model: str | None = None,
    llm_base_url: str | None = None,
    max_cost: float | None = None,
    scenes: str | SceneSelection | None = None,
    schema: Schema | PathLike | None = None,
) -> KnowledgeGraph:
    """Build the story graph of a screenplay, as `kgbuild build` does.

    Offline (rules and the bundled MiniLM model) unless an LLM is given. The corrections
    file beside the script (`SCRIPT_STEM.corrections.jsonl`) is applied when it exists.

    The options come as keywords (`merge` to `schema` below) or as one `BuildOptions`, the type
    `kgbuild build` makes of its flags and a corpus build shares among its movies; it also holds
    what the keywords do not (the token budget, the input size limit, LLM settings with their
    retries and batch export, a scripted LLM backend, an embedder).

    Args:
        script: The screenplay file, in any supported format.
        options: Every build option (`kgbuild.pipeline.BuildOptions`); the keywords from
            `merge` to `schema` then keep their defaults. None: the options those keywords give.
        outdir: Also write the build folder here (graph.json, graph.lbdb, screenplay.json,
            report.md, graph.graphml, merge_log.jsonl; see the README). Checked before any
            work; None writes nothing.
        force: Replace `outdir` even when it holds the build of another script.
        merge: Run the entity-merging stage.
        lenient: Keep relations that break the schema (flagged) instead of dropping them.
        movie: The movie id stores key on; None: the reader's (title page title, else file stem).
        title: The movie's title; None: the reader's (the title page's; for a STAGE script.json the
            title the release's `*_movie_info.csv` gives its folder; else the movie id).
        corrections: The corrections file to apply instead of the one beside the script.
        cache_dir: The embedding cache folder; None: `$KGBUILD_CACHE_DIR`, else ~/.cache/kgbuild.
        llm_model: Extract with this LLM (OpenAI-compatible; key from `$OPENAI_API_KEY`).
        llm_base_url: Its base URL ending in /v1; None: `$OPENAI_BASE_URL`, else OpenAI.
        max_cost: Stop cleanly before the estimated LLM cost (USD) exceeds this.
        scenes: Build only these scenes ('12-40', '3', '1-10,50-60' or a `SceneSelection`;
            1-based scene indices as `read_screenplay` numbers them): chunks, LLM requests and
            facts cover them alone, and `graph.movie.scene_ranges` records them.
        schema: The graph schema (a `kgbuild.schema.Schema` or a schema file); None: the
            STAGE-KG schema. Another schema is written to `outdir` as schema.json.

    Returns:
        The repaired, merged and corrected graph. An LLM build in which some chunks got no
        valid answer is returned all the same, with a warning logged; it is written to an
        `outdir` without a build (the failed chunks listed in review.jsonl) and never replaces
        an existing one, as `kgbuild build` without --allow-partial.

    Raises:
        InputError: the script or the corrections file cannot be read; `llm_base_url` or
            `max_cost` without `llm_model`; `scenes` unreadable or past the last scene;
            `options` with any of the keywords from `merge` to `schema`.
        OutputError: `outdir` or a cache folder cannot be written, or `outdir` holds the build
            of another script and `force` is not given, or the disk is full (`outdir` is left as
            it was).
        kgbuild.lock.FolderBusyError: another build is writing into `outdir` (it holds the
            folder from its start to its end).
        kgbuild.schema.SchemaError: the schema file cannot be used.
        kgbuild.llm.types.BudgetExceededError: `max_cost` reached (answers so far are cached).
        kgbuild.llm.types.LLMRequestError: the LLM server refused the requests.

    Example:
        >>> graph = build("examples/lizard-people.fountain", outdir="out/lizard-people")  # doctest: +SKIP
        >>> graph.movie.title  # doctest: +SKIP
        'LIZARD PEOPLE'
        >>> opening = build("examples/lizard-people.fountain",  # doctest: +SKIP
        ...                 options=BuildOptions(merge=False, scenes=SceneSelection.of([(1, 20)])))
    """
    import logging
    from contextlib import ExitStack, nullcontext
    from dataclasses import replace
    from pathlib import Path

    from kgbuild.embeddings import default_embedder
    from kgbuild.errors import InputError
    from kgbuild.paths import cache_dir as cache_root
    from kgbuild.paths import check_writable_dir
    from kgbuild.pipeline import BuildOptions, run_build

    keywords = BuildOptions(strict_repairs=not lenient, merge=merge, movie=movie, title=title,
                            scenes=_selection(scenes),
                            corrections=Path(corrections) if corrections is not None else None,
                            cache_dir=Path(cache_dir) if cache_dir is not None else None,
                            schema=_schema(schema))
    if options is not None and (keywords != BuildOptions() or (llm_model, llm_base_url, max_cost) != (None,) * 3):
        raise InputError("give the build options as options=BuildOptions(...) or as keywords (merge, lenient, movie, "
                         "title, corrections, cache_dir, llm_model, llm_base_url, max_cost, scenes, schema), not both")
    if outdir is not None:
        from kgbuild.output import check_build_target

        check_build_target(outdir, script, force=force)
    if options is None:
        options = keywords
        if llm_model is not None:
            from kgbuild.llm.settings import LLMSettings

            options = replace(options, llm=LLMSettings(model=llm_model, base_url=llm_base_url, max_cost=max_cost))
        elif llm_base_url is not None or max_cost is not None:
            raise InputError("llm_base_url and max_cost need an LLM: give llm_model too")
    if options.llm is not None:
        check_writable_dir(cache_root(options.llm.cache_dir), "LLM cache folder")
    with ExitStack() as held:
        if outdir is not None:
            from kgbuild.output import build_folder

            held.enter_context(build_folder(outdir))
            check_build_target(outdir, script, force=force)  # again, now that no other build can write there
        given = nullcontext(options.embedder) if options.embedder is not None else default_embedder(options.cache_dir)
        with given as embedder:  # the default one is closed after the build
            state = run_build(script, replace(options, embedder=embedder))
        from kgbuild.output import failed_chunks, keeps_existing_build, write_build

        failed = failed_chunks(state)
        if failed and state.llm is not None:
            logging.getLogger(__name__).warning(
                "%d of %d chunks of %s got no valid answer after the retries; build again to retry them",
                failed, len(state.llm.run.outcomes), script)
        if outdir is not None:
            if keeps_existing_build(outdir, failed):
                logging.getLogger(__name__).warning("the build in %s was kept: this one is partial", outdir)
            else:
                write_build(state, outdir)
    return state.graph


def load_graph(path: PathLike) -> KnowledgeGraph:
    """Read a graph.json, or the graph.json of a build folder.

    Args:
        path: A graph.json file or a folder written by `build` / `kgbuild build`.

    Returns:
        The graph (files of an older format are migrated on reading).

    Raises:
        InputError: missing file, invalid JSON, unknown or newer format, invalid content.

    Example:
        >>> graph = load_graph("out/lizard-people")  # doctest: +SKIP
        >>> len(graph.entities) > 0  # doctest: +SKIP
        True
    """
    from kgbuild.graph import graph_file
    from kgbuild.graph import load_graph as _load

    return _load(graph_file(path))


def save_graph(graph: KnowledgeGraph, path: PathLike) -> Path:
    """Write a graph as graph.json, atomically (a reader never sees half a file).

    Args:
        graph: The graph.
        path: The file to write; its folder is created when missing.

    Returns:
        The path written.

    Raises:
        OSError: the file cannot be written.

    Example:
        >>> save_graph(graph, "copy/graph.json")  # doctest: +SKIP
        PosixPath('copy/graph.json')
    """
    from kgbuild.graph import save_graph as _save

    return _save(graph, path)


def read_screenplay(path: PathLike) -> Screenplay:
    """Read a screenplay: a script of any supported format, or the screenplay.json of a build.

    Args:
        path: Fountain, Final Draft .fdx, PDF with a text layer, plain text, a STAGE
            script.json, or a screenplay.json written by `build` / `kgbuild parse -o`.

    Returns:
        The scene model: scenes with their headings and elements, title page, source facts.

    Raises:
        InputError: missing, empty, binary, too large, undecodable or malformed input, or a
            file that is not a screenplay (`NotAScreenplayError`, `OcrNeededError`).

    Example:
        >>> screenplay = read_screenplay("examples/lizard-people.fountain")  # doctest: +SKIP
        >>> screenplay.scenes[0].heading  # doctest: +SKIP
        'EXT. COUNTRY HIGHWAY (2020) -- DAY'
    """
    from kgbuild.readers import load_screenplay

    return load_screenplay(path)


def query(cypher: str, *, db: PathLike | None = None, params: dict[str, Any] | None = None,
          movie: str | None = None) -> list[dict[str, Any]]:
    """Run a read-only Cypher query on the embedded store of a build (or any store `open_store` opens).

    Args:
        cypher: One Cypher statement; node labels are entity types (`Character`, ...),
            relationship types are relation types (`speaks_to`, ...).
        db: The store: a `.lbdb` file, a build folder holding graph.lbdb, or a graph.json (loaded
            once into a store in the cache folder, `kgbuild.loaders.query_store`); None:
            ./graph.lbdb. A Bolt address (bolt://HOST:7687) queries a server without
            authentication; `open_store` takes a user and password.
        params: Values of the query's `$name` parameters (each one used, no others).
        movie: Only this movie's nodes and relationships, in a store holding several (a corpus
            store): `kgbuild.loaders.scope`.

    Returns:
        One dict per row, keyed by column (the alias, else the item as written); nodes and
        relationships come back as dicts of their properties.

    Raises:
        kgbuild.loaders.errors.QueryError: wrong parameters, or the store refused the query
            (the message gives the position and what to write instead), or it holds no `movie`.
        kgbuild.loaders.errors.StoreError: no store there, or it cannot be opened or reached.
        InputError: a graph.json that cannot be read.

    Example:
        >>> query("MATCH (c:Character) RETURN count(c) AS n", db="out/lizard-people")  # doctest: +SKIP
        [{'n': 28}]
    """
    from kgbuild.loaders.scope import Runner, movie_runner
    from kgbuild.loaders.store import open_store

    with open_store(db) as store:
        run: Runner = store.query
        if movie is not None:
            run = movie_runner(run, movie)
        return run(cypher, params or {}).as_dicts()


def _selection(scenes: str | SceneSelection | None) -> SceneSelection | None:
    from kgbuild.scenes import parse_scene_ranges

    return parse_scene_ranges(scenes) if isinstance(scenes, str) else scenes


def _graph_for_scoring(given: KnowledgeGraph | PathLike, schema: Schema, scenes: SceneSelection | None = None
                       ) -> tuple[KnowledgeGraph, Any, dict[str, str], str, str]:
    """A graph to score (restricted to `scenes`), its load report, its rename map, its movie id
    and its title."""
    from pathlib import Path

    from kgbuild.evaluation.reference import check_prediction, load_any
    from kgbuild.model import KnowledgeGraph
    from kgbuild.scenes import restrict_graph

    if isinstance(given, KnowledgeGraph):
        graph, report = check_prediction(given, given.movie.key, schema=schema)
        if scenes is not None:
            graph = restrict_graph(graph, scenes)
        return graph, report, {}, given.movie.key, given.movie.title
    graph, report, renames = load_any(Path(given), schema=schema, scenes=scenes)
    return graph, report, renames, graph.movie.key, graph.movie.title


def score(pred: KnowledgeGraph | PathLike, ref: KnowledgeGraph | PathLike, *,
          options: ScoreOptions | None = None, cache_dir: PathLike | None = None,
          protocol: str = "kgbuild", scenes: str | SceneSelection | None = None,
          schema: Schema | PathLike | None = None, force: bool = False) -> MovieScore:
    """Score a predicted graph against a reference with the STAGE-KG protocol (`kgbuild score`).

    Entities of unknown types and relations of unknown types or with missing endpoints are left
    out of either graph and counted in the score's `prediction_report` / `reference_report`.
    A reference of another movie is refused, as `kgbuild score` refuses it
    (`kgbuild.evaluation.reference.check_same_movie`).

    Args:
        pred: The prediction: a graph, a graph.json, or a build folder.
        ref: The reference: a STAGE movie folder (extraction_results.json, rename_map.json), a
            graph, a graph.json or a build folder.
        options: The choices the paper leaves open (threshold 0.80, ...); None: the preset of
            `protocol`.
        cache_dir: The embedding cache folder; None: `$KGBUILD_CACHE_DIR`, else ~/.cache/kgbuild.
        protocol: The preset used when `options` is None: 'kgbuild' (the defaults) or 'paper'
            (`kgbuild.evaluation.stage_kg.PROTOCOLS`).
        scenes: Score only these scenes ('12-40', '1-10,50-60' or a `SceneSelection`): the
            reference keeps its facts of those scenes (then the degree >= 2 rule), the
            prediction its facts grounded in them. None: the ranges the prediction was built
            from (`graph.movie.scene_ranges`), else every scene.
        schema: The schema (a `kgbuild.schema.Schema` or a schema file); None: the schema.json
            beside the reference graph, else beside the prediction, else the STAGE-KG schema.
        force: Score them even when they name different movies (neither id nor title of one is
            the other's), as `kgbuild score --force`.

    Returns:
        Entity and relation precision, recall and F1 (`result.entities.f1`), per type, and what
        `kgbuild score --explain` shows (misses, false positives, near misses).

    Raises:
        InputError: a path that is neither a graph.json nor a STAGE folder, or a broken file;
            an unknown protocol; `scenes` unreadable; the reference is of another movie and
            `force` is not given.
        OutputError: the cache folder cannot be written.

    Example:
        >>> result = score("out/lizard-people", "out/lizard-people")  # doctest: +SKIP
        >>> result.entities.f1, result.relations.f1  # doctest: +SKIP
        (1.0, 1.0)
    """
    from kgbuild.embeddings import default_embedder
    from kgbuild.errors import InputError
    from kgbuild.evaluation.reference import check_same_movie, scoring_schema
    from kgbuild.evaluation.stage_kg import PROTOCOLS, score_movie
    from kgbuild.model import KnowledgeGraph
    from kgbuild.scenes import recorded_selection

    if protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r}; the protocols are {', '.join(sorted(PROTOCOLS))}")
    options = options or PROTOCOLS[protocol]
    chosen = _schema(schema) or scoring_schema(None if isinstance(pred, KnowledgeGraph) else pred,
                                               None if isinstance(ref, KnowledgeGraph) else ref)
    selection = _selection(scenes)
    predicted, pred_report, _, _, _ = _graph_for_scoring(pred, chosen, selection)
    if selection is None:
        selection = recorded_selection(predicted)
    reference, ref_report, renames, movie, title = _graph_for_scoring(ref, chosen, selection)
    if not force:
        check_same_movie(predicted.movie, reference.movie)
    with default_embedder(cache_dir) as embedder:
        result = score_movie(predicted, reference, renames=renames, embedder=embedder, options=options,
                             schema=chosen, movie=movie, title=title)
    return result.model_copy(update={"prediction_report": pred_report, "reference_report": ref_report})


def merge(graph: KnowledgeGraph | PathLike, screenplay: Screenplay | PathLike | None = None, *,
          cache_dir: PathLike | None = None, schema: Schema | PathLike | None = None) -> KnowledgeGraph:
    """Merge a graph's entities with the offline rules, as the build's merge stage does.

    Names are normalized, embedded with the bundled MiniLM model, clustered and adjudicated;
    entity ids, names, aliases and relation endpoints are rewritten. The merge log (what merged
    into what, and why) is `kgbuild.canonicalize.merge.merge_graph`'s second result.

    Args:
        graph: The graph, a graph.json or a build folder (not changed).
        screenplay: Its screenplay (a Screenplay, the script file or a build's screenplay.json),
            for the hard constraints: two characters who speak in one scene stay apart. None
            merges without them.
        cache_dir: The embedding cache folder; None: `$KGBUILD_CACHE_DIR`, else ~/.cache/kgbuild.
        schema: The schema (a `kgbuild.schema.Schema` or a schema file); None: the schema.json
            beside a graph given as a path, else the STAGE-KG schema.

    Returns:
        A new graph with the merged entities.

    Raises:
        InputError: the graph or the screenplay cannot be read.
        OutputError: the cache folder cannot be written.

    Example:
        >>> merged = merge(raw, "examples/lizard-people.fountain")  # doctest: +SKIP
        >>> len(merged.entities) <= len(raw.entities)  # doctest: +SKIP
        True
    """
    from kgbuild.canonicalize.merge import merge_graph
    from kgbuild.embeddings import default_embedder
    from kgbuild.model import KnowledgeGraph, Screenplay
    from kgbuild.schema import schema_for_graph

    kg = graph if isinstance(graph, KnowledgeGraph) else load_graph(graph)
    chosen = _schema(schema) or schema_for_graph(None if isinstance(graph, KnowledgeGraph) else graph)
    sp = screenplay if screenplay is None or isinstance(screenplay, Screenplay) else read_screenplay(screenplay)
    with default_embedder(cache_dir) as embedder:
        merged, _ = merge_graph(kg, sp, embedder, None, schema=chosen)
    return merged
