"""Who witnesses an event: not one seen on a screen or said to be gone, nor anyone for an inner
state, an event done to people it does not name, or the one a thing is taken back from."""

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
    "Nora, Clara and Owen sit at the table. Mark leans by the door.",  # 10
    "CLOSE ON TV, Victor waves at the audience.",  # 15
    "Owen drops a spoon.",  # 20
    "Nora knows Mark is lying.",  # 25
    "Nora pulls the wires from between their heads.",  # 30
    "Clara tries to grab Nora's phone.",  # 35
    "A photo of Mark glows on the phone's screen.",  # 40
    "Nora grabs her phone back.",  # 45
    "Mark is gone. Owen opens the fridge.",  # 50
]
#: (event, the quote that places it, its performer, its verb, the thing it is done to)
EVENTS = [
    ("Owen drops a spoon", "Owen drops a spoon.", "Owen", "drops", "spoon"),
    ("Nora knows Mark", "Nora knows Mark is lying.", "Nora", "knows", None),
    ("Nora pulls the wires", "Nora pulls the wires from between their heads.", "Nora", "pulls", "wires"),
    ("Nora grabs the phone", "Nora grabs her phone back.", "Nora", "grabs", "phone"),
    ("Owen opens the fridge", "Owen opens the fridge.", "Owen", "opens", "fridge"),
]
CAST = ["Nora", "Clara", "Owen", "Mark", "Victor"]


def _witnessed(paragraphs: list[str] = PARAGRAPHS,
               events: list[tuple[str, str, str, str, str | None]] = EVENTS) -> set[tuple[str, str]]:
    elements = [Element(kind=ElementKind.ACTION, text=text, line_start=10 + 5 * i, line_end=11 + 5 * i)
                for i, text in enumerate(paragraphs)]
    scene = Scene(index=1, heading="INT. KITCHEN - NIGHT", elements=elements, line_span=(9, 50))
    screenplay = Screenplay(title="t", language="en", scenes=[scene],
                            source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    people = [Entity(id=f"character:{n.lower()}", name=n, type="Character", scenes=[1]) for n in CAST]
    entities, links = list(people), []
    for i, (title, quote, performer, verb, thing) in enumerate(events):
        line = next(10 + 5 * i for i, text in enumerate(paragraphs) if quote in text)
        ev = Evidence(scene=1, lines=(line, line + 1), quote=quote, producer="llm:test")
        event = Entity(id=f"event:{i}", name=title, type="Event", scenes=[1], evidence=[ev])
        entities.append(event)
        links.append(Relation(id=f"rel:p{i}", source=f"character:{performer.lower()}", target=event.id,
                              type="performs", name=verb, scenes=[1], evidence=[ev]))
        if thing is not None:
            obj = Entity(id=f"object:{thing}", name=thing, type="Object", scenes=[1], evidence=[ev])
            entities.append(obj)
            links.append(Relation(id=f"rel:u{i}", source=obj.id, target=event.id, type="undergoes", scenes=[1],
                                  evidence=[ev]))
    graph = KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=entities, relations=links)
    derived, _ = derive_story(graph, load_schema(), screenplay)
    names = {e.id: e.name for e in derived.entities}
    return {(names[r.source], names[r.target]) for r in derived.relations if r.type == "witnesses"}


def test_no_witness_on_a_screen_and_none_of_an_inner_state():
    witnessed = _witnessed()
    assert ("Clara", "Owen drops a spoon") in witnessed and ("Mark", "Owen drops a spoon") in witnessed
    assert ("Victor", "Owen drops a spoon") not in witnessed  # on the TV
    assert not {w for w in witnessed if w[1] == "Nora knows Mark"}  # an inner state: nothing to see


def test_no_bystander_for_people_unnamed_nor_for_the_one_a_thing_is_taken_from():
    witnessed = _witnessed()
    assert not {w for w in witnessed if w[1] == "Nora pulls the wires"}  # 'their heads': whose?
    assert ("Clara", "Nora grabs the phone") not in witnessed  # she had tried to grab it: taken back from her
    assert ("Owen", "Nora grabs the phone") in witnessed and ("Mark", "Nora grabs the phone") in witnessed
    # 'their' of the next clause points at those who act there, not at whom the event is done to.
    picnic = ["Nora, Clara and Owen sit on the grass.", "Nora lays her coat down and everyone dumps their food on it."]
    witnessed = _witnessed(picnic, [("Nora lays the coat", "Nora lays her coat down", "Nora", "lays", "coat")])
    assert ("Clara", "Nora lays the coat") in witnessed


def test_who_is_said_to_be_gone_witnesses_nothing_after():
    witnessed = _witnessed()
    assert ("Mark", "Owen opens the fridge") not in witnessed
    assert ("Clara", "Owen opens the fridge") in witnessed


def test_who_was_shown_before_a_cut_away_witnesses_nothing_in_it():
    paragraphs = ["Clara and Owen wait in the hall.", "(FLASHBACK)", "Nora drops a vase. Owen watches her."]
    witnessed = _witnessed(paragraphs, [("Nora drops a vase", "Nora drops a vase.", "Nora", "drops", "vase")])
    assert ("Clara", "Nora drops a vase") not in witnessed  # in the hall, not in the flashback
    assert ("Owen", "Nora drops a vase") in witnessed  # shown watching it
