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


def _witnessed(graph: KnowledgeGraph, screenplay: Screenplay) -> set[tuple[str, str]]:
    derived, _ = derive_story(graph, load_schema(), screenplay)
    names = {e.id: e.name for e in derived.entities}
    return {(names[r.source], names[r.target]) for r in derived.relations if r.type == "witnesses"}


def test_who_witnesses_what_by_the_sentence_that_shows_them():
    witnessed = _witnessed(*_graph_and_screenplay())
    assert ("Nadia", "John brushes his teeth") not in witnessed  # only revealed after he opens the door
    assert ("Clara", "Anna hides the key") in witnessed  # a later sentence shows her watching
    assert ("Ben", "The sea rolls over the titles") not in witnessed  # the blackout came between
    assert {("Tom", "The gate opens"), ("Ben", "The gate opens")} <= witnessed  # both shown before it


def _talk() -> tuple[KnowledgeGraph, Screenplay]:
    A, C, D = ElementKind.ACTION, ElementKind.CHARACTER, ElementKind.DIALOGUE
    rows = [(A, "Lawyer, Cheng and Wang sit at the table.", None), (C, "LAWYER", "LAWYER"),
            (D, "We offer you compensation.", "LAWYER"), (C, "CHENG", "CHENG"),
            (D, "You want me to sell my son?", "CHENG"),
            (A, "王看着医药代表跑回公司。", None), (A, "吕受益接起电话。", None)]
    elements = [Element(kind=k, text=t, speaker=sp, line_start=40 + i, line_end=40 + i)
                for i, (k, t, sp) in enumerate(rows)]
    scene = Scene(index=2, heading="INT. OFFICE - DAY", elements=elements, line_span=(39, 50))
    screenplay = Screenplay(title="t", language="en", scenes=[scene],
                            source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    people = [Entity(id=f"character:{i}", name=n, type="Character", scenes=[2], aliases=[a])
              for i, (n, a) in enumerate([("Lawyer", "LAWYER"), ("Cheng", "CHENG"), ("Wang", "王"),
                                          ("医药代表", "医药代表"), ("吕受益", "吕受益")])]
    refuses = Entity(id="event:refuses", name="Cheng refuses the compensation", type="Event", scenes=[2], evidence=[
        Evidence(scene=2, lines=(44, 44), quote="You want me to sell my son?", producer="llm:test")])
    call = Entity(id="event:call", name="吕受益接电话", type="Event", scenes=[2], evidence=[
        Evidence(scene=2, lines=(46, 46), quote="吕受益接起电话。", producer="llm:test")])
    links = [Relation(id="rel:a", source="character:1", target="event:refuses", type="performs", scenes=[2]),
             Relation(id="rel:b", source="character:4", target="event:call", type="performs", scenes=[2])]
    return KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=[*people, refuses, call],
                          relations=links), screenplay


def test_the_one_spoken_with_is_no_bystander_and_who_leaves_is_gone():
    witnessed = _witnessed(*_talk())
    assert ("Wang", "Cheng refuses the compensation") in witnessed  # at the table, not in the exchange
    assert ("Lawyer", "Cheng refuses the compensation") not in witnessed  # the refusal answers his offer
    assert ("医药代表", "吕受益接电话") not in witnessed  # '跑回公司': he left before the call
    assert ("Wang", "吕受益接电话") in witnessed  # '王看着…': he watched the rep go; he did not leave


def test_a_voice_over_has_no_bystanders():
    A, C, D = ElementKind.ACTION, ElementKind.CHARACTER, ElementKind.DIALOGUE
    rows = [(A, "Two removal men carry a bed into the house.", None, ()), (C, "JOHN (V.O.)", "JOHN", ("V.O.",)),
            (D, "I want a partner who is kind.", "JOHN", ()), (C, "JOHN", "JOHN", ()),
            (D, "Mind the door.", "JOHN", ())]
    elements = [Element(kind=k, text=t, speaker=sp, extensions=list(ext), line_start=60 + i, line_end=60 + i)
                for i, (k, t, sp, ext) in enumerate(rows)]
    scene = Scene(index=3, heading="EXT. STREET - DAY", elements=elements, line_span=(59, 70))
    screenplay = Screenplay(title="t", language="en", scenes=[scene],
                            source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    people = [Entity(id="character:john", name="John", type="Character", scenes=[3], aliases=["JOHN"]),
              Entity(id="character:men", name="removal men", type="Character", scenes=[3])]
    said = [Entity(id=f"event:{key}", name=title, type="Event", scenes=[3], evidence=[
        Evidence(scene=3, lines=(line, line), quote=quote, producer="llm:test")])
        for key, title, line, quote in [("wish", "John describes the partner he wants", 62,
                                         "I want a partner who is kind."),
                                        ("warn", "John warns the men about the door", 64, "Mind the door.")]]
    links = [Relation(id=f"rel:{e.id}", source="character:john", target=e.id, type="performs", scenes=[3])
             for e in said]
    witnessed = _witnessed(KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=[*people, *said],
                                          relations=links), screenplay)
    assert ("removal men", "John describes the partner he wants") not in witnessed  # said in voice-over
    assert ("removal men", "John warns the men about the door") in witnessed  # said in the street
