"""The places a scene heading names, outermost first, cleaned of what is not a place.

Headings mix conventions: 'HOUSE - KITCHEN' goes from outside in, 'HOTEL ROOM, NEW YORK CITY'
from inside out, and parsers leave times, transitions and camera notes among the parts
('STREET - SAME - INTERCUT', 'CHURCH -'). The reader (`kgbuild.readers.headings`) takes out the
times, the continuity marks in their printed forms ('CONT.', '(THAT MOMENT)', 'MOMENTS LATER') and
the bracketed notes; what is left here is a place unless its grammar says it is not:

- what is in brackets is a note about the place, not part of its name ('SQUAD CAR (UPSIDE
  DOWN)' is the squad car);
- after the first part, a participle describes the state of the place, not a place: a lone -ing
  or -ed form ('JOE'S CAR - DRIVING', '- FOLLOWING', '- PARKED'; -ing nouns such as LANDING or
  CLEARING stay), one followed by a direction ('HEADING DOWNTOWN'), a preposition before a
  bare noun that is no place ('IN FLIGHT', 'AT SEA'), and a count of plural things ('174TH
  STREET, TWO LANES');
- camera notes, furniture and parts too short to name anything.

A part that recurs at the end of many headings is not for that a time or continuity slot: in
the scripts measured it is as often a city ('-- PHOENIX', '-- EL PASO'), a room found in many
buildings (HALLWAY, BRIDGE) or an open place (SPACE), so only the forms above are taken out.
The order of the places is a guess by size (`kgbuild.offline.containment`) and serves only to
pick the innermost place; which place is part of which is shown by `HeadingPlaces.part_of`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgbuild.model import Scene, Screenplay
from kgbuild.offline.containment import REGION, WAY, Containment, key, learn_containment, size
from kgbuild.offline.phrases import ING_NOUNS
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
_BRACKETED = re.compile(r"\s*[(\[（【][^)\]）】]*[)\]）】]\s*")
# After a participle, where it goes: 'HEADING DOWNTOWN', 'DRIVING NORTH', 'PULLING AWAY'.
_DIRECTIONS = word_set("""
    north south east west northbound southbound eastbound westbound downtown uptown home away
    back out off up down in on into onto through across along toward towards to past around over
    fast slowly
""")
# Prepositions that with a bare noun tell a state: 'IN FLIGHT', 'AT SEA', 'ON FOOT', 'EN ROUTE'.
_STATE_PREPOSITIONS = word_set("in at on en under")
_DETERMINERS = word_set("the a an his her their its my your our this that these those")
# What is left of a place: 'LAB, RUINS' is the lab in ruins.
_REMAINS = word_set("ruins rubble wreckage debris remains")
# Counts: 'TWO LANES' counts lanes, it names no place.
_COUNTS = word_set("""
    two three four five six seven eight nine ten eleven twelve twenty several many few
