"""Objects only as nouns a character handles, owns or uses (the first-look audit of after-5 and
after-6, kind 1): the head of the phrase, not a modifier before it; not an action named by a
noun, a feeling, a look or a place; not a word a line end broke off.

The signal box screenplay is written for these tests: each line is a phrase the rules used to
read as a thing wrongly ('takes a heave on the flask', 'his brass Lantern' read as 'brass',
'the heavy, still dripping WRENCH' as 'heavy'), beside things they must still find.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.offline import extract_offline
from kgbuild.offline.actions import action_noun, clauses
from kgbuild.offline.phrases import join_modifiers, made_from_verb, noun_phrases, rejoin_broken
from kgbuild.readers import read_screenplay

SIGNAL_BOX = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "signal_box.fountain"


@pytest.fixture(scope="module")
def signal_box(embedder):
    return run_repairs(extract_offline(read_screenplay(SIGNAL_BOX), embedder=embedder))[0]


def _pairs(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_objects_are_the_heads_of_their_phrases(signal_box):
    objects = {e.name for e in signal_box.entities if e.type == "Object"}
    # The capitalised prop is the head: after lowercase modifiers ('his brass Lantern'), after
    # a comma and participles ('the heavy, still dripping WRENCH'); an action in capitals
    # ('truck PEELS OUT') is not part of it.
    assert {"brass lantern", "heavy wrench", "truck", "buttons", "comb"} <= objects
    assert objects.isdisjoint({"brass", "heavy", "truck peels"})
    assert {("Harlan", "brass lantern"), ("Harlan", "truck"), ("Harlan", "buttons")} <= _pairs(signal_box, "possesses")
    assert ("Mira", "heavy wrench") in _pairs(signal_box, "interacts_with")
    events = {e.name: e.description for e in signal_box.entities if e.type == "Event"}
    assert events["Mira grabs the heavy wrench"] == "Mira grabs the heavy, still dripping WRENCH"


def test_no_object_is_an_act_a_feeling_a_look_a_place_or_a_broken_word(signal_box):
    objects = {e.name for e in signal_box.entities if e.type == "Object"}
    # 'takes a heave on the flask' and 'takes a puff on her pipe' are acts; 'her wave of
    # dizziness' a feeling; 'his appearance' the look of him; 'at the sight of the engine' what
    # startles him; 'grabs the read out' a verb the rules cannot name as a thing; 'at her flat'
    # where she is; 'her new sign-' / 'off' one word broken by the line end.
    assert objects.isdisjoint({"heave", "puff", "wave", "appearance", "sight", "read", "flat", "new sign"})
    assert not {p for p in _pairs(signal_box, "possesses") if p[0] == "Mira"}
    # The acts stay events, with nothing undergoing them.
    events = {e.name for e in signal_box.entities if e.type == "Event"}
    acts = {"Harlan takes a heave", "Mira takes a puff", "Harlan starts at the sight", "Mira grabs the read out"}
    assert acts <= events
    assert acts.isdisjoint({event for _, event in _pairs(signal_box, "undergoes")})


def test_phrase_grammar_heads_complements_and_particles():
    def read(sentence):
        return [(p.text, p.coordinated, p.complement, p.particle) for p in noun_phrases(sentence)]

    assert read("He screws a bulb into his electric Menorah.") == [("bulb", "", "", ""),
                                                                   ("electric menorah", "", "", "")]
    assert read("She grabs the sharp, still smoking STEEL.") == [("sharp", "steel", "", "")]
    assert read("She draws a long, thin knife.") == [("long", "thin knife", "", "")]
    assert read("He grabs the gun, then runs.") == [("gun", "", "", "")]
    assert read("He shakes off his wave of nausea.") == [("wave", "", "of nausea", "")]
    assert read("He pulls out a swatch of carpet.") == [("swatch", "", "", "")]
    assert read("He aims his rifle Fat Cholo's way.")[0] == ("rifle", "", "", "")
    assert read("She opens a bottle of wine.") == [("bottle of wine", "", "", "")]
    assert read("He grabs the read out.") == [("read", "", "", "out")]
    # A noun of its own elsewhere in the script keeps the verb's particle out of it.
    assert join_modifiers([noun_phrases("He grabs the read out.")]) == {"read": "read out"}
    assert join_modifiers([noun_phrases("He hands the comb back."), noun_phrases("He finds a comb.")]) == {}
    assert join_modifiers([noun_phrases("She grabs the sharp, still smoking STEEL.")]) == {"sharp": "sharp steel"}


def test_a_noun_taken_on_something_or_made_from_a_verb_is_no_thing():
    def clause(sentence):
        return clauses(sentence, [(0, 4, "Anna")], noun_phrases(sentence), frozenset())[0]

    assert action_noun(clause("Anna takes a puff on the pipe."), frozenset())
    assert action_noun(clause("Anna takes a heave."), frozenset())  # 'heaves' is a verb the rules know
    assert not action_noun(clause("Anna takes a pipe from the shelf."), frozenset())
    assert not action_noun(clause("Anna pulls a gun on the guard."), frozenset())
    assert made_from_verb("appearance", frozenset({"appear"}))
    assert not made_from_verb("statement", frozenset({"state"})) and not made_from_verb("fence", frozenset({"fence"}))


def test_a_word_a_line_end_broke_is_whole_where_the_script_writes_it_whole():
    def whole(sentence, written):
        return [rejoin_broken(p, written).text for p in noun_phrases(sentence)]

    # Plain text joins the lines of an element with a space: 'sign-' then 'off' is 'sign- off'.
    assert whole("Mira practices her new sign- off.", {"sign-off"}) == ["new sign-off"]
    assert whole("He finds a wall- et on the desk.", {"wallet"}) == ["wallet", "desk"]
    assert whole("Mira practices her new sign-\noff.", {"sign-off"}) == ["new sign-off"]
    # A dash, or a word the script never writes whole, is left as it was.
    assert whole("He drops the notebook- he runs.", {"wallet"}) == ["notebook"]
    assert whole("She grabs the crump- led bullet.", set()) == ["crump"]
    assert whole("He runs-- and stops at the door.", {"runs-and"}) == ["door"]
