"""Tests for the Final Draft (.fdx) reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from defusedxml.ElementTree import fromstring

from kgbuild.errors import InputError
from kgbuild.model import ElementKind
from kgbuild.readers.fdx import join_runs, read_fdx


def _read(fixtures: Path, name: str):
    path = fixtures / "fdx" / name
    return read_fdx(path.read_bytes(), path=str(path))


def _elements(result):
    return [e for s in result.scenes for e in s.elements]


def test_scenes_headings_and_numbers(fixtures: Path) -> None:
    result = _read(fixtures, "features.fdx")
    assert [s.heading for s in result.scenes] == [
        "INT. LIGHTHOUSE - LAMP ROOM - NIGHT",  # lower case in the file, All Caps style
        "EXT. ROCKS - DAWN",
    ]
    first = result.scenes[0]
    assert first.number == "12A"
    assert (first.int_ext, first.location, first.time_of_day) == (
        "INT", ["LIGHTHOUSE", "LAMP ROOM"], "NIGHT"
    )
    assert result.scenes[1].int_ext == "EXT"


def test_paragraph_types_map_to_kinds(fixtures: Path) -> None:
    kinds = [(e.kind, e.text) for e in _elements(_read(fixtures, "features.fdx"))]
    assert kinds[:2] == [(ElementKind.SECTION, "ACT ONE"), (ElementKind.TRANSITION, "FADE IN:")]
    assert (ElementKind.ACTION, "MARGARET, the keeper") in kinds  # Cast List
    assert (ElementKind.SHOT, "ANGLE ON THE SEA") in kinds
    assert (ElementKind.ACTION, "A ship's light, far out.") in kinds  # General
    assert (ElementKind.LYRIC, "Keep the light, keep the light") in kinds
    assert (ElementKind.CENTERED, "TWENTY YEARS EARLIER") in kinds
    assert kinds[-1] == (ElementKind.SECTION, "END OF ACT ONE")
    assert all(text for _, text in kinds)  # the empty paragraph is dropped


def test_line_numbers_are_paragraph_ordinals(fixtures: Path) -> None:
    elements = _elements(_read(fixtures, "features.fdx"))
    heading = next(e for e in elements if e.kind is ElementKind.SCENE_HEADING)
    assert (heading.line_start, heading.line_end) == (3, 3)
    tom = next(e for e in elements if e.speaker == "TOM" and e.kind is ElementKind.CHARACTER)
    assert tom.line_start == 12  # the dual-dialogue wrapper paragraph is number 11
    assert [e.line_start for e in elements] == sorted(e.line_start for e in elements)


def test_multi_run_paragraph_is_joined_with_emphasis(fixtures: Path) -> None:
    action = next(
        e for e in _elements(_read(fixtures, "features.fdx")) if e.text.startswith("The lamp")
    )
    assert action.text == "The lamp turns. MARGARET (60s) winds the clockwork by hand."
    spans = {(action.text[s.start:s.end], s.style) for s in action.emphasis}
    assert spans == {("MARGARET", "bold"), ("clockwork", "italic"), ("clockwork", "underline")}


def test_all_caps_run_style_upper_cases_that_run_only(fixtures: Path) -> None:
    dialogue = next(
        e for e in _elements(_read(fixtures, "features.fdx")) if e.text.startswith("Forty")
    )
    assert dialogue.text == "Forty years, AND NEVER a dark night."


def test_cues_and_speakers(fixtures: Path) -> None:
    elements = _elements(_read(fixtures, "features.fdx"))
    cue = next(e for e in elements if e.kind is ElementKind.CHARACTER)
    assert (cue.speaker, cue.extensions) == ("MARGARET", ["V.O."])
    paren = next(e for e in elements if e.kind is ElementKind.PARENTHETICAL)
    assert paren.speaker == "MARGARET"


def test_dual_dialogue_is_marked(fixtures: Path) -> None:
    elements = _elements(_read(fixtures, "features.fdx"))
    dual = [(e.kind, e.speaker) for e in elements if e.dual]
    assert dual == [
        (ElementKind.CHARACTER, "TOM"), (ElementKind.DIALOGUE, "TOM"),
        (ElementKind.CHARACTER, "ANNA"), (ElementKind.DIALOGUE, "ANNA"),
    ]
    assert not any(e.dual for e in elements if e.speaker == "MARGARET")


def test_soft_returns_inside_a_paragraph_are_kept(fixtures: Path) -> None:
    assert any(
        e.text == "Waves.\nMore waves." for e in _elements(_read(fixtures, "features.fdx"))
    )


def test_title_page(fixtures: Path) -> None:
    assert _read(fixtures, "features.fdx").title_page == {
        "Title": "The Last Keeper", "Author": "Ada Lovelace",
    }


def test_action_that_reads_as_a_heading_is_promoted_with_a_warning(fixtures: Path) -> None:
    result = _read(fixtures, "converted.fdx")
    assert [s.heading for s in result.scenes] == ["INT. HOUSE - DAY", "EXT/INT.  SWAMP SHACK - DAY"]
    assert [w.line for w in result.warnings] == [3, 6]  # promotion; unknown paragraph type
    sentence = "INT. is where the heart is, she thinks."
    assert any(e.text == sentence and e.kind is ElementKind.ACTION for e in _elements(result))


def test_outline_paragraphs_are_sections_with_depth(fixtures: Path) -> None:
    section = next(
        e for e in _elements(_read(fixtures, "converted.fdx")) if e.kind is ElementKind.SECTION
    )
    assert (section.text, section.depth) == ("The swamp", 2)


def test_join_runs_drops_surrounding_space_and_shifts_spans() -> None:
    para = fromstring(
        '<Paragraph><Text>  </Text><Text Style="Bold">HI</Text><Text> there </Text></Paragraph>'
    )
    text, spans = join_runs(para)
    assert text == "HI there"
    assert [(s.start, s.end, s.style) for s in spans] == [(0, 2, "bold")]


@pytest.mark.parametrize(
    ("name", "message", "line"),
    [
        ("truncated.fdx", "truncated", 27),
        ("not-final-draft.fdx", "not a Final Draft script", None),
        ("empty.fdx", "no <Content> paragraphs", None),
        ("entities.fdx", "refuses for safety", None),
    ],
)
def test_bad_files_raise_input_error(
    fixtures: Path, name: str, message: str, line: int | None
) -> None:
    with pytest.raises(InputError, match=message) as info:
        _read(fixtures, name)
    assert info.value.line == line
    assert name in str(info.value)


def test_not_xml_at_all() -> None:
    with pytest.raises(InputError, match="not well-formed XML") as info:
        read_fdx(b"INT. HOUSE - DAY\n\nShe waits.", path="script.fdx")
    assert info.value.line == 1


@pytest.mark.parametrize("name", ["big-fish", "the-last-birthday-card", "brick-and-steel"])
def test_shared_scripts_match_their_fountain_heading_count(shared_data: Path, name: str) -> None:
    """Every heading of the Fountain version (INT./EXT... or forced '.') is one in the FDX."""
    from kgbuild.readers.headings import is_english_heading

    folder = shared_data / "screenplays"
    result = read_fdx((folder / f"{name}.fdx").read_bytes(), path=f"{name}.fdx")
    fountain = (folder / f"{name}.fountain").read_text(encoding="utf-8").splitlines()
    expected = [
        ln.strip().lstrip(".") for ln in fountain
        if is_english_heading(ln.strip()) or (ln.startswith(".") and ln[1:2].isalnum())
    ]
    headings = [s.heading for s in result.scenes if s.heading]
    assert [" ".join(h.split()) for h in headings] == [" ".join(h.split()) for h in expected]
