"""A stable 2-D layout of a story graph, computed once when the page is written.

The page only hides and shows nodes as its scene slider moves; the positions come from here and
never change. Each connected component is laid out by a force-directed method (Fruchterman and
Reingold's, with repulsion cut off at a few ideal edge lengths, found with a k-d tree, so a step
costs about O(n) instead of O(n²)), then the components are packed in columns, largest first.
The result depends only on the graph and the seed.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence

import networkx as nx
import numpy as np
from scipy.spatial import cKDTree

logger = logging.getLogger(__name__)

#: Distance between two linked nodes in the page's coordinates (pixels at zoom 1); graphs of more
#: than `_ROOMY` nodes get shorter links (down to half) so that the whole graph, fitted to a
#: screen, still shows its nodes.
EDGE_LENGTH = 130.0
_ROOMY = 400
#: Force-directed steps per component.
ITERATIONS = 200
#: Repulsion reaches this many ideal edge lengths.
_CUTOFF = 2.0
#: Strength of the repulsion beyond the cutoff, relative to Fruchterman-Reingold's: enough to keep
#: the layout from collapsing, weak enough to keep it compact (leaves near their hubs).
_FAR = 0.2
#: Space between packed components, in ideal edge lengths.
_GAP = 2.0
#: Width over height of the area the packed components are meant to fill (a landscape window).
_ASPECT = 1.6


def _sum_at(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per node, the sum of `values` whose `index` is that node."""
    return np.bincount(index, weights=values, minlength=n)


