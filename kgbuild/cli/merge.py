"""`kgbuild merge GRAPH`: entity merging on an existing graph.json, outside a build."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kgbuild.atomic import write_text_atomic
from kgbuild.cli.exits import EXIT_BATCH_PENDING
from kgbuild.cli.options import LLMFlags, llm_options, schema_option
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BatchPendingError
from kgbuild.model import Screenplay


def _screenplay(path: Path | None, graph_file: Path) -> Screenplay | None:
    candidate = path or BuildFolder(graph_file.parent).screenplay
    if not candidate.is_file():
        if path is not None:
            raise InputError("no such screenplay file; pass the screenplay.json written by 'kgbuild build'",
                             path=str(path))
        return None
    try:
        return Screenplay.model_validate_json(candidate.read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(f"not a kgbuild screenplay.json ({e.__class__.__name__}); rerun 'kgbuild parse' "
                         "or 'kgbuild build' to write one", path=str(candidate)) from e


@click.command()
@click.argument("graph", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the merged graph.json and merge_log.jsonl [default: GRAPH's folder, "
              "replacing its graph.json].")
@click.option("--screenplay", type=click.Path(dir_okay=False, path_type=Path),
              help="The screenplay.json of the build, for the hard constraints (who speaks where) "
              "[default: screenplay.json beside GRAPH, if any].")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Embedding cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")
@schema_option()
@llm_options()
def merge(graph: Path, outdir: Path | None, screenplay: Path | None, cache_dir: Path | None,
          schema_file: Path | None, llm: LLMFlags) -> None:
    """Merge the entities of GRAPH (a graph.json or a build folder): normalize, embed, cluster,
    adjudicate (offline rules, or the LLM of --llm-model), then rewrite entities and relation
    endpoints.

    On a build folder (the default when GRAPH is one) this is the build's own merge stage: the
    same as 'kgbuild build FOLDER --from-stage merge', rewriting every file of the folder (or of
    -o OUTDIR) together, the new merge_log.jsonl entries after the earlier ones. On a lone
    graph.json it writes graph.json and appends to merge_log.jsonl beside it.

    Exit status: 0 merged (clusters whose LLM answer could not be used are kept apart and logged
    as 'error' lines); 2 bad input, an unwritable place, the LLM server refusing the requests or
    the budget (nothing written); 3 batch-export mode wrote the pending requests.
    """
    from kgbuild.paths import cache_dir as resolve_cache_dir
    from kgbuild.paths import check_writable_dir

    settings = llm.settings()
    if settings is not None:
        check_writable_dir(resolve_cache_dir(settings.cache_dir), "LLM cache folder")
    try:
        _merge(graph, outdir, screenplay, cache_dir, settings, schema_file)
    except BatchPendingError as e:
        click.echo(f"kgbuild: {e}", err=True)
        sys.exit(EXIT_BATCH_PENDING)


def _merge(graph: Path, outdir: Path | None, screenplay: Path | None, cache_dir: Path | None,
           settings: LLMSettings | None, schema_file: Path | None) -> None:
    from kgbuild.canonicalize.merge import merge_graph, merge_graph_llm
    from kgbuild.embeddings import default_embedder
    from kgbuild.graph import graph_file, load_graph, save_graph
    from kgbuild.paths import check_writable_dir
    from kgbuild.schema import load_schema, schema_for_graph

    source = graph_file(graph)
    beside = BuildFolder(source.parent)
    target = BuildFolder(outdir or source.parent)
    check_writable_dir(target.path)
    if screenplay is None and beside.is_build() and source == beside.graph:
        _merge_build_folder(source.parent, target.path, default_embedder(cache_dir), settings,
                            load_schema(schema_file) if schema_file is not None else None)
        return
    schema = schema_for_graph(source, schema_file)
    kg = load_graph(source)
    sp = _screenplay(screenplay, source)
    embedder = default_embedder(cache_dir)
    if settings is not None:
        merged, log = merge_graph_llm(kg, sp, embedder, settings, schema=schema)
    else:
        merged, log = merge_graph(kg, sp, embedder, None, schema=schema)
    target.path.mkdir(parents=True, exist_ok=True)
    earlier = target.merge_log.read_text(encoding="utf-8") if target.merge_log.is_file() else ""
    write_text_atomic(target.merge_log, earlier + "".join(e.model_dump_json() + "\n" for e in log))
    save_graph(merged, target.graph)
    _summary(len(kg.entities), len(merged.entities), len(kg.relations), len(merged.relations), log,
             f"Wrote {target.graph}, {target.merge_log}")


def _merge_build_folder(folder: Path, target: Path, embedder, settings, schema) -> None:
    """The build's own merge stage on its folder: the same code path as
    'kgbuild build FOLDER --from-stage merge', every file of the folder rewritten together
    (with the folder's schema.json unless `schema` is given)."""
    from kgbuild.graph import load_graph
    from kgbuild.output import write_build
    from kgbuild.pipeline import BuildOptions, resume_build

    before = load_graph(BuildFolder(folder).graph)
    state = resume_build(folder, "merge", BuildOptions(embedder=embedder, llm=settings, schema=schema))
    written = write_build(state, target)
    new = state.new_merge_log
    _summary(len(before.entities), len(state.graph.entities), len(before.relations), len(state.graph.relations),
             new, "Wrote " + ", ".join(str(p) for p in written))


def _summary(entities_before: int, entities_after: int, relations_before: int, relations_after: int,
             log, wrote: str) -> None:
    merges = [e for e in log if e.action == "merge"]
    failed = sum(e.action == "error" for e in log)
    click.echo(f"{entities_before} -> {entities_after} entities ({len(merges)} merges"
               + (f", {failed} failed adjudications kept apart" if failed else "")
               + f"), {relations_before} -> {relations_after} relations. {wrote}")
