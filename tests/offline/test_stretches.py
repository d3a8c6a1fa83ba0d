"""A STAGE entry whose text prints further headings is a run of settings (round r4 of the truth
audit: one entry moved from a flat to a bar and a boxing ring under headings of its own, some
wrapped over two lines and run into the action; the graph put everyone at the first heading's
place, made everyone in the entry a witness of every event in it, and took the heading lines
in capitals for characters).

The screenplay is made up for these tests.
"""

from __future__ import annotations

import json

import pytest

from canonicalize.story_facts import derive_story
from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.model import ElementKind
from kgbuild.offline import extract_offline
from kgbuild.offline.stretches import stretches
from kgbuild.readers import read_screenplay
from kgbuild.readers.stage_json import heading_runs
from kgbuild.schema import load_schema

ENTRIES = [
    {"title": "1、INT. NORA'S FLAT - KITCHEN - MORNING",
     "content": "Nora pours coffee. Tobias reads the paper at the table.\n"
                "NORA\nYou're late again.\n"
                "TOBIAS\nThe bus was full.\n"
                "Nora hands Tobias the keys.\n"
                "HARBOUR TAVERN - BACK ROOM - EARLY\n"
                "EVENING\n"
                "Gideon counts the money. Wren shuffles the cards.\n"
                "GIDEON\nDeal them.\n"
                "Gideon slaps Wren. Wren drops the cards.\n"
                "EXT. BOXING ARENA, RINGSIDE - NIGHT\n"
                "Nora climbs into the ring. Tobias watches from the corner.\n"
                "Nora punches Tobias."},
    {"title": "2、EXT. PIER - NIGHT",
     "content": "Wren walks along the pier.\nWREN\nCold tonight.\n"
                "FLASHBACK - INT. LIGHTHOUSE - DAY\nGideon sleeps."},
]


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("stretches") / "script.json"
    path.write_text(json.dumps(ENTRIES), encoding="utf-8")
    screenplay = read_screenplay(path)
    graph = run_repairs(extract_offline(screenplay, embedder=embedder))[0]
    derived, _ = derive_story(graph, load_schema(), screenplay)
    return screenplay, derived


def _facts(graph, rtype: str) -> set[tuple[str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_a_heading_wrapped_over_lines_is_found_and_ordinary_capitals_are_not():
    lines = ["Nora waits.", "HARBOUR TAVERN - BACK ROOM - EARLY", "EVENING", "Gideon counts.",
             "CUT TO:", "EXT. PIER - NIGHT", "NORA", "NO - WAIT!", "GIDEON", "FIGHT NIGHT, EVERYONE.",
             "Wren nods."]
    assert heading_runs(lines) == [(1, 2), (5, 5)]


def test_the_inner_headings_are_shots_that_cut_the_scene_into_settings(built):
    screenplay, _ = built
    scene = screenplay.scenes[0]
    shots = [e.text for e in scene.elements if e.kind is ElementKind.SHOT]
    assert shots == ["HARBOUR TAVERN - BACK ROOM - EARLY EVENING", "EXT. BOXING ARENA, RINGSIDE - NIGHT"]
    assert not [e for e in scene.elements if e.kind is ElementKind.ACTION and "TAVERN" in e.text]
    assert [s.heading for s in stretches(scene)] == [
        "INT. NORA'S FLAT - KITCHEN - MORNING", "HARBOUR TAVERN - BACK ROOM - EARLY EVENING",
        "EXT. BOXING ARENA, RINGSIDE - NIGHT"]


def test_a_heading_line_is_no_character(built):
    _, graph = built
    characters = {e.name for e in graph.entities if e.type == "Character"}
    assert {"Nora", "Tobias", "Gideon", "Wren"} <= characters
    assert not [c for c in characters if c.upper() in {"HARBOUR TAVERN", "BACK ROOM", "BOXING ARENA", "BEDROOM"}]


def test_a_character_is_at_the_setting_of_the_stretch_that_shows_them(built):
    _, graph = built
    located = _facts(graph, "located_at")
    assert ("Tobias", "Kitchen") in located
    assert ("Gideon", "Back Room") in located and ("Wren", "Back Room") in located
    assert ("Gideon", "Kitchen") not in located and ("Wren", "Kitchen") not in located
    assert ("Gideon", "Nora's Flat") not in located
    assert ("Nora", "Ringside") in located
    assert ("Wren", "Pier") in located and ("Gideon", "Pier") not in located
    assert ("Gideon", "Lighthouse") in located  # the note before INT. is no place
    assert not [where for _, where in located if where.lower() in {"int", "flashback"}]


def test_an_event_happens_at_the_setting_of_its_stretch(built):
    _, graph = built
    names = {e.id: e.name for e in graph.entities}
    at = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "occurs_at"}
    slap = {where for event, where in at if event.startswith("Gideon slaps")}
    punch = {where for event, where in at if event.startswith("Nora punches")}
    assert slap == {"Back Room"}
    assert punch and punch <= {"Boxing Arena", "Ringside"}  # which is innermost is the size guess's


def test_witnesses_come_only_from_the_same_stretch(built):
    _, graph = built
    names = {e.id: e.name for e in graph.entities}
    witnessed = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "witnesses"}
    of_slap = {who for who, event in witnessed if event.startswith("Gideon slaps")}
    of_punch = {who for who, event in witnessed if event.startswith("Nora punches")}
    assert "Nora" not in of_slap and "Tobias" not in of_slap
    assert "Gideon" not in of_punch and "Wren" not in of_punch
