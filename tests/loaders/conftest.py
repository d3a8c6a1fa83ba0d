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
from kgbuild.graph import entity_id, relation_id
from kgbuild.model import (
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Persistence,
    Relation,
    Scope,
)
from tests.conftest import SHARED_DATA
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


def _evidence(scene: int, lines: tuple[int, int] | None, quote: str,
              producer: str = "rule:test") -> Evidence:
    return Evidence(scene=scene, lines=lines, quote=quote, producer=producer)


#: Margo's evidence: two items, the second from a format-1 file (no line numbers).
MARGO_EVIDENCE = [
    _evidence(1, (12, 13), "MARGO VANCE (40s), a harbour pilot, steps off the launch.",
              "rule:character_introduction"),
    _evidence(2, None, "Margo, you're late.", "migrated:kgbuild.graph/1"),
]
#: The evidence of Margo's threat to Rook.
THREAT_EVIDENCE = [
    _evidence(2, (40, 40), "Touch my boat again and you'll swim home.", "llm:test-model/relations@1"),
    _evidence(3, (88, 90), "Margo shoves Rook against the rail.", "rule:hostile_act"),
]


def _entity(type_name: str, name: str, scenes: list[int], **extra) -> Entity:
    return Entity(id=entity_id(type_name, name), name=name, type=type_name, scenes=scenes, **extra)


def _relation(source: Entity, rel_type: str, target: Entity, scenes: list[int], **extra) -> Relation:
    return Relation(id=relation_id(source.id, rel_type, target.id), source=source.id,
                    target=target.id, type=rel_type, scenes=scenes, **extra)


def make_small_graph(title: str = "The Harbour") -> KnowledgeGraph:
    """A small story with every kind of relation the example queries ask about."""
    margo = _entity("Character", "Margo Vance", [1, 2, 3], description="A harbour pilot.",
                    aliases=["Margo"], scope=Scope.GLOBAL, evidence=MARGO_EVIDENCE)
    teddy = _entity("Character", "Teddy Brake", [1, 3], description="Margo's brother.")
    rook = _entity("Character", "Rook", [2, 3])
    dock = _entity("Location", "Dock Nine", [1, 3],
                   evidence=[_evidence(1, (10, 10), "EXT. DOCK NINE - NIGHT", "rule:scene_heading")])
    office = _entity("Location", "Harbour Office", [2])
    night = _entity("TimePoint", "Night", [3])
    radio = _entity("Object", "Radio", [1, 2], description="A battered handheld radio.")
    key = _entity("Object", "Brass Key", [3])
    guild = _entity("Concept", "Pilots' Guild", [2])
    storm = _entity("Event", "Storm hits the dock", [3])
    entities = [margo, teddy, rook, dock, office, night, radio, key, guild, storm]
    relations = [
        _relation(margo, "kinship_with", teddy, [1], persistence=Persistence.STABLE),
        _relation(margo, "hostility_with", rook, [2, 3], name="threatens", evidence=THREAT_EVIDENCE),
        _relation(teddy, "hostility_with", rook, [3]),
        _relation(margo, "located_at", dock, [1, 3],
                  evidence=[_evidence(1, (12, 13), "MARGO VANCE (40s), a harbour pilot, steps off "
                                      "the launch.", "rule:presence")]),
        _relation(margo, "located_at", office, [2]),
        _relation(margo, "present_on", night, [3]),
        _relation(teddy, "located_at", dock, [1]),
        _relation(margo, "possesses", radio, [1, 2]),
        _relation(margo, "possesses", key, [3]),
        _relation(rook, "possesses", key, []),
        _relation(margo, "member_of", guild, [2]),
        _relation(margo, "speaks_to", teddy, [1]),
        _relation(margo, "performs", storm, [3]),
        _relation(storm, "occurs_at", dock, [3]),
        _relation(radio, "located_at", office, [2]),
    ]
    return KnowledgeGraph(movie=MovieInfo(title=title, language="en", scenes=3),
                          entities=entities, relations=relations)


def make_hostile_graph(title: str = "Robert'); DROP TABLE movies;--") -> KnowledgeGraph:
    """Names that break string-built Cypher, plus types the schema does not know or admit."""
    people = [Entity(id=f"character:{i}:{name}", name=name, type="Character", scenes=[i + 1],
                     description=f"said: {name}", aliases=[name, "a;b", "semi;colon"],
                     evidence=[_evidence(i + 1, (i + 1, i + 2), f"{name} says: {name}",
                                         f"rule:{name}")])
              for i, name in enumerate(HOSTILE_NAMES)]
    place = _entity("Location", "'}) DETACH DELETE (n", [1])
    rogue = Entity(id="rogue:1", name="Rogue", type="Character) DETACH DELETE (n //", scenes=[1])
    relations = [
        _relation(people[0], "hostility_with", people[1], [1],
                  evidence=[_evidence(1, None, HOSTILE_NAMES[1], HOSTILE_NAMES[2])]),
        _relation(people[2], "kinship_with", people[3], [2]),
        _relation(people[4], "located_at", place, [1]),
        _relation(people[0], "loves", people[1], [1]),  # unknown relation type
        _relation(people[1], "]->() DETACH DELETE n //", people[2], [1]),  # unknown, hostile
        _relation(place, "kinship_with", people[0], [1]),  # Location-Character not admitted
        _relation(people[5], "speaks_to", rogue, [1]),  # end entity refused
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
