"""Who the offline graph must not put at a scene's place though a sentence names them there: one
a screen shows and a sentence then identifies ('It is Dale.'), a voice from a speaker, the other
end of a talk the scene intercuts or of a call placed from it, a common noun with a capital after
'a' that is also a character's name, and one only expected. The script is made up for these tests."""

from __future__ import annotations

from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """Title: Far Ends

INT. DALE'S FLAT - DAY

Dale packs a bag. ROOK MALONE (50s) watches him.

DALE
Cover for me.

ROOK
Always.

INT. CRIME LAB - NIGHT

Quinn and Kit sit before a wall of monitors.

QUINN
Show me the platform.

The footage slows and zooms in on one of the passengers. It is Dale.

KIT
Got him.

INT. VOSS'S STUDY - DAY

VOSS
Send the file.

INT. QUINN'S HOUSE - DAY

Quinn sits at the desk. Voss's words come out of the SPEAKER, but it is no longer Voss, it is a SYNTHETIC VOICE.

QUINN
Who is this?

INT. QUINN'S HOUSE - LATER

Quinn reads the file as it comes up. We INTERCUT as they speak.

QUINN
Where did you get this?

VOSS
From a friend.

INT. QUINN'S OFFICE - DAY

QUINN
Get Marlow on the line.

Quinn walks to the window and pulls on his headset. Marlow answers.

QUINN
You have an hour.

INT. MARLOW'S OFFICE - DAY

The phone rings. Marlow answers.

MARLOW
Yes?

INT. CHESS CLUB - NIGHT

Kit moves a Rook across the board and waits with the expectation of seeing ELLIS at the door.

KIT
Your move.

INT. ELLIS'S CAR - NIGHT

ELLIS
I'm late.
"""


def _located(tmp_path) -> set[tuple[str, str]]:
    path = tmp_path / "script.fountain"
    path.write_text(SCRIPT, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source].split()[0], names[r.target]) for r in graph.relations if r.type == "located_at"}


def test_one_a_screen_shows_and_a_sentence_identifies_is_not_there(tmp_path):
    located = _located(tmp_path)
    assert ("Kit", "Crime Lab") in located and ("Dale", "Dale's Flat") in located
    assert ("Dale", "Crime Lab") not in located


def test_a_voice_from_a_speaker_and_the_far_end_of_an_intercut_talk_are_not_there(tmp_path):
    located = _located(tmp_path)
    assert ("Quinn", "Quinn's House") in located
    assert ("Voss", "Quinn's House") not in located


def test_who_answers_a_call_placed_from_the_scene_is_at_the_other_end(tmp_path):
    located = _located(tmp_path)
    assert ("Marlow", "Quinn's Office") not in located
    assert ("Marlow", "Marlow's Office") in located  # the phone rings there: answered there


def test_a_capitalised_noun_after_a_and_one_only_expected_are_not_there(tmp_path):
    located = _located(tmp_path)
    assert ("Kit", "Chess Club") in located
    assert ("Rook", "Dale's Flat") in located
    assert ("Rook", "Chess Club") not in located  # a chess piece, not Rook Malone
    assert ("Ellis", "Chess Club") not in located  # expected at the door
