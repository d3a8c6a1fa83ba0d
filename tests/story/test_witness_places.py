"""Witnesses placed by sentence within a long action paragraph, and a blackout ending who is on screen."""

from __future__ import annotations

from canonicalize.story_facts import derive_story
from kgbuild.model import (
    Element,
    ElementKind,
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Relation,
    Scene,
    Screenplay,
    Source,
    SourceFormat,
)
from kgbuild.schema import load_schema

PARAGRAPHS = [
    "John brushes his teeth, staring at his reflection. He opens the door. Nadia is standing outside.",
    "Anna hides the key in a drawer. Clara watches her.",
    "Ben sits at his desk and types. Blackout. Music. Footage of the sea rolls over the titles.",
    "Tom waits at the gate. Ben stands beside him. The gate opens.",
]
#: (event, the quote that places it, its performer)
EVENTS = [
    ("John brushes his teeth", "John brushes his teeth, staring at his reflection.", "John"),
    ("Anna hides the key", "Anna hides the key in a drawer.", "Anna"),
    ("The sea rolls over the titles", "Footage of the sea rolls over the titles.", None),
    ("The gate opens", "The gate opens.", None),
]
CAST = ["John", "Nadia", "Anna", "Clara", "Ben", "Tom"]


def _graph_and_screenplay() -> tuple[KnowledgeGraph, Screenplay]:
    elements = [Element(kind=ElementKind.ACTION, text=text, line_start=10 + 5 * i, line_end=12 + 5 * i)
                for i, text in enumerate(PARAGRAPHS)]
    scene = Scene(index=1, heading="INT. HOUSE - NIGHT", elements=elements, line_span=(9, 30))
    screenplay = Screenplay(title="t", language="en", scenes=[scene],
                            source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    people = [Entity(id=f"character:{n.lower()}", name=n, type="Character", scenes=[1]) for n in CAST]
    events, links = [], []
    for i, (title, quote, performer) in enumerate(EVENTS):
        ev = Evidence(scene=1, lines=(10 + 5 * i, 12 + 5 * i), quote=quote, producer="llm:test")
        event = Entity(id=f"event:{i}", name=title, type="Event", scenes=[1], evidence=[ev])
        events.append(event)
        if performer is not None:
            links.append(Relation(id=f"rel:{i}", source=f"character:{performer.lower()}", target=event.id,
                                  type="performs", scenes=[1], evidence=[ev]))
    return KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=[*people, *events],
                          relations=links), screenplay


def test_who_witnesses_what_by_the_sentence_that_shows_them():
    graph, screenplay = _graph_and_screenplay()
    derived, _ = derive_story(graph, load_schema(), screenplay)
    names = {e.id: e.name for e in derived.entities}
    witnessed = {(names[r.source], names[r.target]) for r in derived.relations if r.type == "witnesses"}
    assert ("Nadia", "John brushes his teeth") not in witnessed  # only revealed after he opens the door
    assert ("Clara", "Anna hides the key") in witnessed  # a later sentence shows her watching
    assert ("Ben", "The sea rolls over the titles") not in witnessed  # the blackout came between
    assert {("Tom", "The gate opens"), ("Ben", "The gate opens")} <= witnessed  # both shown before it
