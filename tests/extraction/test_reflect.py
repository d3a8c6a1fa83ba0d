"""Deterministic checks, the reflection call, and acceptance (STAGE app. C.3)."""

from __future__ import annotations

import asyncio
import json

import pytest

from kgbuild.extraction.llm.context import ChunkContext, SceneFacts
from kgbuild.extraction.llm.reflect import assess, check_extraction, reflect, render_extraction
from kgbuild.extraction.llm.responses import ExtractionResponse, ReflectionResponse
from kgbuild.llm.client import LLMClient
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.schema import load_schema
from tests.factories import answered_relation

SCHEMA = load_schema()

CONTEXT = ChunkContext(
    chunk_id="scenes_3_4",
    scenes=[SceneFacts(index=3, number="3A", heading="INT. HARBOUR OFFICE - NIGHT", location=["HARBOUR OFFICE"],
                       time_of_day="NIGHT", speakers=["MARGO", "TEDDY"]),
            SceneFacts(index=4, number=None, heading="EXT. PIER - NIGHT", location=["PIER"],
                       time_of_day="NIGHT", speakers=["ALL"])],
    known_speakers=["MARGO", "TEDDY", "ALL"],
    passage="[scene 3]\nINT. HARBOUR OFFICE - NIGHT\nMargo kneels at the safe. She spins the dial.\n\nTEDDY\n"
            "Hurry up,\n  the tide is turning.\n\n[scene 4]\nEXT. PIER - NIGHT\n...",
)


def answer(**changes) -> ExtractionResponse:
    """A clean answer for CONTEXT, with some parts replaced."""
    data = {
        "events": [{"name": "Margo cracks the safe", "description": "She opens it.", "scene": 3,
                    "links": [{"relation": "performs", "entity": "Margo Vance"},
                              {"relation": "occurs_at", "entity": "Harbour Office"}]}],
        "entities": [
            {"name": "Margo Vance", "type": "Character", "description": "safecracker", "aliases": ["MARGO"],
             "scenes": [3]},
            {"name": "Teddy Brake", "type": "Character", "description": "driver", "aliases": ["TEDDY"],
             "scenes": [3]},
            {"name": "Harbour Office", "type": "Location", "description": "", "aliases": [], "scenes": [3]},
            {"name": "Pier", "type": "Location", "description": "", "aliases": [], "scenes": [4]},
            {"name": "safe", "type": "Object", "description": "", "aliases": [], "scenes": [3]},
        ],
        "relations": [{"source": "Margo", "type": "interacts_with", "target": "safe", "verb": "cracks",
                       "persistence": "momentary", "evidence": "She spins the dial"}],
    }
    data.update(changes)
    return ExtractionResponse.model_validate(data)


def hard(response: ExtractionResponse) -> list[str]:
    return [i.message for i in check_extraction(response, CONTEXT, SCHEMA) if i.hard]


def soft(response: ExtractionResponse) -> list[str]:
    return [i.message for i in check_extraction(response, CONTEXT, SCHEMA) if not i.hard]


def test_a_clean_answer_has_no_findings():
    assert check_extraction(answer(), CONTEXT, SCHEMA) == []


@pytest.mark.parametrize("entity, expected", [
    ({"name": "Dread", "type": "Emotion", "description": "", "aliases": [], "scenes": [3]},
     "entity 'Dread' has type 'Emotion', not a schema type"),
    ({"name": "The heist", "type": "Event", "description": "", "aliases": [], "scenes": [3]},
     "'The heist' is typed Event: events belong in the events list"),
    ({"name": "Dock", "type": "Location", "description": "", "aliases": [], "scenes": [3, 9]},
     "entity 'Dock' lists scenes [9] outside this passage (3, 4)"),
    ({"name": " ", "type": "Object", "description": "", "aliases": [], "scenes": [3]},
     "a Object entity has no name"),
])
def test_entity_schema_and_scene_violations_are_hard(entity, expected):
    base = answer()
    response = base.model_copy(update={"entities": [*base.entities, type(base.entities[0]).model_validate(entity)]})
    assert any(expected in message for message in hard(response)), hard(response)


def relation(source, rtype, target, evidence="She spins the dial"):
    """A relation of the answer, by default quoting scene 3's 'She spins the dial'."""
    return answered_relation(source, rtype, target, evidence)


@pytest.mark.parametrize("rel, expected", [
    (relation("Margo", "admires", "Teddy"), "'admires' is not a relation type of the schema"),
    (relation("Margo", "speaks_to", "Sal"), "'Sal' is not an event or entity of this extraction"),
    (relation("Margo Vance", "speaks_to", "MARGO"), "links an item to itself"),
    (relation("Harbour Office", "located_at", "Margo"),
     "located_at does not allow Location -> Character; nothing links Location -> Character"),
    (relation("safe", "possesses", "Margo"), "possesses does not allow Object -> Character"),
])
def test_relation_violations_are_hard(rel, expected):
    response = answer(relations=[rel])
    assert any(expected in message for message in hard(response)), hard(response)


