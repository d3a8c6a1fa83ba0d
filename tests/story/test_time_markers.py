"""Time markers of headings and on-screen titles, with their evidence."""

from __future__ import annotations

import pytest

from kgbuild.model import Element, ElementKind, MarkerKind, Scene
from kgbuild.readers.time_markers import time_markers


def _scene(heading: str, *extra: tuple[ElementKind, str]) -> Scene:
    elements = [Element(kind=ElementKind.SCENE_HEADING, text=heading, line_start=10, line_end=10)]
    elements += [Element(kind=kind, text=text, line_start=11 + i, line_end=11 + i) for i, (kind, text) in
                 enumerate(extra)]
    return Scene(index=1, heading=heading, elements=elements, line_span=(10, 10 + len(extra)))


@pytest.mark.parametrize(("heading", "expected"), [
    ("INT. WILL'S BEDROOM - NIGHT (1973)", [("year", "1973")]),
    ("INT. HALF-DARK PARIS APARTMENT - (PRESENT) DAY", [("present", "PRESENT")]),
    ("INT. JENNY HILL'S KITCHEN - PRESENT DAY", [("present", "PRESENT DAY")]),
    ("INT. WILL'S BEDROOM - DAY [FLASHBACK]", [("flashback", "FLASHBACK")]),
    ("EXT. THE DARK FOREST - DAY [LATER]", [("later", "LATER")]),
    ("INT. EMPIRE THEATRE -- MOMENTS LATER", [("later", "MOMENTS LATER")]),
    ("INT. STAIRWELL -- CONTINUOUS", []),
    ("INT. ROOM 101 - NIGHT", []),
    ("INT. PRESENTATION HALL - DAY", []),
])
def test_heading_markers(heading, expected):
    markers = time_markers(_scene(heading))
    assert [(m.kind.value, m.text) for m in markers] == expected
    assert all(m.source == "heading" and m.evidence.quote == heading and m.evidence.lines == (10, 10)
               for m in markers)


def test_title_cards_and_flashback_transitions():
    scene = _scene("EXT. MAIN STREET - DAY",
                   (ElementKind.CENTERED, 'SUPER: "THREE YEARS AGO"'),
                   (ElementKind.ACTION, "SUPER: LONDON, 1897"),
                   (ElementKind.ACTION, "A man says it was 1950 then."),
                   (ElementKind.TRANSITION, "FLASHBACK TO:"),
                   (ElementKind.ACTION, "END FLASHBACK"))
    markers = time_markers(scene)
    assert [(m.kind, m.text, m.source) for m in markers] == [
        (MarkerKind.AGO, "THREE YEARS AGO", "title"), (MarkerKind.YEAR, "1897", "title"),
        (MarkerKind.FLASHBACK, "FLASHBACK", "title"), (MarkerKind.FLASHBACK_END, "END FLASHBACK", "title")]
    assert markers[0].years_ago == 3 and markers[1].year == 1897
    assert markers[1].evidence.quote == "SUPER: LONDON, 1897" and markers[1].evidence.lines == (12, 12)
