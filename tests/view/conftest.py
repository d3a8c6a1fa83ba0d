"""Fixtures of the view tests: small graphs, the bundled example and STAGE movies built into
pages, a generated 2,000-entity graph's page, and one headless Chromium for every browser test."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgbuild
from kgbuild.evaluation.reference import load_stage_movie
from kgbuild.graph import save_graph
from kgbuild.model import (
    Element,
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Relation,
    Scene,
    Screenplay,
    Source,
)
from kgbuild.readers import read_screenplay
from kgbuild.view import write_view
from kgbuild.view.browser import BrowserMissingError, find_chromium, headless_chromium
from tests.factories import ev, story_graph

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "lizard-people.fountain"
#: The embedding cache the tests share (as in tests/test_api.py): warm after the first run.
CACHE = Path("/tmp/kgcache")


def _evidence(scene: int, quote: str) -> list[Evidence]:
    return [ev(scene, quote, lines=(scene * 10, scene * 10))]


def small_story() -> tuple[KnowledgeGraph, Screenplay]:
    """Four scenes: Anna (alias Annie, 3 speeches), Ben (1 speech), a kitchen, a knife, and an
    event; one relation per scene from scene 1 to 4."""
    def cue(name: str) -> Element:
        return Element(kind="character", text=name, line_start=1, line_end=1, speaker=name)

    scenes = [Scene(index=i, heading=h, line_span=(i * 10 - 5, i * 10 + 4),
                    elements=[cue(s) for s in speakers])
              for i, h, speakers in [(1, "INT. KITCHEN - NIGHT", ["ANNA", "BEN"]), (2, "EXT. PIER - DAY", ["ANNIE"]),
                                     (3, "INT. KITCHEN - LATER", ["ANNA"]), (4, "EXT. ROAD - DAWN", [])]]
    screenplay = Screenplay(title="Small Story", language="en", scenes=scenes,
                            source=Source(path="small.fountain", format="fountain", sha256="abc", size_bytes=1))
    entities = [
        Entity(id="character:anna", name="Anna", type="Character", aliases=["Annie"], scenes=[1, 2, 3],
               description="A cook.", evidence=_evidence(1, "ANNA enters.")),
        Entity(id="character:ben", name="Ben", type="Character", scenes=[1, 4], evidence=_evidence(1, "BEN waits.")),
        Entity(id="location:kitchen", name="Kitchen", type="Location", scenes=[1, 3],
               evidence=_evidence(1, "INT. KITCHEN")),
        Entity(id="object:knife", name="Knife", type="Object", scenes=[3], evidence=_evidence(3, "a knife")),
        Entity(id="event:anna_hides_the_knife", name="Anna hides the knife", type="Event", scenes=[4],
               evidence=_evidence(4, "Anna hides the knife </script><script>window.pwned=1</script>")),
    ]
    relations = [
        Relation(id="rel:1", source="character:anna", target="character:ben", type="speaks_to", scenes=[1],
                 evidence=_evidence(1, "ANNA: Ben, sit.")),
        Relation(id="rel:2", source="character:anna", target="location:kitchen", type="located_at", scenes=[1, 3],
                 evidence=_evidence(1, "ANNA enters the kitchen.")),
        Relation(id="rel:3", source="character:anna", target="object:knife", type="possesses", scenes=[3],
                 evidence=_evidence(3, "Anna's knife")),
        Relation(id="rel:4", source="character:anna", target="event:anna_hides_the_knife", type="performs",
                 scenes=[4], evidence=_evidence(4, "Anna hides the knife")),
        Relation(id="rel:5", source="character:ben", target="character:anna", type="kinship_with", scenes=[2],
                 evidence=_evidence(2, "my sister")),
    ]
    graph = KnowledgeGraph(movie=MovieInfo(id="small", title="Small Story", language="en", source_sha256="abc",
                                           scenes=4),
                           entities=entities, relations=relations)
    return graph, screenplay


@pytest.fixture
def story() -> tuple[KnowledgeGraph, Screenplay]:
    """A small graph and its screenplay (see `small_story`)."""
    return small_story()


@pytest.fixture(scope="session")
def cache_env() -> Iterator[None]:
    """Builds in these tests use the shared embedding cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGBUILD_CACHE_DIR", str(CACHE))
        yield


@pytest.fixture(scope="session")
def example_build(tmp_path_factory, cache_env) -> Path:
    """The bundled example built offline; the build writes view.html."""
    outdir = tmp_path_factory.mktemp("example") / "lizard-people"
    kgbuild.build(EXAMPLE, outdir=outdir)
    return outdir


@pytest.fixture(scope="session")
def stage_build(tmp_path_factory, cache_env) -> Path:
    """The smallest English STAGE dev script built offline (its facts carry evidence)."""
    root = REPO.parent / "shared" / "data" / "stage" / "English"
    scripts = sorted(root.glob("*/script.json"), key=lambda p: (p.stat().st_size, p.parent.name))
    if not scripts:
        pytest.skip(f"../shared/data not found at {root}")
    outdir = tmp_path_factory.mktemp("stage") / scripts[0].parent.name
    kgbuild.build(scripts[0], outdir=outdir)
    return outdir


@pytest.fixture(scope="session")
def stage_reference(tmp_path_factory) -> Path:
    """The largest English STAGE dev reference graph (about 1,900 nodes, 5,200 relations) as a
    graph.json with the screenplay.json of its script, and its page."""
    from bench.store import biggest_movie
    from kgbuild.loaders.errors import StoreError

    try:
        movie = biggest_movie(REPO.parent / "shared" / "data" / "stage")
    except StoreError:
        pytest.skip("../shared/data/stage not found")
    graph, _, _ = load_stage_movie(movie)
    outdir = tmp_path_factory.mktemp("reference") / movie.name
    save_graph(graph, outdir / "graph.json")
    (outdir / "screenplay.json").write_text(read_screenplay(movie / "script.json").model_dump_json(),
                                            encoding="utf-8")
    write_view(outdir)
    return outdir


@pytest.fixture(scope="session")
def generated_build(tmp_path_factory) -> Path:
    """A folder with a generated graph of 2,000 entities (`tests.factories.story_graph`) and its page."""
    outdir = tmp_path_factory.mktemp("generated") / "generated"
    save_graph(story_graph(2000), outdir / "graph.json")
    write_view(outdir)
    return outdir


@pytest.fixture(scope="session")
def chromium_ready() -> None:
    """Skip, with the reason, when headless Chromium cannot run here (scripts/dev test installs it
    where it can); with CI=true a missing browser fails instead."""
    try:
        find_chromium()
        if importlib.util.find_spec("selenium") is None:
            raise BrowserMissingError("Selenium is not installed (pip install kgbuild[dev])")
    except BrowserMissingError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser tests cannot run: {e}")
        pytest.skip(f"browser tests need headless Chromium: {e}")


@pytest.fixture(scope="session")
def browser(chromium_ready):
    """One headless Chromium for the session."""
    with headless_chromium() as driver:
        yield driver
