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
- camera notes (`kgbuild.readers.headings.is_camera_note`), furniture and parts too short to
  name anything;
- after the first part, one that names only characters who speak in the script, alone, joined
  or after a camera's ON ('SPACE STATION - BONES', 'CABIN - TED AND STELLA', 'ON BONES'): a
  shot of them. A name the headings open with is a place, not a speaker, even where a reader
  took it for a cue;
- after the first part, such a preposition, THE and a noun that is no place noun ('ON THE
  MOVE', 'IN THE RAIN'), unless the script's headings name that noun as a place elsewhere.

A heading with no INT. or EXT. (a STAGE title cut from a script's sub-headings, a forced
Fountain heading, a bare 'PLACE - NIGHT') may be a shot or a sentence rather than a place ('TUVIA
STANDS THERE, FROZEN', 'THE BROTHERS', 'A BURNING TRUCK', 'SEEN FROM ABOVE'), so there a part is a
place only by its words (`_unmarked_place`): a noun phrase with a place noun ('A REMOTE FARM',
'AN ALLEY WAY IN NOVAGRUDOK'), the place after a preposition that opens the part ('IN THE LOFT'
is the loft, 'BACK AT THE STAFF CAR' the staff car), or a bare name of one or two words
('NOVAGRUDOK'); never a part with a subject pronoun, a participle or a verb before its place
noun ('TWO MEN HIDE IN THE NEARBY WOODS'), and a time after the place is cut off ('THE FOREST
AT DUSK').

Places joined by a slash, a backslash or the enumeration comma 、 in a heading ('县长卧室/县衙院内',
the bedroom / the courtyard; '土贼房间\\厂长办公室\\派出所', an intercut of three rooms; '停车场、
井盖下', a split screen) are settings of one scene: neither holds the other, and each is read with
the heading's other places without its alternatives (`_settings`). Which of them a character is in
only the scene's text can tell, so the heading places no one (`HeadingPlaces.settings`). A bare
INT./EXT. or time marker ('内', '夜') is never a place.

A heading that names two places each with its own INT./EXT. ('INT. JUDY'S FLAT/INT. WASHINGTON
AIRPORT', the two sides of an intercut; `kgbuild.readers.headings.Heading.sides`) has two sides:
each is cleaned and ordered as a heading of its own, neither holds the other, and where a
character is, the scene's text says (`HeadingPlaces.sides`, `kgbuild.offline.sides`).

A part that recurs at the end of many headings is not for that a time or continuity slot: in
the scripts measured it is as often a city ('-- PHOENIX', '-- EL PASO'), a room found in many
buildings (HALLWAY, BRIDGE) or an open place (SPACE), so only the forms above are taken out.
The order of the places is a guess by size (`kgbuild.offline.containment`) and serves only to
pick the innermost place; which place is part of which is shown by `HeadingPlaces.part_of`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product

from kgbuild.model import ElementKind, Scene, Screenplay
from kgbuild.offline.containment import REGION, WAY, Containment, key, learn_containment, size
from kgbuild.offline.phrases import ING_NOUNS
from kgbuild.offline.stoplists import FIXTURES, PLACE_HEADS, word_set
from kgbuild.readers.headings import is_camera_note, parse_english_heading
from kgbuild.timewords import HEADING_TIMES, TIME_OF_DAY_WORDS, ZH_TIMES_OF_DAY

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
# A Chinese INT./EXT. or time marker standing as a part, alone or before a note.
_ZH_MARKER = re.compile(rf"^(?:内外|外内|内|外|內|{'|'.join(ZH_TIMES_OF_DAY)})(?:\s|$)")
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
    place: 'DRIVING', 'FOLLOWING', 'PARKED', 'HEADING DOWNTOWN', 'IN FLIGHT', 'ON THE MOVE',
    'TWO LANES', 'LATE AFERNOON', 'RUINS'."""
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
    if len(words) == 3 and first in _STATE_PREPOSITIONS and words[1] == "the" and words[2] not in PLACE_HEADS \
            and size(words[2]) is None and not words[2].endswith("'s"):
        return True  # 'ON THE MOVE', 'ON THE RUN': no place noun after the preposition
    return len(words) == 2 and first in _COUNTS and words[1].endswith("s")


# Prepositions that open or cut a noun phrase of place: 'IN THE LOFT', 'AN ALLEY WAY IN NOVAGRUDOK'.
_LOCATIVES = word_set("""
    in inside outside at by near on onto into through across along over under behind beyond up
    down from to toward towards around for with
""")
# Words that make a part a clause or a count of people, not a name: 'THEY WADE IN', 'SEVERAL
# MORE REFUGEES', 'ANOTHER DAY'.
_NOT_NAME_WORDS = word_set("""
    he she they we it i you him her them both everyone someone somebody nobody there is are was
    were has have had does did can will another several more some many few all every
""")
_DIGIT_WORD = re.compile(r"\d+[a-z]?")
_PLACE_ENDINGS = ("house", "room", "yard", "shop", "field", "ground", "way", "land", "side")


def _place_noun(word: str) -> bool:
    return (word in PLACE_HEADS or word.rstrip("s") in PLACE_HEADS or size(word) is not None
            or (len(word) > 6 and word.endswith(_PLACE_ENDINGS)))


def _unmarked_place(part: str, *, bare_names: bool = True, speakers: frozenset[str] = frozenset()) -> str | None:
    """The place a part of a heading with no INT./EXT. names, or None (see the module docstring).
    A bare name is one word, no adverb, number or speaker of the script, and only with
    `bare_names` (not after a part that is no place: 'TUVIA STANDS THERE, FROZEN')."""
    original = part.split()
    words = [w.lower().strip(".,;:!?()") for w in original]
    if not words or any(w in _NOT_NAME_WORDS for w in words):
        return None
    start = 1 if words[0] == "back" and len(words) > 1 and words[1] in _LOCATIVES else 0
    if words[start] in _LOCATIVES:
        rest = words[start + 1:]
        if len(rest) < 2 or rest[0] not in _DETERMINERS or not any(_place_noun(w) for w in rest):
            return None
        return " ".join(original[start + 1:])
    cut = next((i for i, w in enumerate(words) if i > 0 and w in _LOCATIVES), len(words))
    head, tail = words[:cut], words[cut + 1:]
    if any(_participle(w) for w in head):
        return None
    nouns = [i for i, w in enumerate(head) if _place_noun(w)]
    if not nouns:
        bare_name = (bare_names and len(words) == 1 and not words[0].endswith("ly")
                     and not _DIGIT_WORD.fullmatch(words[0]) and key(part) not in speakers)
        return part if bare_name else None
    after = head[nouns[-1] + 1:]
    if after and after[0] != "of" and after[0].endswith("s"):
        return None  # a verb after the place noun: 'A SPOTTER PLANE BUZZES HIGH ABOVE'
    if not tail or all(w.upper() in HEADING_TIMES or w in TIME_OF_DAY_WORDS or w in _DETERMINERS for w in tail):
        return " ".join(original[:cut])
    return part


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


def heading_places(scene: Scene, places_seen: frozenset[str] = frozenset(),
                   people: frozenset[str] = frozenset(), speakers: frozenset[str] = frozenset()) -> list[str]:
    """The scene's places as written in its heading, cleaned, outermost first by a guess of
    their sizes (the innermost is where the scene is).

    Args:
        scene: The scene.
        places_seen: Heading parts the script names as places of their own (see
            `_joined_adjectives`).
        people: The names the script's cues speak under (see `_shows_people`).
        speakers: Every name the cues speak under, for a heading with no INT./EXT. (see
            `_unmarked_place`).

    Example: 'INT. APARTMENT, CHICAGO - NIGHT' -> ['CHICAGO', 'APARTMENT'];
    'EXT. CEMETERY / GRAVESIDE' -> ['CEMETERY']; 'INT. JOE'S CAR - DRIVING' -> ["JOE'S CAR"].
    """
    return sorted((p for side in _sides(scene) for p in _cleaned(side, places_seen, people, speakers)),
                  key=_guessed_size, reverse=True)


def _sides(scene: Scene) -> list[Scene]:
    """The scene once for each side of a heading that names two places each with its own INT./EXT.
    ('INT. JUDY'S FLAT/INT. WASHINGTON AIRPORT'), its location that side's places; else the scene."""
    if scene.int_ext is None or _CJK.search(scene.heading or ""):
        return [scene]
    sides = parse_english_heading(scene.heading).sides
    if len(sides) < 2 or [p for side in sides for p in side] != scene.location:
        return [scene]  # one place, or one side already
    return [scene.model_copy(update={"location": side}) for side in sides]


# 'TED AND STELLA', 'ON BONES', 'KIRK, SPOCK': names joined, after a camera's 'ON'.
_NAMES_JOINED = re.compile(r"\s*(?:,|&|\bAND\b)\s*")


def _shows_people(part: str, people: frozenset[str]) -> bool:
    """A heading part after the first that names only characters who speak in the script
    ('SPACE STATION - BONES', 'COCKPIT - TED', 'CABIN - TED AND STELLA', 'ON BONES'): a shot
    of them, not a place."""
    text = re.sub(r"^ON\s+", "", key(part))
    names = [n for n in _NAMES_JOINED.split(text) if n]
    return bool(names) and all(n in people for n in names)


def _named_elsewhere(part: str, places_seen: frozenset[str]) -> bool:
    """The noun after a preposition and THE ('ON THE MOVE') is a place the script's headings
    name elsewhere."""
    words = key(part).split()
    return len(words) == 3 and words[1] == "THE" and (words[2] in places_seen or f"THE {words[2]}" in places_seen)


def _is_place(part: str, n: int, places_seen: frozenset[str], people: frozenset[str]) -> bool:
    """Whether the heading's part `n`, cleaned, is a place (see the module docstring)."""
    if not part or not (_CJK.search(part) or len(part) >= 3):
        return False
    if part.upper() in _NOT_PLACES or _NOT_PLACE_WORDS.search(part.upper()) or is_camera_note(part):
        return False
    if _ZH_MARKER.match(part):
        return False  # '内', '夜', '内 或加一场…': the heading's INT./EXT. or time and a note
    if part.split()[-1].lower() in FIXTURES:
        return False
    if n == 0 or _CJK.search(part):
        return True
    return not (is_state(part) and not _named_elsewhere(part, places_seen)) and not _shows_people(part, people)


def _cleaned(scene: Scene, places_seen: frozenset[str] = frozenset(),
             people: frozenset[str] = frozenset(), speakers: frozenset[str] = frozenset()) -> list[str]:
    """The scene's places as written, without what is not a place."""
    heading = scene.heading or ""
    # 'CEMETERY / GRAVESIDE', '747 / FLYING', 'CLEARING / THE ROAD': what follows a slash is a
    # detail, a manner or a second place, never reliably a part of the first.
    parts = [_clean(p.split(" / ")[0]) for p in _joined_adjectives(heading, scene.location, places_seen)]
    if scene.int_ext is None and not _CJK.search(heading):
        places: list[str] = []
        clause = False  # a part that is no place came before: no bare name after it
        for p in parts:
            place = _unmarked_place(p, bare_names=not clause, speakers=speakers)
            clause = clause or place is None
            places += [place] if place else []
        parts = places
    return [p for n, p in enumerate(parts) if _is_place(p, n, places_seen, people)]


def _settings(scene: Scene, places: list[str]) -> list[list[str]]:
    """The heading's places once for each setting it names: places joined by a slash are two
    settings of one scene ('县长卧室/县衙院内', the bedroom / the courtyard), never one inside
    the other, so each is read with the other places of the heading but without its
    alternative."""
    heading = scene.heading or ""
    joined = {i for i in range(len(places) - 1)
              if re.search(re.escape(places[i]) + r"\s*(?:[/／、]|\\+)\s*" + re.escape(places[i + 1]), heading)}
    if not joined:
        return [places]
    groups: list[list[int]] = []
    for i in range(len(places)):
        if i - 1 in joined:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [[places[i] for i in choice] for choice in product(*groups)]


def _seen_alone(scene: Scene) -> set[str]:
    """Heading parts not followed by a comma: named as places of their own."""
    heading = scene.heading or ""
    return {key(p) for p in scene.location if f"{p}," not in heading}


@dataclass(frozen=True)
class HeadingPlaces:
    """A script's heading places and what its headings show of which holds which."""

    containment: Containment
    places_seen: frozenset[str] = frozenset()
    people: frozenset[str] = frozenset()
    speakers: frozenset[str] = frozenset()

    def places(self, scene: Scene) -> list[str]:
        """The scene's places, outermost first: by what the script shows where it shows it, by
        a guess of their sizes elsewhere. The last is where the scene is, unless its heading has
        two sides (`sides`)."""
        guess = heading_places(scene, self.places_seen, self.people, self.speakers)
        inside = set(self.part_of(scene))
        places: list[str] = []
        while guess:
            outermost = next((p for p in guess if not any((p, q) in inside for q in guess)), guess[0])
            places.append(outermost)
            guess.remove(outermost)
        return places

    def sides(self, scene: Scene) -> list[list[str]]:
        """The places of each side of the scene's heading, outermost first (`places` of each): one
        side for a heading of one place, two for 'INT. JUDY'S FLAT/INT. WASHINGTON AIRPORT'."""
        split = _sides(scene)
        if len(split) == 1:
            return [self.places(scene)]
        return [side for side in map(self.places, split) if side]

    def settings(self, scene: Scene) -> list[list[str]]:
        """The heading's places once per setting it names (`_settings` of each side, `_sides`): one
        list for most headings, several for places joined by a slash, a backslash or 、, or for
        the two sides of an intercut."""
        return [setting for side in _sides(scene)
                for setting in _settings(side, _cleaned(side, self.places_seen, self.people, self.speakers))]

    def part_of(self, scene: Scene) -> list[tuple[str, str]]:
        """(inner, outer) for the scene's places whose order the script shows (within a side)."""
        found: list[tuple[str, str]] = []
        for setting in self.settings(scene):
            found += [pair for pair in self.containment.part_of(setting, interior=scene.int_ext == "INT")
                      if pair not in found]
        return found


def learn_heading_places(screenplay: Screenplay) -> HeadingPlaces:
    """Read every heading of the script once to learn which of its places hold which.

    Example:
        >>> learn_heading_places(screenplay).part_of(scene)  # doctest: +SKIP
        [('READY ROOM', 'ENTERPRISE')]
    """
    seen = frozenset(k for s in screenplay.scenes for k in _seen_alone(s))
    # Who speaks: a heading part naming them is a shot of them; not a place the script's
    # headings open with (a cue misread from a slug line, 'ENTERPRISE BRIDGE').
    openers = {key(s.location[0]) for s in screenplay.scenes if s.location}
    speakers = frozenset(key(e.speaker) for s in screenplay.scenes for e in s.elements
                         if e.kind == ElementKind.CHARACTER and e.speaker and not _CJK.search(e.speaker))
    people = speakers - openers
    headings = ((setting, s.int_ext) for s in screenplay.scenes for side in _sides(s)
                for setting in _settings(side, _cleaned(side, seen, people, speakers)))
    return HeadingPlaces(learn_containment(headings), seen, people, speakers)
