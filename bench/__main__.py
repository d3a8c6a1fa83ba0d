"""`scripts/dev bench` (`python -m bench` from the repository root): the benchmarks, one per `--only` choice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from bench.paths import SHARED_DATA
from kgbuild.cli.console import stdout_console

_BENCHES = ("parsing", "scoring", "build", "store", "llm", "merge", "view", "corpus", "faults", "ask")


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=SHARED_DATA, show_default=True,
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
    thread each) and on a local Ray instance with 2 CPUs when Ray is installed. The ask benchmark
    builds two STAGE dev movies offline and times their development questions in one session
    (median and p90 per question, the opening apart, one question in a new process apart).
    """
    from bench.build import bench_build
    from bench.parsing import bench_parsing, discover_inputs
    from bench.scoring import bench_scoring

    chosen = set(only or _BENCHES)
    paths = discover_inputs(data)
    if not paths:
        raise click.UsageError(f"no screenplays found under {data}; pass --data")
    feature = data / "screenplays" / "lizard-people.fountain"
    rows = bench_parsing(paths, repeat=repeat) if "parsing" in chosen else []
    scoring = bench_scoring(data / "stage") if "scoring" in chosen else None
    building = bench_build(feature) if "build" in chosen else None
    store = llm_result = merge_result = view_result = corpus_result = ask_result = None
    fault_rows = None
    if "store" in chosen:
        from bench.store import bench_embedded_store

        store = bench_embedded_store(data / "stage")
    if "llm" in chosen:
        from bench.llm import bench_llm

        llm_result = bench_llm(feature, latency=llm_latency)
    if "merge" in chosen:
        from bench.merge import bench_merge

        merge_result = bench_merge()
    if "view" in chosen:
        from bench.view import bench_view
        from kgbuild.view.browser import BrowserMissingError

        try:
            view_result = bench_view(feature, data / "stage")
        except BrowserMissingError as e:
            click.echo(f"bench: view benchmark skipped: {e}", err=True)
    if "corpus" in chosen:
        from bench.corpus import bench_corpus

        corpus_result = bench_corpus(data / "stage")
    if "faults" in chosen:
        from bench.faults import bench_faults

        fault_rows = bench_faults()
    if "ask" in chosen:
        from bench.ask import bench_ask

        ask_result = bench_ask(data)
    if as_json:
        from pydantic import BaseModel

        results: dict[str, Any] = {"parsing": [r.model_dump() for r in rows], "scoring": scoring,
                                   "build": building, "store": store, "llm": llm_result, "merge": merge_result,
                                   "view": view_result, "corpus": corpus_result, "ask": ask_result,
                                   "faults": [r.model_dump() for r in fault_rows] if fault_rows is not None else None}
        click.echo(json.dumps({k: v.model_dump() if isinstance(v, BaseModel) else v
                               for k, v in results.items()}, indent=1))
        return
    console = stdout_console()
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
        from bench.store import format_store_bench

        console.print("\n".join(format_store_bench(store)))
    if llm_result:
        from bench.llm import format_llm_bench

        console.print("\n".join(format_llm_bench(llm_result)))
    if merge_result:
        from bench.merge import format_merge_bench

        console.print("\n".join(format_merge_bench(merge_result)))
    if view_result:
        from bench.view import format_view_bench

        console.print("\n".join(format_view_bench(view_result)))
    if corpus_result:
        from bench.corpus import format_corpus_bench

        console.print("\n".join(format_corpus_bench(corpus_result)))
    if fault_rows is not None:
        from bench.faults import format_faults

        console.print("\n".join(format_faults(fault_rows)))
    if ask_result:
        from bench.ask import format_ask_bench

        console.print("\n".join(format_ask_bench(ask_result)))


if __name__ == "__main__":
    bench(prog_name="scripts/dev bench")
