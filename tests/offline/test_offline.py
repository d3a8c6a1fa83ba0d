"""The offline extractor on small screenplays written for these tests, with the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.embeddings import CachedEmbedder, MiniLMEmbedder
from kgbuild.offline import extract_offline
from kgbuild.offline.characters import cue_names, display_name, find_cast
from kgbuild.offline.phrases import learn_verbs, noun_phrases
from kgbuild.offline.policy import ENGLISH_POLICY, PERMISSIVE_POLICY
from kgbuild.offline.sentences import learn_genders
from kgbuild.readers import read_screenplay

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "offline"
HARBOUR = FIXTURES / "harbour.fountain"
TEAHOUSE = FIXTURES / "teahouse_zh.json"
EVENT_RELATIONS = {"performs", "undergoes", "occurs_at", "occurs_on"}


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    return CachedEmbedder(MiniLMEmbedder(), tmp_path_factory.mktemp("emb"))


@pytest.fixture(scope="module")
def graph(embedder):
    return run_repairs(extract_offline(read_screenplay(HARBOUR), embedder=embedder))[0]


@pytest.fixture(scope="module")
def zh_graph(embedder):
    return run_repairs(extract_offline(read_screenplay(TEAHOUSE), embedder=embedder))[0]


def _names(graph, etype):
    return {e.name: e.scenes for e in graph.entities if e.type == etype}


def _triples(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target], tuple(r.scenes))
            for r in graph.relations if r.type == rtype}


def _non_event_relations(graph):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], r.type, names[r.target]) for r in graph.relations
            if r.type not in EVENT_RELATIONS}


def test_characters_get_full_names_from_introductions(graph):
    assert _names(graph, "Character") == {"Margo Vance": [1, 2, 3], "Teddy Brake": [1, 2]}
    margo = next(e for e in graph.entities if e.name == "Margo Vance")
    assert margo.aliases == ["Margo", "Vance"]
    assert margo.description.startswith("MARGO VANCE, 40s")


def test_places_times_and_things(graph):
    assert _names(graph, "Location") == {
        "Harbour": [1, 2], "Trawler Cabin": [2], "Harbour Road": [3], "quay": [1]}
    assert _names(graph, "TimePoint") == {"night": [1, 2], "dawn": [3]}
    assert {"satchel", "lamp"} <= set(_names(graph, "Object"))
    assert _names(graph, "Object")["satchel"] == [1, 2, 3]


def test_relations_from_structure_and_sentences(graph):
    assert _triples(graph, "part_of") == {("Trawler Cabin", "Harbour", (2,))}
    located = _triples(graph, "located_at")
    assert ("Margo Vance", "Harbour Road", (3,)) in located
    assert ("Teddy Brake", "quay", (1,)) in located
    # Things are not placed in the heading's place: on the STAGE dev movies such guesses were
    # right 1.6% of the time, so the rule is gone.
    assert not any(source == "satchel" for source, _, _ in located)
    assert ("Teddy Brake", "satchel", (1, 2)) in _triples(graph, "interacts_with")
    # "Margo opens his satchel": 'his' is Teddy, learned from "He shakes off the rain."
    assert _triples(graph, "possesses") == {("Teddy Brake", "satchel", (2,))}


def test_talking_pairs_are_socially_linked_and_speaks_to_needs_more_scenes(graph):
    # Margo and Teddy exchange lines in scenes 1 and 2: tied, one direction per symmetric type.
    assert _triples(graph, "affinity_with") == {("Margo Vance", "Teddy Brake", (1, 2))}
    assert _triples(graph, "hostility_with") == {("Margo Vance", "Teddy Brake", (1, 2))}
    # speaks_to from alternating cues is kept from three scenes on in English.
    assert _triples(graph, "speaks_to") == set()
    assert ENGLISH_POLICY.relation_rules["adjacent_cues"] == 3


def test_no_character_is_present_on_the_heading_time_of_day(graph):
    # 'DAWN' in a heading is a time point of the scene's event, not of every character in it.
    assert _triples(graph, "present_on") == set()
    assert ("Scene 3: EXT. HARBOUR ROAD - DAWN", "dawn", (3,)) in _triples(graph, "occurs_on")


def test_one_event_per_scene_with_place_and_time(graph):
    events = {e.name for e in graph.entities if e.type == "Event"}
    assert len(events) == 3
    assert ("Scene 3: EXT. HARBOUR ROAD - DAWN", "Harbour Road", (3,)) in _triples(graph, "occurs_at")
    assert ("Scene 1: EXT. HARBOUR - NIGHT", "night", (1,)) in _triples(graph, "occurs_on")


@pytest.mark.parametrize("which", ["graph", "zh_graph"])
def test_graph_is_schema_clean(which, request):
    from kgbuild.schema import load_schema

    built = request.getfixturevalue(which)
    schema = load_schema()
    types = {e.id: e.type for e in built.entities}
    for r in built.relations:
        assert schema.is_admissible(r.type, types[r.source], types[r.target]), r


def test_chinese_places_things_times_and_relations(zh_graph):
    assert _names(zh_graph, "Character") == {"老周": [1, 2], "小梅": [1, 2]}
    assert _names(zh_graph, "Location") == {"茶馆": [1], "街道": [2], "街道上": [2], "地上": [2]}
    assert _names(zh_graph, "Object") == {"茶杯": [1], "手机": [2], "雨伞": [2]}
    assert set(_names(zh_graph, "TimePoint")) == {"白天", "夜晚", "今晚", "明天"}
    assert _non_event_relations(zh_graph) == {
        ("老周", "located_at", "茶馆"), ("小梅", "located_at", "茶馆"),
        ("老周", "interacts_with", "茶杯"),
        ("老周", "present_on", "今晚"), ("小梅", "present_on", "今晚"), ("小梅", "present_on", "明天"),
        # 小梅 calls 老周 '爸', and they talk in both scenes.
        ("小梅", "kinship_with", "老周"), ("小梅", "affinity_with", "老周"),
        ("小梅", "located_at", "街道"), ("老周", "located_at", "街道"),
        ("小梅", "located_at", "街道上"), ("老周", "located_at", "街道上"),
        ("小梅", "located_at", "地上"), ("老周", "located_at", "地上"),
        ("小梅", "interacts_with", "手机"), ("手机", "located_at", "街道上"),
        ("老周", "possesses", "雨伞"),
        # Exchanges in two scenes are enough for hostility in Chinese (one is not).
        ("小梅", "hostility_with", "老周"),
    }


def test_permissive_policy_keeps_a_superset(embedder):
    sp = read_screenplay(HARBOUR)
    default = extract_offline(sp, embedder=embedder)
    everything = extract_offline(sp, embedder=embedder, policy=PERMISSIVE_POLICY)
    assert {r.id for r in default.relations} < {r.id for r in everything.relations}
    assert {e.id for e in default.entities} <= {e.id for e in everything.entities}
    assert ("Margo Vance", "speaks_to", "Teddy Brake") in _non_event_relations(everything)


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
    # -ing and -ed words after a noun end it; names end it too.
    assert [p.text for p in noun_phrases("A knife jutting from the door marked EXIT.")] == ["knife", "door"]
    assert [p.text for p in noun_phrases("the bedroom window SIDNEY", names=frozenset({"SIDNEY"}))] == [
        "bedroom window"]


def test_display_names_and_cast():
    assert display_name("CLARICE STARLING") == "Clarice Starling"
    assert display_name("O'BRIEN") == "O'Brien"
    assert display_name("MARY-JANE WATSON") == "Mary-Jane Watson"
    assert display_name("Anna") == "Anna"
    cast = find_cast(read_screenplay(HARBOUR))
    assert cast.resolve("VANCE") == "Margo Vance" and cast.resolve("TEDDY") == "Teddy Brake"


def test_cues_for_several_speakers_and_cue_prefixes():
    assert cue_names("FELIX AND CARL") == ["FELIX", "CARL"]
    assert cue_names("DEWEY/GALE") == ["DEWEY", "GALE"]
    assert cue_names("THE CASHIER") == ["CASHIER"]
    assert cue_names("OC HOLDEN") == ["HOLDEN"]
    assert cue_names("A DROP FALLS") == []
    assert cue_names("HANDS") == []
    assert cue_names("程勇") == ["程勇"]


def test_genders_need_agreeing_votes():
    scenes = [[("Anna waits.", "Anna"), ("She sits.", None), ("Ben runs.", "Ben"),
               ("He falls.", None), ("Ben looks.", "Ben"), ("She laughs.", None)]]
    assert learn_genders(scenes) == {"Anna": "she"}
