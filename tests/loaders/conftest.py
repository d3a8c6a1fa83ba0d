"""Graphs for the store tests (a small story, a hostile one, a real STAGE reference graph) and
the Bolt servers they run against (a FalkorDB started per test; Neo4j when NEO4J_URI is set).

The small and hostile graphs carry evidence (with and without line numbers, several items on one
fact, none on others) so every store and export is checked to keep it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgbuild.evaluation.reference import load_stage_movie
from kgbuild.model import (
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Persistence,
    Scope,
)
from tests.conftest import SHARED_DATA
from tests.factories import ent, ev, rel
from tests.loaders.bolt_server import BoltTarget, FalkorServer, neo4j_target

#: The smallest English STAGE movie: a real reference graph (~1,000 nodes, ~2,800 relations).
STAGE_MOVIE = "en13156e4072c04c31ae4b5defda4a7bc5"

HOSTILE_NAMES = [
    "O'Brien \"the `Hammer`\"",
    "'}) DETACH DELETE (n",
    "\"}) MATCH (m) DETACH DELETE m //",
    "Zoë 🦎 名前",
    "back\\slash\\",
    "line\nbreak\ttab",
    "`Character`",
]


#: Margo's evidence: two items, the second from a format-1 file (no line numbers).
MARGO_EVIDENCE = [
    ev(1, "MARGO VANCE (40s), a harbour pilot, steps off the launch.", lines=(12, 13),
       producer="rule:character_introduction"),
    Evidence(scene=2, lines=None, quote="Margo, you're late.", producer="migrated:kgbuild.graph/1"),
]
#: The evidence of Margo's threat to Rook.
THREAT_EVIDENCE = [
    ev(2, "Touch my boat again and you'll swim home.", lines=(40, 40), producer="llm:test-model/relations@1"),
    ev(3, "Margo shoves Rook against the rail.", lines=(88, 90), producer="rule:hostile_act"),
]


def make_small_graph(title: str = "The Harbour") -> KnowledgeGraph:
    """A small story with every kind of relation the example queries ask about."""
    margo = ent("Character", "Margo Vance", scenes=[1, 2, 3], description="A harbour pilot.",
                aliases=["Margo"], scope=Scope.GLOBAL, evidence=MARGO_EVIDENCE)
    teddy = ent("Character", "Teddy Brake", scenes=[1, 3], description="Margo's brother.")
    rook = ent("Character", "Rook", scenes=[2, 3])
    dock = ent("Location", "Dock Nine", scenes=[1, 3],
               evidence=[ev(1, "EXT. DOCK NINE - NIGHT", lines=(10, 10), producer="rule:scene_heading")])
    office = ent("Location", "Harbour Office", scenes=[2])
    night = ent("TimePoint", "Night", scenes=[3])
    radio = ent("Object", "Radio", scenes=[1, 2], description="A battered handheld radio.")
    key = ent("Object", "Brass Key", scenes=[3])
    guild = ent("Concept", "Pilots' Guild", scenes=[2])
    storm = ent("Event", "Storm hits the dock", scenes=[3])
    entities = [margo, teddy, rook, dock, office, night, radio, key, guild, storm]
    relations = [
        rel(margo, "kinship_with", teddy, scenes=[1], persistence=Persistence.STABLE),
        rel(margo, "hostility_with", rook, scenes=[2, 3], name="threatens", evidence=THREAT_EVIDENCE),
        rel(teddy, "hostility_with", rook, scenes=[3]),
        rel(margo, "located_at", dock, scenes=[1, 3],
            evidence=[ev(1, "MARGO VANCE (40s), a harbour pilot, steps off the launch.", lines=(12, 13),
                         producer="rule:presence")]),
        rel(margo, "located_at", office, scenes=[2]),
        rel(margo, "present_on", night, scenes=[3]),
        rel(teddy, "located_at", dock, scenes=[1]),
        rel(margo, "possesses", radio, scenes=[1, 2]),
        rel(margo, "possesses", key, scenes=[3]),
        rel(rook, "possesses", key, scenes=[]),
        rel(margo, "member_of", guild, scenes=[2]),
        rel(margo, "speaks_to", teddy, scenes=[1]),
        rel(margo, "performs", storm, scenes=[3]),
        rel(storm, "occurs_at", dock, scenes=[3]),
        rel(radio, "located_at", office, scenes=[2]),
    ]
    return KnowledgeGraph(movie=MovieInfo(title=title, language="en", scenes=3),
                          entities=entities, relations=relations)


def make_hostile_graph(title: str = "Robert'); DROP TABLE movies;--") -> KnowledgeGraph:
    """Names that break string-built Cypher, plus types the schema does not know or admit."""
    people = [Entity(id=f"character:{i}:{name}", name=name, type="Character", scenes=[i + 1],
                     description=f"said: {name}", aliases=[name, "a;b", "semi;colon"],
                     evidence=[ev(i + 1, f"{name} says: {name}", lines=(i + 1, i + 2), producer=f"rule:{name}")])
              for i, name in enumerate(HOSTILE_NAMES)]
    place = ent("Location", "'}) DETACH DELETE (n", scenes=[1])
    rogue = Entity(id="rogue:1", name="Rogue", type="Character) DETACH DELETE (n //", scenes=[1])
    relations = [
        rel(people[0], "hostility_with", people[1], scenes=[1],
            evidence=[Evidence(scene=1, lines=None, quote=HOSTILE_NAMES[1], producer=HOSTILE_NAMES[2])]),
        rel(people[2], "kinship_with", people[3], scenes=[2]),
        rel(people[4], "located_at", place, scenes=[1]),
        rel(people[0], "loves", people[1], scenes=[1]),  # unknown relation type
        rel(people[1], "]->() DETACH DELETE n //", people[2], scenes=[1]),  # unknown, hostile
        rel(place, "kinship_with", people[0], scenes=[1]),  # Location-Character not admitted
        rel(people[5], "speaks_to", rogue, scenes=[1]),  # end entity refused
    ]
    return KnowledgeGraph(movie=MovieInfo(title=title, language="en", scenes=7),
                          entities=[*people, place, rogue], relations=relations)


@pytest.fixture
def small_graph() -> KnowledgeGraph:
    return make_small_graph()


@pytest.fixture
def hostile_graph() -> KnowledgeGraph:
    return make_hostile_graph()


@pytest.fixture(scope="session")
def stage_graph() -> KnowledgeGraph:
    """A real graph: the STAGE reference graph of a dev movie (needs ../shared/data)."""
    folder = SHARED_DATA / "stage" / "English" / STAGE_MOVIE
    if not folder.is_dir():
        pytest.skip(f"STAGE reference {folder} not found (../shared/data is missing)")
    graph, _, _ = load_stage_movie(folder)
    return graph


@pytest.fixture(scope="session")
def stage_store(stage_graph: KnowledgeGraph, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The STAGE graph loaded into a fresh embedded store, shared by read-only tests."""
    from kgbuild.loaders.embedded import write_embedded

    path = tmp_path_factory.mktemp("stage-store") / "graph.lbdb"
    write_embedded(stage_graph, path)
    return path


@pytest.fixture(scope="session")
def story_graph() -> KnowledgeGraph:
    """The offline build of the story-time fixture (tests/fixtures/story/vase.fountain): a graph
    with a scene layer, witnesses and what characters are told."""
    from kgbuild.pipeline import run_build

    return run_build(Path(__file__).resolve().parents[1] / "fixtures" / "story" / "vase.fountain").graph


@pytest.fixture
def falkordb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorServer]:
    """A FalkorDB server with Bolt on free loopback ports, stopped after the test (never skipped)."""
    server = FalkorServer(tmp_path_factory.mktemp("falkordb")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=[pytest.param("falkordb", marks=pytest.mark.bolt),
                        pytest.param("neo4j", marks=pytest.mark.bolt)])
def bolt(request: pytest.FixtureRequest) -> BoltTarget:
    """Each Bolt server in turn: a FalkorDB started for the test, then Neo4j when NEO4J_URI is set."""
    if request.param == "neo4j":
        return neo4j_target()
    server = request.getfixturevalue("falkordb")
    return BoltTarget(kind="falkordb", uri=server.uri, user="neo4j", password="", falkor=server)
