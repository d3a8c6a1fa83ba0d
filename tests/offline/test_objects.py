"""Objects only as nouns a character handles, owns or uses; events only as actions on someone or
something (issue 30, kind 5, and the event errors of the first-look audit).

The lighthouse screenplay is written for these tests: each sentence is a phrase the rules used
to read as a thing or an event wrongly, beside things they must still find.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.offline import extract_offline
from kgbuild.offline.actions import action_noun, clauses
from kgbuild.offline.chinese import things
from kgbuild.offline.phrases import noun_phrases
from kgbuild.offline.stoplists import BODY_PARTS, in_class
from kgbuild.readers import read_screenplay

LIGHTHOUSE = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "lighthouse.fountain"


@pytest.fixture(scope="module")
def lighthouse(embedder):
    return run_repairs(extract_offline(read_screenplay(LIGHTHOUSE), embedder=embedder))[0]


def _pairs(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def _names(graph, etype):
    return {e.name for e in graph.entities if e.type == etype}


def test_objects_are_nouns_not_amounts_actions_body_parts_or_modifiers(lighthouse):
    objects = _names(lighthouse, "Object")
    # Still found: things handled or owned, the whole phrase before a dash.
    assert {"mug", "brass key", "worn logbook", "lantern"} <= objects
    assert ("Greta", "worn logbook") in _pairs(lighthouse, "possesses")
    # Not things: a light verb's noun ('takes a tiny sip', 'pulls a long drag'), an amount
    # ('every ounce of'), body parts ('her tongue', 'heads'), a modifier cut from its noun
    # ('rust colored coat'), a dash-cut adjective ('worn').
    assert objects.isdisjoint({"tiny sip", "long drag", "ounce", "tongue", "heads", "rust", "worn"})
    # The sip is still an action Greta performs, with nothing undergoing it.
    assert ("Greta", "Greta takes a tiny sip") in _pairs(lighthouse, "performs")
    assert not any(event == "Greta takes a tiny sip" for _, event in _pairs(lighthouse, "undergoes"))


def test_events_are_actions_on_someone_not_states_companions_or_places(lighthouse):
    events = _names(lighthouse, "Event")
    undergoes = _pairs(lighthouse, "undergoes")
    # A posture and a state of mind are no events.
    assert not any(e.startswith(("Bram stands", "Greta knows")) for e in events)
    # A companion after 'with' performs too; nobody undergoes walking along.
    assert ("Bram", "Greta walks with Bram") in _pairs(lighthouse, "performs")
    assert ("Bram", "Greta walks with Bram") not in undergoes
    # Running past someone does nothing to them.
    assert "Bram runs past Greta" in events and ("Greta", "Bram runs past Greta") not in undergoes
    # 'Kelpo Mart' is the shop, not the Kelpo Mart Clerk.
    assert not any("Kelpo Mart Clerk" in e for e in events)
    # 'He grabs a knife' after Bram spoke is not the Cook's, named before the speeches.
    assert "Cook grabs a knife" not in events
    # Actions on someone or something stay.
    assert {"Greta hands Bram the lantern", "Greta picks up the brass key"} <= events


def test_phrase_grammar_amounts_dashes_and_compound_adjectives():
    def texts(sentence):
        return [p.text for p in noun_phrases(sentence)]

    assert texts("He opens his worn notebook--") == ["worn notebook"]
    assert texts("Riker uses every ounce of strength.") == []
    assert texts("She spots Ann's rust colored suit in the crowd.") == ["crowd"]
    assert texts("He wears the rust colored suit he wore.") == []
    # A participle with an adverb or an object after it ends the phrase as before.
    assert texts("The gun pointed straight at him.") == ["gun"]
    assert texts("She grabs a box containing money.") == ["box"]
    assert in_class("heads", BODY_PARTS) and not in_class("glasses", BODY_PARTS)


def test_a_light_verb_with_a_noun_the_script_uses_as_a_verb_is_one_action():
    def clause(sentence):
        return clauses(sentence, [(0, 4, "Anna")], noun_phrases(sentence), frozenset())[0]

    assert action_noun(clause("Anna takes a sip."), frozenset())
    assert action_noun(clause("Anna pulls a long drag from the pipe."), frozenset())
    assert action_noun(clause("Anna takes a bite."), frozenset())  # 'bites' is a verb
    assert not action_noun(clause("Anna takes a gun."), frozenset())
    assert not action_noun(clause("Anna takes the sip."), frozenset())
    # Where the script also writes 'the ring', a ring is a thing.
    assert not action_noun(clause("Anna takes a ring."), frozenset(), definite={"ring"})


def test_chinese_a_numeral_and_its_measure_word_are_not_the_thing():
    assert things("她端来一碟菜", []) == ["菜"]
    assert things("他放下一盘菜", []) == ["菜"]
    assert things("他拿出一杯酒", []) == ["酒"]
    assert things("他拿着两碟小菜", []) == ["小菜"]
    assert things("他拿起一碟", []) == []
    assert things("他拿出一把刀", []) == ["刀"]
    # '一小' is a numeral and an adjective: no measure word is cut from '份糖' for it.
    assert things("阿明拿出一小份糖", ["阿明"]) == []


class _EverythingIsAThing:
    """A typer stub: every phrase reads as a thing, so only the grammar decides."""

    def classify(self, phrases):
        return {p: "thing" for p in phrases}


def test_what_follows_an_owner_is_a_thing_only_when_it_is_a_noun():
    from kgbuild.model import Element, ElementKind
    from kgbuild.offline.extract import _phrase_types
    from kgbuild.offline.scenes import ActionSentence

    texts = ["Bram's appears calm.", "Bram checks his watch.", "They watch the sea.", "Greta's head snaps back.",
             "Greta rubs her temples.", "Bram's heads are spinning.", "Greta follows Bram's gaze.",
             "Bram's lantern swings."]
    sents = []
    for i, text in enumerate(texts):
        el = Element(kind=ElementKind.ACTION, text=text, line_start=i + 1, line_end=i + 1)
        sents.append(ActionSentence(el, text, [], noun_phrases(text, names=frozenset({"Bram", "Greta"}))))
    types, _ = _phrase_types({1: sents}, _EverythingIsAThing(), frozenset({"watch"}))
    assert {"watch", "lantern", "sea"} <= set(types)
    assert set(types).isdisjoint({"appears", "head snaps back", "head", "heads", "gaze"})
