"""Which embedded store a path names: a store, a build folder, or a graph.json loaded on demand.

`kgbuild.loaders.store.open_store` (so `kgbuild query --db`, `kgbuild.query(db=...)` and
`kgbuild ask --cypher --db`) takes a `.lbdb` store, a build folder (its `graph.lbdb`), or a
graph.json, as `kgbuild load` does. A graph.json, or a folder holding one and no store (the
graphs `score --write-missed` and `diff --write-sides` write, a folder `merge -o` wrote), is
loaded into an embedded store in the cache folder (`$KGBUILD_CACHE_DIR/stores/`, else
~/.cache/kgbuild/stores/), named by the sha256 of the graph.json, its schema and the kgbuild
version. The next query of the same file reads that store at once (loading a feature film takes
about as long as a query, 1-2 s), and a changed graph.json is a new name, so the store never
answers for an older graph. The store is made in a private folder and moved into place in one
step, so concurrent queries never read half a store; only the `KEEP` stores used last are kept.
Loads and queries that write (`--write`) are refused on a graph.json: the change would land in a
cache nobody reads.

Example:
    >>> with embedded_store(Path("out/missed/relations/graph.json")) as store:  # doctest: +SKIP
    ...     store.query("MATCH (c:Character) RETURN count(c) AS n").rows
    [[12]]
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from kgbuild.folders import BuildFolder
from kgbuild.graph import load_graph
from kgbuild.loaders.embedded import EmbeddedStore, resolve_db_path, write_embedded
from kgbuild.paths import cache_dir, check_writable_dir
from kgbuild.schema import schema_for_graph
from kgbuild.version import __version__

logger = logging.getLogger(__name__)

#: The cached stores kept (the least recently used beyond these are removed).
KEEP = 16
#: The cache's subfolder.
STORES = "stores"


def _graph_json(path: Path) -> Path | None:
    """The graph.json a query path names instead of a store, or None for a store."""
    if path.is_dir():
        folder = BuildFolder(path)
        return folder.graph if not folder.store.exists() and folder.has_graph() else None
    return path if path.suffix.lower() == ".json" and path.is_file() else None


def embedded_store(db: Path | None, *, cache: str | os.PathLike[str] | None = None) -> EmbeddedStore:
    """The embedded store for `db` (what `kgbuild.loaders.store.open_store` opens for a path).

    Args:
        db: A `.lbdb` store, a build folder (its graph.lbdb; a folder with a graph.json and no
            store: that graph.json), a graph.json, or None for ./graph.lbdb.
        cache: The cache folder; None: `$KGBUILD_CACHE_DIR`, else ~/.cache/kgbuild.

    Returns:
        The store at `db` itself or `db/graph.lbdb`, or the cached store of the graph.json
        (which refuses loads and writes).

    Raises:
        InputError: the graph.json cannot be read.
        OutputError: the cache folder cannot be written.
    """
    graph_file = None if db is None else _graph_json(db)
    if graph_file is None:
        return EmbeddedStore(resolve_db_path(db))
    return EmbeddedStore(cached_store(graph_file, cache=cache), loaded_from=graph_file)


def cached_store(graph_file: Path, *, cache: str | os.PathLike[str] | None = None) -> Path:
    """The cached embedded store of a graph.json, made when missing (see the module docstring)."""
    schema = schema_for_graph(graph_file)
    digest = hashlib.sha256()
    digest.update(graph_file.read_bytes())
    digest.update(json.dumps(schema.model_dump(mode="json"), sort_keys=True).encode("utf-8"))
    digest.update(__version__.encode("utf-8"))
    folder = check_writable_dir(cache_dir(cache) / STORES, "cache folder")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{digest.hexdigest()[:32]}.lbdb"
    if target.exists():
        os.utime(target)  # used now: the last to be pruned
        return target
    staging = Path(tempfile.mkdtemp(prefix=".loading-", dir=folder))
    try:
        made = BuildFolder(staging).store
        counts = write_embedded(load_graph(graph_file), made, schema=schema)
        os.replace(made, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    logger.info("loaded %s into the cached store %s (%d nodes, %d refused items)", graph_file, target,
                counts.nodes, len(counts.refused))
    _prune(folder, keep=KEEP)
    return target


def _prune(folder: Path, *, keep: int) -> None:
    stores = sorted(folder.glob("*.lbdb"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in stores[keep:]:
        try:
            old.unlink()
        except OSError:
            logger.debug("could not remove the cached store %s", old, exc_info=True)
