"""The view pages in a real browser (headless Chromium driven by Selenium): the bundled example, a
STAGE dev movie built offline, and the largest STAGE dev reference graph."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from kgbuild.folders import BuildFolder
from kgbuild.graph import graph_file, load_graph
from kgbuild.model import KnowledgeGraph
from kgbuild.view.browser import console_errors, open_page
from kgbuild.view.data import first_scene

pytestmark = pytest.mark.browser

PAGES = ["example_build", pytest.param("stage_build", marks=pytest.mark.shared_data),
         pytest.param("stage_reference", marks=pytest.mark.shared_data)]
#: Pages whose facts carry evidence (the STAGE reference graphs record none).
PAGES_WITH_EVIDENCE = ["example_build", pytest.param("stage_build", marks=pytest.mark.shared_data)]


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """Poll `condition` until it returns something true."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def load(browser, folder: Path) -> KnowledgeGraph:
    """Open the page of a build folder; the folder's graph."""
    open_page(browser, folder / BuildFolder.VIEW)
    return load_graph(graph_file(folder))


def shown_nodes(browser) -> dict[str, tuple[float, float, float, float]]:
    """The nodes drawn now: id -> (x, y) in the graph and (x, y) on the screen."""
    rows = browser.execute_script(
        "return kgview.cy.nodes(':visible').map(n => [n.id(), n.position('x'), n.position('y'), "
        "n.renderedPosition('x'), n.renderedPosition('y')])")
    return {row[0]: tuple(row[1:]) for row in rows}


def draw_every_relation(browser) -> None:
    """Tick 'Draw every relation' (by default only the strongest are drawn)."""
    browser.find_element(By.ID, "every-relation").click()
    assert browser.find_element(By.ID, "every-relation").is_selected()


def slide_to(browser, scene: int) -> None:
    """Move the scene slider with the keyboard: Home (scene 1), then Right arrow scene - 1 times."""
    slider = browser.find_element(By.ID, "scene")
    slider.send_keys(Keys.HOME)
    for _ in range(scene - 1):
        slider.send_keys(Keys.ARROW_RIGHT)
    wait_for(lambda: browser.execute_script("return kgview.scene") == scene, f"scene {scene}")


def expected_nodes(graph: KnowledgeGraph, scene: int) -> set[str]:
    """The entities known at `scene`: first scene <= scene (entities with no scene always)."""
    return {e.id for e in graph.entities if first_scene(e.scenes) is None or first_scene(e.scenes) <= scene}


@pytest.mark.parametrize("folder", PAGES)
def test_page_renders_every_entity_and_relation_without_errors_or_network(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    assert console_errors(browser) == []
    assert browser.execute_script("return kgview.errors") == []
    draw_every_relation(browser)
    counts = browser.execute_script("return [kgview.cy.nodes().length, kgview.cy.edges().length, "
                                    "kgview.cy.nodes(':visible').length, kgview.cy.edges(':visible').length]")
    assert counts == [len(graph.entities), len(graph.relations)] * 2
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.execute_script("return window.pwned") is None


@pytest.mark.parametrize("folder", PAGES)
def test_slider_shows_the_graph_as_known_at_a_scene_and_nodes_keep_their_places(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    draw_every_relation(browser)
    slide_to(browser, 5)
    at_five = shown_nodes(browser)
    assert set(at_five) == expected_nodes(graph, 5)
    assert 0 < len(at_five) < len(graph.entities)
    edges = browser.execute_script("return kgview.cy.edges(':visible').map(e => e.id())")
    known = expected_nodes(graph, 5)
    assert set(edges) == {r.id for r in graph.relations if r.source in known and r.target in known
                          and (first_scene(r.scenes) or 0) <= 5}
    browser.find_element(By.ID, "scene").send_keys(*[Keys.ARROW_RIGHT] * 5)
    wait_for(lambda: browser.execute_script("return kgview.scene") == 10, "scene 10")
    at_ten = shown_nodes(browser)
    assert set(at_ten) == expected_nodes(graph, 10) and set(at_five) <= set(at_ten)
    assert {node: at_ten[node] for node in at_five} == at_five  # same place in the graph and on screen
    label = browser.find_element(By.ID, "scene-label").text
    assert label.startswith("Scene 10 of ")


@pytest.mark.parametrize("folder", PAGES)
def test_searching_an_alias_finds_its_entity(browser, folder, request):
    graph = load(browser, request.getfixturevalue(folder))
    # best an alias that is not part of the entity's own name, so only the alias can find it
    pairs = sorted(((a.casefold() in e.name.casefold(), e.id, a), e) for e in graph.entities for a in e.aliases)
    (_, _, alias), entity = pairs[0]
    box = browser.find_element(By.ID, "search")
    box.send_keys(alias)
    hit = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'#search-results li[data-id="{entity.id}"]'),
                   f"a search result for {alias!r}")
    assert alias in hit[0].text and entity.name in hit[0].text
    ActionChains(browser).move_to_element(hit[0]).click().perform()
    title = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#panel h2").text, "the panel")
    assert title == entity.name
    assert alias in browser.find_element(By.ID, "panel").text
    assert browser.execute_script("return kgview.cy.$(':selected').map(n => n.id())") == [entity.id]


