"""The Fountain 1.1 reader: every syntax feature on small inputs, then the shared screenplays."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgbuild.model import Element, ElementKind, SourceFormat
from kgbuild.readers import read_screenplay
from kgbuild.readers.assemble import ReadResult
from kgbuild.readers.fountain import read_fountain, strip_emphasis

K = ElementKind


def _read(*lines: str) -> ReadResult:
    return read_fountain("\n".join(lines), path="test.fountain")


def _elements(result: ReadResult) -> list[Element]:
    return [e for s in result.scenes for e in s.elements]


def _rows(*lines: str) -> list[tuple[ElementKind, str, int, int]]:
    return [(e.kind, e.text, e.line_start, e.line_end) for e in _elements(_read(*lines))]


def _styles(element: Element) -> list[tuple[int, int, str]]:
    return [(e.start, e.end, e.style) for e in element.emphasis]


# --- the feature fixture, end to end -------------------------------------------------------------


def test_feature_fixture_elements(fixtures: Path) -> None:
    text = (fixtures / "fountain" / "features.fountain").read_text(encoding="utf-8")
    result = read_fountain(text, path="features.fountain")
    assert result.warnings == []
    assert result.title_page == {
        "Title": "THE PATIO JOB\nA Test Script",
        "Credit": "Written by",
        "Author": "Kit Tester",
        "Draft date": "2024-05-01",
        "Contact": "1 Test Lane\nTestville",
    }
    rows = [
        (e.kind, e.text, e.line_start, e.line_end, e.speaker, e.dual, e.forced)
        for e in _elements(result)
    ]
    assert rows == [
        (K.SECTION, "ACT ONE", 11, 11, None, False, False),
        (K.SECTION, "The patio", 13, 13, None, False, False),
        (K.SYNOPSIS, "Two cops retire, badly.", 15, 15, None, False, False),
        (K.TRANSITION, "FADE IN:", 17, 17, None, False, False),
        (K.SCENE_HEADING, "EXT. BRICK'S PATIO - DAY", 19, 19, None, False, False),
        (K.ACTION, "A gorgeous day. BRICK sits.", 21, 21, None, False, False),
        (K.NOTE, "check the weather", 21, 21, None, False, False),
        (K.CHARACTER, "STEEL", 23, 23, "STEEL", True, False),
        (K.PARENTHETICAL, "(beer raised)", 24, 24, "STEEL", True, False),
        (K.DIALOGUE, "To retirement.", 25, 25, "STEEL", True, False),
        (K.CHARACTER, "BRICK", 27, 27, "BRICK", True, False),
        (K.DIALOGUE, "To retirement.", 28, 28, "BRICK", True, False),
        (K.TRANSITION, "CUT TO:", 30, 30, None, False, False),
        (K.SCENE_HEADING, "SNIPER SCOPE POV", 32, 32, None, False, True),
        (K.ACTION, "Steel's face FILLS the scope.", 36, 36, None, False, False),
        (K.SCENE_HEADING, "INT. GARAGE - NIGHT", 38, 38, None, False, False),
        (K.CHARACTER, "McCLANE (on the radio)", 40, 40, "MCCLANE", False, True),
        (K.DIALOGUE, "Yippee-ki-yay.\n\nOver.", 41, 43, "MCCLANE", False, False),
        (K.ACTION, "He hums, then sings:", 45, 45, None, False, False),
        (K.LYRIC, "Willy Wonka! Willy Wonka!", 47, 47, None, False, False),
        (K.PAGE_BREAK, "", 49, 49, None, False, False),
        (K.CENTERED, "THE END", 51, 51, None, False, False),
    ]
    els = _elements(result)
    assert [(e.depth) for e in els if e.kind is K.SECTION] == [1, 2]
    assert _styles(els[5]) == [(2, 10, "italic")]
    assert _styles(els[9]) == [(3, 13, "bold")]
    assert _styles(els[14]) == [(23, 28, "underline")]
    assert els[16].extensions == ["ON THE RADIO"]


def test_feature_fixture_scenes(fixtures: Path) -> None:
    text = (fixtures / "fountain" / "features.fountain").read_text(encoding="utf-8")
    scenes = read_fountain(text, path="features.fountain").scenes
    facts = [(s.index, s.number, s.heading, s.int_ext, s.location, s.time_of_day, s.line_span)
             for s in scenes]
    assert facts == [
        (1, "1", "EXT. BRICK'S PATIO - DAY", "EXT", ["BRICK'S PATIO"], "DAY", (11, 30)),
        # A forced heading that is a camera note ('... POV') names no place.
        (2, "2A", "SNIPER SCOPE POV", None, [], None, (32, 36)),
        (3, None, "INT. GARAGE - NIGHT", "INT", ["GARAGE"], "NIGHT", (38, 51)),
    ]


def test_read_screenplay_dispatches_fountain(fixtures: Path) -> None:
    sp = read_screenplay(fixtures / "fountain" / "features.fountain")
    assert sp.source.format is SourceFormat.FOUNTAIN
    assert sp.title == "THE PATIO JOB A Test Script"
    assert len(sp.scenes) == 3
    assert sp.language == "en"


def test_public_domain_sample_end_to_end(fixtures: Path) -> None:
    sp = read_screenplay(fixtures / "fountain" / "cyber-bob-ep00001.fountain")
    assert sp.title_page["Copyright"] == "Dedicated to the Public Domain."
    assert sp.title_page["Title"] == (
        "BOB THE CYBER PAWN AND HIS CYBER CLOUD BOSS THING\nEPISODE 1: TRAFFIC CONTROL DOGS")
    # The '/* Draft date */' line inside the title page is boneyard: gone, page not cut short.
    assert "Draft date" not in sp.title_page and sp.title_page["Contact"] == "earthbound.io/contact"
    assert [s.heading for s in sp.scenes if s.heading] == [
        "EXT. PARK--DAY", "EXT. SUBURBAN TRAFFIC INTERSECTION--DAY",
        "INT. TRAFFIC LIGHT HORIZONTAL BEAM--NIGHT"]
    notes = [e for s in sp.scenes for e in s.elements if e.kind is K.NOTE]
    assert [(n.line_start, n.text[:20]) for n in notes] == [
        (14, "archival web URL: ht"), (15, "Second draft publish")]
    # Bold that spans four lines of one action paragraph is still stripped.
    opening = sp.scenes[0].elements
    bold = next(e for e in opening if e.kind is K.ACTION)
    assert bold.text.startswith("Note: For your own") and bold.text.endswith("CyberBobPD")
    assert (bold.line_start, bold.line_end) == (19, 22)
    assert _styles(bold) == [(0, len(bold.text), "bold")]
    speakers = {e.speaker for s in sp.scenes for e in s.elements if e.kind is K.CHARACTER}
    assert {"BOB", "MARGARET", "DOG", "CYBER BOSS"} <= speakers
    # "CYBER BOSS, 40 (or any age), an ageless," has lowercase after the parenthesis: action.
    assert not any(s.startswith("CYBER BOSS,") for s in speakers)


# --- title page ----------------------------------------------------------------------------------


def test_title_page_keys_as_written_and_body_line_numbers() -> None:
    result = _read(
        "title: Lower Case",
        "AUTHORS: Ann and Bo",
        "Notes:",
        "   first line",
        "\t*second* line [[not this]]",
        "",
        "INT. ROOM - DAY",
    )
    assert result.title_page == {
        "title": "Lower Case", "AUTHORS": "Ann and Bo", "Notes": "first line\nsecond line"}
    assert _rows_of(result) == [(K.SCENE_HEADING, "INT. ROOM - DAY", 7, 7)]


def _rows_of(result: ReadResult) -> list[tuple[ElementKind, str, int, int]]:
    return [(e.kind, e.text, e.line_start, e.line_end) for e in _elements(result)]


def test_no_title_page_when_the_script_starts_with_a_transition() -> None:
    result = _read("FADE IN:", "", "INT. ROOM - DAY")
    assert result.title_page == {}
    assert _rows_of(result) == [
        (K.TRANSITION, "FADE IN:", 1, 1), (K.SCENE_HEADING, "INT. ROOM - DAY", 3, 3)]


def test_unknown_keys_alone_are_not_a_title_page() -> None:
    result = _read("BOB: hello there", "", "INT. ROOM - DAY")
    assert result.title_page == {}
    assert _rows_of(result)[0] == (K.ACTION, "BOB: hello there", 1, 1)


# --- scene headings ------------------------------------------------------------------------------


@pytest.mark.parametrize("heading", [
    "INT. HOUSE - DAY", "EXT. HOUSE - DAY", "EST. CITY - NIGHT", "INT./EXT. CAR - DAY",
    "INT/EXT CAR - DAY", "I/E CAR - DAY", "int. house - day", "EXT HOUSE - DAY",
])
def test_heading_prefixes(heading: str) -> None:
    assert _rows("Some action.", "", heading, "", "More action.")[1] == (
        K.SCENE_HEADING, heading, 3, 3)


def test_heading_needs_a_blank_line_before_it() -> None:
    assert _rows("He walks in.", "INT. HOUSE - DAY", "", "More.") == [
        (K.ACTION, "He walks in.\nINT. HOUSE - DAY", 1, 2), (K.ACTION, "More.", 4, 4)]


def test_words_starting_with_int_are_not_headings() -> None:
    assert [k for k, *_ in _rows("INTERCUT WITH:", "", "EXTRA CREDIT")] == [K.ACTION, K.ACTION]


def test_forced_heading_and_ellipsis() -> None:
    result = _read(".SNIPER SCOPE POV", "", "...", "", ".45 CALIBER HOUSE")
    els = _elements(result)
    assert [(e.kind, e.text, e.forced) for e in els] == [
        (K.SCENE_HEADING, "SNIPER SCOPE POV", True),
        (K.ACTION, "...", False),
        (K.SCENE_HEADING, "45 CALIBER HOUSE", True),
    ]


def test_scene_numbers_are_stripped_and_kept() -> None:
    result = _read("INT. HOUSE - DAY #12A#", "", "Action.", "", ".FLASHBACK #I-1.a#", "",
                   "EXT. ROUTE 66 - DAY")
    heads = [e for e in _elements(result) if e.kind is K.SCENE_HEADING]
    assert [(h.text, h.number) for h in heads] == [
        ("INT. HOUSE - DAY", "12A"), ("FLASHBACK", "I-1.a"), ("EXT. ROUTE 66 - DAY", None)]
    assert [s.number for s in result.scenes] == ["12A", "I-1.a", None]


def test_heading_glued_after_transition_and_to_next_paragraph_warns() -> None:
    result = _read("Action.", "", "CUT TO:", "INT. KITCHEN - NIGHT", "Lang sits.", "",
                   "LANG", "Hi.")
    assert _rows_of(result) == [
        (K.ACTION, "Action.", 1, 1),
        (K.TRANSITION, "CUT TO:", 3, 3),
        (K.SCENE_HEADING, "INT. KITCHEN - NIGHT", 4, 4),
        (K.ACTION, "Lang sits.", 5, 5),
        (K.CHARACTER, "LANG", 7, 7),
        (K.DIALOGUE, "Hi.", 8, 8),
    ]
    assert [(w.line, w.message.split(";")[0]) for w in result.warnings] == [
        (3, "transition not followed by a blank line"),
        (4, "scene heading with no blank line after a transition or before the next paragraph"),
    ]


def test_heading_directly_after_a_section_line() -> None:
    assert _rows("# 2020 -- Docuseries", "EXT. HIGHWAY (2020) -- DAY", "", "A van.") == [
        (K.SECTION, "2020 -- Docuseries", 1, 1),
        (K.SCENE_HEADING, "EXT. HIGHWAY (2020) -- DAY", 2, 2),
        (K.ACTION, "A van.", 4, 4),
    ]


# --- character cues and dialogue -----------------------------------------------------------------


def test_cue_with_extensions_and_speakers() -> None:
    result = _read("", "EDWARD (V.O.)(CONT'D)", "There are some fish.", "", "HANS (on the radio)",
                   "Ho ho ho.")
    els = _elements(result)
    assert [(e.kind, e.text, e.speaker, e.extensions) for e in els] == [
        (K.CHARACTER, "EDWARD (V.O.)(CONT'D)", "EDWARD", ["V.O.", "CONT'D"]),
        (K.DIALOGUE, "There are some fish.", "EDWARD", []),
        (K.CHARACTER, "HANS (on the radio)", "HANS", ["ON THE RADIO"]),
        (K.DIALOGUE, "Ho ho ho.", "HANS", []),
    ]


def test_cue_rules_need_a_letter_caps_and_a_next_line() -> None:
    assert _rows("R2D2", "Beep.") == [(K.CHARACTER, "R2D2", 1, 1), (K.DIALOGUE, "Beep.", 2, 2)]
    assert _rows("23", "Skidoo.") == [(K.ACTION, "23\nSkidoo.", 1, 2)]
    assert _rows("STEEL", "", "Beer.") == [(K.ACTION, "STEEL", 1, 1), (K.ACTION, "Beer.", 3, 3)]
    assert _rows("Steel", "Beer.") == [(K.ACTION, "Steel\nBeer.", 1, 2)]


def test_caseless_lines_are_not_cues_unless_forced() -> None:
    assert _rows("老王走进来。", "他坐下。") == [(K.ACTION, "老王走进来。\n他坐下。", 1, 2)]
    els = _elements(_read("@老王", "你好。"))
    assert [(e.kind, e.speaker) for e in els] == [(K.CHARACTER, "老王"), (K.DIALOGUE, "老王")]


def test_forced_cue_keeps_case_in_text_and_normalizes_speaker() -> None:
    els = _elements(_read("@McCLANE", "Yippee."))
    assert [(e.kind, e.text, e.speaker, e.forced) for e in els] == [
        (K.CHARACTER, "McCLANE", "MCCLANE", True), (K.DIALOGUE, "Yippee.", "MCCLANE", False)]


def test_cue_with_a_trailing_colon() -> None:
    els = _elements(_read("JIM SIMMONS:", "A *reptilian* won't."))
    assert [(e.kind, e.speaker) for e in els] == [(K.CHARACTER, "JIM SIMMONS"),
                                                  (K.DIALOGUE, "JIM SIMMONS")]
    assert _styles(els[1]) == [(2, 11, "italic")]


def test_parentheticals_dialogue_lines_and_two_space_blank_line() -> None:
    rows = _rows(
        "STEEL",
        "(beer raised)",
        "To retirement.",
        "And to us.",
        "  ",
        "All of us.",
        "(beat,",
        " quietly)",
        "(whispering) Cheers.",
    )
    assert rows == [
        (K.CHARACTER, "STEEL", 1, 1),
        (K.PARENTHETICAL, "(beer raised)", 2, 2),
        (K.DIALOGUE, "To retirement.\nAnd to us.\n\nAll of us.", 3, 6),
        (K.PARENTHETICAL, "(beat,\nquietly)", 7, 8),
        (K.DIALOGUE, "(whispering) Cheers.", 9, 9),
    ]


def test_two_space_line_then_a_new_cue_ends_the_speech() -> None:
    assert _rows("BOB", "Hi.", "  ", "SARA", "Hello.") == [
        (K.CHARACTER, "BOB", 1, 1), (K.DIALOGUE, "Hi.", 2, 2),
        (K.CHARACTER, "SARA", 4, 4), (K.DIALOGUE, "Hello.", 5, 5)]


def test_one_space_line_is_an_ordinary_blank_line() -> None:
    assert _rows("BOB", "Hi.", " ", "He leaves.") == [
        (K.CHARACTER, "BOB", 1, 1), (K.DIALOGUE, "Hi.", 2, 2), (K.ACTION, "He leaves.", 4, 4)]


def test_dual_dialogue_marks_both_speeches() -> None:
    result = _read(
        "They look at each other.",
        "",
        "STEEL",
        "(raising a beer)",
        "Screw retirement.",
        "",
        "BRICK ^",
        "Screw retirement.",
        "",
        "They drink.",
        "",
        "STEEL",
        "Again?",
    )
    els = _elements(result)
    assert [(e.kind, e.text, e.speaker, e.dual) for e in els] == [
        (K.ACTION, "They look at each other.", None, False),
        (K.CHARACTER, "STEEL", "STEEL", True),
        (K.PARENTHETICAL, "(raising a beer)", "STEEL", True),
        (K.DIALOGUE, "Screw retirement.", "STEEL", True),
        (K.CHARACTER, "BRICK", "BRICK", True),
        (K.DIALOGUE, "Screw retirement.", "BRICK", True),
        (K.ACTION, "They drink.", None, False),
        (K.CHARACTER, "STEEL", "STEEL", False),
        (K.DIALOGUE, "Again?", "STEEL", False),
    ]
    assert result.warnings == []


def test_dual_dialogue_without_a_first_speech_warns() -> None:
    result = _read("Action.", "", "BRICK ^", "Alone.")
    assert [e.dual for e in _elements(result)] == [False, True, True]
    assert [w.line for w in result.warnings] == [3]


def test_lyrics_alone_and_inside_dialogue() -> None:
    result = _read("He sings.", "", "~Willy Wonka!", "~Willy Wonka!", "", "WILLY", "(singing)",
                   "~Pure imagination.", "Thanks.")
    els = _elements(result)
    assert [(e.kind, e.text, e.line_start, e.line_end, e.speaker) for e in els] == [
        (K.ACTION, "He sings.", 1, 1, None),
        (K.LYRIC, "Willy Wonka!\nWilly Wonka!", 3, 4, None),
        (K.CHARACTER, "WILLY", 6, 6, "WILLY"),
        (K.PARENTHETICAL, "(singing)", 7, 7, "WILLY"),
        (K.LYRIC, "Pure imagination.", 8, 8, "WILLY"),
        (K.DIALOGUE, "Thanks.", 9, 9, "WILLY"),
    ]


# --- action --------------------------------------------------------------------------------------


def test_forced_action_and_indentation() -> None:
    result = _read("!SCANNING THE AISLES...", "Nothing.", "", "\tHe waits.", "    Still waits.  ")
    els = _elements(result)
    assert [(e.kind, e.text, e.forced) for e in els] == [
        (K.ACTION, "SCANNING THE AISLES...\nNothing.", True),
        (K.ACTION, "    He waits.\n    Still waits.", False),
    ]


def test_all_caps_action_followed_by_blank_line_is_action() -> None:
    assert _rows("THE DOOR SLAMS.", "", "Silence.") == [
        (K.ACTION, "THE DOOR SLAMS.", 1, 1), (K.ACTION, "Silence.", 3, 3)]


# --- transitions and centered text ---------------------------------------------------------------


def test_transitions_forced_and_centered() -> None:
    result = _read("CUT TO:", "", ">Burn to White.", "", ">THE END<", "", "> BRICK &", "",
                   "> BRICK BRADDOCK <", "> & DICK STEEL <", "", "Cut to: the chase.")
    assert [(e.kind, e.text, e.forced) for e in _elements(result)] == [
        (K.TRANSITION, "CUT TO:", False),
        (K.TRANSITION, "Burn to White.", True),
        (K.CENTERED, "THE END", False),
        (K.TRANSITION, "BRICK &", True),
        (K.CENTERED, "BRICK BRADDOCK\n& DICK STEEL", False),
        (K.ACTION, "Cut to: the chase.", False),
    ]


def test_transition_glued_to_the_end_of_a_speech() -> None:
    assert _rows("JACOB", "Ok.", "CUT BACK TO:", "", "Later.") == [
        (K.CHARACTER, "JACOB", 1, 1), (K.DIALOGUE, "Ok.", 2, 2),
        (K.TRANSITION, "CUT BACK TO:", 3, 3), (K.ACTION, "Later.", 5, 5)]


def test_standard_transitions_without_to() -> None:
    assert [k for k, *_ in _rows("FADE OUT.", "", "CUT TO BLACK.", "", "FADE OUT. Fin.")] == [
        K.TRANSITION, K.TRANSITION, K.ACTION]


# --- page breaks, sections, synopses -------------------------------------------------------------


def test_page_breaks_sections_synopses() -> None:
    result = _read("# Act I", "## Sequence", "### Scene", "= Setup.", "", "====", "", "Action.")
    els = _elements(result)
    assert [(e.kind, e.text, e.depth, e.line_start) for e in els] == [
        (K.SECTION, "Act I", 1, 1),
        (K.SECTION, "Sequence", 2, 2),
        (K.SECTION, "Scene", 3, 3),
        (K.SYNOPSIS, "Setup.", None, 4),
        (K.PAGE_BREAK, "", None, 6),
        (K.ACTION, "Action.", None, 8),
    ]


# --- notes and boneyard --------------------------------------------------------------------------


def test_notes_inline_own_line_and_multi_line() -> None:
    result = _read(
        "INT. HOUSE - NIGHT [[STORYLINE CAT]]",
        "",
        "BOB",
        "[[a note on its own line]]",
        "Hello [[inline]] there.",
        "",
        "He leaves. [[a note",
        "  ",
        "over lines]] Gone.",
    )
    assert _rows_of(result) == [
        (K.SCENE_HEADING, "INT. HOUSE - NIGHT", 1, 1),
        (K.NOTE, "STORYLINE CAT", 1, 1),
        (K.CHARACTER, "BOB", 3, 3),
        (K.NOTE, "a note on its own line", 4, 4),
        (K.DIALOGUE, "Hello there.", 5, 5),
        (K.NOTE, "inline", 5, 5),
        (K.ACTION, "He leaves.\nGone.", 7, 9),
        (K.NOTE, "a note\n\nover lines", 7, 9),
    ]
    dialogue = _elements(result)[4]
    assert dialogue.speaker == "BOB"
    assert result.warnings == []


def test_unclosed_note_ends_at_the_blank_line_and_warns() -> None:
    result = _read("Action [[never closed", "still note", "", "More action.")
    assert _rows_of(result) == [
        (K.ACTION, "Action", 1, 1),
        (K.NOTE, "never closed\nstill note", 1, 2),
        (K.ACTION, "More action.", 4, 4),
    ]
    assert [w.line for w in result.warnings] == [1]
    assert "never closed" in result.warnings[0].message


def test_boneyard_is_removed_and_line_numbers_stay_true() -> None:
    result = _read(
        "INT. HOUSE - DAY",
        "",
        "/* An old scene",
        "",
        "BOB",
        "Gone.",
        "*/",
        "",
        "BOB",
        "/* cut line */",
        "Kept. /* cut */ Also kept.",
    )
    assert _rows_of(result) == [
        (K.SCENE_HEADING, "INT. HOUSE - DAY", 1, 1),
        (K.CHARACTER, "BOB", 9, 9),
        (K.DIALOGUE, "Kept. Also kept.", 11, 11),
    ]
    assert result.warnings == []


def test_boneyard_with_blank_lines_keeps_paragraphs_apart() -> None:
    assert _rows("Before.", "/*", "", "hidden", "", "*/", "After.") == [
        (K.ACTION, "Before.", 1, 1), (K.ACTION, "After.", 7, 7)]


def test_unclosed_boneyard_swallows_the_rest_and_warns() -> None:
    result = _read("Action.", "", "/* never closed", "", "BOB", "Hi.")
    assert _rows_of(result) == [(K.ACTION, "Action.", 1, 1)]
    assert [w.line for w in result.warnings] == [3]


# --- emphasis ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "plain", "spans"), [
    ("*italic*", "italic", [(0, 6, "italic")]),
    ("**bold**", "bold", [(0, 4, "bold")]),
    ("***both***", "both", [(0, 4, "bold"), (0, 4, "italic")]),
    ("_under_", "under", [(0, 5, "underline")]),
    ("a **bold *and italic* text** b", "a bold and italic text b",
     [(2, 22, "bold"), (7, 17, "italic")]),
    ("_**BRICK & STEEL**_", "BRICK & STEEL", [(0, 13, "bold"), (0, 13, "underline")]),
    (r"code **\*9765\***", "code *9765*", [(5, 11, "bold")]),
    (r"\*not italic\*", "*not italic*", []),
    ("5 * 3 * 2", "5 * 3 * 2", []),
    ("snake_case_name", "snake_case_name", []),
    ("it _is_ the title", "it is the title", [(3, 5, "underline")]),
    ("no markup", "no markup", []),
])
def test_strip_emphasis(raw: str, plain: str, spans: list[tuple[int, int, str]]) -> None:
    text, emphasis = strip_emphasis(raw)
    assert text == plain
    assert sorted((e.start, e.end, e.style) for e in emphasis) == sorted(spans)


def test_strip_emphasis_on_long_unmatched_delimiters() -> None:
    # Unmatched delimiters are kept as written (no markup is invented). That the regexes do not
    # backtrack on such input is measured by `scripts/dev bench --only parsing`, not timed here.
    for raw in ("*a " * 50_000, "**a " * 50_000, "_a " * 50_000):
        text, emphasis = strip_emphasis(raw)
        assert text == raw and emphasis == []
    text, emphasis = strip_emphasis("*a " * 3 + "a* ")
    assert emphasis and len(text) < len("*a " * 3 + "a* ")


def test_emphasis_on_elements_and_cues() -> None:
    els = _elements(_read("**BOB**", "I *really* mean it."))
    assert [(e.kind, e.text, e.speaker) for e in els] == [
        (K.CHARACTER, "BOB", "BOB"), (K.DIALOGUE, "I really mean it.", "BOB")]
    assert _styles(els[0]) == [(0, 3, "bold")]
    assert _styles(els[1]) == [(2, 8, "italic")]


# --- line ends -----------------------------------------------------------------------------------


def test_crlf_and_cr_line_ends_keep_line_numbers() -> None:
    crlf = read_fountain("INT. A - DAY\r\n\r\nBOB\r\nHi.\r\n", path="x.fountain")
    cr = read_fountain("INT. A - DAY\r\rBOB\rHi.\r", path="x.fountain")
    expected = [(K.SCENE_HEADING, "INT. A - DAY", 1, 1), (K.CHARACTER, "BOB", 3, 3),
                (K.DIALOGUE, "Hi.", 4, 4)]
    assert _rows_of(crlf) == expected
    assert _rows_of(cr) == expected


def test_byte_order_mark_does_not_hide_the_title_page() -> None:
    result = read_fountain("\ufeffTitle: Marked\n\nINT. A - DAY\n", path="x.fountain")
    assert result.title_page == {"Title": "Marked"}
    assert _rows_of(result) == [(K.SCENE_HEADING, "INT. A - DAY", 3, 3)]


def test_empty_body_gives_no_scenes() -> None:
    result = read_fountain("Title: Only a title\n", path="x.fountain")
    assert result.title_page == {"Title": "Only a title"}
    assert result.scenes == []


# --- the shared screenplays ----------------------------------------------------------------------

# Independent count: every line that starts like a heading (or is a forced '.' heading), with no
# regard to blank lines around it. It agrees with the parser on all shared files.
_HEADING_LINE = re.compile(
    r"^(?:(?:INT\.?/EXT|EXT\.?/INT|INT|EXT|EST|I/E)[. ]|\.[A-Za-z0-9])", re.IGNORECASE)
_EXPECTED_HEADINGS = {
    "big-fish": 192, "brick-and-steel": 8, "cyber-bob-ep00001": 3, "lizard-people": 98,
    "my-living-memory": 9, "printing-trouble": 29, "silent-as-murderers": 34,
    "the-last-birthday-card": 48,
}


def _shared_fountains(shared_data: Path) -> list[Path]:
    files = sorted((shared_data / "screenplays").glob("*.fountain"))
    assert {f.stem for f in files} == set(_EXPECTED_HEADINGS)
    return files


@pytest.mark.shared_data
def test_shared_heading_counts_match_an_independent_count(shared_data: Path) -> None:
    for file in _shared_fountains(shared_data):
        text = file.read_text(encoding="utf-8")
        counted = sum(1 for line in text.splitlines() if _HEADING_LINE.match(line))
        result = read_fountain(text, path=str(file))
        parsed = [e for e in _elements(result) if e.kind is K.SCENE_HEADING]
        assert len(parsed) == counted == _EXPECTED_HEADINGS[file.stem], file.name
        assert sum(1 for s in result.scenes if s.heading) == counted, file.name


@pytest.mark.shared_data
def test_shared_files_parse_via_read_screenplay(shared_data: Path) -> None:
    for file in _shared_fountains(shared_data):
        sp = read_screenplay(file)
        assert sp.source.format is SourceFormat.FOUNTAIN, file.name
        assert sp.language == "en"
        assert sp.title_page, file.name
        lines = file.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
        for scene in sp.scenes:
            for e in scene.elements:
                assert 1 <= e.line_start <= e.line_end <= len(lines), (file.name, e)
                for mark in ("**", "[[", "]]", "/*", "*/"):
                    assert mark not in e.text, (file.name, e)
                if e.kind in (K.SCENE_HEADING, K.CHARACTER) and not e.emphasis:
                    assert e.text in lines[e.line_start - 1], (file.name, e)
                if e.kind in (K.DIALOGUE, K.ACTION) and not e.emphasis:
                    source = "\n".join(lines[e.line_start - 1:e.line_end])
                    for part in e.text.split("\n"):
                        assert part.strip() in source, (file.name, e)


@pytest.mark.shared_data
def test_big_fish(shared_data: Path) -> None:
    sp = read_screenplay(shared_data / "screenplays" / "big-fish.fountain")
    assert list(sp.title_page) == ["Title", "Credit", "Author", "Source", "Notes", "Copyright"]
    assert sp.title == "Big Fish"
    assert sp.title_page["Notes"] == (
        "FINAL PRODUCTION DRAFT\nincludes post-production dialogue\nand omitted scenes")
    # 192 headings plus the untitled opening (the river, Edward's voice-over) before the first.
    assert len(sp.scenes) == 193
    opening = sp.scenes[0]
    assert opening.heading == ""
    assert [(e.speaker, e.extensions) for e in opening.elements if e.kind is K.CHARACTER] == [
        ("EDWARD", ["V.O."]), ("EDWARD", ["V.O.", "CONT'D"])]
    second = sp.scenes[1]
    assert (second.heading, second.int_ext, second.location[0]) == (
        "INT.  WILL'S BEDROOM - NIGHT (1973)", "INT", "WILL'S BEDROOM")
    cues = [e.speaker for s in sp.scenes for e in s.elements if e.kind is K.CHARACTER]
    assert cues.count("EDWARD") > cues.count("WILL") > cues.count("SANDRA") > 50
    last = sp.scenes[-1].elements
    assert (last[-1].kind, last[-1].text) == (K.CENTERED, "THE END")
    assert _styles(last[-1]) == [(0, 7, "bold"), (0, 7, "underline")]


@pytest.mark.shared_data
def test_lizard_people(shared_data: Path) -> None:
    sp = read_screenplay(shared_data / "screenplays" / "lizard-people.fountain")
    assert len(sp.scenes) == 98
    assert all(s.heading and s.int_ext in {"INT", "EXT"} for s in sp.scenes)
    assert sp.title_page == {
        "TITLE": "LIZARD PEOPLE", "Author": "Matthew Klingensmith",
        "Source": "Based on True Events"}
    sections = [e.text for s in sp.scenes for e in s.elements if e.kind is K.SECTION]
    assert sections[0] == "2020 -- Docuseries" and len(sections) == 18
    # Transitions glued to the next paragraph never become character cues.
    speakers = {e.speaker for s in sp.scenes for e in s.elements if e.kind is K.CHARACTER}
    assert not any(name.endswith("TO") or "TO:" in name for name in speakers)
    assert {"REGGIE", "LANG", "SOPHIE", "JIM SIMMONS"} <= speakers


@pytest.mark.shared_data
def test_brick_and_steel_dual_dialogue_and_forced_headings(shared_data: Path) -> None:
    sp = read_screenplay(shared_data / "screenplays" / "brick-and-steel.fountain")
    dual = [(e.kind, e.speaker) for s in sp.scenes for e in s.elements if e.dual]
    assert dual == [(K.CHARACTER, "STEEL"), (K.DIALOGUE, "STEEL"),
                    (K.CHARACTER, "BRICK"), (K.DIALOGUE, "BRICK")]
    forced = [s.heading for s in sp.scenes if any(e.forced for e in s.elements
                                                  if e.kind is K.SCENE_HEADING)]
    assert forced == ["SNIPER SCOPE POV", "OPENING TITLES"]


@pytest.mark.shared_data
def test_silent_as_murderers_notes_and_boneyard(shared_data: Path) -> None:
    sp = read_screenplay(shared_data / "screenplays" / "silent-as-murderers.fountain")
    notes = [e for s in sp.scenes for e in s.elements if e.kind is K.NOTE]
    assert len(notes) == 19 and notes[0].line_start == 21
    assert sp.scenes[0].heading == "INT. LIVING ROOM – NIGHT"
    body = " ".join(e.text for s in sp.scenes for e in s.elements)
    assert "vimeo" not in body and "END_BEAT" not in body