def _far_push(pos: np.ndarray) -> np.ndarray:
    """Repulsion on every node from the nodes beyond the cutoff, each grid cell's nodes taken
    together at their centroid (a one-level Barnes-Hut): it keeps the layout from contracting
    into a dense ball, which short-range repulsion alone lets happen."""
    n = len(pos)
    cells = max(2, math.isqrt(n) // 3)
    low = pos.min(axis=0)
    span = np.maximum(np.ptp(pos, axis=0), 1e-9)
    grid = np.minimum((pos - low) / span * cells, cells - 1).astype(int)
    index = grid[:, 0] * cells + grid[:, 1]
    mass = np.bincount(index, minlength=cells * cells).astype(float)
    used = mass > 0
    weight = mass[used]
    dx = pos[:, :1] - np.bincount(index, weights=pos[:, 0], minlength=cells * cells)[used] / weight
    dy = pos[:, 1:] - np.bincount(index, weights=pos[:, 1], minlength=cells * cells)[used] / weight
    dist2 = dx * dx + dy * dy
    scale = np.where(dist2 > _CUTOFF * _CUTOFF, _FAR * weight / np.maximum(dist2, 1e-9), 0.0)
    return np.stack([(scale * dx).sum(axis=1), (scale * dy).sum(axis=1)], axis=1)


def _force_layout(n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray,
                  rng: np.random.Generator, iterations: int) -> np.ndarray:
    """Fruchterman-Reingold positions of one connected component, ideal edge length 1.

    Repulsion is exact within `_CUTOFF` (pairs found with a k-d tree) and grid-approximated beyond
    (`_far_push`), so a step costs about O(n) rather than O(n²).

    Args:
        n: Number of nodes.
        rows, cols: Node indices of each edge (each undirected edge once).
        weights: Attraction weight of each edge.
        rng: The random generator for the initial positions.
        iterations: Steps; the temperature falls linearly to zero.

    Returns:
        An (n, 2) array of positions.
    """
    side = math.sqrt(n)
    pos = rng.random((n, 2)) * side
    temperature = side / 8
    cooling = temperature / (iterations + 1)
    for _ in range(iterations):
        pairs = cKDTree(pos).query_pairs(_CUTOFF, output_type="ndarray")
        a, b = (pairs[:, 0], pairs[:, 1]) if len(pairs) else (rows[:0], cols[:0])
        delta = pos[a] - pos[b]
        push = delta / np.maximum(np.einsum("ij,ij->i", delta, delta), 1e-4)[:, None]
        delta = pos[rows] - pos[cols]
        pull = delta * (np.sqrt(np.einsum("ij,ij->i", delta, delta)) * weights)[:, None]
        disp = _far_push(pos) + np.stack([_sum_at(a, push[:, k], n) - _sum_at(b, push[:, k], n)
                                          - _sum_at(rows, pull[:, k], n) + _sum_at(cols, pull[:, k], n)
                                          for k in (0, 1)], axis=1)
        length = np.maximum(np.sqrt(np.einsum("ij,ij->i", disp, disp)), 1e-9)
        pos += disp * (np.minimum(length, temperature) / length)[:, None]
        temperature -= cooling
    return pos - pos.mean(axis=0)


def _component_positions(graph: nx.Graph[str], nodes: list[str], rng: np.random.Generator,
                         iterations: int) -> np.ndarray:
    """Positions of one component's nodes (in `nodes` order), ideal edge length 1."""
    if len(nodes) == 1:
        return np.zeros((1, 2))
    if len(nodes) == 2:
        return np.array([[-0.5, 0.0], [0.5, 0.0]])
    index = {node: i for i, node in enumerate(nodes)}
    links: list[tuple[int, int, int]] = []
    for u, v, attrs in graph.subgraph(nodes).edges(data=True):
        first, second = sorted((index[u], index[v]))
        links.append((first, second, int(attrs["weight"])))
    links.sort()
    rows = np.array([link[0] for link in links])
    cols = np.array([link[1] for link in links])
    weights = np.array([1.0 + math.log(link[2]) for link in links])
    return _force_layout(len(nodes), rows, cols, weights, rng, iterations)


def _pack(blocks: list[np.ndarray]) -> list[np.ndarray]:
    """Place the components' position blocks in columns, top to bottom, then left to right (largest
    first), each shifted, none overlapping. A column is as tall as the tallest component, or as all
    of them packed to `_ASPECT`, whichever is taller: the small components line up beside the
    largest rather than under it, where a landscape window has room to spare."""
    sizes = [(float(np.ptp(b[:, 0])) + _GAP, float(np.ptp(b[:, 1])) + _GAP) for b in blocks]
    column_height = max(max(h for _, h in sizes), math.sqrt(sum(w * h for w, h in sizes) / _ASPECT))
    placed, x, y, column_width = [], 0.0, 0.0, 0.0
    for block, (width, height) in zip(blocks, sizes, strict=True):
        if y > 0 and y + height > column_height:
            x, y, column_width = x + column_width, 0.0, 0.0
        placed.append(block - block.min(axis=0) + np.array([x, y]))
        y += height
        column_width = max(column_width, width)
    return placed


def stable_layout(nodes: Sequence[str], edges: Iterable[tuple[str, str]], *, seed: int = 0,
                  iterations: int = ITERATIONS) -> dict[str, tuple[float, float]]:
    """Positions for every node: force-directed per connected component, components packed in columns.

    Args:
        nodes: Node ids; their order does not matter (they are sorted first).
        edges: (source, target) pairs; direction, repeats (they pull harder) and self-loops are
            allowed. Ends that are not in `nodes` are ignored.
        seed: Seed of the initial positions: the same graph and seed give the same layout.
        iterations: Force-directed steps per component.

    Returns:
        Node id -> (x, y), about `EDGE_LENGTH` apart along edges (less in large graphs), rounded
        to 0.1.

    Example:
        >>> pos = stable_layout(["a", "b", "c"], [("a", "b"), ("b", "c")])
        >>> sorted(pos) == ["a", "b", "c"]
        True
    """
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(sorted(nodes))
    for u, v in edges:
        if u == v or u not in graph or v not in graph:
            continue
        weight = graph.edges[u, v]["weight"] + 1 if graph.has_edge(u, v) else 1
        graph.add_edge(u, v, weight=weight)
    if not graph:
        return {}
    rng = np.random.default_rng(seed)
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    blocks = [_component_positions(graph, c, rng, iterations) for c in components]
    scale = EDGE_LENGTH * min(1.0, max(0.5, math.sqrt(_ROOMY / len(graph))))
    positions: dict[str, tuple[float, float]] = {}
    for members, block in zip(components, _pack(blocks), strict=True):
        for node, (x, y) in zip(members, block, strict=True):
            positions[node] = (round(float(x) * scale, 1), round(float(y) * scale, 1))
    logger.debug("laid out %d nodes in %d components", len(positions), len(components))
    return positions
