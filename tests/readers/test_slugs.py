"""Slug lines and editing notes that a reader took for cues (round 2 of the truth audit)."""

from __future__ import annotations

import json
from pathlib import Path

from kgbuild.model import ElementKind
from kgbuild.readers import read_screenplay

FOUNTAIN = """Title: Slugs

EXT. SIGNAL HILL - NIGHT

The beacon burns.

INT. FERRY - NIGHT

Ida watches the coast.

IDA
Is that the beacon?

SIGNAL HILL
Piet throws another log on the fire.

INT. FERRY - LATER

LOSE SUPER
The ferry docks.

PIET
You took your time.
"""


def _cues(screenplay):
    return {e.speaker for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.CHARACTER}


def test_a_heading_place_or_an_editing_note_over_a_line_is_no_cue(tmp_path: Path):
    path = tmp_path / "slugs.fountain"
    path.write_text(FOUNTAIN, encoding="utf-8")
    screenplay = read_screenplay(path)
    assert _cues(screenplay) == {"IDA", "PIET"}
    shots = [e for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.SHOT]
    assert [e.text for e in shots] == ["SIGNAL HILL", "LOSE SUPER"]
    action = [e.text for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.ACTION]
    assert "Piet throws another log on the fire." in action and "The ferry docks." in action


def test_chinese_montage_slugs_are_no_speakers(tmp_path: Path):
    entries = [
        {"title": "1、拳馆，夜，内", "content": "两名拳手在台上对峙。\n阿强：打他！"},
        {"title": "2、一组镜头",
         "content": "拳馆\n一名拳手倒在台上。\n码头\n工人们把箱子搬上船。\n拳馆\n观众站了起来。"},
        {"title": "3、码头，夜，外", "content": "阿强看着海面。\n码头\n我在这儿等你三天了。"},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    screenplay = read_screenplay(path)
    assert "拳馆" not in _cues(screenplay)
    assert screenplay.scenes[1].location == []
    # A name the headings also use for a place, whose lines say 我 and 你: a speaker.
    assert "码头" in _cues(screenplay)
