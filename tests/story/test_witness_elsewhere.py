"""Who witnesses an event: not one the action shows at another place ('OUTSIDE - ...'), nor one
asleep, unconscious or dead, nor one the event's own sentence has in the act ('... from Danny's
pocket'), nor one only asked about ('Where is Mark?')."""

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

CAST = ["Nora", "Clara", "Owen", "Mark", "Ruth"]


def _witnessed(paragraphs: list[str], events: list[tuple[str, str, str, str, str]],
               heading: str = "INT. KITCHEN - NIGHT") -> set[tuple[str, str]]:
    """Witnesses of `events` (title, the quote that places it, performer, verb, the thing it is
    done to) in one scene made of `paragraphs`."""
    elements = [Element(kind=ElementKind.ACTION, text=text, line_start=10 + 5 * i, line_end=11 + 5 * i)
                for i, text in enumerate(paragraphs)]
    scene = Scene(index=1, heading=heading, int_ext=heading[:3], location=[heading[5:].split(" - ")[0]],
                  elements=elements, line_span=(9, 10 + 5 * len(paragraphs)))
    screenplay = Screenplay(title="t", language="en", scenes=[scene],
                            source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    entities: list[Entity] = [Entity(id=f"character:{n.lower()}", name=n, type="Character", scenes=[1]) for n in CAST]
    links = []
    for i, (title, quote, performer, verb, thing) in enumerate(events):
        line = next(10 + 5 * j for j, text in enumerate(paragraphs) if quote in text)
        ev = Evidence(scene=1, lines=(line, line + 1), quote=quote, producer="llm:test")
        event = Entity(id=f"event:{i}", name=title, type="Event", scenes=[1], evidence=[ev])
        obj = Entity(id=f"object:{thing}", name=thing, type="Object", scenes=[1], evidence=[ev])
        entities += [event, obj]
        links += [Relation(id=f"rel:p{i}", source=f"character:{performer.lower()}", target=event.id,
                           type="performs", name=verb, scenes=[1], evidence=[ev]),
                  Relation(id=f"rel:u{i}", source=obj.id, target=event.id, type="undergoes", scenes=[1],
                           evidence=[ev])]
    graph = KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=entities, relations=links)
    derived, _ = derive_story(graph, load_schema(), screenplay)
    names = {e.id: e.name for e in derived.entities}
    return {(names[r.source], names[r.target]) for r in derived.relations if r.type == "witnesses"}


def test_who_is_shown_elsewhere_or_asleep_witnesses_nothing_there():
    paragraphs = [
        "Nora, Clara, Owen and Ruth sit at the table.",
        "Ruth lies unconscious on the floor. OUTSIDE - Owen waits by the car.",
        "Nora opens the drawer. Where is Mark?",
    ]
    witnessed = _witnessed(paragraphs, [("Nora opens the drawer", "Nora opens the drawer.", "Nora", "opens",
                                         "drawer")])
    assert ("Clara", "Nora opens the drawer") in witnessed
    assert ("Owen", "Nora opens the drawer") not in witnessed  # outside by the car
    assert ("Ruth", "Nora opens the drawer") not in witnessed  # unconscious
    assert ("Mark", "Nora opens the drawer") not in witnessed  # only asked about


def test_who_the_events_sentence_has_in_the_act_is_no_bystander():
    paragraphs = ["Nora, Clara, Ruth and Owen stand by the car.",
                  "Nora pulls a bag from Owen's pocket.",
                  "As Clara watches, Nora drops the bag.",
                  "Nora opens the bag, Clara flips through a book.",
                  "Nora hands the bag to Ruth and Owen."]
    events = [("Nora pulls a bag", "Nora pulls a bag from Owen's pocket.", "Nora", "pulls", "bag"),
              ("Nora drops the bag", "As Clara watches, Nora drops the bag.", "Nora", "drops", "bag"),
              ("Nora opens the bag", "Nora opens the bag, Clara flips through a book.", "Nora", "opens", "bag"),
              ("Nora hands the bag", "Nora hands the bag to Ruth and Owen.", "Nora", "hands", "bag")]
    witnessed = _witnessed(paragraphs, events)
    assert ("Owen", "Nora pulls a bag") not in witnessed and ("Clara", "Nora pulls a bag") in witnessed
    assert ("Clara", "Nora drops the bag") in witnessed and ("Owen", "Nora drops the bag") in witnessed
    assert ("Clara", "Nora opens the bag") in witnessed  # her own clause: a bystander
    assert ("Owen", "Nora hands the bag") not in witnessed and ("Ruth", "Nora hands the bag") not in witnessed
