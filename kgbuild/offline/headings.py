"""The places a scene heading names, outermost first, cleaned of what is not a place.

Headings mix conventions: 'HOUSE - KITCHEN' goes from outside in, 'HOTEL ROOM, NEW YORK CITY'
from inside out, and parsers leave times, transitions and camera notes among the parts
('STREET - SAME - INTERCUT', 'CHURCH -').
"""

from __future__ import annotations

import re

from kgbuild.model import Scene
from kgbuild.offline.stoplists import FIXTURES, PLACE_HEADS, word_set

_CJK = re.compile(r"[\u3400-\u9fff]")
# Parts of a heading that are not places.
_NOT_PLACES = re.compile(
    r"^(?:DAY|NIGHT|MORNING|EVENING|AFTERNOON|DAWN|DUSK|SUNSET|SUNRISE|NOON|MIDNIGHT|LATER|"
    r"(?:A )?(?:MOMENTS?|MINUTES?|SECONDS?|HOURS?|A MINUTE|A FEW MINUTES|A LITTLE) LATER|SAME|"
    r"SAME TIME|CONTINUOUS|CONTINUING|INTERCUT|INTERCUTTING|AERIAL|FLASHBACK|PRESENT|"
    r"ESTABLISHING|EST|MONTAGE|SERIES OF SHOTS|POV|ANGLE|CLOSE|WIDE|INSERT|MOVING|TRAVELING|"
    r"CONT'D|CONTD|EARLY MORNING|LATE NIGHT|LATE MORNING|EARLY EVENING)$"
)
# Words that make a heading part a camera or editing note, not a place.
_NOT_PLACE_WORDS = re.compile(
    r"\b(?:SHOTS?|MONTAGE|SERIES|VARIOUS|INTERCUT|FLASHBACK|DREAM|SUPER|TITLE|CONTINUOUS|SAME|LATER)\b"
    r"|^(?:ACROSS|BACK TO|OVER|UNDER|NEAR|BEHIND|FURTHER|ALONG|\[|\()"
    r"|^(?:DAY|NIGHT|MORNING|EVENING|AFTERNOON|DAWN|DUSK|SUNSET|SUNRISE|NOON|MIDNIGHT|TWILIGHT)\b")
# Words that make a part the inner one even after a comma ('CARL'S HOUSE, LIVING ROOM').
_INNER_WORDS = word_set("""
    room kitchen bedroom bathroom hall hallway office lobby porch yard garden basement attic deck
    cabin corridor stairs stairwell landing foyer closet den study cellar garage balcony roof
    edge side entrance exit booth counter bar desk cockpit cab interior onstage backstage wings stage
    auditorium
""")


def _clean(part: str) -> str:
    return re.sub(r"[\s\-–—.:]+$", "", re.sub(r"^[\s\-–—.:]+", "", part)).strip()


def _comma_reversed(heading: str, outer: str, inner: str) -> bool:
    """True when the heading wrote 'INNER, OUTER' (the part after the comma is the larger place)."""
    if f"{outer}, {inner}" not in heading and f"{outer},{inner}" not in heading:
        return False
    return not any(w.lower().strip("'s") in _INNER_WORDS for w in inner.split())


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
    'EXT. CEMETERY / GRAVESIDE' -> ['CEMETERY', 'GRAVESIDE'].
    """
    heading = scene.heading or ""
    parts = [_clean(q) for p in _joined_adjectives(heading, scene.location) for q in p.split(" / ")]
    parts = [p for p in parts if (_CJK.search(p) or len(p) >= 3) and not _NOT_PLACES.match(p.upper())
             and not _NOT_PLACE_WORDS.search(p.upper()) and p.split()[-1].lower() not in FIXTURES]
    if len(parts) == 2 and _comma_reversed(heading, parts[0], parts[1]):
        parts.reverse()
    return parts
