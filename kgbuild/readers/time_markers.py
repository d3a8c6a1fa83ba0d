"""Time markers: what a scene's heading and the script's on-screen titles say about when it is.

Scene numbers give screen order; scripts that tell a story out of order say so in a few fixed
ways, and this module reads exactly those, each with its evidence:

- a year in the heading or a title card: `INT. BEDROOM - NIGHT (1973)`, `SUPER: LONDON, 1897`;
- the present: `(PRESENT) DAY`, `PRESENT DAY`, `SUPER: "THE PRESENT DAY"`;
- an amount before the present: `SUPER: "THREE YEARS AGO"`, `TWENTY YEARS EARLIER`;
- a flashback and its end: `[FLASHBACK]`, `FLASHBACK TO:`, `END FLASHBACK`, `BACK TO PRESENT`;
- later than the scene before: `[LATER]`, `MOMENTS LATER`, `ONE MONTH LATER`, `THE NEXT MORNING`.

A title card is an element that starts `SUPER:`, `TITLE:`, `CAPTION:`, `CARD:` or `CHYRON:`
(action, centered text or a shot); a transition or an action line that is only a flashback
marker (`FLASHBACK TO:`, `END FLASHBACK`) counts too. `CONTINUOUS` and `SAME` are not markers:
they say the scene goes on, which screen order already says. Times of day (DAY, NIGHT) are not
markers either; they stay `Scene.time_of_day`. Nothing else is read (no dates said in dialogue).

Example:
    >>> from kgbuild.model import Element, ElementKind, Scene
    >>> heading = Element(kind=ElementKind.SCENE_HEADING, text="INT. BEDROOM - NIGHT (1973)",
    ...                   line_start=3, line_end=3)
    >>> scene = Scene(index=1, heading="INT. BEDROOM - NIGHT (1973)", elements=[heading], line_span=(3, 3))
    >>> [(m.kind.value, m.year) for m in time_markers(scene)]
    [('year', 1973)]
"""

from __future__ import annotations

import re

from kgbuild.evidence import heading_evidence, quote_evidence
from kgbuild.model import Element, ElementKind, Evidence, MarkerKind, Scene, TimeMarker
from kgbuild.timewords import TIME_OF_DAY_WORDS

_PRODUCER = "rule:time_marker"
_YEAR = re.compile(r"(?<![\d#/.:-])(1[5-9]\d\d|20\d\d)(?:'?s)?(?![\d:])")
_PRESENT = re.compile(r"\b(?:THE\s+)?PRESENT(?:[\s-]+DAY)?\b|\bNOWADAYS\b", re.IGNORECASE)
_END_FLASHBACK = re.compile(r"\b(?:END\s+(?:OF\s+)?FLASH\s?BACK|BACK\s+TO\s+(?:THE\s+)?PRESENT(?:\s+DAY)?)\b",
                            re.IGNORECASE)
_FLASHBACK = re.compile(r"\bFLASH\s?BACK\b", re.IGNORECASE)
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "hundred": 100,
}
_UNITS_IN_YEARS = {"year": 1.0, "month": 1 / 12, "week": 7 / 365, "day": 1 / 365, "hour": 1 / 8760}
_AMOUNT = r"(?P<n>\d+|" + "|".join(_NUMBER_WORDS) + r"|a few|several|some)"
_AGO = re.compile(rf"\b{_AMOUNT}\s+(?P<unit>year|month|week|day|hour)s?\s+(?:AGO|EARLIER|BEFORE)\b", re.IGNORECASE)
_NEXT_TIMES = "|".join(sorted(TIME_OF_DAY_WORDS, key=lambda t: (-len(t), t)))  # 'THE NEXT MORNING'
_LATER = re.compile(
    r"\b(?:(?:MOMENTS?|MINUTES?|HOURS?|DAYS?|WEEKS?|MONTHS?|YEARS?|SECONDS?)\s+LATER|LATER|"
    rf"(?:THE\s+)?(?:NEXT|FOLLOWING)\s+(?:{_NEXT_TIMES}|WEEK|MONTH|YEAR))\b",
    re.IGNORECASE)
