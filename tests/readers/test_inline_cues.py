"""Scripts that write speech on the cue's own line ('ANNA (quietly): Come in.')."""

from __future__ import annotations

import json
from pathlib import Path

from kgbuild.model import ElementKind
from kgbuild.readers import read_screenplay
from kgbuild.readers.inline_cues import inline_elements, uses_inline_cues

SCENE_ONE = """Anna sits by the stove. Her brother Karl stands at the door.

        ANNA (quietly): If you want, I can read to you,
        as I did last week?
No reaction.
        Would you like that?
Karl shakes his head.
        KARL (looks at the floor, his cap still
        in his hands): Where is Father?
        ANNA (o.s.):He went to the mill.
        KARL: When is he back?

                                                  2
        ANNA: Tonight.
"""

SCENE_TWO = """Morning. The teacher waits by the gate.
        TEACHER: You are late again, Karl.
        KARL: The cow got loose.
        TEACHER: The cow. Of course.
        ANNA: It did, sir.
        TEACHER: Inside, both of you.
        ANNA: Yes, sir.
        KARL: Yes, sir.
CUT TO:
"""


def _stage_json(tmp_path: Path) -> Path:
    entries = [{"_id": 0, "title": "1 FARMHOUSE. KITCHEN. INT/NIGHT", "content": SCENE_ONE},
               {"_id": 1, "title": "2 SCHOOL EXT/DAY", "content": SCENE_TWO}]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_a_script_with_speech_on_the_cue_line_reads_speakers_lines_and_notes(tmp_path):
    screenplay = read_screenplay(_stage_json(tmp_path))
    first, second = screenplay.scenes
    assert (first.location, first.int_ext, first.time_of_day) == (["FARMHOUSE", "KITCHEN"], "INT", "NIGHT")
    got = [(e.kind, e.speaker, e.text, e.extensions) for e in first.elements if e.kind is not ElementKind.ACTION]
    assert got[1:] == [
        (ElementKind.CHARACTER, "ANNA", "ANNA", []),
        (ElementKind.PARENTHETICAL, "ANNA", "(quietly)", []),
        (ElementKind.DIALOGUE, "ANNA", "If you want, I can read to you, as I did last week?", []),
        # Indented speech after an action line goes on with the last speaker.
        (ElementKind.CHARACTER, "ANNA", "ANNA", ["CONT'D"]),
        (ElementKind.DIALOGUE, "ANNA", "Would you like that?", []),
        # A note in parentheses that wraps onto the next line.
        (ElementKind.CHARACTER, "KARL", "KARL", []),
        (ElementKind.PARENTHETICAL, "KARL", "(looks at the floor, his cap still in his hands)", []),
        (ElementKind.DIALOGUE, "KARL", "Where is Father?", []),
        # A voice note is an extension; no space is needed after the colon.
        (ElementKind.CHARACTER, "ANNA", "ANNA", ["O.S."]),
        (ElementKind.DIALOGUE, "ANNA", "He went to the mill.", []),
        (ElementKind.CHARACTER, "KARL", "KARL", []),
        (ElementKind.DIALOGUE, "KARL", "When is he back?", []),
        # A page number between speeches is no speech.
        (ElementKind.CHARACTER, "ANNA", "ANNA", []),
        (ElementKind.DIALOGUE, "ANNA", "Tonight.", []),
    ]
    action = [e.text for e in first.elements if e.kind is ElementKind.ACTION]
    assert action == ["Anna sits by the stove. Her brother Karl stands at the door.", "No reaction.",
                      "Karl shakes his head."]
    # Source lines: the title is line 1, the content starts on line 2.
    karl = next(e for e in first.elements if e.kind is ElementKind.DIALOGUE and e.speaker == "KARL")
    assert (karl.line_start, karl.line_end) == (10, 10)
    assert {e.speaker for e in second.elements if e.kind is ElementKind.CHARACTER} == {"TEACHER", "KARL", "ANNA"}
    assert [(e.kind, e.text) for e in second.elements[-1:]] == [(ElementKind.TRANSITION, "CUT TO:")]


def test_the_same_layout_in_a_plain_text_file(tmp_path):
    path = tmp_path / "farm.txt"
    path.write_text("INT. FARMHOUSE - NIGHT\n\n" + SCENE_ONE + "\nEXT. SCHOOL - DAY\n\n" + SCENE_TWO,
                    encoding="utf-8")
    screenplay = read_screenplay(path)
    assert [s.location for s in screenplay.scenes] == [["FARMHOUSE"], ["SCHOOL"]]
    speakers = [e.speaker for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.DIALOGUE]
    assert speakers[:4] == ["ANNA", "ANNA", "KARL", "ANNA"]
    assert speakers.count("TEACHER") == 3 and speakers[-2:] == ["ANNA", "KARL"]


def test_transitions_form_fields_and_lone_cues_are_no_such_layout():
    transitions = ["CUT TO:", "Rain.", "DISSOLVE TO:", "FADE IN:", "SMASH CUT TO:", "JUMP CUT:"] * 5
    assert not uses_inline_cues(transitions)
    # A form filled in on screen, in a script whose cues stand alone on their lines.
    form = ["NAME: Karl Weber", "NATIONALITY: German", "PLACE OF ISSUE: Bremen"] * 5
    cues = ["KARL", "I am here.", "", "ANNA", "Good.", ""] * 10
    assert not uses_inline_cues(form + cues)
    assert uses_inline_cues(SCENE_ONE.splitlines() + SCENE_TWO.splitlines())


def test_indented_lines_before_any_speaker_are_action():
    elements = inline_elements(["        A sign on the door.", "        ANNA: Open it."])
    assert [(e.kind, e.text) for e in elements] == [
        (ElementKind.ACTION, "A sign on the door."), (ElementKind.CHARACTER, "ANNA"),
        (ElementKind.DIALOGUE, "Open it.")]
