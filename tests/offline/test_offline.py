"""The offline extractor on a small screenplay written for these tests, with the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.embeddings import default_embedder
from kgbuild.offline import extract_offline
from kgbuild.offline.characters import display_name, find_cast
from kgbuild.offline.phrases import noun_phrases
from kgbuild.offline.sentences import learn_genders
from kgbuild.readers import read_screenplay


FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "harbour.fountain"


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    sp = read_screenplay(FIXTURE)
    g = extract_offline(sp, embedder=default_embedder(tmp_path_factory.mktemp("emb")))
    return run_repairs(g)[0]


def _names(graph, etype):
    return {e.name: e.scenes for e in graph.entities if e.type == etype}


def _triples(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target], tuple(r.scenes))
            for r in graph.relations if r.type == rtype}


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
    assert ("satchel", "Trawler Cabin", (2,)) in located
    assert ("Teddy Brake", "satchel", (1, 2)) in _triples(graph, "interacts_with")
    # "Margo opens his satchel": 'his' is Teddy, learned from "He shakes off the rain."
    assert _triples(graph, "possesses") == {("Teddy Brake", "satchel", (2,))}
    assert _triples(graph, "speaks_to") == {("Margo Vance", "Teddy Brake", (1, 2))}
    assert _triples(graph, "present_on") >= {("Margo Vance", "dawn", (3,))}


def test_one_event_per_scene_with_place_and_time(graph):
    events = {e.name for e in graph.entities if e.type == "Event"}
    assert len(events) == 3
    assert ("Scene 3: EXT. HARBOUR ROAD - DAWN", "Harbour Road", (3,)) in _triples(graph, "occurs_at")
    assert ("Scene 1: EXT. HARBOUR - NIGHT", "night", (1,)) in _triples(graph, "occurs_on")


def test_graph_is_schema_clean(graph):
    from kgbuild.schema import load_schema

    schema = load_schema()
    types = {e.id: e.type for e in graph.entities}
    for r in graph.relations:
        assert schema.is_admissible(r.type, types[r.source], types[r.target]), r


def test_noun_phrases_and_owners():
    phrases = noun_phrases("She drops the kitchen knife on his desk and Anna's keys.")
    assert [(p.text, p.owner) for p in phrases] == [
        ("kitchen knife", None), ("desk", "he"), ("keys", "Anna")]
    assert [p.text for p in noun_phrases("The car slows down outside the old farmhouse.")] == [
        "car", "old farmhouse"]


def test_display_names_and_cast():
    assert display_name("CLARICE STARLING") == "Clarice Starling"
    assert display_name("O'BRIEN") == "O'Brien"
    assert display_name("MARY-JANE WATSON") == "Mary-Jane Watson"
    assert display_name("Anna") == "Anna"
    cast = find_cast(read_screenplay(FIXTURE))
    assert cast.resolve("VANCE") == "Margo Vance" and cast.resolve("TEDDY") == "Teddy Brake"


def test_genders_need_agreeing_votes():
    scenes = [[("Anna waits.", "Anna"), ("She sits.", None), ("Ben runs.", "Ben"),
               ("He falls.", None), ("Ben looks.", "Ben"), ("She laughs.", None)]]
    assert learn_genders(scenes) == {"Anna": "she"}
