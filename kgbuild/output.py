"""Writing a build's files so that a failed or interrupted build leaves nothing that looks done.

Every file is first written into a staging folder inside the output folder, so a build that
fails while writing leaves the folder as it was; then the files are moved into place one by
one with atomic renames, `graph.json` last: until graph.json is replaced, the folder still
holds the previous build's graph.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from kgbuild import __version__
from kgbuild.errors import OutputError
from kgbuild.graph import save_graph
from kgbuild.loaders.embedded import DEFAULT_DB_NAME, write_embedded
from kgbuild.loaders.graphml import export_graphml
from kgbuild.paths import MERGE_LOG_FILE, VIEW_FILE, check_writable_dir
from kgbuild.pipeline import BuildResult
from kgbuild.report import build_report
from kgbuild.schema import SCHEMA_FILE, is_default
from kgbuild.view.data import view_data
from kgbuild.view.page import render_page

#: The files of a build, in the order they are moved into place (graph.json last); the
#: embedded store (`graph.lbdb`) comes just before graph.json.
BUILD_FILES = ("screenplay.json", "report.md", "graph.graphml", VIEW_FILE, DEFAULT_DB_NAME, "graph.json")
#: Written by LLM builds only: the chunks left below the reflection threshold or failed.
REVIEW_FILE = "review.jsonl"


def check_build_target(outdir: str | os.PathLike[str], script: str | os.PathLike[str], *,
                       force: bool = False) -> Path:
    """Check before any work that a build of `script` may be written into `outdir`.

    Raises:
        OutputError: `outdir` cannot be written, or it holds the build of another script and
            `force` is not given.
    """
    target = check_writable_dir(outdir)
    existing = target / "graph.json"
    source = Path(script)
    if force or not existing.is_file() or not source.is_file():
        return target
    try:
        movie = json.loads(existing.read_text(encoding="utf-8")).get("movie") or {}
    except (OSError, ValueError, AttributeError):
        return target
    old = movie.get("source_sha256")
    if old and old != hashlib.sha256(source.read_bytes()).hexdigest():
        raise OutputError(
            f"{target} holds the build of another script ({movie.get('title') or 'untitled'}); "
            "choose another folder, or add --force to replace it")
    return target


def write_build(state: BuildResult, outdir: str | os.PathLike[str]) -> list[Path]:
    """Write screenplay.json, report.md, graph.graphml, the story view view.html, the embedded
    store graph.lbdb (a fresh database holding this movie only) and graph.json into `outdir`, and
    for an LLM build review.jsonl (one JSON object per chunk to review; empty when there is none), and with
    merging on merge_log.jsonl (one line per merge, kept-apart cluster, link or failure), and for
    a build with another schema than the default schema.json (the schema every command reading
    the folder then uses). A review.jsonl left by an earlier LLM build is removed by an offline
    build, a merge_log.jsonl by a build without merging, a schema.json by a build with the
    default schema.

    Returns:
        The paths written, in order.
    """
    target = Path(outdir)
    target.mkdir(parents=True, exist_ok=True)
    schema = state.options.graph_schema()
    default_schema = is_default(schema)
    staging = Path(tempfile.mkdtemp(prefix=".kgbuild-staging-", dir=target))
    try:
        (staging / "screenplay.json").write_text(state.screenplay.model_dump_json(indent=1),
                                                 encoding="utf-8")
        (staging / "report.md").write_text(build_report(state), encoding="utf-8")
        export_graphml(state.graph, staging / "graph.graphml")
        page = render_page(view_data(state.graph, state.screenplay, schema=schema), version=__version__)
        (staging / VIEW_FILE).write_text(page, encoding="utf-8")
        write_embedded(state.graph, staging / DEFAULT_DB_NAME, schema=schema)
        save_graph(state.graph, staging / "graph.json")
        names = list(BUILD_FILES)
        if not default_schema:
            (staging / SCHEMA_FILE).write_text(schema.model_dump_json(indent=1), encoding="utf-8")
            names.insert(0, SCHEMA_FILE)
        if state.llm is not None:
            review = state.llm.run.review()
            (staging / REVIEW_FILE).write_text("".join(e.model_dump_json() + "\n" for e in review),
                                               encoding="utf-8")
            names.insert(-1, REVIEW_FILE)
        if state.options.merge:
            (staging / MERGE_LOG_FILE).write_text("".join(e.model_dump_json() + "\n" for e in state.merge_log),
                                                  encoding="utf-8")
            names.insert(-1, MERGE_LOG_FILE)
        written = []
        for name in names:
            os.replace(staging / name, target / name)
            written.append(target / name)
        if state.llm is None:
            (target / REVIEW_FILE).unlink(missing_ok=True)
        if not state.options.merge:
            (target / MERGE_LOG_FILE).unlink(missing_ok=True)
        if default_schema:
            (target / SCHEMA_FILE).unlink(missing_ok=True)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)