@pytest.mark.parametrize("folder", PAGES_WITH_EVIDENCE)
def test_clicking_a_relation_shows_its_evidence_with_the_scene_heading(browser, folder, request):
    outdir = request.getfixturevalue(folder)
    graph = load(browser, outdir)
    screenplay = (outdir / "screenplay.json").read_text(encoding="utf-8")
    # choose a relation the pointer can hit alone at its midpoint, zoomed in on it: the nearest
    # element there, and clear of every node and its label
    target = browser.execute_script("""
        const cy = kgview.cy;
        const clear = (m) => cy.nodes().every(n => {
          const b = n.boundingBox({includeLabels: true});
          return m.x < b.x1 - 6 || m.x > b.x2 + 6 || m.y < b.y1 - 6 || m.y > b.y2 + 6; });
        for (const edge of cy.edges().sort((a, b) => a.id() < b.id() ? -1 : 1)) {
          cy.zoom(2.5); cy.center(edge);
          const m = edge.midpoint();
          // the pointer lands within a pixel of the midpoint: the edge must be the nearest there too
          const near = [[0, 0], [-1, -1], [-1, 1], [1, -1], [1, 1]].every(([dx, dy]) =>
            cy.renderer().findNearestElement(m.x + dx / cy.zoom(), m.y + dy / cy.zoom(), true, false) === edge);
          if (near && clear(m)) {
            const p = edge.renderedMidpoint();
            return [edge.id(), p.x, p.y];
          }
        }
        return null;""")
    assert target is not None
    edge_id, x, y = target
    relation = next(r for r in graph.relations if r.id == edge_id)
    assert relation.evidence
    canvas = browser.find_element(By.ID, "graph")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(canvas, int(x - size["width"] / 2),
                                                      int(y - size["height"] / 2)).click().perform()
    panel = browser.find_element(By.ID, "panel")
    wait_for(lambda: panel.is_displayed() and relation.evidence[0].quote in panel.text, "the relation's evidence")
    first = relation.evidence[0]
    assert f"Scene {first.scene} · " in panel.text  # the scene's heading follows
    heading = browser.execute_script("return kgview.heading(arguments[0])", first.scene)
    assert heading and heading in screenplay and heading in panel.text
    assert browser.execute_script("return kgview.cy.$(':selected').map(e => e.id())") == [edge_id]


def test_a_characters_panel_lists_relations_and_events_in_story_order(browser, example_build):
    graph = load(browser, example_build)
    character = next(e for e in graph.entities if e.name == "Reggie Gunn")
    browser.execute_script("kgview.focusEntity(arguments[0])", character.id)
    panel = browser.find_element(By.ID, "panel")
    wait_for(lambda: panel.is_displayed(), "the panel")
    for kind in ("events", "relations"):
        scenes = [int(s.text.removeprefix("sc. ")) for s in
                  panel.find_elements(By.CSS_SELECTOR, f"ul.{kind} .scene-ref")]
        assert scenes and scenes == sorted(scenes), kind
    ends = {r.target if r.source == character.id else r.source for r in graph.relations
            if character.id in (r.source, r.target)}
    names = {e.id: e.name for e in graph.entities}
    shown = {a.text for a in panel.find_elements(By.CSS_SELECTOR, "ul.events a[title], ul.relations a[title]")}
    assert shown == {names[i] for i in ends}


def test_type_filters_and_play(browser, example_build):
    load(browser, example_build)
    shown_events = "return kgview.cy.nodes(':visible').filter(n => n.data('type') === 'Event').length"
    box = browser.find_element(By.CSS_SELECTOR, 'nav input[data-kind="entity"][data-type="Event"]')
    box.click()
    wait_for(lambda: browser.execute_script(shown_events) == 0, "the events to hide")
    assert browser.execute_script("return kgview.cy.nodes(':visible').length") > 0
    box.click()
    wait_for(lambda: browser.execute_script(shown_events) > 0, "the events to come back")
    slide_to(browser, 1)
    browser.find_element(By.ID, "play").click()
    wait_for(lambda: browser.execute_script("return kgview.scene") >= 3, "the story to play on")
    browser.find_element(By.ID, "play").click()
    assert console_errors(browser) == []


def test_what_the_library_reports_shown_follows_every_scene_at_once(browser, example_build):
    """No frame is drawn between the moves: ':visible' must not lag behind the slider."""
    graph = load(browser, example_build)
    last = browser.execute_script("return Number(document.getElementById('scene').max)")
    shown = browser.execute_script("""
        const out = {};
        for (let n = 1; n <= arguments[0]; n += 1) {
          kgview.setScene(n);
          out[n] = kgview.cy.nodes(':visible').map(x => x.id());
        }
        return out;""", last)
    assert len(shown) == last >= 90
    for scene, ids in shown.items():
        assert set(ids) == expected_nodes(graph, int(scene)), scene
