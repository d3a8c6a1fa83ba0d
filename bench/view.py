"""The story view's cost: page size, time to write it, and time to first render in headless Chromium.

Two pages: the bundled example (Lizard People, built offline) and the largest English STAGE dev
reference graph (about 1,900 nodes and 5,300 relations), with the screenplay of its script. Time
to first render is measured by the page itself: milliseconds from the start of navigation to the
first frame Cytoscape.js drew. Target: under 3 s for both.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bench.store import biggest_movie
from kgbuild.evaluation.reference import load_stage_movie
from kgbuild.graph import load_graph, save_graph
from kgbuild.paths import VIEW_FILE
from kgbuild.readers import read_screenplay
from kgbuild.view import write_view
from kgbuild.view.browser import console_errors, headless_chromium, open_page

RENDER_TARGET_MS = 3000.0


class PageTiming(BaseModel):
    """One page: its size, the time to write it, and its first render in headless Chromium."""

    model_config = ConfigDict(extra="forbid")

    name: str
    nodes: int
    relations: int
    page_bytes: int
    write_seconds: float
    first_render_ms: float = Field(description="Median over the runs.")
    runs_ms: list[float]
    console_errors: int


class ViewBenchResult(BaseModel):
    """The pages measured."""

    model_config = ConfigDict(extra="forbid")

    pages: list[PageTiming]
    target_ms: float = RENDER_TARGET_MS


def _write_example(script: Path, folder: Path) -> float:
    """Build `script` offline into `folder` (which writes its page); the seconds rewriting the page took."""
    import kgbuild

    kgbuild.build(script, outdir=folder)
    start = time.perf_counter()
    write_view(folder)
    return time.perf_counter() - start


def _write_reference(movie: Path, folder: Path) -> float:
    """Write a STAGE reference graph and its screenplay into `folder`; the seconds writing its page took."""
    graph, _, _ = load_stage_movie(movie)
    folder.mkdir(parents=True, exist_ok=True)
    save_graph(graph, folder / "graph.json")
    (folder / "screenplay.json").write_text(read_screenplay(movie / "script.json").model_dump_json(),
                                            encoding="utf-8")
    start = time.perf_counter()
    write_view(folder)
    return time.perf_counter() - start


def bench_view(example: Path, stage_root: Path, *, repeat: int = 3, workdir: Path | None = None) -> ViewBenchResult:
    """Write the pages of the example and of the largest English STAGE reference graph, then open
    each `repeat` times in one headless Chromium.

    Args:
        example: The example screenplay (Lizard People).
        stage_root: The STAGE data folder (holding English/).
        repeat: Page loads per page; the median counts.
        workdir: Where to write; a temporary folder when None.

    Returns:
        Size, write time and time to first render of each page.

    Raises:
        BrowserMissingError: Chromium, chromedriver or Selenium is missing.
    """
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        movie = biggest_movie(stage_root)
        example_dir, reference_dir = Path(tmp) / "example", Path(tmp) / "reference"
        written = [(f"example {example.stem}", example_dir, _write_example(example, example_dir)),
                   (f"STAGE reference {movie.name}", reference_dir, _write_reference(movie, reference_dir))]
        pages = []
        with headless_chromium() as driver:
            for name, folder, seconds in written:
                page = folder / VIEW_FILE
                runs = [round(open_page(driver, page), 1) for _ in range(repeat)]
                errors = console_errors(driver)
                graph = load_graph(folder / "graph.json")
                pages.append(PageTiming(name=name, nodes=len(graph.entities), relations=len(graph.relations),
                                        page_bytes=page.stat().st_size, write_seconds=round(seconds, 3),
                                        first_render_ms=statistics.median(runs), runs_ms=runs,
                                        console_errors=len(errors)))
    return ViewBenchResult(pages=pages)


def format_view_bench(result: ViewBenchResult) -> list[str]:
    """The result as lines of text."""
    lines = [f"Story view (kgbuild view), time to first render in headless Chromium (target < "
             f"{result.target_ms / 1000:.0f} s):"]
    for p in result.pages:
        lines.append(f"  {p.name}: {p.nodes} nodes, {p.relations} relations; page {p.page_bytes / 1e6:.2f} MB "
                     f"written in {p.write_seconds:.2f} s; first render {p.first_render_ms / 1000:.2f} s (median of "
                     f"{len(p.runs_ms)}: {', '.join(f'{r / 1000:.2f}' for r in p.runs_ms)})"
                     + (f"; {p.console_errors} console errors" if p.console_errors else ""))
    return lines
