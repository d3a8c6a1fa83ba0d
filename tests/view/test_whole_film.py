"""The whole-film view in a real browser: legible at its default zoom. The names of the most
connected characters are shown and clear of each other, and only the strongest relations are drawn
until the reader zooms in, points at or picks an entity, or asks for every relation.

A name counts as shown when it is drawn legibly inside the view, whether the graph library draws
it on its canvas (read from the library's own label boxes) or the page draws it over the graph
(read with getBoundingClientRect), so that the same test measures any way of drawing names.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from kgbuild.model import KnowledgeGraph
from tests.view.test_browser import load, wait_for

pytestmark = pytest.mark.browser

PAGES = ["example_build", pytest.param("stage_build", marks=pytest.mark.shared_data),
         pytest.param("stage_reference", marks=pytest.mark.shared_data), "generated_build"]
#: Names drawn smaller than this, in CSS pixels, do not count as shown.
LEGIBLE_PX = 10

#: For each entity id: its names as drawn, each {where, shown, px, box: [left, top, right, bottom]}.
NAMES = """
const cy = kgview.cy, zoom = cy.zoom(), frame = cy.container().getBoundingClientRect();
const inside = (b) => b[0] >= frame.left - 0.5 && b[1] >= frame.top - 0.5 && b[2] <= frame.right + 0.5
  && b[3] <= frame.bottom + 0.5;
const names = {};
for (const id of arguments[0]) {
  const found = [];
  for (const span of document.querySelectorAll('#labels [data-id]')) {
    if (span.getAttribute('data-id') !== id) continue;
    const style = getComputedStyle(span), r = span.getBoundingClientRect();
    const box = [r.left, r.top, r.right, r.bottom];
    found.push({where: 'page', px: parseFloat(style.fontSize), box: box,
                shown: style.display !== 'none' && style.visibility === 'visible' && Number(style.opacity) > 0
                  && r.width > 0 && inside(box)});
  }
  const node = cy.getElementById(id);
  if (node.pstyle('label').strValue) {
    const b = node.renderedBoundingBox({includeNodes: false, includeEdges: false, includeLabels: true,
                                        includeOverlays: false});
    const box = [frame.left + b.x1, frame.top + b.y1, frame.left + b.x2, frame.top + b.y2];
    const px = node.pstyle('font-size').pfValue * zoom;
    found.push({where: 'canvas', px: px, box: box,
                shown: node.visible() && node.pstyle('text-opacity').value > 0 &&
                  px >= node.pstyle('min-zoomed-font-size').pfValue && inside(box)});
  }
  names[id] = found;
}
return names;
"""


def names_drawn(browser, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The names drawn now for `ids` (see NAMES), once the page has placed them."""
    wait_for(lambda: not browser.execute_script("return Boolean(kgview.labelsPending)"), "the names to be placed")
    value: dict[str, list[dict[str, Any]]] = browser.execute_script(NAMES, ids)
    return value


def legible(names: dict[str, list[dict[str, Any]]], px: float = LEGIBLE_PX) -> dict[str, list[float]]:
    """Entity id -> the box of its one name shown at `px` or more; entities without one are left out."""
    boxes = {}
    for entity, found in names.items():
        shown = [n for n in found if n["shown"] and n["px"] >= px]
        if len(shown) == 1:
            boxes[entity] = shown[0]["box"]
    return boxes


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def most_connected_characters(graph: KnowledgeGraph, count: int = 10) -> list[str]:
    """The ids of the `count` characters with most relations (ties: by name)."""
    degree = Counter(end for r in graph.relations for end in (r.source, r.target))
    characters = sorted((e for e in graph.entities if e.type == "Character"), key=lambda e: (-degree[e.id], e.name))
    return [e.id for e in characters[:count]]


def shown_names(browser) -> dict[str, list[float]]:
    """Every name the page shows now: entity id -> box."""
    ids = browser.execute_script("return kgview.cy.nodes().map(n => n.id())")
    return legible(names_drawn(browser, ids))


