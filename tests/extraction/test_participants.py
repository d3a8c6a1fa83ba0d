"""The participant check of grounding: do a fact's cited lines name or refer to who and what it is about?

`kgbuild.extraction.llm.grounding.refers_to` is a pure function of a participant (names, person or not,
description) and the cited lines with their scene; these tests pin its rules in English and
Chinese, then show what grounding does with lines that fail it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.extraction.llm.chunk_graph import build_chunk_graph
from kgbuild.extraction.llm.context import ChunkContext, SceneFacts
from kgbuild.extraction.llm.extract import ChunkOutcome, ChunkStatus, assemble
from kgbuild.extraction.llm.grounding import (
    NO_PARTICIPANT,
    CitedLines,
    Participant,
    cited_lines,
    in_scene,
    name_forms,
    refers_to,
    shows_participants,
)
from kgbuild.extraction.llm.responses import ExtractionResponse
from kgbuild.model import Element, ElementKind, Scene
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema
from tests.factories import answered_entity as entity

MARGO = Participant(names=("Margo Vance", "MARGO"))
MUSTANG = Participant(names=("Mustang",), person=False)
PIER = Participant(names=("Pier",), person=False)


def test_name_forms_are_names_aliases_words_and_chinese_character_runs():
    assert name_forms(["Jim Simmons", "the Boy Band"]) == ["Jim Simmons", "the Boy Band", "Jim", "Simmons", "Boy",
                                                           "Band"]
    assert name_forms(["Steel"]) == ["Steel"]  # one word: nothing more
    # Two characters running in a name of three or more, and the family name after 老, 小, 阿.
    assert name_forms(["刘思慧"]) == ["刘思慧", "刘思", "思慧", "老刘", "小刘", "阿刘"]
    assert name_forms(["程勇"]) == ["程勇", "老程", "小程", "阿程"]


def test_english_names_aliases_and_words_of_a_name():
    assert refers_to(MARGO, CitedLines("Margo guns the Mustang down the pier.")) == "name"
    assert refers_to(MARGO, CitedLines("MARGO waits under a lamp.")) == "name"  # an alias, any case
    assert refers_to(Participant(names=("Jim Simmons",)), CitedLines("The hunter Simmons shows his freezer.")) == "name"
    assert refers_to(MARGO, CitedLines("Margot is not Margo's sister.")) == "name"  # whole words: 'Margo's'
    assert refers_to(MARGO, CitedLines("Margot waits.")) is None  # 'Margot' is not 'Margo'


def test_the_speaker_of_a_speech_is_shown_by_it():
    speech = CitedLines("Told you. Easy money.", speaker="MARGO", scene="Margo cracks the safe. Told you.")
    assert refers_to(MARGO, speech) == "speaker"
    jamal = CitedLines("Uh, never mind. It's empty.", speaker="JAMAL", scene="Jamal shakes the canister.")
    assert refers_to(Participant(names=("Darth Vader", "Vader")), jamal) is None


def test_a_pronoun_counts_only_when_the_scene_names_the_participant():
    lines = "She floors it."
    scene = "Margo guns the Mustang down the pier. She floors it."
    assert refers_to(MARGO, CitedLines(lines, scene=scene)) == "pronoun"
    assert refers_to(MUSTANG, CitedLines(lines, scene=scene)) == "pronoun"  # 'it' for a thing
    # Nobody of that name in the scene (nor in the one before, which `cited_lines` adds): no reference.
    assert refers_to(MARGO, CitedLines(lines, scene="The engine roars. She floors it.")) is None
    # A person is not 'it', a thing is not 'she'.
    assert refers_to(MARGO, CitedLines("It stalls.", scene=scene)) is None
    assert refers_to(MUSTANG, CitedLines("She smiles.", scene=scene)) is None
    # A speaker heard in the scene counts as named there.
    assert refers_to(MARGO, CitedLines("He trusts her.", scene="Told you.", scene_speakers=("MARGO",))) == "pronoun"
    # 'you' in someone else's speech can stand for anyone else the scene has.
    spoken = CitedLines("You drive.", speaker="TEDDY", scene="Margo and Teddy run.", scene_speakers=("TEDDY",))
    assert refers_to(MARGO, spoken) == "pronoun"
    assert refers_to(Participant(names=("Teddy Brake", "TEDDY")), spoken) == "speaker"


def test_titles_refer_to_a_participant_whose_name_or_description_holds_one():
    doctor = Participant(names=("Bennett",), description="the family doctor")
    assert refers_to(doctor, CitedLines("The doctor closes his bag.")) == "title"
    assert refers_to(Participant(names=("Dr. Bennett",)), CitedLines("Thanks, doc.")) == "title"
    assert refers_to(Participant(names=("Bennett",), description="a neighbour"),
                     CitedLines("The doctor closes his bag.")) is None


def test_a_heading_names_places_not_people():
    heading = "INT. NADIA'S BEDROOM - DAY"
    room = Participant(names=("Nadia's bedroom",), person=False)
    nadia = Participant(names=("Nadia",))
    listing = CitedLines("Cigarette cartons, several lighters, a rucksack.", heading=heading, scene="He slips inside.")
    assert refers_to(room, listing) == "heading"
    assert refers_to(nadia, listing) is None
    assert refers_to(nadia, CitedLines(heading, heading=heading, is_heading=True)) is None
    assert refers_to(PIER, CitedLines("EXT. PIER - NIGHT", heading="EXT. PIER - NIGHT", is_heading=True)) == "name"


def test_chinese_pronouns_names_by_characters_and_titles():
    scene = "程勇给程小澍搓澡，劲儿有点大了，儿子喊疼。"
    son = Participant(names=("程小澍",), description="程勇的儿子")
    cheng = Participant(names=("程勇",))
    assert refers_to(son, CitedLines("他笑了。", scene=scene)) == "pronoun"
    assert refers_to(son, CitedLines("她笑了。", scene=scene)) == "pronoun"  # gender is not checked
    assert refers_to(son, CitedLines("他们都笑了。", scene=scene)) == "pronoun"
    assert refers_to(son, CitedLines("其他人都笑了。", scene=scene)) is None  # 其他 is 'the others'
    assert refers_to(son, CitedLines("他笑了。", scene="老板走进店里。")) is None  # nobody to stand for
    assert refers_to(cheng, CitedLines("老程把儿子送上车。")) == "name"  # the family name after 老
    assert refers_to(Participant(names=("刘思慧",)), CitedLines("思慧在台上跳舞。")) == "name"  # two characters
    assert refers_to(son, CitedLines("程勇把儿子送上车。")) == "title"  # 儿子, and his description says so
    assert refers_to(cheng, CitedLines("你别给我爸打电话", speaker="程勇", scene="")) == "speaker"
    doctor = Participant(names=("王主任",), description="医院的医生")
    assert refers_to(doctor, CitedLines("医生摇了摇头。")) == "title"


def test_an_event_needs_one_participant_shown_a_relation_each_end_in_the_scene():
    scene = CitedLines("She floors it.", scene="Margo guns the Mustang down the pier. She floors it.")
    vader = Participant(names=("Darth Vader", "Vader"))
    assert shows_participants([MARGO, vader], scene, every_in_scene=False)  # an event: one is enough
    assert not shows_participants([MARGO, vader], scene, every_in_scene=True)  # a relation: Vader is not there
    assert shows_participants([MARGO, MUSTANG], scene, every_in_scene=True)
    assert not shows_participants([vader], scene, every_in_scene=False)
    assert shows_participants([], scene, every_in_scene=True)  # nothing to check
    assert in_scene(PIER, CitedLines("", heading="EXT. PIER - NIGHT"))


def test_cited_lines_of_an_element_know_its_speaker_heading_and_the_scene_before():
    before = Scene(index=1, heading="INT. LANDING - DAY", line_span=(1, 2), elements=[
        Element(kind=ElementKind.ACTION, text="John stands at the bathroom door.", line_start=2, line_end=2)])
    action = Element(kind=ElementKind.ACTION, text="He slips inside.", line_start=5, line_end=5)
    speech = Element(kind=ElementKind.DIALOGUE, text="Nobody here.", line_start=7, line_end=7, speaker="JOHN")
    room = Scene(index=2, heading="INT. NADIA'S BEDROOM - DAY", line_span=(4, 7), elements=[
        Element(kind=ElementKind.SCENE_HEADING, text="INT. NADIA'S BEDROOM - DAY", line_start=4, line_end=4),
        action,
        Element(kind=ElementKind.CHARACTER, text="JOHN", line_start=6, line_end=6, speaker="JOHN"),
        speech])
    cited = cited_lines(room, action, before)
    assert (cited.text, cited.speaker, cited.heading) == ("He slips inside.", None, "INT. NADIA'S BEDROOM - DAY")
    assert refers_to(Participant(names=("John",)), cited) == "pronoun"  # John is named the scene before
    assert refers_to(Participant(names=("John",)), cited_lines(room, action)) == "pronoun"  # and heard here
    assert cited_lines(room, speech).speaker == "JOHN"


# -- what grounding does with lines that show no participant ------------------------------------

SCHEMA = load_schema()
SAFE_JOB = read_screenplay(Path(__file__).resolve().parent.parent / "fixtures" / "llm" / "safe_job.fountain")
CONTEXT = ChunkContext(
    chunk_id="scenes_3_4",
    scenes=[SceneFacts(index=3, number=None, heading="INT. HARBOUR OFFICE - NIGHT", location=["HARBOUR OFFICE"],
                       time_of_day="NIGHT", speakers=["MARGO"]),
            SceneFacts(index=4, number=None, heading="EXT. PIER - NIGHT", location=["PIER"],
                       time_of_day="NIGHT", speakers=[])],
    known_speakers=["MARGO"], passage="(not read by these tests)")


def _assemble(answer: dict):
    graph = build_chunk_graph(ExtractionResponse.model_validate(answer), CONTEXT, SCHEMA)
    outcome = ChunkOutcome(chunk_id=CONTEXT.chunk_id, scenes=[3, 4], status=ChunkStatus.ACCEPTED, graph=graph)
    return assemble(SAFE_JOB, [outcome], version="9.9", model="test-model")


@pytest.mark.parametrize("scene", [3, 4])
def test_an_invented_event_citing_a_real_line_is_dropped_with_its_reason(scene):
    # 'Told you. Easy money.' matches the event's words, and is Margo's line, not Vader's.
    answer = {"events": [{"name": "Vader destroys Alderaan", "description": "Vader says told you, easy money.",
                          "scene": scene, "links": [{"relation": "performs", "entity": "Vader"}]}],
              "entities": [entity("Darth Vader", "Character", [scene], ["Vader"]), entity("Margo", "Character", [3])],
              "relations": [{"source": "Vader", "type": "hostility_with", "target": "Margo", "verb": "",
                             "persistence": "momentary", "evidence": "Told you. Easy money."}]}
    assembly = _assemble(answer)
    names = {e.name for e in assembly.graph.entities}
    assert "Vader destroys Alderaan" not in names and "Darth Vader" not in names and "Margo" in names
    assert assembly.graph.relations == []
    if scene == 3:  # the line matched, but shows nobody of the event
        assert assembly.ungrounded.reasons[NO_PARTICIPANT] == 1
        assert f"Event 'Vader destroys Alderaan' (scenes 3): {NO_PARTICIPANT}" in assembly.ungrounded.examples


def test_a_relation_quote_in_lines_showing_no_end_falls_back_to_a_line_naming_both():
    answer = {"events": [], "entities": [entity("Margo", "Character", [3]), entity("the safe", "Object", [3])],
              "relations": [{"source": "Margo", "type": "interacts_with", "target": "the safe", "verb": "",
                             "persistence": "momentary", "evidence": "Teddy keeps watch at the door."}]}
    [rel] = _assemble(answer).graph.relations
    # Teddy's line shows neither Margo nor the safe: the sentence naming both is cited instead.
    assert [ev.quote for ev in rel.evidence] == ["Margo kneels at the safe and spins the dial."]
