"""The stable layout: every node placed, the same every time, components apart, links short."""

from __future__ import annotations

import math
from itertools import combinations

import networkx as nx

from kgbuild.view.layout import EDGE_LENGTH, stable_layout


def _graph() -> tuple[list[str], list[tuple[str, str]]]:
    """Two communities joined by one edge, a separate triangle, a pair and two lone nodes."""
    a = nx.relabel_nodes(nx.barbell_graph(12, 0), lambda i: f"a{i:02d}")
    edges = list(a.edges()) + [("t1", "t2"), ("t2", "t3"), ("t3", "t1"), ("p1", "p2"), ("p1", "p2"), ("t1", "t1")]
    nodes = [*a.nodes(), "t1", "t2", "t3", "p1", "p2", "lone1", "lone2"]
    return nodes, edges


def test_every_node_gets_a_place_and_the_same_graph_the_same_places():
    nodes, edges = _graph()
    positions = stable_layout(nodes, edges)
    assert set(positions) == set(nodes)
    assert stable_layout(list(reversed(nodes)), list(reversed(edges))) == positions
    assert stable_layout(nodes, edges, seed=1) != positions
    assert len(set(positions.values())) == len(nodes)  # no two nodes on one spot


def test_components_do_not_overlap_and_linked_nodes_sit_closer_than_others():
    nodes, edges = _graph()
    positions = stable_layout(nodes, edges)
    components = [{n for n in nodes if n.startswith("a")}, {"t1", "t2", "t3"}, {"p1", "p2"}, {"lone1"}, {"lone2"}]
    boxes = []
    for members in components:
        xs = [positions[n][0] for n in members]
        ys = [positions[n][1] for n in members]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    for (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) in combinations(boxes, 2):
        assert ax1 < bx0 or bx1 < ax0 or ay1 < by0 or by1 < ay0
    big = sorted(components[0])
    linked = {frozenset(e) for e in edges}

    def dist(u: str, v: str) -> float:
        return math.dist(positions[u], positions[v])

    near = [dist(u, v) for u, v in combinations(big, 2) if frozenset((u, v)) in linked]
    far = [dist(u, v) for u, v in combinations(big, 2) if frozenset((u, v)) not in linked]
    assert sum(near) / len(near) < sum(far) / len(far)
    assert 0.3 * EDGE_LENGTH < dist("p1", "p2") < 2 * EDGE_LENGTH


def test_edges_to_unknown_nodes_are_ignored_and_an_empty_graph_has_no_places():
    assert set(stable_layout(["x", "y"], [("x", "nowhere"), ("x", "y")])) == {"x", "y"}
    assert stable_layout([], []) == {}


def test_small_components_line_up_beside_the_largest_for_a_landscape_window():
    big = nx.relabel_nodes(nx.grid_2d_graph(8, 8), lambda ij: f"g{ij[0]}{ij[1]}")
    lone = [f"lone{i:02d}" for i in range(30)]
    positions = stable_layout([*big.nodes(), *lone], list(big.edges()))
    big_right = max(positions[n][0] for n in big.nodes())
    big_top, big_bottom = (f(positions[n][1] for n in big.nodes()) for f in (min, max))
    assert all(positions[n][0] > big_right for n in lone)
    assert all(big_top <= positions[n][1] <= big_bottom for n in lone)