def test_inadmissible_pair_hint_lists_the_types_the_pair_allows():
    messages = hard(answer(relations=[relation("Margo", "possesses", "Teddy")]))
    assert messages == [("relation 'Margo possesses Teddy': possesses does not allow Character -> Character; "
                        "Character -> Character allows kinship_with, affinity_with, hostility_with, "
                        "favorable_toward, unfavorable_toward, speaks_to")]


@pytest.mark.parametrize("link, expected", [
    ({"relation": "performs", "entity": "Harbour Office"},
     "performs does not link a Location and an event; Location <-> Event allows occurs_at"),
    ({"relation": "performs", "entity": "Sal"}, "'Sal' is not an entity of this extraction"),
    ({"relation": "happens_in", "entity": "Pier"}, "'happens_in' is not a relation type"),
])
def test_event_link_violations_are_hard(link, expected):
    base = answer()
    event = base.events[0].model_copy(update={"links": [type(base.events[0].links[0]).model_validate(link)]})
    assert any(expected in message for message in hard(base.model_copy(update={"events": [event]})))


def test_event_outside_the_chunk_is_hard():
    base = answer()
    event = base.events[0].model_copy(update={"scene": 12})
    assert hard(base.model_copy(update={"events": [event]})) == [
        "event 'Margo cracks the safe' has scene 12, not one of this passage's scenes (3, 4)"]


def test_speakers_must_be_characters_but_group_cues_need_none():
    entities = [e for e in answer().entities if e.name != "Teddy Brake"]
    assert hard(answer(entities=[e.model_dump() for e in entities])) == [
        "'TEDDY' speaks in this passage but is not a Character (give the cue name as the name or an alias)"]
    as_place = [*[e.model_dump() for e in entities],
                {"name": "Teddy", "type": "Location", "description": "", "aliases": [], "scenes": [3]}]
    assert hard(answer(entities=as_place)) == ["'TEDDY' speaks in this passage, so it is a Character, not Location"]
    assert not any("ALL" in m for m in hard(answer()))


def test_soft_findings_duplicates_missing_heading_location_unlinked_event():
    base = answer()
    entities = [e.model_dump() for e in base.entities if e.name != "Pier"]
    entities.append(entities[0])
    events = [e.model_dump() for e in base.events]
    events.append({"name": "Teddy waits", "description": "", "scene": 4, "links": []})
    response = answer(entities=entities, events=events)
    assert hard(response) == []
    assert soft(response) == ["Character 'margo_vance' is listed 2 times",
                              "event 'Teddy waits' is not linked to anyone or anything",
                              "the heading of scene 4 places it at 'PIER', which is no Location"]


def test_a_heading_place_is_found_under_each_of_two_names_and_without_its_note():
    base = answer()
    scenes = [CONTEXT.scenes[0], CONTEXT.scenes[1].model_copy(update={"location": ["LOUNGE / STAIRS"]})]
    context = CONTEXT.model_copy(update={"scenes": scenes})
    stairs = [*[e.model_dump() for e in base.entities if e.name != "Pier"],
              {"name": "stairs", "type": "Location", "description": "", "aliases": [], "scenes": [4]}]
    assert check_extraction(answer(entities=stairs), context, SCHEMA) == []
    scenes[1] = scenes[1].model_copy(update={"location": ["JOHN'S CAR (MOVING)"]})
    context = CONTEXT.model_copy(update={"scenes": scenes})
    car = [*stairs[:-1], {"name": "John's car", "type": "Location", "description": "", "aliases": [], "scenes": [4]}]
    assert check_extraction(answer(entities=car), context, SCHEMA) == []
    owned = [*stairs[:-1], {"name": "car", "type": "Location", "description": "", "aliases": [], "scenes": [4]}]
    assert check_extraction(answer(entities=owned), context, SCHEMA) == []
    assert [i.message for i in check_extraction(answer(entities=stairs), context, SCHEMA)] == [
        "the heading of scene 4 places it at 'JOHN'S CAR (MOVING)', which is no Location"]


def review(score: int, feedback: list[str] | None = None) -> ReflectionResponse:
    return ReflectionResponse(accuracy=score, consistency=score, redundancy=score, score=score,
                              feedback=feedback or [])


