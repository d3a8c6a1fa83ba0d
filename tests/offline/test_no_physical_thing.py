"""A thing is a noun whose most frequent sense is a physical thing (audit r5, kind 'objects'):
not sight, a pulse, energy, a conversation or a song, by WordNet's most frequent sense
(`kgbuild.offline.lexicon.ABSTRACT`); writing is still a thing on paper ('her letter', 'her
ticket'). An owned noun with a sense of a body part that does what a verb says ('her heel
lands') is the body, no thing of hers.

The night ferry screenplay (nightferry.fountain) is made up for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.offline import extract_offline
from kgbuild.offline.extract import no_physical_thing, no_thing_here
from kgbuild.offline.phrases import noun_phrases
from kgbuild.readers import read_screenplay

NIGHT_FERRY = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "nightferry.fountain"


@pytest.fixture(scope="module")
def ferry(embedder):
    return run_repairs(extract_offline(read_screenplay(NIGHT_FERRY), embedder=embedder))[0]


def _pairs(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_nouns_of_no_physical_thing():
    assert all(no_physical_thing(w) for w in ("vision", "pulse", "energy", "conversation", "songs", "news"))
    assert not any(no_physical_thing(w) for w in ("gun", "phone", "letter", "ring", "car", "money", "ticket",
                                                  "book", "belongings"))


def test_sight_a_pulse_energy_a_conversation_a_song_and_a_heel_that_lands_are_no_objects(ferry):
    objects = {e.name for e in ferry.entities if e.type == "Object"}
    assert objects.isdisjoint({"vision", "pulse", "energy", "phone conversation", "song", "heel"})
    assert not {p for p in _pairs(ferry, "possesses") if p[1] in {"vision", "energy", "song", "heel"}}


def test_a_heel_that_lands_is_the_body():
    heel = noun_phrases("And her heel lands on the edge.")[0]
    assert no_thing_here(heel, "and", "lands")
    assert not no_thing_here(noun_phrases("She grabs her heel.")[0], "grabs", "")


def test_the_props_stay(ferry):
    objects = {e.name for e in ferry.entities if e.type == "Object"}
    assert {"gun", "phone", "letter", "money", "ticket", "briefcase"} <= objects
    assert {("Doran", "gun"), ("Mira", "letter"), ("Mira", "money")} <= _pairs(ferry, "interacts_with")


def test_a_noun_with_a_rarer_physical_sense_is_a_thing_where_a_hand_carries_it(ferry):
    # 'case' is most often an instance (no thing), but a guitar case fetched and carried is one;
    # 'checks her pulse' moves nothing, so the pulse stays no object.
    objects = {e.name for e in ferry.entities if e.type == "Object"}
    assert "guitar case" in objects and "pulse" not in objects
    assert ("Doran", "guitar case") in _pairs(ferry, "interacts_with")
