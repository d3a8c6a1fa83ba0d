"""Dual embeddings of merge candidates: one of the name, one of the description (STAGE app. C.2).

A name vector is the MiniLM embedding of the name joined with hashed character n-grams of it,
so that surface forms count even where MiniLM cannot read the script.

Both go through a `kgbuild.embeddings` embedder, which batches and caches on disk by text, so a
rerun embeds nothing twice. An entity without a description is described by its type and name,
so its description vector still says what kind of thing it is.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

from kgbuild.embeddings import Embedder
from kgbuild.errors import KgbuildError


@dataclass(frozen=True)
class DualEmbeddings:
    """Row i of both matrices belongs to candidate i; rows are unit length (float32)."""

    names: np.ndarray
    descriptions: np.ndarray

    def __len__(self) -> int:
        return int(self.names.shape[0])

    def take(self, rows: np.ndarray) -> DualEmbeddings:
        """The embeddings of a subset of candidates, in the given order."""
        return DualEmbeddings(self.names[rows], self.descriptions[rows])


def description_text(type_name: str, name: str, description: str) -> str:
    """The text embedded as an entity's description."""
    return description.strip() or name


#: Width of the hashed character n-gram part of a name vector.
NGRAM_DIM = 512
#: Share of the character n-grams in the name similarity (MiniLM has the rest). MiniLM reads
#: Chinese characters poorly; the n-grams keep '程小澍' near '小澍' and far from '许东'.
NGRAM_SHARE = 0.5
_CJK = re.compile(r"[\u3400-\u9fff]")


def ngram_vectors(names: list[str], dim: int = NGRAM_DIM) -> np.ndarray:
    """Unit vectors of hashed character n-grams (1-2 for Chinese, 3 for other scripts)."""
    out = np.zeros((len(names), dim), dtype=np.float32)
    for row, name in enumerate(names):
        text = " ".join(name.casefold().split())
        if _CJK.search(text):
            text = text.replace(" ", "")
            grams = [*text, *(text[i:i + 2] for i in range(len(text) - 1))]
        else:
            padded = f" {text} "
            grams = [padded[i:i + 3] for i in range(len(padded) - 2)]
        for gram in grams:
            out[row, zlib.crc32(gram.encode("utf-8")) % dim] += 1.0
    return _unit(out)


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def embed_dual(embedder: Embedder, names: list[str], descriptions: list[str]) -> DualEmbeddings:
    """Embed names and descriptions (two batched, cached calls).

    Args:
        embedder: Any `Embedder` (use a `CachedEmbedder` to cache on disk by text).
        names: One name per candidate.
        descriptions: One description text per candidate (see `description_text`).

    Returns:
        The two unit-row matrices.
    """
    if len(names) != len(descriptions):
        raise KgbuildError(f"{len(names)} names but {len(descriptions)} descriptions: pass one description "
                           "per name ('' when there is none)")
    if not names:
        empty = np.zeros((0, 1), dtype=np.float32)
        return DualEmbeddings(empty, empty)
    semantic = _unit(embedder.encode(list(names)))
    name_vectors = np.hstack([np.sqrt(1 - NGRAM_SHARE) * semantic, np.sqrt(NGRAM_SHARE) * ngram_vectors(names)])
    return DualEmbeddings(name_vectors.astype(np.float32), _unit(embedder.encode(list(descriptions))))


def joint_vectors(emb: DualEmbeddings, weight: float) -> np.ndarray:
    """[w·e_name ; (1-w)·e_desc], the representation k-means clusters."""
    return np.hstack([weight * emb.names, (1.0 - weight) * emb.descriptions]).astype(np.float32)


def similarity_vectors(emb: DualEmbeddings, alpha: float) -> np.ndarray:
    """Vectors whose dot products are S = a·S_name + (1-a)·S_desc."""
    return np.hstack([np.sqrt(alpha) * emb.names, np.sqrt(1.0 - alpha) * emb.descriptions]).astype(np.float32)
