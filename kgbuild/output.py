"""Writing a build's files so that a failed or interrupted build leaves nothing that looks done.

Every file is first written into a staging folder inside the output folder, then moved into
place with atomic renames, `graph.json` last: a graph.json in OUTDIR always belongs to a
build that wrote everything else.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from kgbuild.graph import save_graph
from kgbuild.loaders.graphml import export_graphml
from kgbuild.pipeline import BuildState
from kgbuild.report import build_report

#: The files of a build, in the order they are moved into place (graph.json last).
BUILD_FILES = ("screenplay.json", "report.md", "graph.graphml", "graph.json")


def write_build(state: BuildState, outdir: str | os.PathLike[str]) -> list[Path]:
    """Write screenplay.json, report.md, graph.graphml and graph.json into `outdir`.

    Returns:
        The paths written, in order.
    """
    assert state.graph is not None and state.screenplay is not None
    target = Path(outdir)
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".kgbuild-staging-", dir=target))
    try:
        (staging / "screenplay.json").write_text(state.screenplay.model_dump_json(indent=1),
                                                 encoding="utf-8")
        (staging / "report.md").write_text(build_report(state), encoding="utf-8")
        export_graphml(state.graph, staging / "graph.graphml")
        save_graph(state.graph, staging / "graph.json")
        written = []
        for name in BUILD_FILES:
            os.replace(staging / name, target / name)
            written.append(target / name)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)
