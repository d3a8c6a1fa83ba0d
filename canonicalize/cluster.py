"""Merge candidates: symmetric k-NN graph, Laplacian eigengap, k-means (STAGE app. C.2).

Cost stays near-linear in the number of mentions: neighbours are found with a blocked cosine
top-k (one block of rows against all at a time, never an n x n matrix), the graph is sparse, and
the eigenproblems are solved per connected component of the thresholded k-NN graph. A component
larger than `max_component` is split by raising its edge threshold, recursively, and halved by
2-means as a last resort, so every dense Laplacian is at most `max_component` wide.

Example:
    >>> clusters = candidate_clusters(embeddings, ClusterOptions(k=10))
    >>> clusters[0]            # row indices of one multi-mention candidate cluster
    [3, 17, 42]
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from kgbuild.canonicalize.dual_embed import DualEmbeddings, joint_vectors, similarity_vectors
from kgbuild.graph import canonical_key

logger = logging.getLogger(__name__)


class ClusterOptions(BaseModel):
    """How merge candidates are found."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=10, ge=1, description="Neighbours per mention in the k-NN graph.")
    alpha: float = Field(default=0.7, ge=0, le=1, description="Weight of name similarity in S.")
    beta: float = Field(default=0.6, ge=0, le=1, description="Weight of the name vector in k-means.")
    min_similarity: float = Field(
        default=0.5, ge=-1, le=1, description="k-NN edges with S below this are dropped.")
    max_component: int = Field(default=120, ge=2, description="Largest component solved densely.")
    split_step: float = Field(default=0.08, gt=0, description="Edge-weight threshold raise per split round.")
    small_n: int = Field(
        default=8, ge=2,
        description="Components up to this size need a clear eigengap, else nothing is proposed.")
    min_relative_gap: float = Field(
        default=0.25, ge=0, le=1, description="Smallest eigengap / largest eigenvalue trusted in small components.")
    max_cluster: int = Field(default=24, ge=2, description="At least ceil(m / max_cluster) clusters in a component.")
    block_rows: int = Field(default=1024, ge=1, description="Rows per block of the top-k search.")
    seed: int = Field(default=0, description="Seed of k-means.")