""")


def _participle(word: str) -> bool:
    """An -ing or -ed form used as a verb, not an -ing noun ('LANDING', 'CLEARING')."""
    return (word.endswith("ing") and len(word) > 5 and word not in ING_NOUNS
            or word.endswith("ed") and len(word) > 4 and not word.endswith(("eed", "shed")))


def is_state(part: str) -> bool:
    """A heading part after the first that tells the state of the place or the time, not a
    place: 'DRIVING', 'FOLLOWING', 'PARKED', 'HEADING DOWNTOWN', 'IN FLIGHT', 'TWO LANES',
    'LATE AFERNOON', 'RUINS'."""
    words = part.lower().replace("’", "'").split()
    if not words or _CJK.search(part):
        return False
    first = words[0]
    if first in ("early", "late"):
        return True  # a time, however spelt: 'LATE AFERNOON'
    if words[-1] in _REMAINS and len(words) <= 2:
        return True
    if len(words) == 1:
        return _participle(first)
    if first.endswith("ing") and len(first) > 5 and words[1] in _DIRECTIONS:
        return True
    if len(words) == 2 and first in _STATE_PREPOSITIONS and words[1] not in _DETERMINERS \
            and words[1] not in PLACE_HEADS and not words[1].endswith("'s"):
        return True
    return len(words) == 2 and first in _COUNTS and words[1].endswith("s")


def _clean(part: str) -> str:
    part = _BRACKETED.sub(" ", part)
    return re.sub(r"[\s\-–—.:]+$", "", re.sub(r"^[\s\-–—.:]+", "", part)).strip()


def _joined_adjectives(heading: str, parts: list[str], places_seen: frozenset[str] = frozenset()) -> list[str]:
    """'TINY, GRUBBY THEATRE' is one place: a lone word before a comma and a longer part that
    ends in a place noun are an adjective list, not two places; unless the script names that
    word as a place of its own elsewhere ('BENATAR, FLIGHT DECK' beside 'EXT. BENATAR - SPACE')."""
    out: list[str] = []
    for part in parts:
        if out and len(out[-1].split()) == 1 and len(part.split()) >= 2 \
                and part.split()[-1].lower() in PLACE_HEADS and f"{out[-1]}, {part}" in heading \
                and out[-1].lower() not in PLACE_HEADS and key(out[-1]) not in places_seen:
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def _guessed_size(part: str) -> float:
    """Size for ordering only: the head noun's, a way between a building and an area, and a
    part the noun says nothing of (a name: LONDON, CONVENT GARDEN) taken for a larger area."""
    found = size(part)
    if found is None:
        return REGION - 0.5
    return 2.5 if found == WAY else found


def heading_places(scene: Scene, places_seen: frozenset[str] = frozenset()) -> list[str]:
    """The scene's places as written in its heading, cleaned, outermost first by a guess of
    their sizes (the innermost is where the scene is).

    Args:
        scene: The scene.
        places_seen: Heading parts the script names as places of their own (see
            `_joined_adjectives`).

    Example: 'INT. APARTMENT, CHICAGO - NIGHT' -> ['CHICAGO', 'APARTMENT'];
    'EXT. CEMETERY / GRAVESIDE' -> ['CEMETERY']; 'INT. JOE'S CAR - DRIVING' -> ["JOE'S CAR"].
    """
    return sorted(_cleaned(scene, places_seen), key=_guessed_size, reverse=True)


def _cleaned(scene: Scene, places_seen: frozenset[str] = frozenset()) -> list[str]:
    """The scene's places as written, without what is not a place."""
    heading = scene.heading or ""
    # 'CEMETERY / GRAVESIDE', '747 / FLYING', 'CLEARING / THE ROAD': what follows a slash is a
    # detail, a manner or a second place, never reliably a part of the first.
    parts = [_clean(p.split(" / ")[0]) for p in _joined_adjectives(heading, scene.location, places_seen)]
    return [p for n, p in enumerate(parts)
            if p and (_CJK.search(p) or len(p) >= 3) and p.upper() not in _NOT_PLACES
            and not _NOT_PLACE_WORDS.search(p.upper()) and p.split()[-1].lower() not in FIXTURES
            and not (n > 0 and is_state(p))]


def _seen_alone(scene: Scene) -> set[str]:
    """Heading parts not followed by a comma: named as places of their own."""
    heading = scene.heading or ""
    return {key(p) for p in scene.location if f"{p}," not in heading}


@dataclass(frozen=True)
class HeadingPlaces:
    """A script's heading places and what its headings show of which holds which."""

    containment: Containment
    places_seen: frozenset[str] = frozenset()

    def places(self, scene: Scene) -> list[str]:
        """The scene's places, outermost first: by what the script shows where it shows it, by
        a guess of their sizes elsewhere. The last is where the scene is."""
        guess = heading_places(scene, self.places_seen)
        inside = set(self.part_of(scene))
        places: list[str] = []
        while guess:
            outermost = next((p for p in guess if not any((p, q) in inside for q in guess)), guess[0])
            places.append(outermost)
            guess.remove(outermost)
        return places

    def part_of(self, scene: Scene) -> list[tuple[str, str]]:
        """(inner, outer) for the scene's places whose order the script shows."""
        return self.containment.part_of(_cleaned(scene, self.places_seen), interior=scene.int_ext == "INT")


def learn_heading_places(screenplay: Screenplay) -> HeadingPlaces:
    """Read every heading of the script once to learn which of its places hold which.

    Example:
        >>> learn_heading_places(screenplay).part_of(scene)  # doctest: +SKIP
        [('READY ROOM', 'ENTERPRISE')]
    """
    seen = frozenset(k for s in screenplay.scenes for k in _seen_alone(s))
    return HeadingPlaces(learn_containment((_cleaned(s, seen), s.int_ext) for s in screenplay.scenes), seen)
