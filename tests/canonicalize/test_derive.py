"""Derived whereabouts: who is where and when because of the events they take part in."""

from kgbuild.canonicalize.derive import derive_whereabouts, on_screen_speakers
from kgbuild.graph import relation_id
from kgbuild.model import Entity, Evidence, KnowledgeGraph, MovieInfo, Relation
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema
from tests import factories

SCRIPT = """\
Title: Derive

INT. KITCHEN - NIGHT

Anna slams the door on Ben. Carl waits outside. The radio plays.

BEN
Anna, please.

CARL (V.O.)
I told you she would.

DORA (O.S.)
Who's there?

INT. HALL - DAY

Ben is alone.
"""


# Every fact of these graphs comes from the model's extraction, with a quote of its first scene.


def ev(scene: int, quote: str) -> Evidence:
    return factories.ev(scene, quote, lines=(5, 5), producer="llm:m/extract@4")


def ent(type_: str, name: str, scenes=(1,), aliases=()) -> Entity:
    return factories.ent(type_, name, scenes=scenes, aliases=aliases, evidence=[ev(scenes[0], f"{name}.")])


def rel(s: Entity, type_: str, o: Entity) -> Relation:
    return factories.rel(s, type_, o, scenes=[1], evidence=[ev(1, f"{s.name} {type_} {o.name}")])


ANNA = ent("Character", "Anna Berg", aliases=["ANNA"])
BEN = ent("Character", "Ben", aliases=["BEN"])
CARL = ent("Character", "Carl", aliases=["CARL"])
DORA = ent("Character", "Dora", aliases=["DORA"])
RADIO = ent("Object", "Radio")
GUILD = ent("Concept", "Thieves Guild")
KITCHEN = ent("Location", "Kitchen")
NIGHT_1999 = ent("TimePoint", "1999")
SLAM = ent("Event", "Anna slams the door on Ben")


def story(*relations: Relation) -> KnowledgeGraph:
    return KnowledgeGraph(movie=MovieInfo(title="Derive", language="en"),
                          entities=[ANNA, BEN, CARL, DORA, RADIO, GUILD, KITCHEN, NIGHT_1999, SLAM],
                          relations=list(relations))


def test_performers_are_where_and_when_their_event_happens(tmp_path):
    script = tmp_path / "derive.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    screenplay = read_screenplay(script)
    place, time = rel(SLAM, "occurs_at", KITCHEN), rel(SLAM, "occurs_on", NIGHT_1999)
    performs = rel(ANNA, "performs", SLAM)
    graph, count = derive_whereabouts(story(performs, place, time), load_schema(), screenplay)
    derived = {(r.source, r.type, r.target): r for r in graph.relations if r.id not in {performs.id, place.id, time.id}}
    assert set(derived) == {(ANNA.id, "located_at", KITCHEN.id), (ANNA.id, "present_on", NIGHT_1999.id)}
    located = derived[(ANNA.id, "located_at", KITCHEN.id)]
    assert [e.producer for e in located.evidence] == [f"derived:{performs.id}", f"derived:{place.id}"]
    assert [e.quote for e in located.evidence] == [performs.evidence[0].quote, place.evidence[0].quote]
    assert located.scenes == SLAM.scenes and located.id == relation_id(ANNA.id, "located_at", KITCHEN.id)
    assert count.changed == {"located_at": 1, "present_on": 1}


def test_an_undergoer_counts_only_when_shown_speaking_in_the_scene(tmp_path):
    script = tmp_path / "derive.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    screenplay = read_screenplay(script)
    assert on_screen_speakers(screenplay)[1] == {"BEN"}  # CARL is V.O., DORA is O.S.
    place = rel(SLAM, "occurs_at", KITCHEN)
    undergo = [rel(x, "undergoes", SLAM) for x in (BEN, CARL, DORA, RADIO)]
    graph, _ = derive_whereabouts(story(place, *undergo), load_schema(), screenplay)
    located = {r.source for r in graph.relations if r.type == "located_at"}
    assert located == {BEN.id}
    graph, _ = derive_whereabouts(story(place, *undergo), load_schema(), None)
    assert not [r for r in graph.relations if r.type == "located_at"]


def test_stated_facts_are_kept_as_they_are_and_inadmissible_pairs_skipped():
    place = rel(SLAM, "occurs_at", KITCHEN)
    stated = rel(ANNA, "located_at", KITCHEN)
    group = rel(GUILD, "performs", SLAM)  # a Concept is never located_at in this schema
    graph, count = derive_whereabouts(story(rel(ANNA, "performs", SLAM), group, place, stated), load_schema())
    assert [r for r in graph.relations if r.type == "located_at"] == [stated]
    assert count.changed == {"already_stated": 1}
    assert load_schema().is_admissible("located_at", "Concept", "Location") is False


def test_a_time_only_said_in_dialogue_puts_nobody_there(tmp_path):
    script = tmp_path / "derive.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    screenplay = read_screenplay(script)
    said = next(el for el in screenplay.scenes[0].elements if el.text == "Anna, please.")
    performs, place = rel(ANNA, "performs", SLAM), rel(SLAM, "occurs_at", KITCHEN)
    time = rel(SLAM, "occurs_on", NIGHT_1999).model_copy(update={"evidence": [
        Evidence(scene=1, lines=(said.line_start, said.line_end), quote="Anna, please.", producer="llm:m/extract@4")]})
    graph, count = derive_whereabouts(story(performs, place, time), load_schema(), screenplay)
    assert {r.type for r in graph.relations} == {"performs", "occurs_at", "occurs_on", "located_at"}
    assert count.changed == {"located_at": 1, "time_only_said": 1}
