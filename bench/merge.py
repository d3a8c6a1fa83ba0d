"""Benchmark of entity merging: clustering at scale, and embedding throughput.

Clustering runs on synthetic mentions whose embeddings are already computed (as they are once
the on-disk cache is warm): entities of the STAGE release's non-event type mix, each mentioned
1 to 6 times with noisy name and description vectors. Peak memory is what `tracemalloc` sees
during the run (numpy's arrays included). Embedding throughput is measured separately with the
bundled MiniLM model, cold (computed) and warm (answered by the cache).

Example:
    >>> result = bench_merge(sizes=(10_000, 50_000))
    >>> print("\\n".join(format_merge_bench(result)))
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.canonicalize.cluster import ClusterOptions, candidate_clusters
from kgbuild.canonicalize.dual_embed import DualEmbeddings

#: Shares of the non-event entity types among STAGE reference mentions (SCHEMA_STATS.md).
TYPE_SHARES = {"Character": 60_044, "Location": 37_034, "Object": 36_557, "Concept": 10_990,
               "TimePoint": 8_615, "Occasion": 3_313}
#: Targets of the issue, in seconds, by number of mentions.
TARGETS = {10_000: 5.0, 50_000: 30.0}


class ClusterRun(BaseModel):
    """Clustering of one synthetic corpus."""

    model_config = ConfigDict(extra="forbid")

    mentions: int
    entities: int
    seconds: float
    peak_mb: float = Field(description="Peak traced memory during clustering (MB).")
    candidate_clusters: int
    largest_type_block: int
    pair_precision: float = Field(description="Candidate pairs that are true synthetic duplicates.")
    target_seconds: float | None = None


class EmbedRun(BaseModel):
    """Embedding throughput of the bundled model."""

    model_config = ConfigDict(extra="forbid")

    texts: int
    cold_seconds: float
    cold_texts_per_s: float
    warm_seconds: float
    warm_texts_per_s: float


class MergeBench(BaseModel):
    """What `bench_merge` measured."""

    model_config = ConfigDict(extra="forbid")

    clustering: list[ClusterRun]
    embedding: EmbedRun | None = None


def synthetic_mentions(n: int, *, dim: int = 384, seed: int = 0
                       ) -> tuple[dict[str, DualEmbeddings], dict[str, np.ndarray]]:
    """Unit name/description vectors of n mentions by type, and each mention's entity label."""
    rng = np.random.default_rng(seed)
    total = sum(TYPE_SHARES.values())
    blocks, labels = {}, {}
    for etype, share in TYPE_SHARES.items():
        size = max(2, round(n * share / total))
        per_entity = rng.integers(1, 7, size=size)
        entity = np.repeat(np.arange(size), per_entity)[:size]
        count = int(entity.max()) + 1
        name_centres = rng.standard_normal((count, dim), dtype=np.float32)
        desc_centres = rng.standard_normal((count, dim), dtype=np.float32)
        names = name_centres[entity] + 0.45 * rng.standard_normal((size, dim), dtype=np.float32)
        descs = desc_centres[entity] + 0.8 * rng.standard_normal((size, dim), dtype=np.float32)
        names /= np.linalg.norm(names, axis=1, keepdims=True)
        descs /= np.linalg.norm(descs, axis=1, keepdims=True)
        blocks[etype] = DualEmbeddings(names, descs)
        labels[etype] = entity
    return blocks, labels


def bench_clustering(n: int, options: ClusterOptions | None = None, *, seed: int = 0) -> ClusterRun:
    """Time `candidate_clusters` over every type block of n synthetic mentions."""
    blocks, labels = synthetic_mentions(n, seed=seed)
    tracemalloc.start()
    start = time.perf_counter()
    results = {etype: candidate_clusters(emb, options) for etype, emb in blocks.items()}
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    pairs = correct = 0
    for etype, clusters in results.items():
        for cluster in clusters:
            entity = labels[etype][cluster]
            pairs += len(cluster) * (len(cluster) - 1) // 2
            _, counts = np.unique(entity, return_counts=True)
            correct += int((counts * (counts - 1) // 2).sum())
    return ClusterRun(
        mentions=sum(len(e) for e in blocks.values()),
        entities=sum(int(v.max()) + 1 for v in labels.values()), seconds=round(seconds, 3),
        peak_mb=round(peak / 2**20, 1), candidate_clusters=sum(len(c) for c in results.values()),
        largest_type_block=max(len(e) for e in blocks.values()),
        pair_precision=round(correct / pairs, 4) if pairs else 1.0, target_seconds=TARGETS.get(n))


def bench_embedding(texts: int = 2000) -> EmbedRun:
    """Texts per second of MiniLM on this machine, computed (cold) and from the cache (warm)."""
    from kgbuild.embeddings import CachedEmbedder, MiniLMEmbedder

    corpus = [f"Entity {i}: a character who appears in scene {i % 97} of the story" for i in range(texts)]
    inner = MiniLMEmbedder()
    inner.encode(["warm-up"])  # model loading is not throughput
    with tempfile.TemporaryDirectory() as folder:
        cached = CachedEmbedder(inner, folder)
        start = time.perf_counter()
        cached.encode(corpus)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        cached.encode(corpus)
        warm = time.perf_counter() - start
    return EmbedRun(texts=texts, cold_seconds=round(cold, 3), cold_texts_per_s=round(texts / cold, 1),
                    warm_seconds=round(warm, 3), warm_texts_per_s=round(texts / warm, 1))


def bench_merge(sizes: tuple[int, ...] = (10_000, 50_000), *, embed_texts: int | None = 2000) -> MergeBench:
    """Cluster synthetic corpora of the given sizes, then measure embedding throughput.

    Args:
        sizes: Mention counts to cluster.
        embed_texts: Texts to embed for the throughput measure; None skips it.

    Returns:
        Seconds and peak memory per size, and the embedding throughput.
    """
    return MergeBench(clustering=[bench_clustering(n) for n in sizes],
                      embedding=bench_embedding(embed_texts) if embed_texts else None)


def format_merge_bench(result: MergeBench) -> list[str]:
    """Lines of text for `scripts/dev bench`."""
    lines = []
    for run in result.clustering:
        target = f" (target < {run.target_seconds:g} s)" if run.target_seconds else ""
        lines.append(f"Merge clustering of {run.mentions:,} mentions ({run.entities:,} entities, largest type "
                     f"block {run.largest_type_block:,}), embeddings cached: {run.seconds:.2f} s{target}, "
                     f"peak {run.peak_mb:.0f} MB, {run.candidate_clusters:,} candidate clusters, "
                     f"candidate-pair precision {run.pair_precision:.3f}")
    if result.embedding:
        e = result.embedding
        lines.append(f"Embedding throughput (MiniLM, CPU): {e.cold_texts_per_s:.0f} texts/s computed, "
                     f"{e.warm_texts_per_s:.0f} texts/s from the cache ({e.texts} texts)")
    return lines
