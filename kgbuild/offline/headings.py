"""The places a scene heading names, outermost first, cleaned of what is not a place.

Headings mix conventions: 'HOUSE - KITCHEN' goes from outside in, 'HOTEL ROOM, NEW YORK CITY'
from inside out, and parsers leave times, transitions and camera notes among the parts
('STREET - SAME - INTERCUT', 'CHURCH -').
"""

from __future__ import annotations

import re
from itertools import pairwise

from kgbuild.model import Scene
from kgbuild.offline.stoplists import FIXTURES, PLACE_HEADS, word_set
from kgbuild.timewords import HEADING_TIMES, TIME_OF_DAY_WORDS

_CJK = re.compile(r"[\u3400-\u9fff]")
# Parts of a heading that are not places: its times, and camera or editing notes.
_NOT_PLACES = HEADING_TIMES | {
    "INTERCUT", "INTERCUTTING", "AERIAL", "FLASHBACK", "PRESENT", "ESTABLISHING", "EST", "MONTAGE",
    "SERIES OF SHOTS", "POV", "ANGLE", "CLOSE", "WIDE", "INSERT", "MOVING", "TRAVELING",
}
_SINGLE_WORD_TIMES = "|".join(sorted(TIME_OF_DAY_WORDS, key=lambda w: (-len(w), w))).upper()
# Words that make a heading part a camera or editing note, not a place.
_NOT_PLACE_WORDS = re.compile(
    r"\b(?:SHOTS?|MONTAGE|SERIES|VARIOUS|INTERCUT|FLASHBACK|DREAM|SUPER|TITLE|CONTINUOUS|SAME|LATER)\b"
    r"|^(?:ACROSS|BACK TO|OVER|UNDER|NEAR|BEHIND|FURTHER|ALONG|\[|\()"
    rf"|^(?:{_SINGLE_WORD_TIMES})\b")
# How large a place a word names: rooms and parts of buildings, then buildings and vehicles;
# any other word (a proper name: LONDON, CONVENT GARDEN) is taken for a larger area.
_ROOM_WORDS = word_set("""
    room kitchen bedroom bathroom hallway office lobby porch yard garden basement attic deck
    corridor stairs stairwell landing foyer closet den study cellar garage balcony roof ballroom
    edge side entrance exit booth counter bar desk cockpit cab interior onstage backstage wings
    stage auditorium cell wing parlor parlour lounge nursery pantry loft dormitory dorm
""")
_BUILDING_WORDS = word_set("""
    house home inn hotel motel theatre theater hall prison jail laboratory lab church chapel school
    academy hospital station pub restaurant cafe shop store warehouse factory workshop apartment
    flat mansion castle palace estate cabin barn farm building tower train car bus ship boat plane
    cottage manor club casino bank library museum court courthouse
""")


def _size(part: str) -> int:
    """1 for a room, 2 for a building or vehicle, 3 for anything larger, by the head noun
    (the last word: 'STAGE THEATRE' is a theatre, 'HOTEL ROOM' a room)."""
    head = part.split()[-1].lower().removesuffix("'s").removesuffix("’s") if part.split() else ""
    if head in _ROOM_WORDS:
        return 1
    if head in _BUILDING_WORDS:
        return 2
    return 3


def _clean(part: str) -> str:
    return re.sub(r"[\s\-–—.:]+$", "", re.sub(r"^[\s\-–—.:]+", "", part)).strip()


def _comma_reversed(heading: str, parts: list[str]) -> bool:
    """True when the heading lists its places with commas from the inside out
    ('DINING ROOM, CLIFF HOUSE INN, COLORADO SPRINGS'): the first part is not larger than the
    last. 'CARL'S HOUSE, LIVING ROOM' goes from the outside in and is kept."""
    commas = all(f"{a}, {b}" in heading or f"{a},{b}" in heading for a, b in pairwise(parts))
    return commas and _size(parts[0]) <= _size(parts[-1])


def _joined_adjectives(heading: str, parts: list[str]) -> list[str]:
    """'TINY, GRUBBY THEATRE' is one place: a lone word before a comma and a longer part that
    ends in a place noun are an adjective list, not two places."""
    out: list[str] = []
    for part in parts:
        if out and len(out[-1].split()) == 1 and len(part.split()) >= 2 \
                and part.split()[-1].lower() in PLACE_HEADS and f"{out[-1]}, {part}" in heading \
                and out[-1].lower() not in PLACE_HEADS:
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def heading_places(scene: Scene) -> list[str]:
    """The scene's places as written in its heading, outermost first.

    Example: 'INT. APARTMENT, CHICAGO - NIGHT' -> ['CHICAGO', 'APARTMENT'];
    'EXT. CEMETERY / GRAVESIDE' -> ['CEMETERY'].
    """
    heading = scene.heading or ""
    # 'CEMETERY / GRAVESIDE', '747 / FLYING', 'CLEARING / THE ROAD': what follows a slash is a
    # detail, a manner or a second place, never reliably a part of the first.
    parts = [_clean(p.split(" / ")[0]) for p in _joined_adjectives(heading, scene.location)]
    parts = [p for p in parts if (_CJK.search(p) or len(p) >= 3) and p.upper() not in _NOT_PLACES
             and not _NOT_PLACE_WORDS.search(p.upper()) and p.split()[-1].lower() not in FIXTURES]
    if len(parts) >= 2 and _comma_reversed(heading, parts):
        parts.reverse()
    return parts