def knn_graph(vectors: np.ndarray, k: int, min_similarity: float, *, block_rows: int = 1024) -> sparse.csr_matrix:
    """Symmetric k-NN graph under the dot product of `vectors`.

    Args:
        vectors: n x d rows; their dot products are the similarities.
        k: Neighbours per row (fewer when n <= k).
        min_similarity: Edges below this similarity are dropped.
        block_rows: Rows compared against all others at once (memory is block_rows x n).

    Returns:
        A sparse symmetric n x n matrix with zero diagonal; an edge weighs how far its
        similarity lies above `min_similarity` (0..1, plus a small floor so no edge vanishes).
    """
    n = vectors.shape[0]
    kk = min(k, n - 1)
    if kk <= 0:
        return sparse.csr_matrix((n, n), dtype=np.float32)
    rows, cols, vals = [], [], []
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        sims = vectors[start:stop] @ vectors.T
        sims[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        r, c = np.nonzero(sims >= min_similarity)
        v = sims[r, c]
        order = np.lexsort((-v, r))
        r, c, v = r[order], c[order], v[order]
        first = np.searchsorted(r, r, side="left")
        keep = (np.arange(r.size) - first) < kk
        rows.append(r[keep] + start)
        cols.append(c[keep])
        vals.append((v[keep] - min_similarity) / max(1.0 - min_similarity, 1e-6) + 1e-3)
    graph = sparse.csr_matrix((np.concatenate(vals).astype(np.float32),
                               (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    return graph.maximum(graph.T).tocsr()


def choose_cluster_count(eigenvalues: np.ndarray, *, small_n: int = 8, min_relative_gap: float = 0.25,
                         max_cluster: int = 24) -> int:
    """Number of clusters from the eigengap of a connected component's Laplacian.

    The largest gap between consecutive eigenvalues after the trivial zero mode gives k (the
    first k modes are the near-zero ones), searched among k <= m / 2 (a candidate cluster
    has two mentions on average at least). Regularization against over-merging: a small
    component (m <= small_n) whose largest gap is under `min_relative_gap` of the largest
    eigenvalue has no trustworthy structure and gets k = m (nothing proposed), and no
    component gets fewer than ceil(m / max_cluster) clusters.

    Args:
        eigenvalues: All eigenvalues of the component's Laplacian (any order).

    Returns:
        k, between 1 and m.
    """
    lam = np.sort(np.asarray(eigenvalues, dtype=np.float64))
    m = lam.size
    if m <= 1:
        return m
    gaps = np.diff(lam)[: max(1, m // 2)]
    k = int(np.argmax(gaps)) + 1
    top = max(float(lam[-1]), 1e-12)
    if m <= small_n and gaps[k - 1] / top < min_relative_gap:
        return m
    return max(k, math.ceil(m / max_cluster))


def normalized_laplacian(adjacency: np.ndarray) -> np.ndarray:
    """L_sym = I - D^-1/2 A D^-1/2 of a dense symmetric adjacency matrix (L = D - A, scaled by
    the degrees so that blocks of unequal size and weight show equal gaps)."""
    degree = adjacency.sum(axis=1)
    inv = np.where(degree > 0, 1.0 / np.sqrt(np.maximum(degree, 1e-12)), 0.0)
    return np.eye(adjacency.shape[0]) - inv[:, None] * adjacency * inv[None, :]


def laplacian_cluster_count(adjacency: np.ndarray, **regularization: Any) -> int:
    """`choose_cluster_count` on the normalized Laplacian of a dense symmetric adjacency matrix."""
    return choose_cluster_count(np.linalg.eigvalsh(normalized_laplacian(adjacency)), **regularization)


def kmeans(points: np.ndarray, k: int, *, seed: int = 0, iterations: int = 50) -> np.ndarray:
    """k-means labels of `points` (scikit-learn, k-means++ seeding, one run: deterministic for a seed)."""
    from sklearn.cluster import KMeans

    m = points.shape[0]
    if k >= m:
        return np.arange(m)
    model = KMeans(n_clusters=k, init="k-means++", n_init=1, max_iter=iterations, random_state=seed)
    labels: np.ndarray = model.fit_predict(points)
    return labels


def _split(graph: sparse.csr_matrix, nodes: np.ndarray, threshold: float, joint: np.ndarray,
           options: ClusterOptions) -> list[np.ndarray]:
    """Cut a component into parts of at most max_component nodes."""
    if nodes.size <= options.max_component:
        return [nodes]
    sub = graph[nodes][:, nodes]
    while threshold < 1.0:
        threshold += options.split_step
        pruned = sub.multiply(sub >= threshold).tocsr()
        count, labels = connected_components(pruned, directed=False)
        if count == 1:
            continue
        kept = [nodes[labels == c] for c in range(count)]
        kept = [part for part in kept if part.size > 1]
        if sum(part.size for part in kept) * 2 < nodes.size:
            break  # the threshold shattered the component: halve it with 2-means instead
        return [p for part in kept for p in _split(graph, part, threshold, joint, options)]
    labels = kmeans(joint[nodes], 2, seed=options.seed)
    halves = [nodes[labels == c] for c in (0, 1)]
    if min(h.size for h in halves) == 0:
        halves = [nodes[: nodes.size // 2], nodes[nodes.size // 2:]]
    return [p for h in halves for p in _split(graph, h, threshold, joint, options)]


def _cluster_component(adjacency: np.ndarray, nodes: np.ndarray, joint: np.ndarray,
                       options: ClusterOptions) -> list[list[int]]:
    if nodes.size < 2:
        return []
    if nodes.size == 2:
        return [sorted(int(i) for i in nodes)]
    k = laplacian_cluster_count(adjacency, small_n=options.small_n,
                                min_relative_gap=options.min_relative_gap, max_cluster=options.max_cluster)
    if k >= nodes.size:
        return []
    labels = np.zeros(nodes.size, dtype=np.int64) if k == 1 else kmeans(joint[nodes], k, seed=options.seed)
    clusters = []
    for c in np.unique(labels):
        members = nodes[labels == c]
        if members.size > 1:
            clusters.append(sorted(int(i) for i in members))
    return clusters


def candidate_clusters(embeddings: DualEmbeddings, options: ClusterOptions | None = None) -> list[list[int]]:
    """Multi-mention candidate clusters of one block of mentions (one entity type).

    Args:
        embeddings: Name and description vectors of the mentions.
        options: Clustering settings; defaults when None.

    Returns:
        Clusters as sorted lists of row indices, each with at least two rows (singletons are
        not merge candidates), in ascending order of their first row.
    """
    options = options or ClusterOptions()
    n = len(embeddings)
    if n < 2:
        return []
    graph = knn_graph(similarity_vectors(embeddings, options.alpha), options.k, options.min_similarity,
                      block_rows=options.block_rows)
    joint = joint_vectors(embeddings, options.beta)
    count, labels = connected_components(graph, directed=False)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(count + 1))
    local = np.empty(n, dtype=np.int64)
    local[order] = np.arange(n) - bounds[labels[order]]
    edges = graph.tocoo()
    by_component = np.argsort(labels[edges.row], kind="stable")
    e_rows, e_cols, e_vals = edges.row[by_component], edges.col[by_component], edges.data[by_component]
    e_bounds = np.searchsorted(labels[e_rows], np.arange(count + 1))
    clusters: list[list[int]] = []
    for c in range(count):
        nodes = order[bounds[c]:bounds[c + 1]]
        if nodes.size < 2:
            continue
        if nodes.size > options.max_component:
            for part in _split(graph, nodes, 0.0, joint, options):
                dense = graph[part][:, part].toarray().astype(np.float64)
                clusters.extend(_cluster_component(dense, part, joint, options))
            continue
        dense = np.zeros((nodes.size, nodes.size))
        span = slice(e_bounds[c], e_bounds[c + 1])
        dense[local[e_rows[span]], local[e_cols[span]]] = e_vals[span]
        clusters.extend(_cluster_component(dense, nodes, joint, options))
    logger.debug("%d mentions -> %d components -> %d candidate clusters", n, count, len(clusters))
    return sorted(clusters)


def affix_pairs(keys: list[str], *, max_owners: int = 3) -> list[tuple[int, int]]:
    """Lexical merge candidates for CJK names, which the MiniLM embeddings place poorly: a name of
    at least two characters that starts or ends a longer name ('重庆' / '重庆市').

    Args:
        keys: Normalized CJK keys, one per mention ('' for a mention that is not CJK).
        max_owners: A short name that starts or ends more longer names than this proposes nothing.

    Returns:
        (short row, long row) pairs.
    """
    return _affix_pairs(keys, 2, max_owners)


def word_affix_pairs(tokens: list[tuple[str, ...]], *, max_owners: int = 3) -> list[tuple[int, int]]:
    """Lexical merge candidates for word names whose embeddings drift apart as words are added: a
    name whose words start or end a longer name ('Cane' / 'Cane With Four Tennis Balls',
    'Sunrise Studios' / 'Sunrise Studios Lot').

    Args:
        tokens: Normalized name words, one tuple per mention (empty to take no part).
        max_owners: A short name that starts or ends more longer names than this proposes nothing.

    Returns:
        (short row, long row) pairs.
    """
    return _affix_pairs(tokens, 1, max_owners)


def _affix_pairs(keys: Sequence[Sequence], min_part: int, max_owners: int) -> list[tuple[int, int]]:
    row_of: dict[Sequence, int] = {}
    for i, key in enumerate(keys):
        if key:
            row_of.setdefault(key, i)
    owners: dict[Sequence, set[int]] = {}
    for key in keys:
        parts = {key[:n] for n in range(min_part, len(key))} | {key[n:] for n in range(1, len(key) - min_part + 1)}
        for part in parts:
            if part in row_of:
                owners.setdefault(part, set()).add(row_of[key])
    return sorted((row_of[part], long) for part, longs in owners.items() if len(longs) <= max_owners
                  for long in longs)


def alias_pairs(names: list[str], aliases: list[Sequence[str]]) -> list[tuple[int, int]]:
    """Merge candidates the extraction itself names: a mention whose name is an alias of exactly
    one other mention ('John' and 'John Buckingham', aka John), compared by `canonical_key`.

    Args:
        names: One name per mention.
        aliases: The aliases of each mention, in the same order.

    Returns:
        (name row, alias owner row) pairs.
    """
    owners: dict[str, set[int]] = {}
    for row, forms in enumerate(aliases):
        for form in forms:
            if key := canonical_key(form):
                owners.setdefault(key, set()).add(row)
    pairs = []
    for row, name in enumerate(names):
        found = owners.get(canonical_key(name), set()) - {row}
        if len(found) == 1:
            pairs.append((row, found.pop()))
    return pairs


def join_clusters(n: int, clusters: list[list[int]], pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Clusters that share a row, or hold the two rows of a pair, become one (rows 0..n-1)."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    links = [(c[0], other) for c in clusters for other in c[1:]] + list(pairs)
    for a, b in links:
        parent[find(a)] = find(b)
    members: dict[int, list[int]] = {}
    for row in sorted({r for link in links for r in link}):
        members.setdefault(find(row), []).append(row)
    return sorted(group for group in members.values() if len(group) > 1)
