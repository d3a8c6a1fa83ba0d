"""Grounding of an LLM extraction: evidence located in the screenplay, ungrounded facts left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.evidence import quote_occurs
from kgbuild.extraction.llm.chunk_graph import build_chunk_graph
from kgbuild.extraction.llm.context import ChunkContext, SceneFacts
from kgbuild.extraction.llm.extract import ChunkOutcome, ChunkStatus, assemble
from kgbuild.extraction.llm.grounding import event_sentence, extraction_producer, find_quote, heading_naming
from kgbuild.extraction.llm.responses import ExtractionResponse
from kgbuild.model import Element, ElementKind, Entity, KnowledgeGraph, Scene
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema
from tests.factories import answered_entity as entity
from tests.factories import answered_relation as relation

SCHEMA = load_schema()
SCREENPLAY = read_screenplay(Path(__file__).resolve().parent.parent / "fixtures" / "llm" / "safe_job.fountain")
PRODUCER = "llm:test-model/extract@4"

CONTEXT = ChunkContext(
    chunk_id="scenes_3_4",
    scenes=[SceneFacts(index=3, number=None, heading="INT. HARBOUR OFFICE - NIGHT", location=["HARBOUR OFFICE"],
                       time_of_day="NIGHT", speakers=["MARGO"]),
            SceneFacts(index=4, number=None, heading="EXT. PIER - NIGHT", location=["PIER"],
                       time_of_day="NIGHT", speakers=[])],
    known_speakers=["MARGO"],
    passage="(not read by these tests)",
)


ANSWER = {
    "events": [{"name": "Margo cracks the safe", "description": "She opens the office safe in a minute.",
                "scene": 3, "links": [{"relation": "performs", "entity": "Margo"},
                                      {"relation": "occurs_at", "entity": "Harbour Office"},
                                      {"relation": "occurs_on", "entity": "Night"},
                                      {"relation": "undergoes", "entity": "the safe"}]}],
    "entities": [
        entity("Margo Vance", "Character", [3, 4], ["MARGO"]),
        entity("Teddy Brake", "Character", [3], ["Teddy"]),
        entity("Harbour Office", "Location", [3]),
        entity("Pier", "Location", [3, 4]),
        entity("Night", "TimePoint", [3]),
        entity("the safe", "Object", [3]),
        entity("Mustang", "Object", [4]),
        entity("Ghost Ship", "Object", [3]),  # named nowhere in the text
    ],
    "relations": [
        relation("Margo", "interacts_with", "Mustang", "she floors   IT"),  # verbatim up to case and spaces
        relation("Margo", "interacts_with", "the safe"),  # no quote: a sentence names both
        relation("Teddy", "possesses", "the safe", "Teddy owns the safe"),  # not in the text, never together
        relation("Margo", "possesses", "Ghost Ship", "Margo boards the Ghost Ship"),  # an end is left out
    ],
}


def assembled(answer=ANSWER):
    graph = build_chunk_graph(ExtractionResponse.model_validate(answer), CONTEXT, SCHEMA)
    outcome = ChunkOutcome(chunk_id=CONTEXT.chunk_id, scenes=[3, 4], status=ChunkStatus.ACCEPTED, graph=graph)
    return assemble(SCREENPLAY, [outcome], version="9.9", model="test-model")


def by_key(graph: KnowledgeGraph):
    names = {e.id: e.name for e in graph.entities}
    return ({e.name: e for e in graph.entities},
            {(names[r.source], r.type, names[r.target]): r for r in graph.relations})


def test_every_fact_carries_evidence_that_occurs_in_the_lines_it_cites():
    graph = assembled().graph
    scenes = {s.index: s for s in SCREENPLAY.scenes}
    facts = [*graph.entities, *graph.relations]
    assert facts and all(fact.evidence for fact in facts)
    for fact in facts:
        for ev in fact.evidence:
            assert ev.producer == PRODUCER
            assert ev.scene in fact.scenes
            assert quote_occurs(ev, scenes[ev.scene]), (fact.id, ev)


def test_evidence_follows_the_rules_per_kind_of_fact():
    entities, relations = by_key(assembled().graph)
    quote = {name: [(ev.scene, ev.lines, ev.quote) for ev in e.evidence] for name, e in entities.items()}
    assert quote["Harbour Office"] == [(3, (12, 12), "INT. HARBOUR OFFICE - NIGHT")]  # the heading names it
    assert quote["Pier"] == [(4, (21, 21), "EXT. PIER - NIGHT")]  # first heading of its scenes naming it
    assert quote["Night"] == [(3, (12, 12), "INT. HARBOUR OFFICE - NIGHT")]
    assert quote["Margo Vance"] == [(3, (14, 14), "Margo kneels at the safe and spins the dial.")]
    assert quote["Margo cracks the safe"] == [(3, (16, 16), "Margo cracks the safe in under a minute.")]

    def cited(*key):
        return [(ev.scene, ev.quote) for ev in relations[key].evidence]

    assert cited("Margo Vance", "interacts_with", "Mustang") == [(4, "She floors it.")]
    assert cited("Margo Vance", "interacts_with", "the safe") == [
        (3, "Margo kneels at the safe and spins the dial.")]
    assert cited("Margo cracks the safe", "occurs_at", "Harbour Office") == [(3, "INT. HARBOUR OFFICE - NIGHT")]
    assert cited("Margo cracks the safe", "occurs_on", "Night") == [(3, "INT. HARBOUR OFFICE - NIGHT")]
    # An event's link to a character or thing cites the event's own sentence when it names them,
    # not the scene's first sentence naming them ('Margo kneels at the safe ...').
    assert cited("Margo Vance", "performs", "Margo cracks the safe") == [
        (3, "Margo cracks the safe in under a minute.")]
    assert cited("the safe", "undergoes", "Margo cracks the safe") == [
        (3, "Margo cracks the safe in under a minute.")]


def test_facts_the_text_does_not_show_are_left_out_and_counted():
    assembly = assembled()
    entities, relations = by_key(assembly.graph)
    assert "Ghost Ship" not in entities and "Teddy Brake" in entities
    assert ("Teddy Brake", "possesses", "the safe") not in relations
    assert ("Margo Vance", "possesses", "Ghost Ship") not in relations
    dropped = assembly.ungrounded
    assert (dropped.entities, dropped.relations, dropped.total) == (1, 2, 3)
    assert dropped.examples == [
        "Object 'Ghost Ship' (scenes 3)",
        "'Teddy Brake' -possesses-> 'the safe' (scenes 3)",
        "'Margo Vance' -possesses-> 'Ghost Ship' (scenes 3): an end was left out",
    ]


def test_an_event_without_a_matching_sentence_is_grounded_by_a_linked_entity_or_dropped():
    vague = {"events": [{"name": "Things happen", "description": "Something goes on.", "scene": 4,
                         "links": [{"relation": "performs", "entity": "Margo"}]},
                        {"name": "Nothing at all", "description": "Nobody is there.", "scene": 4, "links": []}],
             "entities": [entity("Margo", "Character", [4])], "relations": []}
    assembly = assembled(vague)
    entities, relations = by_key(assembly.graph)
    assert [ev.quote for ev in entities["Things happen"].evidence] == ["Margo guns the Mustang down the pier."]
    assert "Nothing at all" not in entities
    assert ("Margo", "performs", "Things happen") in relations
    assert (assembly.ungrounded.entities, assembly.ungrounded.relations) == (1, 0)


def test_event_links_between_two_events_need_the_models_quote():
    answer = {"events": [{"name": "Margo cracks the safe", "description": "", "scene": 3, "links": []},
                         {"name": "Margo guns the Mustang", "description": "", "scene": 4, "links": []}],
              "entities": [],
              "relations": [relation("Margo cracks the safe", "precedes", "Margo guns the Mustang")]}
    assembly = assembled(answer)
    assert len(assembly.graph.entities) == 2 and assembly.graph.relations == []
    assert assembly.ungrounded.relations == 1
    quoted = {**answer, "relations": [relation("Margo cracks the safe", "precedes", "Margo guns the Mustang",
                                               "The safe clicks open.")]}
    [rel] = assembled(quoted).graph.relations
    # The quote, then each event's own line: the evidence shows both ends of the link.
    found = [(ev.scene, ev.lines, ev.quote) for ev in rel.evidence]
    assert found[0] == (3, (16, 16), "The safe clicks open.")
    assert [(scene, quote) for scene, _, quote in found[1:]] == [
        (3, "Margo cracks the safe in under a minute."), (4, "Margo guns the Mustang down the pier.")]


def test_heading_and_event_helpers():
    office, pier = SCREENPLAY.scenes[2], SCREENPLAY.scenes[3]
    assert heading_naming([office, pier], ["Pier"], PRODUCER).scene == 4
    assert heading_naming([office], ["Harbour"], PRODUCER).quote == "INT. HARBOUR OFFICE - NIGHT"
    assert heading_naming([office], ["Arbour"], PRODUCER) is None  # whole words only
    event = Entity(id="event:x", name="Margo spins the dial", type="Event")
    assert event_sentence([office], event, PRODUCER).quote == "Margo kneels at the safe and spins the dial."
    unrelated = Entity(id="event:y", name="A storm sinks the trawler", type="Event")
    assert event_sentence([office], unrelated, PRODUCER) is None


def test_chinese_event_sentences_match_on_character_pairs():
    action = Element(kind=ElementKind.ACTION, text="小李在门口等着。老张走进茶馆，坐下喝茶。", line_start=3, line_end=3)
    scene = Scene(index=1, heading="内景 茶馆 日", elements=[action], line_span=(1, 3))
    tea = Entity(id="event:tea", name="老张喝茶", type="Event", description="老张在茶馆坐下喝茶")
    assert event_sentence([scene], tea, PRODUCER).quote == "老张走进茶馆，坐下喝茶。"
    rain = Entity(id="event:rain", name="大雨倾盆", type="Event", description="")
    assert event_sentence([scene], rain, PRODUCER) is None


def test_a_short_line_inside_a_long_quote_is_not_the_quote():
    office = SCREENPLAY.scenes[2]
    quote = "MARGO: Told you. Easy money."  # the cue 'MARGO' is in the quote, but is not it
    found = find_quote([office], quote, PRODUCER)
    assert (found.lines, found.quote) == ((19, 19), "Told you.")
    assert find_quote([office], "Margo pockets the jewels and leaves", PRODUCER) is None


@pytest.mark.parametrize("model, expected", [("gpt-4o-mini", "llm:gpt-4o-mini/extract@4"),
                                             (None, "llm:unknown/extract@4")])
def test_producer_names_the_model_and_the_prompt_version(model, expected):
    assert extraction_producer(model) == expected
