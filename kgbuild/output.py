"""Writing a build's files so that a failed, interrupted or concurrent build leaves nothing that looks done.

A build holds its output folder (`build_folder`): it locks it (`kgbuild.lock`: a second build into
the same folder stops at once, naming the first), puts back the old build if one crashed while
moving its files into place (`kgbuild.journal.settle`), and removes the staging folders that
killed builds left. Its files are written as new files into a fresh staging folder inside the
output folder, so nothing is written through a symlink planted at a file's name, and a build
that fails while writing (a full disk) leaves the folder as it was. Then
`kgbuild.journal.replace_files` puts them in place of the old ones in one step: whenever the
build stops, the folder holds the whole old build or the whole new one.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from kgbuild.atomic import remove_entry, write_new
from kgbuild.errors import OutputError
from kgbuild.folders import BuildFolder
from kgbuild.journal import replace_files, settle
from kgbuild.loaders.embedded import write_embedded
from kgbuild.loaders.graphml import export_graphml
from kgbuild.lock import folder_lock
from kgbuild.paths import check_writable_dir, write_error
from kgbuild.pipeline import BuildResult
from kgbuild.report import build_report
from kgbuild.schema import is_default
from kgbuild.version import __version__
from kgbuild.view.data import view_data
from kgbuild.view.page import render_page

#: Room the embedded store needs at least (its tables), and per byte of graph.json (measured:
#: 4 MB for a graph of 20 KB; 24 MB for one of 1.9 MB).
STORE_BASE_BYTES = 8 << 20
STORE_BYTES_PER_GRAPH_BYTE = 16


def check_build_target(outdir: str | os.PathLike[str], script: str | os.PathLike[str], *,
                       force: bool = False) -> Path:
    """Check before any work that a build of `script` may be written into `outdir`.

    Raises:
        OutputError: `outdir` cannot be written, or it holds the build of another script and
            `force` is not given.
    """
    target = check_writable_dir(outdir)
    existing = BuildFolder(target).graph
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


@contextmanager
def build_folder(outdir: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold `outdir` (created if missing) for a build, from before its work to its last write.

    Locks the folder, puts back the old build if one crashed while moving its files into place,
    and removes the staging folders of killed builds.

    Raises:
        FolderBusyError: another build holds the folder (the message names its process).
        OutputError: the folder cannot be created or restored.

    Example:
        >>> with build_folder("out/fargo") as target:
        ...     write_build(run_build("fargo.fountain", options), target)
    """
    target = check_writable_dir(outdir)
    with ExitStack() as stack:
        try:
            stack.enter_context(folder_lock(target))
            settle(target)
            for stale in target.glob(f"{BuildFolder.STAGING_PREFIX}*"):
                remove_entry(stale)
        except OSError as e:
            raise write_error(target, e) from e
        yield target


def _rendered(state: BuildResult, default_schema: bool) -> dict[str, bytes]:
    """The build's files made in memory (all but the GraphML file and the store), by name."""
    schema = state.options.graph_schema()
    page = render_page(view_data(state.graph, state.screenplay, schema=schema), version=__version__)
    files = {BuildFolder.SCREENPLAY: state.screenplay.model_dump_json(indent=1),
             BuildFolder.REPORT: build_report(state), BuildFolder.VIEW: page,
             BuildFolder.GRAPH: state.graph.model_dump_json(indent=1)}
    if not default_schema:
        files[BuildFolder.SCHEMA] = schema.model_dump_json(indent=1)
    if state.llm is not None:
        files[BuildFolder.REVIEW] = "".join(e.model_dump_json() + "\n" for e in state.llm.run.review())
    if state.options.merge:
        files[BuildFolder.MERGE_LOG] = "".join(e.model_dump_json() + "\n" for e in state.merge_log)
    return {name: text.encode("utf-8") for name, text in files.items()}


def _free_bytes(folder: Path) -> int | None:
    """Bytes free for this user on `folder`'s file system; None when it tells no size (some FUSE ones)."""
    stats = os.statvfs(folder)
    return stats.f_bavail * stats.f_frsize if stats.f_blocks else None


