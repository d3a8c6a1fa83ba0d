"""Tests for the PDF reader, on PDFs written here with an exact layout, and on shared scripts."""

from __future__ import annotations

import difflib
import functools
from pathlib import Path

import pytest

from kgbuild.errors import InputError, OcrNeededError
from kgbuild.model import ElementKind
from kgbuild.readers.fdx import read_fdx
from kgbuild.readers.headings import is_english_heading
from kgbuild.readers.pdf import read_pdf
from tests.readers.pdf_writer import ACTION, CUE, DIALOGUE, PAREN, RIGHT, Page, make_pdf

HEADER = "KEEPER - Blue Rev. 01/02/24"


def script_pdf() -> bytes:
    """A four-page script: title page, furniture, (MORE)/(CONT'D), dual dialogue, a slug."""
    title = Page()
    title.y = 500
    title.centered("THE LAST KEEPER").blank().centered("written by").centered("Ada Lovelace")
    title.y = 100
    title.line(ACTION, "ada@example.org")

    p2 = Page(header=HEADER)
    p2.line(ACTION, "FADE IN:").blank()
    p2.line(ACTION, "INT. LIGHTHOUSE - NIGHT", (72.0, "1"), (RIGHT, "1")).blank()
    p2.line(ACTION, "The lamp turns. MARGARET (60s) winds the").line(
        ACTION, "clockwork by hand.", (560.0, "*")).blank()
    p2.line(CUE, "MARGARET").line(PAREN, "(to herself)").line(DIALOGUE, "Forty years.").blank()
    p2.line(ACTION, "A knock at the door.").blank()
    p2.line(CUE, "TOM (O.S.)").line(DIALOGUE, "Anybody home?").blank()
    p2.line(CUE, "MARGARET").line(DIALOGUE, "Who is asking at this hour, in")
    p2.line(DIALOGUE, "this weather?").line(CUE, "(MORE)")
    p2.y = 60
    p2.right("(CONTINUED)")

    p3 = Page(number=2, header=HEADER)
    p3.line(ACTION, "CONTINUED: (2)").blank()
    p3.line(CUE, "MARGARET (CONT'D)").line(DIALOGUE, "Speak up, stranger.").blank()
    p3.line(ACTION, "ON THE DOOR").blank()
    p3.line(ACTION, "It swings open.").blank()
    p3.line(176.4, "TOM", (396.0, "ANNA"))
    p3.line(140.4, "Ship ahoy!", (360.0, "Ship ahoy!")).blank()
    p3.right("CUT TO:").blank()
    p3.line(ACTION, "EXT. ROCKS - DAWN", (72.0, "2A"), (RIGHT, "2A")).blank()
    p3.line(ACTION, "Waves break on the rocks.").blank()
    p3.line(CUE, "TOM").line(DIALOGUE, "Morning.")

    p4 = Page(number=3, header=HEADER)
    p4.line(CUE, "ANNA").line(DIALOGUE, "Is it?").blank()
    p4.centered("THE END")
    return make_pdf([title.runs, p2.runs, p3.runs, p4.runs])


@pytest.fixture(scope="module")
def script():
    return read_pdf(script_pdf(), path="keeper.pdf")


def _elements(result):
    return [e for s in result.scenes for e in s.elements]


def _cues(result) -> list[str]:
    return [e.speaker for e in _elements(result) if e.kind is ElementKind.CHARACTER]


def test_headings_and_margin_scene_numbers(script) -> None:
    assert [(s.heading, s.number) for s in script.scenes] == [
        ("INT. LIGHTHOUSE - NIGHT", "1"), ("EXT. ROCKS - DAWN", "2A"),
    ]
    assert script.scenes[0].location == ["LIGHTHOUSE"]


def test_title_page(script) -> None:
    assert script.title_page == {"Title": "THE LAST KEEPER", "Author": "Ada Lovelace"}
    assert not any("Lovelace" in e.text for e in _elements(script))


def test_more_and_contd_are_stitched_into_one_speech(script) -> None:
    assert _cues(script) == ["MARGARET", "TOM", "MARGARET", "TOM", "ANNA", "TOM", "ANNA"]
    speech = next(e for e in _elements(script) if e.text.startswith("Who is asking"))
    assert speech.text == "Who is asking at this hour, in this weather? Speak up, stranger."
    assert speech.kind is ElementKind.DIALOGUE and speech.speaker == "MARGARET"
    assert speech.page == 2 and speech.line_end > speech.line_start + 2


def test_page_furniture_is_removed(script) -> None:
    texts = " | ".join(e.text for e in _elements(script))
    for furniture in ("CONTINUED", "(MORE)", "Blue Rev.", "2.", "3.", "*"):
        assert furniture not in texts
    assert "clockwork by hand." in texts


def test_kinds_from_learned_margins(script) -> None:
    kinds = [(e.kind, e.text) for e in _elements(script)]
    assert kinds[0] == (ElementKind.TRANSITION, "FADE IN:")
    lamp = "The lamp turns. MARGARET (60s) winds the clockwork by hand."
    assert (ElementKind.ACTION, lamp) in kinds
    assert (ElementKind.PARENTHETICAL, "(to herself)") in kinds
    assert (ElementKind.TRANSITION, "CUT TO:") in kinds
    assert (ElementKind.SHOT, "ON THE DOOR") in kinds
    assert kinds[-1] == (ElementKind.CENTERED, "THE END")
    tom = next(e for e in _elements(script) if e.text == "TOM (O.S.)")
    assert (tom.speaker, tom.extensions) == ("TOM", ["O.S."])


