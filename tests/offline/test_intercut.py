"""Headings that name two places, each with its own INT./EXT. (round a56 of the truth audit: 'INT.
JUDY'S FLAT/INT. WASHINGTON AIRPORT' gave the place "Judy's Flat/int", and put everyone at both
places of an intercut phone call). Each place is a Location of its own, neither holds the other,
and a character is located at the one the scene's text puts them at, or at none.

The screenplay is made up for these tests.
"""

from __future__ import annotations

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay
from kgbuild.readers.headings import parse_english_heading

FOUNTAIN = """Title: Fog

INT. HARBOUR OFFICE - NIGHT

OSKAR, 60s, the harbour master, watches the radar.

OSKAR
Nothing on the screen.

INT. MAEVE'S KITCHEN/INT. HARBOUR OFFICE - NIGHT

Maeve sits at her kitchen table, the phone to her ear.

MAEVE
Is the boat in?

OSKAR
Not yet. The fog is thick.

MAEVE
Call me when it is.

INT. HARBOUR OFFICE - LATER / INT. MAEVE'S KITCHEN - LATER

HARBOUR OFFICE

Oskar hangs a wet coat on the hook.

OSKAR
It's in.

MAEVE'S KITCHEN

Maeve puts the phone down and cries.

INT. MAEVE'S KITCHEN/INT. HARBOUR OFFICE - DAWN

MAEVE
Thank you, Oskar.

OSKAR
Sleep now.
"""


@pytest.fixture(scope="module")
def graph(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("intercut") / "fog.fountain"
    path.write_text(FOUNTAIN, encoding="utf-8")
    return run_repairs(extract_offline(read_screenplay(path), embedder=embedder))[0]


def _located(graph) -> set[tuple[str, str, int]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target], scene) for r in graph.relations if r.type == "located_at"
            for scene in r.scenes}


def test_a_second_int_ext_opens_the_other_place_of_the_heading():
    heading = parse_english_heading("INT. MAEVE'S KITCHEN/INT. HARBOUR OFFICE - NIGHT")
    assert heading.location == ["MAEVE'S KITCHEN", "HARBOUR OFFICE"]
    assert heading.sides == [["MAEVE'S KITCHEN"], ["HARBOUR OFFICE"]]
    assert heading.time_of_day == "NIGHT"
    spaced = parse_english_heading("INT. DEPOT - DAY / EXT. YARD - DAY")
    assert (spaced.location, spaced.int_ext) == (["DEPOT", "YARD"], "INT/EXT")
    assert parse_english_heading("INT./EXT. VAN - DAY").sides == []  # one place seen from in and out
    assert parse_english_heading("INT. DEATH ROW/CELL - DAWN").sides == []


def test_each_place_of_an_intercut_is_a_location_and_neither_holds_the_other(graph):
    places = {e.name for e in graph.entities if e.type == "Location"}
    assert {"Maeve's Kitchen", "Harbour Office"} <= places
    assert not [p for p in places if "/" in p or p.lower().endswith(("int", "ext"))]
    names = {e.id: e.name for e in graph.entities}
    assert not [r for r in graph.relations if r.type == "part_of"
                and {names[r.source], names[r.target]} == {"Maeve's Kitchen", "Harbour Office"}]


def test_a_character_is_at_the_side_the_text_puts_them_at_or_at_none(graph):
    located = _located(graph)
    # Scene 2: the text puts Maeve at her kitchen table; it does not say where Oskar is.
    assert ("Maeve", "Maeve's Kitchen", 2) in located
    assert ("Maeve", "Harbour Office", 2) not in located
    assert not {(who, where) for who, where, scene in located if scene == 2 and who == "Oskar"}
    # Scene 3: slug lines inside the intercut put each at one place.
    assert {("Oskar", "Harbour Office", 3), ("Maeve", "Maeve's Kitchen", 3)} <= located
    assert ("Oskar", "Maeve's Kitchen", 3) not in located and ("Maeve", "Harbour Office", 3) not in located
    # Scene 4: only their speech; the text says nothing of where either is.
    assert not {fact for fact in located if fact[2] == 4}
    # A heading of one place still places who is in it.
    assert ("Oskar", "Harbour Office", 1) in located