@pytest.mark.parametrize("folder", PAGES)
def test_the_ten_most_connected_characters_are_named_legibly_and_clear_of_each_other(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    top = most_connected_characters(graph)
    assert len(top) == 10
    names = {e.id: e.name for e in graph.entities}
    drawn = names_drawn(browser, top)
    boxes = legible(drawn)
    missing = [names[i] for i in top if i not in boxes]
    crossing = [(names[a], names[b]) for a, b in combinations(boxes, 2) if overlap(boxes[a], boxes[b])]
    small = legible(drawn, px=0)  # drawn at all, however small: what the message reports besides
    zoom = browser.execute_script("return kgview.cy.zoom()")
    assert not missing and not crossing, (
        f"at the default zoom ({zoom:.3f}) {len(boxes)} of the 10 most connected characters are named legibly "
        f"(at least {LEGIBLE_PX} px, inside the view); not: {missing}; overlapping: {crossing}. Drawn at any "
        f"size: {len(small)}, overlapping: {sum(overlap(small[a], small[b]) for a, b in combinations(small, 2))} "
        "pairs")


@pytest.mark.parametrize("folder", PAGES)
def test_no_two_names_shown_overlap_and_the_main_places_are_named(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    boxes = shown_names(browser)
    assert not [(a, b) for a, b in combinations(boxes, 2) if overlap(boxes[a], boxes[b])]
    degree = Counter(end for r in graph.relations for end in (r.source, r.target))
    places = sorted((e for e in graph.entities if e.type == "Location"), key=lambda e: (-degree[e.id], e.name))
    assert all(p.id in boxes for p in places[:5])
    assert len(boxes) < len(graph.entities) or len(graph.entities) < 40  # not every name at once


def test_zooming_in_and_picking_an_entity_reveal_more_names(browser, generated_build):
    graph = load(browser, generated_build)
    before = set(shown_names(browser))
    degree = Counter(end for r in graph.relations for end in (r.source, r.target))
    hidden = next(e for e in sorted(graph.entities, key=lambda e: (-degree[e.id], e.id)) if e.id not in before)
    zoom_in = """
        const cy = kgview.cy, node = cy.getElementById(arguments[0]);
        cy.zoom({level: cy.zoom() * 4, position: node.position()});"""
    browser.execute_script(zoom_in, hidden.id)
    closer = set(shown_names(browser))
    assert closer - before  # new names at 4 times the first zoom
    browser.execute_script(zoom_in, hidden.id)
    closest = shown_names(browser)
    assert hidden.id in closest  # and, closer still, the dense core's names too
    assert not [(a, b) for a, b in combinations(closest.values(), 2) if overlap(a, b)]
    browser.execute_script("kgview.cy.fit(undefined, 40)")
    other = next(e for e in sorted(graph.entities, key=lambda e: e.id) if e.id not in set(shown_names(browser)))
    browser.execute_script("kgview.focusEntity(arguments[0])", other.id)
    wait_for(lambda: other.id in shown_names(browser), "the picked entity's name")


def drawn_relations(browser) -> set[str]:
    ids: list[str] = browser.execute_script("return kgview.cy.edges(':visible').map(e => e.id())")
    return set(ids)


@pytest.mark.parametrize("folder", PAGES)
def test_the_strongest_relations_are_drawn_and_the_rest_on_zoom_pick_or_request(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    drawn = drawn_relations(browser)
    assert 0 < len(drawn) < len(graph.relations)
    # one line per pair of entities, and every entity with a relation keeps one drawn
    pairs = [frozenset((r.source, r.target)) for r in graph.relations if r.id in drawn]
    assert len(pairs) == len(set(pairs))
    linked = {end for r in graph.relations for end in (r.source, r.target)}
    assert {end for r in graph.relations if r.id in drawn for end in (r.source, r.target)} == linked
    counts = browser.find_element(By.ID, "counts").text
    assert counts.endswith(f"{len(graph.relations)} relations ({len(drawn)} drawn)")
    # picking an entity draws all its relations
    hub = most_connected_characters(graph, 1)[0]
    browser.execute_script("kgview.focusEntity(arguments[0])", hub)
    own = {r.id for r in graph.relations if hub in (r.source, r.target)}
    wait_for(lambda: own <= drawn_relations(browser), "the picked entity's relations")
    browser.find_element(By.ID, "panel-close").click()
    # zooming in twice as close as the first view draws every relation (the first view: where the
    # page opened, not a fit that measures every label)
    first_view = "kgview.cy.viewport({zoom: kgview.firstView.zoom, pan: kgview.firstView.pan})"
    browser.execute_script(first_view)
    wait_for(lambda: drawn_relations(browser) == drawn, "the first view's relations")
    browser.execute_script("const cy = kgview.cy; cy.zoom({level: kgview.firstView.zoom * 2.5, "
                           "renderedPosition: {x: cy.width() / 2, y: cy.height() / 2}})")
    wait_for(lambda: len(drawn_relations(browser)) == len(graph.relations), "every relation, zoomed in")
    browser.execute_script(first_view)
    wait_for(lambda: drawn_relations(browser) == drawn, "the first view's relations, zoomed out")
    box = browser.find_element(By.ID, "every-relation")
    box.click()
    wait_for(lambda: len(drawn_relations(browser)) == len(graph.relations), "every relation, on request")
    box.click()
    wait_for(lambda: drawn_relations(browser) == drawn, "the first view's relations again")


def test_placing_names_keeps_them_apart_inside_the_view_and_within_the_budget(browser, example_build):
    load(browser, example_build)
    placed, optional = browser.execute_script("""
        const place = kgviewDeclutter.placeLabels;
        // ten names that must be shown, all for nodes on one spot; then 200 that may be
        const must = Array.from({length: 10}, (_, i) => ({id: 'm' + i, x: 300, y: 200, r: 6, w: 90, h: 16,
                                                          must: true}));
        const rest = Array.from({length: 200}, (_, i) => ({id: 'o' + i, x: (i * 37) % 600, y: (i * 53) % 400,
                                                           r: 3, w: 60, h: 15, must: false}));
        const view = {width: 600, height: 400, budget: 25};
        return [place(must, view), place(must.concat(rest), view)];""")
    assert [p["id"] for p in placed] == [f"m{i}" for i in range(10)]
    assert sum(p["leader"] is not None for p in placed) >= 8  # at most two fit right beside the spot
    assert len(optional) == 10 + 25
    # a name goes below its node unless it had another side before and that side is still free
    sides = browser.execute_script("""
        const one = (side) => kgviewDeclutter.placeLabels([{id: 'a', x: 300, y: 200, r: 6, w: 90, h: 16,
                                                            must: false, side: side}], {width: 600, height: 400,
                                                                                        budget: 5})[0].side;
        return [one(undefined), one(3), one(null)];""")
    assert sides == [0, 3, 0]
    # a node that an earlier name covers gets no name of its own (it would name a node one cannot see)
    covered = browser.execute_script("""
        return kgviewDeclutter.placeLabels([{id: 'a', x: 100, y: 100, r: 3, w: 20, h: 15, must: false},
                                            {id: 'b', x: 100, y: 118, r: 12, w: 60, h: 15, must: false}],
                                           {width: 600, height: 400, budget: 5}).map(p => p.id);""")
    assert covered == ["a"]
    named = [(f"o{i}", (i * 37) % 600, (i * 53) % 400) for i in range(200)
             if f"o{i}" in {p["id"] for p in optional}]
    assert not [(i, p["id"]) for i, x, y in named for p in optional  # no name covers another named node
                if p["id"] != i and overlap([x - 3, y - 3, x + 3, y + 3], [p["x1"], p["y1"], p["x2"], p["y2"]])]
    for labels in (placed, optional):
        boxes = [(p["x1"], p["y1"], p["x2"], p["y2"]) for p in labels]
        assert all(min(x1, y1) >= 0 and x2 <= 600 and y2 <= 400 for x1, y1, x2, y2 in boxes)
        assert not [(a, b) for a, b in combinations(boxes, 2) if overlap(list(a), list(b))]


def test_one_relation_stands_for_a_pair_and_every_entity_keeps_its_strongest_pair(browser, example_build):
    load(browser, example_build)
    strong, anchor = browser.execute_script("""
        const edges = [
          {id: 'ab1', source: 'a', target: 'b', scenes: 1}, {id: 'ab2', source: 'b', target: 'a', scenes: 3},
          {id: 'ac', source: 'a', target: 'c', scenes: 1}, {id: 'cd', source: 'c', target: 'd', scenes: 1},
          {id: 'de', source: 'd', target: 'e', scenes: 1}, {id: 'ce', source: 'c', target: 'e', scenes: 1},
          {id: 'bx1', source: 'b', target: 'x', scenes: 2}, {id: 'bx2', source: 'b', target: 'x', scenes: 2}];
        const main = new Set(['a', 'b']), rank = {a: 0, b: 1, c: 2, d: 3, e: 4, x: 5};
        const tiers = kgviewDeclutter.strongestRelations(edges, (id) => main.has(id), (id) => rank[id]);
        return [Object.fromEntries(tiers.strong), [...tiers.anchor].sort()];""")
    # a-b: two main entities (the relation in most scenes stands for them); b-x: main, two relations
    assert strong == {"ab2": 2, "bx1": 2}
    # c keeps its link to the main a; d and e their pair with the partner first in rank order
    assert anchor == ["ac", "cd", "ce"]


def test_pointing_at_an_entity_names_it_and_draws_its_relations(browser, example_build):
    graph = load(browser, example_build)
    before = drawn_relations(browser)
    degree = Counter(end for r in graph.relations for end in (r.source, r.target))
    # an entity not named and not fully drawn at first, clear of other nodes where the pointer lands
    names = set(shown_names(browser))
    target = browser.execute_script("""
        const cy = kgview.cy, [named, drawn] = arguments;
        for (const node of cy.nodes().sort((a, b) => b.degree() - a.degree())) {
          if (named.includes(node.id()) || node.connectedEdges().every(e => drawn.includes(e.id()))) continue;
          const p = node.renderedPosition();
          if (cy.renderer().findNearestElement(node.position('x'), node.position('y'), true, false) !== node) continue;
          return [node.id(), p.x, p.y];
        }
        return null;""", sorted(names), sorted(before))
    assert target is not None
    node, x, y = target
    assert degree[node] > 1
    canvas = browser.find_element(By.ID, "graph")
    ActionChains(browser).move_to_element_with_offset(canvas, int(x - canvas.size["width"] / 2),
                                                      int(y - canvas.size["height"] / 2)).perform()
    own = {r.id for r in graph.relations if node in (r.source, r.target)}
    wait_for(lambda: own <= drawn_relations(browser), "the pointed entity's relations")
    assert node in shown_names(browser)
    ActionChains(browser).move_to_element_with_offset(canvas, -canvas.size["width"] // 2 + 2,
                                                      -canvas.size["height"] // 2 + 2).perform()
    wait_for(lambda: drawn_relations(browser) == before, "the first view's relations again")
