"""Time points a scene states: years its heading or a title card gives
('EXT. LONDON - NIGHT (1897)', 'SUPER: COLORADO SPRINGS, 1899').

The bare time of day of a heading (DAY, NIGHT) is scene metadata, not a time point; heading
tails ('CONTINUOUS', scene numbers) and times said in dialogue ('every night', 'next year') are
not times the scene is at.
"""

from __future__ import annotations

import re

_YEAR = re.compile(r"(?<![\d#])(1[5-9]\d\d|20\d\d)(?!\d)")
_SUPER = re.compile(r"^\s*(?:SUPER(?:IMPOSE)?|TITLE(?: CARD)?|CAPTION|CARD)\s*:", re.IGNORECASE)


def years(text: str) -> list[str]:
    """Years written in a heading or title card ('1897')."""
    return list(dict.fromkeys(_YEAR.findall(text)))


def is_title_card(text: str) -> bool:
    """True for 'SUPER: ...', 'TITLE: ...' and the like: text shown on screen."""
    return bool(_SUPER.match(text))