def _check_room(target: Path, files: dict[str, bytes]) -> None:
    """Refuse a build the disk cannot hold before writing any of it.

    The embedded store's library does not report a full disk (it stops the process, or leaves a
    store cut short), so its room is checked here, estimated from graph.json's size.
    """
    graph = len(files[BuildFolder.GRAPH])
    needed = sum(map(len, files.values())) + graph + STORE_BASE_BYTES + STORE_BYTES_PER_GRAPH_BYTE * graph
    free = _free_bytes(target)
    if free is not None and free < needed:
        raise OutputError(f"no space left on the device of {target}: the build needs about "
                          f"{needed / 1e6:.0f} MB, {free / 1e6:.0f} MB are free; nothing there was changed: free "
                          "some space, or write into another folder (-o)")


def failed_chunks(state: BuildResult) -> int:
    """How many LLM chunks of a build got no valid answer after the retries (0 for an offline build)."""
    if state.llm is None:
        return 0
    from kgbuild.extraction.llm.extract import ChunkStatus

    return state.llm.run.count(ChunkStatus.FAILED)


def keeps_existing_build(outdir: str | os.PathLike[str], failed: int, *, allow_partial: bool = False) -> bool:
    """The rule for a partial build: one in which `failed` LLM chunks got no valid answer does not
    replace the build already in `outdir` (that one may hold the facts of those chunks), unless
    `allow_partial`. A partial build is written where there is no build yet, with the failed
    chunks in review.jsonl, so a rerun retries them. `kgbuild build` and `kgbuild.build` both
    follow it; a corpus rebuilds a partial movie on its next run instead.

    Returns:
        True when the build must not be written into `outdir`.

    Example:
        >>> keeps_existing_build("out/lizard-people", failed=0)
        False
    """
    return failed > 0 and not allow_partial and BuildFolder(outdir).graph.exists()


def write_build(state: BuildResult, outdir: str | os.PathLike[str]) -> list[Path]:
    """Write screenplay.json, report.md, graph.graphml, the story view view.html, the embedded
    store graph.lbdb (a fresh database holding this movie only) and graph.json into `outdir`, and
    for an LLM build review.jsonl (one JSON object per chunk to review; empty when there is none), and with
    merging on merge_log.jsonl (one line per merge, kept-apart cluster, link or failure), and for
    a build with another schema than the default schema.json (the schema every command reading
    the folder then uses). A review.jsonl left by an earlier LLM build is removed by an offline
    build, a merge_log.jsonl by a build without merging, a schema.json by a build with the
    default schema. The old files are replaced in one step (`kgbuild.journal.replace_files`);
    other files in the folder are left alone.

    Returns:
        The paths written, in order.

    Raises:
        FolderBusyError: another process is building into `outdir`.
        OutputError: the folder cannot be written, or the disk is full; the folder is as it was.
    """
    schema = state.options.graph_schema()
    default_schema = is_default(schema)
    files = _rendered(state, default_schema)
    names = [name for name in (BuildFolder.SCHEMA, *BuildFolder.BUILD_FILES[:-1], BuildFolder.REVIEW,
                               BuildFolder.MERGE_LOG, BuildFolder.GRAPH)
             if name in files or name in BuildFolder.BUILD_FILES]
    removed = [name for name, kept in ((BuildFolder.REVIEW, state.llm is not None),
                                       (BuildFolder.MERGE_LOG, state.options.merge),
                                       (BuildFolder.SCHEMA, not default_schema)) if not kept]
    with build_folder(outdir) as target:
        _check_room(target, files)
        staging: Path | None = None
        try:
            staging = Path(tempfile.mkdtemp(prefix=BuildFolder.STAGING_PREFIX, dir=target))
            for name, data in files.items():
                write_new(staging / name, data)
            export_graphml(state.graph, BuildFolder(staging).graphml)
            write_embedded(state.graph, BuildFolder(staging).store, schema=schema)
            if _free_bytes(target) == 0:  # the store's library may have cut its file short on the full disk
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            replace_files(target, staging, install=names, remove=removed)
        except OSError as e:
            raise write_error(target, e) from e
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
    return [target / name for name in names]
