"""Cues a PDF export broke (round a56 of the truth audit): 'TOB Y (CONT'D)' and 'MAL COLM' (letter
spacing), 'ILEY' for RILEY and 'NNOUNCER' for ANNOUNCER (a first letter lost, or left on a line of
its own above the cue) are read as the name the script uses elsewhere, in every format.

The screenplays here are made up for these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.model import ElementKind
from kgbuild.readers import read_screenplay
from kgbuild.readers.plaintext import classify_lines
from tests.readers.pdf_writer import ACTION, CHAR, CUE, DIALOGUE, Page, make_pdf

# One story in scenes; in it the export broke WINIFRED's cue into pieces, took the first letter off
# two of RUFUS's cues (one letter lost, one left on a line of its own) and off the PORTER's.
SCENES = [
    ("INT. SIGNAL BOX - NIGHT", """Rain on the glass. RUFUS, 50s, checks the levers.
WINIFRED, his sister, pours tea.
RUFUS
The nine-forty is late again.
WINIFRED
It always is on a Tuesday.
(MORE)
WINI FRED (CONT'D)
Drink this before it goes cold.
UFUS
I will when the train is through.
PORTER (O.S.)
Down line clear!"""),
    ("EXT. PLATFORM - NIGHT", """The train pulls in. Rufus walks the length of it.
ORTER
All change!
RUFUS
Mind the gap there.
Winifred follows with the lamp.
R
UFUS
Somebody left a parcel.
WINIFRED
Then we keep it until morning."""),
]


def _stage(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    entries = [{"_id": str(n), "title": title, "content": content} for n, (title, content) in enumerate(SCENES, 1)]
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _plain(tmp_path: Path) -> Path:
    path = tmp_path / "signal.txt"
    path.write_text("\n\n".join(f"{title}\n\n{content}" for title, content in SCENES) + "\n", encoding="utf-8")
    return path


def _speakers(screenplay) -> list[str]:
    return [e.speaker for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.CHARACTER]


@pytest.mark.parametrize("write", [_stage, _plain], ids=["stage-json", "plain-text"])
def test_broken_cues_are_read_as_the_names_the_script_uses(tmp_path: Path, write):
    screenplay = read_screenplay(write(tmp_path))
    speakers = _speakers(screenplay)
    assert set(speakers) == {"RUFUS", "WINIFRED", "PORTER"}
    assert speakers.count("RUFUS") == 4  # 'UFUS' and the 'R' over 'UFUS' are his cues too
    said = {e.text: e.speaker for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.DIALOGUE}
    assert said["Drink this before it goes cold."] == "WINIFRED"
    assert said["Somebody left a parcel."] == "RUFUS"
    assert said["All change!"] == "PORTER"
    # The text stays as printed: only who speaks is read.
    cues = [e.text for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.CHARACTER]
    assert "WINI FRED (CONT'D)" in cues and "UFUS" in cues


def test_a_broken_cue_in_fountain_is_mended_too(tmp_path: Path):
    path = tmp_path / "signal.fountain"
    path.write_text("Title: Signal\n\nINT. SIGNAL BOX - NIGHT\n\nRUFUS checks the levers.\n\nRUFUS\nLate again.\n\n"
                    "WINIFRED\nAlways.\n\nRU FUS (CONT'D)\nOn a Tuesday.\n", encoding="utf-8")
    assert set(_speakers(read_screenplay(path))) == {"RUFUS", "WINIFRED"}


def test_a_cue_cut_by_letter_spacing_in_a_pdf_is_mended(tmp_path: Path):
    page = Page(number=1)
    page.line(ACTION, "INT. SIGNAL BOX - NIGHT").blank()
    page.line(ACTION, "WINIFRED pours tea. RUFUS checks the levers.").blank()
    page.line(CUE, "WINIFRED").line(DIALOGUE, "Late again.").blank()
    page.line(CUE, "RUFUS").line(DIALOGUE, "Always on a Tuesday.").blank()
    # 'WINI FRED': the export set the last four letters one character apart.
    page.line(CUE, "WINI", (CUE + 5 * CHAR, "FRED")).line(DIALOGUE, "Drink your tea.")
    path = tmp_path / "signal.pdf"
    path.write_bytes(make_pdf([page.runs]))
    assert _speakers(read_screenplay(path)) == ["WINIFRED", "RUFUS", "WINIFRED"]


def test_a_lone_letter_over_a_cue_is_no_action():
    tags = classify_lines(["INT. SIGNAL BOX - NIGHT", "", "Rufus walks the length of it.", "R", "UFUS",
                           "Somebody left a parcel."])
    assert tags[3:] == ["P", "C", "D"]


def test_names_that_differ_by_a_letter_stay_two_people_when_the_script_says_so(tmp_path: Path):
    # ANA and DANA answer each other; LEX is written 'Lex' beside ALEX; A COP is an article and a cop.
    scenes = [("INT. KITCHEN - DAY", """DANA, 30s, and ANA, her sister, cook.
DANA
Pass the salt.
ANA
Here.
DANA
Thanks.
ALEX, 20s, and LEX, his cousin, come in. Lex sits.
ALEX
Smells good.
LEX
It does.
ALEX
Told you.
ALEX
Let's eat.
A COP
Open up!
COP
Police!""")]
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"title": t, "content": c} for t, c in scenes]), encoding="utf-8")
    assert set(_speakers(read_screenplay(path))) == {"DANA", "ANA", "ALEX", "LEX", "A COP", "COP"}


def test_a_short_rest_is_mended_only_where_the_lost_letter_stands_apart(tmp_path: Path):
    # 'VE' is EVE's rest (the 'E' ends the line before one of its cues); 'OUND #' and 'AT COOK' keep
    # three letters in all (HOUND # and FAT COOK); 'ED' is no rest of TED: no lone 'T' over it.
    scenes = [("INT. BAKERY - DAWN", """EVE, 30s, kneads dough. TED, her partner, and ED, the boy, sweep.
EVE
Flour.
TED
Here.
ED
Done.
EVE
Thanks.
The FAT COOK stirs. HOUND # barks.
FAT COOK
Hot!
HOUND #
Woof.
Ted drops the tray. Eve turns. E
VE
Careful!
OUND #
Woof woof.
AT COOK
Mind the oven.
TED
Sorry.
VE
Again?""")]
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"title": t, "content": c} for t, c in scenes]), encoding="utf-8")
    speakers = _speakers(read_screenplay(path))
    assert set(speakers) == {"EVE", "TED", "ED", "FAT COOK", "HOUND #"}
    assert speakers.count("EVE") == 4 and speakers.count("ED") == 1