def test_hard_failures_force_the_score_below_the_threshold():
    issues = check_extraction(answer(relations=[relation("Margo Vance", "speaks_to", "MARGO")]), CONTEXT, SCHEMA)
    verdict = assess(review(10), issues, threshold=7)
    assert (verdict.score, verdict.model_score, verdict.accepted) == (6, 10, False)
    assert verdict.reasons()[0].endswith("links an item to itself")
    low = assess(review(3), issues, threshold=7)
    assert (low.score, low.accepted) == (3, False)
    zero = assess(review(10), issues, threshold=0)
    assert (zero.score, zero.accepted) == (0, False)


def test_acceptance_at_the_threshold_and_soft_findings_in_the_feedback():
    issues = check_extraction(answer(events=[{"name": "Teddy waits", "description": "", "scene": 4,
                                              "links": []}]), CONTEXT, SCHEMA)
    assert [i.hard for i in issues] == [False]
    verdict = assess(review(7, ["name the safe's owner"]), issues, threshold=7)
    assert verdict.accepted and verdict.score == 7
    assert verdict.feedback == ["name the safe's owner",
                                "note: event 'Teddy waits' is not linked to anyone or anything"]
    assert not assess(review(6), issues, threshold=7).accepted


def test_render_extraction_is_compact_and_shows_links_and_evidence():
    text = render_extraction(answer())
    assert "- [scene 3] Margo cracks the safe: She opens it. (performs: Margo Vance; occurs_at: Harbour Office)" \
        in text
    assert '- Margo -interacts_with-> safe "She spins the dial"' in text
    assert "- Character: Margo Vance (aka MARGO): safecracker" in text
    assert "scenes" not in text


def test_reflect_sends_the_findings_and_the_extraction_to_the_reviewer(tmp_path):
    backend = ScriptedBackend(json.dumps(review(9, ["fine"]).model_dump()))
    client = LLMClient(backend, "review-model")
    bad = answer(relations=[relation("Margo Vance", "speaks_to", "MARGO")])
    verdict = asyncio.run(reflect(client, bad, CONTEXT, SCHEMA, threshold=7))
    assert (verdict.score, verdict.model_score, verdict.accepted) == (6, 9, False)
    system, user = backend.requests[0].messages
    assert system.content.startswith("[kgbuild prompt reflect v3]") and "7 or more" in system.content
    # The reviewer sees the passage, so it can tell a stated fact from an invented one.
    assert "Passage:\n[scene 3]\nINT. HARBOUR OFFICE - NIGHT\nMargo kneels at the safe." in user.content
    assert "- HARD: relation 'Margo Vance speaks_to MARGO' links an item to itself" in user.content
    assert "- [scene 3] printed number: 3A; location: HARBOUR OFFICE; time: NIGHT; speakers: MARGO, TEDDY" \
        in user.content
    assert "Other speakers heard before" not in user.content
    assert "Margo Vance -speaks_to-> MARGO" in user.content
    assert backend.requests[0].schema_name == "ReflectionResponse"
    assert client.usage().tasks["reflect"].requests == 1


@pytest.mark.parametrize("quote", [
    "She spins the dial",
    "she  spins the DIAL.",                    # whitespace and case do not matter
    "Hurry up, the tide is turning",           # across the passage's line break
    "She spin the dial",                       # a slip of a letter (partial ratio >= 90)
])
def test_quotes_the_passage_holds_pass(quote):
    assert hard(answer(relations=[relation("Margo", "interacts_with", "safe", quote)])) == []


@pytest.mark.parametrize("quote", ["She cracks the safe open", "Teddy pulls a gun"])
def test_a_quote_the_passage_does_not_hold_is_a_hard_failure(quote):
    assert hard(answer(relations=[relation("Margo", "interacts_with", "safe", quote)])) == [
        f"relation 'Margo interacts_with safe': the quote \"{quote}\" is not in the passage; copy its words "
        "exactly, or drop the relation if the passage does not show it"]


def test_a_relation_without_a_quote_is_a_note():
    response = answer(relations=[relation("Margo", "interacts_with", "safe", "")])
    assert hard(response) == []
    assert soft(response) == ["relation 'Margo interacts_with safe' has no quote; give the words of the passage "
                              "that show it"]


def test_chinese_quotes_are_checked_by_character():
    context = CONTEXT.model_copy(update={"passage": "[scene 3]\n内景 码头办公室 夜\n玛戈跪在保险箱前，转动密码盘。"})
    held = answer(relations=[relation("Margo", "interacts_with", "safe", "转动密码盘")])
    invented = answer(relations=[relation("Margo", "interacts_with", "safe", "撬开了保险箱")])
    assert not [i for i in check_extraction(held, context, SCHEMA) if i.hard and "quote" in i.message]
    assert [i.message for i in check_extraction(invented, context, SCHEMA) if i.hard and "quote" in i.message]