def test_dual_dialogue_columns(script) -> None:
    dual = [(e.kind, e.speaker, e.text) for e in _elements(script) if e.dual]
    assert sorted(dual) == sorted([
        (ElementKind.CHARACTER, "TOM", "TOM"), (ElementKind.DIALOGUE, "TOM", "Ship ahoy!"),
        (ElementKind.CHARACTER, "ANNA", "ANNA"), (ElementKind.DIALOGUE, "ANNA", "Ship ahoy!"),
    ])


def test_line_numbers_and_pages(script) -> None:
    elements = _elements(script)
    heading = elements[1]
    # title page: 4 lines; page 2: header, FADE IN:, then the heading line.
    assert (heading.kind, heading.line_start, heading.page) == (ElementKind.SCENE_HEADING, 7, 2)
    assert elements[-1].page == 4
    starts = [e.line_start for e in elements if not e.dual]
    assert starts == sorted(starts)


def test_secondary_headings_option() -> None:
    result = read_pdf(script_pdf(), path="keeper.pdf", secondary_headings=True)
    assert [s.heading for s in result.scenes] == [
        "INT. LIGHTHOUSE - NIGHT", "ON THE DOOR", "EXT. ROCKS - DAWN",
    ]


def test_slug_with_a_margin_scene_number_is_a_heading() -> None:
    """A shooting script numbers its scenes, not its shots: a numbered slug line without
    INT./EXT. opens a scene, an unnumbered one stays a shot."""
    page = Page()
    page.line(ACTION, "INT. OFFICE - DAY", (72.0, "7"), (RIGHT, "7")).blank()
    page.line(ACTION, "Papers everywhere.").blank()
    page.line(ACTION, "ON THE DESK").blank()
    page.line(ACTION, "A photograph, face down.").blank()
    page.line(ACTION, "SERIES OF SHOTS", (72.0, "8"), (RIGHT, "8")).blank()
    page.line(ACTION, "The city wakes up.").blank()
    page.line(ACTION, "EXT. STREET - NIGHT", (72.0, "9"), (RIGHT, "9")).blank()
    page.line(CUE, "ANNA").line(DIALOGUE, "Late again.")
    result = read_pdf(make_pdf([page.runs]), path="numbered.pdf")
    assert [(s.heading, s.number) for s in result.scenes] == [
        ("INT. OFFICE - DAY", "7"), ("SERIES OF SHOTS", "8"), ("EXT. STREET - NIGHT", "9"),
    ]
    shots = [e.text for e in _elements(result) if e.kind is ElementKind.SHOT]
    assert shots == ["ON THE DESK"]


def test_pdf_without_text_needs_ocr() -> None:
    blank = make_pdf([[], []], drawings=True)
    with pytest.raises(OcrNeededError, match="ocrmypdf"):
        read_pdf(blank, path="scan.pdf")


@pytest.mark.parametrize(
    "data",
    [b"%PDF-1.4\nthis is not a pdf at all", script_pdf()[:300], b"%PDF-1.7\n" + b"\x00" * 64],
)
def test_damaged_pdf_raises_input_error(data: bytes) -> None:
    with pytest.raises(InputError):
        read_pdf(data, path="broken.pdf")


# ---------------------------------------------------------------------------------------------
# The shared scripts: FDX and PDF of the same screenplay must agree.

SCRIPTS = ["big-fish", "the-last-birthday-card", "brick-and-steel"]


@functools.cache
def _both(shared_data: Path, name: str):
    folder = shared_data / "screenplays"
    fdx = read_fdx((folder / f"{name}.fdx").read_bytes(), path=f"{name}.fdx")
    pdf = read_pdf((folder / f"{name}.pdf").read_bytes(), path=f"{name}.pdf")
    return fdx, pdf


def _norm(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", SCRIPTS)
def test_shared_pdf_and_fdx_cue_sequences_agree(shared_data: Path, name: str) -> None:
    fdx, pdf = _both(shared_data, name)
    ratio = difflib.SequenceMatcher(None, _cues(fdx), _cues(pdf), autojunk=False).ratio()
    assert ratio >= 0.99
    assert len(_cues(pdf)) == len(_cues(fdx))


@pytest.mark.parametrize("name", SCRIPTS)
def test_shared_pdf_and_fdx_scenes_agree(shared_data: Path, name: str) -> None:
    """Same INT./EXT. scenes. A heading without INT./EXT. ('ON THE TV') looks exactly like a
    shot in a PDF, so the PDF reads it as a SHOT; it must be one at the same place."""
    fdx, pdf = _both(shared_data, name)
    pdf_headings = [_norm(s.heading) for s in pdf.scenes]
    assert pdf_headings == [
        _norm(s.heading) for s in fdx.scenes if not s.heading or is_english_heading(s.heading)
    ]
    pdf_shots = {_norm(e.text) for e in _elements(pdf) if e.kind is ElementKind.SHOT}
    slugs = [
        _norm(s.heading) for s in fdx.scenes if s.heading and not is_english_heading(s.heading)
    ]
    unmatched = [h for h in slugs if h not in pdf_shots]
    # Forced headings ending with a full stop read as action sentences in a PDF.
    assert all(h.endswith(".") for h in unmatched)


def test_big_fish_pdf_pages(shared_data: Path) -> None:
    """Every one of the 122 pages is read (speed is measured by `scripts/dev bench`)."""
    data = (shared_data / "screenplays" / "big-fish.pdf").read_bytes()
    result = read_pdf(data, path="big-fish.pdf")
    assert len(result.scenes) == 193
    assert max(e.page or 0 for s in result.scenes for e in s.elements) == 122