_LATER_WITH_AMOUNT = re.compile(
    rf"\b{_AMOUNT}\s+(?:year|month|week|day|hour|minute|moment|second)s?\s+LATER\b", re.IGNORECASE)
_TITLE = re.compile(r"^\s*(?:SUPER(?:IMPOSE)?|TITLE(?:\s+CARD)?|CAPTION|CARD|CHYRON|INTERTITLE)\s*:", re.IGNORECASE)
# A transition or a line of its own that is only a flashback marker.
_FLASHBACK_LINE = re.compile(
    r"^\s*(?:(?:BEGIN\s+|START\s+)?FLASH\s?BACK(?:\s+TO)?|END\s+(?:OF\s+)?FLASH\s?BACK|"
    r"BACK\s+TO\s+(?:THE\s+)?PRESENT(?:\s+DAY)?)\s*[:.]?\s*$", re.IGNORECASE)
_TITLE_KINDS = frozenset({ElementKind.ACTION, ElementKind.CENTERED, ElementKind.SHOT, ElementKind.TRANSITION})


def _years_ago(match: re.Match[str]) -> float | None:
    amount = match.group("n").lower()
    unit = _UNITS_IN_YEARS[match.group("unit").lower()]
    if amount.isdigit():
        return int(amount) * unit
    number = _NUMBER_WORDS.get(amount)
    return None if number is None else number * unit


def markers_in(text: str, source: str, evidence: Evidence) -> list[TimeMarker]:
    """The time markers one heading or title text states, in the order of the kinds above.

    Args:
        text: A heading or the text of a title card or transition.
        source: 'heading' or 'title'.
        evidence: The evidence every marker of this text carries.

    Returns:
        The markers; a text saying a flashback ends gives no flashback marker, and a year
        given with an amount before it ('1973 - TWENTY YEARS EARLIER') keeps both.
    """
    found: list[TimeMarker] = []

    def add(kind: MarkerKind, written: str, **extra: float | int | None) -> None:
        found.append(TimeMarker(kind=kind, text=written.strip(), source=source, evidence=evidence, **extra))

    for m in _YEAR.finditer(text):
        add(MarkerKind.YEAR, m.group(0), year=int(m.group(1)))
    ended = _END_FLASHBACK.search(text)
    flashback = _FLASHBACK.search(text)
    if ended:
        add(MarkerKind.FLASHBACK_END, ended.group(0))
    elif flashback:
        add(MarkerKind.FLASHBACK, flashback.group(0))
    present = _PRESENT.search(text)
    if present and not ended:
        add(MarkerKind.PRESENT, present.group(0))
    for m in _AGO.finditer(text):
        add(MarkerKind.AGO, m.group(0), years_ago=_years_ago(m))
    later = _LATER_WITH_AMOUNT.search(text) or _LATER.search(text)
    if later:
        add(MarkerKind.LATER, later.group(0))
    return found


def _title_text(el: Element) -> str | None:
    """The marker text of a title card or flashback line, or None for other elements."""
    if el.kind not in _TITLE_KINDS:
        return None
    if _TITLE.match(el.text):
        return _TITLE.sub("", el.text, count=1).strip().strip("\"'“”")
    if _FLASHBACK_LINE.match(el.text):
        return el.text.strip()
    return None


def time_markers(scene: Scene) -> list[TimeMarker]:
    """Every time marker of one scene: its heading's, then its title cards' in order.

    Args:
        scene: A parsed scene.

    Returns:
        The markers with their evidence (the heading line, or the title card's line), producer
        'rule:time_marker'.

    Example:
        >>> [m.text for m in time_markers(scene)]  # doctest: +SKIP
        ['THREE YEARS AGO']
    """
    out: list[TimeMarker] = []
    heading = heading_evidence(scene, _PRODUCER)
    if heading is not None and scene.heading:
        out += markers_in(scene.heading, "heading", heading)
    for el in scene.elements:
        text = _title_text(el)
        if text:
            out += markers_in(text, "title", quote_evidence(scene, el, el.text, _PRODUCER))
    return out
