"""The plain-text reader: line tags, elements and the reader entry point.

Fixtures under tests/fixtures/plain/ are written for these tests (no real screenplay text):
`<name>.txt` is the screenplay, `<name>.tags` one expected tag per line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.model import ElementKind
from kgbuild.readers.plaintext import (
    classify_lines,
    cue_name,
    is_heading_line,
    is_page_furniture,
    is_transition,
    plain_elements,
    read_plain,
)

A = " " * 10  # action margin
D = " " * 20  # dialogue column
P = " " * 26  # parenthetical column
C = " " * 32  # cue column


def _fixture(fixtures: Path, name: str) -> tuple[list[str], str]:
    lines = (fixtures / "plain" / f"{name}.txt").read_text(encoding="utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    tags = (fixtures / "plain" / f"{name}.tags").read_text(encoding="utf-8").strip()
    assert len(lines) == len(tags)
    return lines, tags


@pytest.mark.parametrize("name", ["indented", "flat"])
def test_fixture_tags(fixtures: Path, name: str) -> None:
    lines, expected = _fixture(fixtures, name)
    got = "".join(classify_lines(lines))
    wrong = [(n + 1, e, g, lines[n].strip()) for n, (e, g) in enumerate(zip(expected, got, strict=True)) if e != g]
    assert not wrong


def test_one_tag_per_line_and_only_known_tags() -> None:
    lines = ["", "INT. X - DAY", "", "Text.", "   ", "\t\tJOHN", "\tHi."]
    tags = classify_lines(lines)
    assert len(tags) == len(lines)
    assert set(tags) <= set("SNCDETMO")
    assert classify_lines([]) == []


def test_words_containing_int_or_cut_are_not_headings_or_transitions() -> None:
    lines = [
        "INT. BARN - DAY", "",
        A + "Straw everywhere.", "",
        C + "CLINT BARTON", D + "Where is it?", "",
        C + "CUTTER", D + "Gone.", "",
        A + "INTERCUT WITH the yard.",
    ]
    tags = classify_lines(lines)
    assert tags[4] == "C" and tags[7] == "C"
    assert not is_heading_line("CLINT BARTON")
    assert not is_transition("CUTTER")
    assert is_transition("SMASH CUT TO:") and is_transition("FADE IN:") and is_transition("CUT TO:")


def test_all_caps_action_and_time_lines_are_not_cues() -> None:
    lines = [
        "EXT. STREET - NIGHT", "",
        A + "SHARDS OF BROKEN GLASS.", "",
        A + "5 YEARS LATER", "",
        A + "CLOSE ON the window.", "",
        C + "MAYA", D + "Who did this?", "",
        A + "ANGLE ON the door.", "",
        C + "MAYA", D + "Hello?",
    ]
    tags = classify_lines(lines)
    assert [tags[i] for i in (2, 4, 6, 11)] == ["N", "N", "N", "N"]
    assert cue_name("SHARDS OF BROKEN GLASS.") is None
    assert cue_name("CLOSE ON") is None


@pytest.mark.parametrize(
    ("cue", "name", "extensions"),
    [
        ("JOHN (V.O.)", "JOHN", ["V.O."]),
        ("CRONIN (O.S., PRELAP)", "CRONIN", ["O.S.", "PRELAP"]),
        ("MARY (CONT’D)", "MARY", ["CONT'D"]),
        ("GROUPIE #1", "GROUPIE #1", []),
        ("C-3PO", "C-3PO", []),
        ("ALL", "ALL", []),
        ("JOHN (CONT'D)", "JOHN", ["CONT'D"]),
        ("DR. MORRIS", "DR. MORRIS", []),
    ],
)
def test_cue_forms(cue: str, name: str, extensions: list[str]) -> None:
    lines = ["INT. ROOM - DAY", "", C + cue, D + "Something to say.", ""]
    assert classify_lines(lines)[2] == "C"
    elements, _ = plain_elements(lines)
    character = next(e for e in elements if e.kind is ElementKind.CHARACTER)
    assert (character.speaker, character.extensions) == (name, extensions)


def test_parentheticals_more_and_page_furniture() -> None:
    lines = [
        "INT. ROOM - DAY", "",
        C + "JOHN", P + "(quietly;", P + "to himself)", D + "It's late.", P + "(beat)",
        D + "Too late.", C + "(MORE)", "", " " * 60 + "12.", " " * 30 + "(CONTINUED)", "",
        C + "JOHN (CONT'D)", D + "Go home.",
    ]
    tags = classify_lines(lines)
    assert "".join(tags) == "SOCEEDEDEOMMOCD"
    assert is_page_furniture("12.") and is_page_furniture("CONTINUED:")
    assert is_page_furniture("(CONTINUED)") and is_page_furniture("Blue Rev. (mm/dd/yy)   62.")


def test_scene_numbers_on_both_sides() -> None:
    lines = [
        "12A   INT. HOUSE - KITCHEN - NIGHT          12A", "",
        A + "A kettle whistles.", "",
        "13    SERIES OF SHOTS                        13", "",
        A + "Cars. Trains. Planes.",
    ]
    tags = classify_lines(lines)
    assert tags[0] == "S" and tags[4] == "S"
    elements, _ = plain_elements(lines, first_line=101)
    heading = elements[0]
    assert heading.kind is ElementKind.SCENE_HEADING
    assert (heading.text, heading.number) == ("INT. HOUSE - KITCHEN - NIGHT", "12A")
    assert (heading.line_start, heading.line_end) == (101, 101)


def test_cues_in_the_dialogue_column_and_dual_ish_cues() -> None:
    # Some scripts put a cue at the same indent as its speech now and then; a name seen as a
    # cue elsewhere is trusted there. Two cues in a row ('dual-ish') keep their own speech.
    body = []
    for n in range(4):
        body += [C + "NORA", D + f"Line {n} of hers.", "", C + "OWEN", D + f"Line {n} of his.", ""]
    lines = ["INT. HALL - DAY", "", *body, D + "NORA", D + "Same column as me.", "",
             C + "NORA ^", D + "Together!", C + "OWEN ^", D + "Together!"]
    tags = classify_lines(lines)
    assert tags[-7:-5] == ["C", "D"]
    assert tags[-4:] == ["C", "D", "C", "D"]
    elements, _ = plain_elements(lines)
    assert elements[-2].dual and elements[-2].speaker == "OWEN"


def test_shifted_pages_keep_their_kinds() -> None:
    # Converted PDFs shift every other page by a few columns.
    page = ["INT. ROOM - DAY", "", A + "He waits by the window for a long time.", "",
            C + "HANK", D + "She's late.", A + "He checks his watch."]
    shifted = [(" " * 5 + line) if line and not line.startswith("INT") else line for line in page]
    lines = page + ["", " " * 60 + "1.", ""] + shifted + ["", " " * 60 + "2.", ""] + page
    tags = classify_lines(lines)
    assert tags[:7] == tags[10:17] == tags[20:27] == ["S", "O", "N", "O", "C", "D", "N"]


def test_no_indentation_and_no_blank_lines() -> None:
    lines = [
        "EXT. DOCK - DAY",
        "Fog rolls over the water. PETRA ties off a rope and watches the",
        "ferry come in, slow and heavy.",
        "PETRA",
        "Late again.",
        "FERRYMAN (O.S.)",
        "Tide was against us.",
        "PETRA",
        "(shrugs)",
        "It always is.",
        "She tosses him the rope and walks off toward the harbour office",
        "without looking back.",
    ]
    assert "".join(classify_lines(lines)) == "SNNCDCDCEDNN"


def test_tabs_count_as_indentation() -> None:
    lines = ["INT. CELL - NIGHT", "", "\tHe sits on the bunk and stares at the wall for hours.", "",
             "\t\t\t\tRED", "\t\tYou get used to it.", "", "\tHe does not answer."] * 2
    assert "".join(classify_lines(lines)) == "SONOCDON" * 2


def test_heading_that_wraps_keeps_its_second_line() -> None:
    lines = ["306   INT. OFFICE (NEW BUILDING) -- LATE           306", "      AFTERNOON", "",
             "      She reads the file."]
    assert classify_lines(lines)[:2] == ["S", "S"]


def test_heading_that_wraps_in_text_without_blank_lines() -> None:
    """No blank line after it: the line continues the heading only when the heading is
    unfinished (no time of day yet, or a dangling dash)."""
    lines = ["INT. OFFICE (NEW BUILDING) -- LATE", "AFTERNOON",
             "She reads the file and puts it down.",
             "EXT. STATION - OUTSIDE GOTHAM -", "NEXT AFTERNOON",
             "A train pulls in.",
             "INT. KITCHEN - NIGHT", "SHARDS OF BROKEN GLASS",
             "crunch under her boots."]
    assert [t for t in classify_lines(lines)] == ["S", "S", "N", "S", "S", "N", "S", "N", "N"]


def test_plain_elements_join_lines_and_number_them() -> None:
    lines = [
        "INT. ROOM - DAY", "",
        A + "A long paragraph of action that", A + "wraps onto a second line.", "",
        C + "JOHN", P + "(quietly)", D + "Two lines of", D + "dialogue here.", "",
    ]
    elements, warnings = plain_elements(lines, first_line=10)
    kinds = [e.kind for e in elements]
    assert kinds == [
        ElementKind.SCENE_HEADING, ElementKind.ACTION, ElementKind.CHARACTER,
        ElementKind.PARENTHETICAL, ElementKind.DIALOGUE,
    ]
    action, dialogue = elements[1], elements[4]
    assert action.text == "A long paragraph of action that wraps onto a second line."
    assert (action.line_start, action.line_end) == (12, 13)
    assert dialogue.text == "Two lines of dialogue here."
    assert (dialogue.line_start, dialogue.line_end) == (17, 18)
    assert warnings == []


def test_warnings_flag_unsure_lines_only() -> None:
    clean = ["INT. ROOM - DAY", "", C + "JOHN", D + "Hi.", "", C + "MARY", D + "Hello.", "", C + "JOHN", D + "Bye."]
    assert plain_elements(clean)[1] == []
    # A known speaker's cue at the dialogue's indentation is taken as a cue, with a warning.
    unsure = [*clean, "", D + "JOHN", D + "Wait."]
    _, warnings = plain_elements(unsure)
    assert [(w.line, w.message) for w in warnings] == [
        (12, "cue without indentation step, taken as a known speaker")]


def test_read_plain_builds_scenes_and_title_page() -> None:
    text = "\n".join([
        C + "THE LAMPLIGHTER", "", C + "Written by", C + "A. N. Example", "", "",
        "INT. ROOM - DAY", "", A + "A lamp.", "", C + "JOHN", D + "Light it.", "",
        "EXT. YARD - NIGHT", "", A + "Dark.", "",
    ])
    result = read_plain(text, path="x.txt")
    assert [s.heading for s in result.scenes] == ["INT. ROOM - DAY", "EXT. YARD - NIGHT"]
    speech = [e for e in result.scenes[0].elements if e.kind is ElementKind.DIALOGUE]
    assert speech[0].speaker == "JOHN"
    assert result.title_page.get("title") == "THE LAMPLIGHTER"
    assert result.title_page.get("author") == "A. N. Example"


def test_side_by_side_dual_cues() -> None:
    lines = ["INT. CAR - DAY", "", A + "They both see it.", "",
             A + "NICK" + " " * 20 + "JUDY (CONT'D)", A + "Run!" + " " * 22 + "Run!"]
    tags = classify_lines(lines)
    assert tags[4:] == ["C", "D"]
    elements, _ = plain_elements(lines)
    cue = elements[2]
    assert (cue.speaker, cue.dual, cue.text) == ("NICK", True, "NICK JUDY (CONT'D)")
