"""Merge candidates: k-NN graph, eigengap choice, k-means, component splitting."""

from __future__ import annotations

import numpy as np
import pytest

from kgbuild.canonicalize.cluster import (
    ClusterOptions,
    affix_pairs,
    alias_pairs,
    candidate_clusters,
    choose_cluster_count,
    join_clusters,
    kmeans,
    knn_graph,
    laplacian_cluster_count,
    word_affix_pairs,
)
from kgbuild.canonicalize.dual_embed import DualEmbeddings


def block_matrix(sizes: list[int], inside: float = 1.0, across: float = 0.02, noise: float = 0.0,
                 seed: int = 0) -> np.ndarray:
    """A symmetric similarity matrix with known blocks, weakly connected across blocks."""
    n = sum(sizes)
    rng = np.random.default_rng(seed)
    a = np.full((n, n), across)
    start = 0
    for size in sizes:
        a[start:start + size, start:start + size] = inside
        start += size
    a = a + noise * rng.random((n, n))
    a = (a + a.T) / 2
    np.fill_diagonal(a, 0.0)
    return a


@pytest.mark.parametrize("sizes", [[4, 5, 3], [6, 6], [3, 3, 3, 3, 3], [10, 2, 7, 4]])
def test_eigengap_finds_the_number_of_blocks(sizes):
    assert laplacian_cluster_count(block_matrix(sizes, noise=0.05)) == len(sizes)


def test_one_dense_block_is_one_cluster():
    assert laplacian_cluster_count(block_matrix([7], noise=0.05)) == 1


def test_small_component_without_a_clear_gap_proposes_nothing():
    evenly_spread = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.25])  # no gap stands out
    assert choose_cluster_count(evenly_spread) == 6
    assert choose_cluster_count(evenly_spread, min_relative_gap=0.0) == 1
    assert choose_cluster_count(evenly_spread, small_n=5) == 1  # larger components are trusted


def test_unequal_blocks_are_found_with_the_normalized_laplacian():
    weights = block_matrix([12, 3], inside=1.0, across=0.01)
    weights[:12, :12] *= 0.5  # a looser large block and a tight small one
    np.fill_diagonal(weights, 0.0)
    assert laplacian_cluster_count(weights) == 2


def test_cluster_count_is_regularized_by_the_largest_cluster():
    eigenvalues = np.concatenate([[0.0], np.full(39, 10.0)])  # one tight block of 40
    assert choose_cluster_count(eigenvalues, max_cluster=10) == 4
    assert choose_cluster_count(eigenvalues, max_cluster=40) == 1


def test_kmeans_separates_clear_groups_deterministically():
    rng = np.random.default_rng(1)
    points = np.vstack([rng.normal(c, 0.05, (5, 3)) for c in (0.0, 5.0, 10.0)])
    labels = kmeans(points, 3, seed=3)
    groups = {frozenset(np.where(labels == c)[0]) for c in set(labels)}
    assert groups == {frozenset(range(5)), frozenset(range(5, 10)), frozenset(range(10, 15))}
    assert np.array_equal(labels, kmeans(points, 3, seed=3))


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_blocked_knn_equals_the_brute_force_graph():
    rng = np.random.default_rng(2)
    vectors = unit(rng.normal(size=(60, 8)))
    small = knn_graph(vectors, 4, 0.2, block_rows=7).toarray()
    whole = knn_graph(vectors, 4, 0.2, block_rows=1000).toarray()
    assert np.allclose(small, whole)
    assert np.allclose(small, small.T) and not np.diag(small).any()
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    brute = np.zeros_like(small, dtype=bool)
    for i in range(60):
        for j in np.argsort(-sims[i])[:4]:
            if sims[i, j] >= 0.2:
                brute[i, j] = brute[j, i] = True
    assert np.array_equal(small > 0, brute)


def structured(groups: list[int], singles: int, seed: int = 0, spread: float = 0.05) -> DualEmbeddings:
    rng = np.random.default_rng(seed)
    rows_n, rows_d = [], []
    for size in [*groups, *([1] * singles)]:
        center_n, center_d = rng.normal(size=32), rng.normal(size=32)
        rows_n += [center_n + spread * rng.normal(size=32) for _ in range(size)]
        rows_d += [center_d + spread * rng.normal(size=32) for _ in range(size)]
    return DualEmbeddings(unit(np.array(rows_n)), unit(np.array(rows_d)))


def test_candidate_clusters_recover_groups_and_drop_singletons():
    emb = structured([3, 4, 2], singles=6)
    assert candidate_clusters(emb, ClusterOptions(k=5, min_similarity=0.6)) == [
        [0, 1, 2], [3, 4, 5, 6], [7, 8]]


def test_large_components_are_split_below_the_cap():
    emb = structured([30], singles=0, spread=0.3)
    clusters = candidate_clusters(emb, ClusterOptions(k=8, min_similarity=0.3, max_component=10))
    assert clusters
    assert all(2 <= len(c) <= 10 for c in clusters)
    flat = [i for c in clusters for i in c]
    assert len(flat) == len(set(flat))


def test_fewer_than_two_mentions_give_no_candidates():
    assert candidate_clusters(structured([], singles=1)) == []


def test_affix_pairs_propose_chinese_names_that_start_or_end_a_longer_one():
    keys = ["重庆", "重庆市", "金楼", "佛山金楼", "火锅", "", "重", "重庆大学"]
    assert affix_pairs(keys) == [(0, 1), (0, 7), (2, 3)]
    # a short name that starts or ends more longer names than allowed proposes nothing
    assert affix_pairs(keys, max_owners=1) == [(2, 3)]


def test_word_affix_pairs_propose_names_whose_words_start_or_end_a_longer_one():
    tokens = [("cane",), ("cane", "with", "four", "tennis", "balls"), ("sunrise", "studios"),
              ("sunrise", "studios", "lot"), (), ("scope",), ("rifle", "scope"), ("tennis",)]
    assert word_affix_pairs(tokens) == [(0, 1), (2, 3), (5, 6)]  # 'tennis' sits inside, not at an end
    assert word_affix_pairs([("a",), ("a", "b"), ("a", "c")], max_owners=1) == []


def test_join_clusters_unions_clusters_and_pairs():
    assert join_clusters(6, [[0, 1], [3, 4]], [(1, 2)]) == [[0, 1, 2], [3, 4]]
    assert join_clusters(6, [[0, 1], [3, 4]], [(1, 4)]) == [[0, 1, 3, 4]]
    assert join_clusters(3, [], []) == []


def test_alias_pairs_join_a_name_to_the_one_mention_that_has_it_as_an_alias():
    names = ["John Buckingham", "John", "Nadia", "The Garden", "Garden"]
    aliases = [["John", "JOHN"], [], [], ["garden"], []]
    # 'John' is an alias of one mention only; 'Garden' of one (case and article do not count).
    assert alias_pairs(names, aliases) == [(1, 0), (4, 3)]
    # An alias two mentions share names neither.
    assert alias_pairs(["Doc", "Dr. Hale", "Dr. Moss"], [[], ["Doc"], ["Doc"]]) == []
