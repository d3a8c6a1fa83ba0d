"""The offline extractor on small screenplays written for these tests, with the real model.

Each rule has a positive and a negative case: what the words show is stated, nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.evidence import quote_occurs
from kgbuild.names import display_name
from kgbuild.offline import extract_offline
from kgbuild.offline.characters import cue_names, find_cast
from kgbuild.offline.genders import learn_genders
from kgbuild.offline.phrases import learn_verbs, noun_phrases
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "offline"
HARBOUR = FIXTURES / "harbour.fountain"
ACADEMY = FIXTURES / "academy.fountain"
TEAHOUSE = FIXTURES / "teahouse_zh.json"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lizard-people.fountain"


def _build(path, embedder):
    return run_repairs(extract_offline(read_screenplay(path), embedder=embedder))[0]


@pytest.fixture(scope="module")
def harbour(embedder):
    return _build(HARBOUR, embedder)


@pytest.fixture(scope="module")
def academy(embedder):
    return _build(ACADEMY, embedder)


@pytest.fixture(scope="module")
def zh_graph(embedder):
    return _build(TEAHOUSE, embedder)


def _names(graph, etype):
    return {e.name: e.scenes for e in graph.entities if e.type == etype}


def _triples(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target], tuple(r.scenes))
            for r in graph.relations if r.type == rtype}


def _pairs(graph, rtype):
    return {(a, b) for a, b, _ in _triples(graph, rtype)}


def test_characters_get_full_names_from_introductions_and_self_introductions(harbour, academy):
    assert _names(harbour, "Character") == {"Margo Vance": [1, 2, 3], "Teddy Brake": [1, 2]}
    margo = next(e for e in harbour.entities if e.name == "Margo Vance")
    assert margo.aliases == ["Margo", "Vance"]
    assert margo.description.startswith("MARGO VANCE, 40s")
    # 'I'm Neil Perry.' and 'Todd Anderson.' said by NEIL and TODD name them in full.
    assert {"Neil Perry", "Todd Anderson", "Mr. Perry", "Cameron"} == set(_names(academy, "Character"))


def test_a_pair_that_only_talks_gets_speaks_to_and_no_social_type(harbour, academy):
    assert _pairs(harbour, "speaks_to") == {("Margo Vance", "Teddy Brake"), ("Teddy Brake", "Margo Vance")}
    social = {"affinity_with", "hostility_with", "favorable_toward", "unfavorable_toward", "kinship_with"}
    assert not any(r.type in social for r in harbour.relations)
    # Todd and Cameron trade lines in the classroom: speaks_to only.
    assert ("Todd Anderson", "Cameron") in _pairs(academy, "speaks_to")


def test_social_types_need_their_own_words(academy):
    # 'Mr. Perry hugs Neil.' and 'Thank you, Neil.'
    assert _triples(academy, "affinity_with") == {("Mr. Perry", "Neil Perry", (2,))}
    assert _triples(academy, "favorable_toward") == {("Mr. Perry", "Neil Perry", (2,))}
    # 'Todd punches Cameron.'; the slap on the back and the look shot at him are not hostile.
    assert _triples(academy, "hostility_with") == {("Cameron", "Todd Anderson", (3,))}
    # 'You idiot.' is said with no one to hear it in the scene: no attitude.
    assert _triples(academy, "unfavorable_toward") == set()


def test_kinship_from_a_kin_word_addressed_to_the_only_other_person(academy):
    # NEIL says 'Dad, please.' to Mr. Perry, the only other person in the study.
    assert _pairs(academy, "kinship_with") == {("Mr. Perry", "Neil Perry")}


def test_events_are_actions_not_scene_headings(academy):
    events = set(_names(academy, "Event"))
    assert events == {"Neil Perry picks up a battered notebook", "Mr. Perry hugs Neil Perry",
                      "Todd Anderson punches Cameron", "Cameron slaps Todd Anderson"}
    assert ("Todd Anderson", "Todd Anderson punches Cameron", (3,)) in _triples(academy, "performs")
    assert ("Cameron", "Todd Anderson punches Cameron", (3,)) in _triples(academy, "undergoes")
    assert ("Todd Anderson punches Cameron", "Country Road", (3,)) in _triples(academy, "occurs_at")
    # The classroom scene has no action: no event.
    assert not any(4 in e.scenes for e in academy.entities if e.type == "Event")


def test_places_times_and_things(academy, harbour):
    assert set(_names(academy, "Location")) == {"Academy Garden", "Perry House", "Study",
                                                "Country Road", "Classroom"}
    # 'The headlight cuts through the night.' names no place; DAY and NIGHT stay scene metadata.
    assert _names(academy, "TimePoint") == {"1959": [1]}
    assert ("Study", "Perry House", (2,)) in _triples(academy, "part_of")
    assert ("Neil Perry", "battered notebook", (1,)) in _triples(academy, "interacts_with")
    assert ("Neil Perry", "1959", (1,)) in _triples(academy, "present_on")
    assert ("Teddy Brake", "Harbour", (1, 2)) in _triples(harbour, "located_at")
    # "Margo opens his satchel": 'his' is not resolved to anyone.
    assert _triples(harbour, "possesses") == set()


@pytest.mark.parametrize("which", ["harbour", "academy", "zh_graph"])
def test_graph_is_schema_clean_and_every_fact_quotes_its_lines(which, request):
    built = request.getfixturevalue(which)
    path = {"harbour": HARBOUR, "academy": ACADEMY, "zh_graph": TEAHOUSE}[which]
    scenes = {s.index: s for s in read_screenplay(path).scenes}
    schema = load_schema()
    types = {e.id: e.type for e in built.entities}
    for r in built.relations:
        assert schema.is_admissible(r.type, types[r.source], types[r.target]), r
    for fact in [*built.entities, *built.relations]:
        assert fact.evidence, fact
        for ev in fact.evidence:
            assert ev.producer.startswith("rule:")
            assert quote_occurs(ev, scenes[ev.scene]), (fact, ev)


@pytest.mark.slow
def test_every_quote_of_the_bundled_example_occurs_in_its_lines(embedder):
    screenplay = read_screenplay(EXAMPLE)
    graph = extract_offline(screenplay, embedder=embedder)
    scenes = {s.index: s for s in screenplay.scenes}
    evidence = [ev for fact in [*graph.entities, *graph.relations] for ev in fact.evidence]
    assert len(evidence) > 1000
    assert all(quote_occurs(ev, scenes[ev.scene]) for ev in evidence)
    assert not any(e.name.startswith("Scene ") for e in graph.entities if e.type == "Event")


def test_chinese_places_things_and_relations(zh_graph):
    assert _names(zh_graph, "Character") == {"老周": [1, 2], "小梅": [1, 2]}
    assert {"茶馆", "街道"} <= set(_names(zh_graph, "Location"))
    assert {"茶杯", "手机", "雨伞"} <= set(_names(zh_graph, "Object"))
    assert ("老周", "茶杯") in _pairs(zh_graph, "interacts_with")
    assert ("老周", "雨伞") in _pairs(zh_graph, "possesses")
    # 小梅 calls 老周 '爸' when they are alone: kinship. Talking is not hostility.
    assert _pairs(zh_graph, "kinship_with") == {("小梅", "老周")}
    assert _pairs(zh_graph, "hostility_with") == set()


def test_noun_phrases_and_owners():
    phrases = noun_phrases("She drops the kitchen knife on his desk and Anna's keys.")
    assert [(p.text, p.owner) for p in phrases] == [
        ("kitchen knife", None), ("desk", "he"), ("keys", "Anna")]
    assert [p.text for p in noun_phrases("The car slows down outside the old farmhouse.")] == [
        "car", "old farmhouse"]


def test_noun_phrases_stop_at_verbs_learned_from_the_script_and_keep_complements():
    verbs = learn_verbs(["He bellows at the crowd.", "It shrieks.", "Anna waves."], frozenset({"Anna"}))
    assert {"bellows", "shrieks", "waves"} <= verbs
    text = "The engine bellows as the guard grabs a stack of old magazines from the edge of the roof."
    assert [p.text for p in noun_phrases(text, verbs=verbs)] == [
        "engine", "guard", "stack of old magazines", "edge of the roof", "roof"]
    assert [p.text for p in noun_phrases("A knife jutting from the door marked EXIT.")] == ["knife", "door"]


def test_display_names_and_cast():
    assert display_name("CLARICE STARLING") == "Clarice Starling"
    assert display_name("O'BRIEN") == "O'Brien"
    assert display_name("MARY-JANE WATSON") == "Mary-Jane Watson"
    cast = find_cast(read_screenplay(HARBOUR))
    assert cast.resolve("VANCE") == "Margo Vance" and cast.resolve("TEDDY") == "Teddy Brake"
    academy = find_cast(read_screenplay(ACADEMY))
    assert academy.resolve("NEIL") == "Neil Perry" and academy.resolve("CAMERON") == "Cameron"


def test_cues_for_several_speakers_and_cue_prefixes():
    assert cue_names("FELIX AND CARL") == ["FELIX", "CARL"]
    assert cue_names("DEWEY/GALE") == ["DEWEY", "GALE"]
    assert cue_names("THE CASHIER") == ["CASHIER"]
    assert cue_names("A DROP FALLS") == []
    assert cue_names("程勇") == ["程勇"]


def test_genders_need_agreeing_votes():
    scenes = [[("Anna waits.", "Anna"), ("She sits.", None), ("Ben runs.", "Ben"),
               ("He falls.", None), ("Ben looks.", "Ben"), ("She laughs.", None)]]
    assert learn_genders(scenes) == {"Anna": "she"}


def test_his_thing_belongs_to_the_only_named_character_of_that_pronoun(embedder):
    graph = _build(FIXTURES / "watchmaker.fountain", embedder)
    owned = _triples(graph, "possesses")
    assert owned == {("Oscar", "pocket watch", (1,))}
    rel = next(r for r in graph.relations if r.type == "possesses")
    assert [e.producer for e in rel.evidence] == ["rule:possessive_pronoun"]
