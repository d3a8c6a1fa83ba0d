"""`kgbuild merge GRAPH`: entity merging on an existing graph.json, outside a build."""

from __future__ import annotations

from pathlib import Path

import click

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.model import Screenplay


def _screenplay(path: Path | None, graph_file: Path) -> Screenplay | None:
    candidate = path or graph_file.parent / "screenplay.json"
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
@click.option("--llm-model", envvar="KGBUILD_LLM_MODEL",
              help="Adjudicate with this LLM (OpenAI-compatible; key from $OPENAI_API_KEY) "
              "[env KGBUILD_LLM_MODEL; default: none, offline rules].")
@click.option("--llm-base-url", help="OpenAI-compatible base URL ending in /v1 [default: $OPENAI_BASE_URL].")
@click.option("--llm-cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="LLM response cache folder [default: $KGBUILD_CACHE_DIR or ~/.cache/kgbuild].")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="LLM requests in flight.")
@click.option("--max-requests", type=click.IntRange(min=0), help="Send at most this many LLM requests.")
@click.option("--max-cost", type=click.FloatRange(min=0), help="Stop before the estimated LLM cost (USD) exceeds this.")
def merge(graph: Path, outdir: Path | None, screenplay: Path | None, cache_dir: Path | None,
          llm_model: str | None, llm_base_url: str | None, llm_cache_dir: Path | None, concurrency: int,
          max_requests: int | None, max_cost: float | None) -> None:
    """Merge the entities of GRAPH (a graph.json or a build folder): normalize, embed, cluster,
    adjudicate, then rewrite entities and relation endpoints.

    Writes graph.json and merge_log.jsonl (what merged into what, and why). The embedded store
    and exports of the folder are not rewritten: reload them with 'kgbuild load' / 'kgbuild export'.
    """
    from kgbuild.canonicalize.merge import MERGE_LOG_FILE, merge_graph, merge_graph_llm
    from kgbuild.embeddings import default_embedder
    from kgbuild.graph import graph_file, load_graph, save_graph

    source = graph_file(graph)
    kg = load_graph(source)
    sp = _screenplay(screenplay, source)
    embedder = default_embedder(cache_dir)
    if llm_model:
        from kgbuild.llm.settings import LLMSettings

        settings = LLMSettings(model=llm_model, base_url=llm_base_url, cache_dir=llm_cache_dir,
                               concurrency=concurrency, max_requests=max_requests, max_cost=max_cost)
        merged, log = merge_graph_llm(kg, sp, embedder, settings)
    else:
        merged, log = merge_graph(kg, sp, embedder, None)
    target = outdir or source.parent
    target.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target / MERGE_LOG_FILE, "".join(e.model_dump_json() + "\n" for e in log))
    save_graph(merged, target / "graph.json")
    merges = [e for e in log if e.action == "merge"]
    failed = sum(e.action == "error" for e in log)
    click.echo(f"{len(kg.entities)} -> {len(merged.entities)} entities ({len(merges)} merges"
               + (f", {failed} failed adjudications kept apart" if failed else "")
               + f"), {len(kg.relations)} -> {len(merged.relations)} relations. "
               f"Wrote {target / 'graph.json'}, {target / MERGE_LOG_FILE}")
