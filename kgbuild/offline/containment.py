"""Which heading place holds which: `part_of` only where the script shows the order.

Headings do not always run from outside in ('INTERROGATION ROOM - BUFFALO', 'FORT BLISS AIR
STRIP -- EL PASO', 'LIVING ROOM, MOM'S APARTMENT' beside 'MOM'S APARTMENT, BATHROOM'), so the
written order of two parts says nothing about which holds the other. What does:

- **Size by the head noun** (the last word of a size the lexicon knows, before any preposition:
  'EDGE of the jungle', 'CAFE ORPHEUM', 'DEPT. of health'; in Chinese the last character: 室,
  楼, 市): a room (KITCHEN, CORRIDOR, LOBBY) lies in a set of rooms (OFFICES, CORRIDORS), these
  in a building or vehicle (HOUSE, HOTEL, SHIP), a building in a site or open area (FARM, PARK,
  CAMPUS), all of them in a town or region (CITY, COUNTY, DOWNTOWN). A street or square lies
  only in a town or region, a path or driveway in an area too; a part named by its position
  (THE REAR, BACK OF THEATER, TOP) lies in the place beside it. A vehicle moves: it is part of
  no place ('POLICE VEHICLE -- MEXICAN ROAD'). Two parts of one size are not ordered.
- **What the script shows** of a part whose head noun says nothing (a name: ENTERPRISE, EL
  PASO; SPACE):
  - a *container* is named in headings beside two or more different room- or building-sized
    parts (ENTERPRISE - READY ROOM, ENTERPRISE - CORRIDOR; INTERROGATION ROOM - BUFFALO, PAROLE
    OFFICE, BUFFALO): it holds parts of those sizes, whichever side they are written on. When
    the script always writes what it holds on one side of it (after ENTERPRISE, before
    NOGALES), an INT. heading's part on that side lies in it too ('INT. ENTERPRISE -
    SICKBAY'), and a part on the other side does not ('INT. TINY HOUSE -- NOGALES, MEXICO');
  - a *room by use* is found in INT. headings in two or more buildings, vehicles or
    containers (ENTERPRISE - BRIDGE, SCIMITAR - BRIDGE): it is room-sized;
  - the place an EXT. heading opens with has an outside: it is no room, so a room beside it
    lies in it.

With none of these, no `part_of`: 'EXT. THE RIFT - SPACE', 'EXT. ENTERPRISE - SPACEDOCK' and
'FORT BLISS AIR STRIP -- EL PASO' state places, not which holds which.

Example:
    >>> grammar = learn_containment([(["ENTERPRISE", "READY ROOM"], "INT"),
    ...                              (["ENTERPRISE", "CORRIDOR"], "INT"),
    ...                              (["ENTERPRISE", "SPACEDOCK"], "EXT")])
    >>> grammar.part_of(["ENTERPRISE", "READY ROOM"]), grammar.part_of(["ENTERPRISE", "SPACEDOCK"])
    ([('READY ROOM', 'ENTERPRISE')], [])
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgbuild.offline.stoplists import word_set

# Sizes: a room, a set of rooms, a building or vehicle, a site or open area, a town or region;
# and three kinds that lie only in some others: public ways, paths, and parts named by position.
ROOM, ROOMS, BUILDING, AREA, REGION = 1.0, 1.5, 2.0, 3.0, 4.0
WAY, PATH, POSITION = -1.0, -2.0, -3.0

_ROOM_WORDS = word_set("""
    room kitchen bedroom bathroom hallway corridor office lobby porch yard backyard garden basement
    attic deck stairwell landing foyer closet den study cellar balcony roof ballroom lawn
    entrance entry entryway vestibule exit booth bar cockpit interior onstage backstage
    wings stage auditorium cell wing parlor parlour lounge nursery pantry loft dormitory dorm
    chamber brig ward suite vault restroom washroom lavatory toilets shower cubicle bullpen
    galley platform courtyard patio terrace veranda verandah alcove classroom elevator lift
    laundry library kitchenette cafeteria canteen reception
""")
# A hall is a room when a position qualifies it ('FRONT HALL'), a building otherwise ('TOWN HALL').
_ROOM_HALLS = word_set("front back rear side entrance upstairs downstairs main")
_BUILDING_WORDS = word_set("""
    house home inn hotel motel theatre theater hall prison jail laboratory lab church chapel school
    academy hospital station pub restaurant cafe shop store warehouse factory apartment flat
    mansion castle palace cabin barn building tower cottage manor club casino bank museum court
    courthouse department dept headquarters embassy consulate precinct asylum clinic center
    centre tavern saloon diner bakery cannery mill plant supermarket pharmacy penthouse condo
    townhouse farmhouse temple mosque synagogue cathedral monastery convent gym arena stadium
    terminal mall market garage workshop
""")
_VEHICLE_WORDS = word_set("""
    car bus train ship boat plane jeep van truck taxi cab ambulance helicopter chopper limo
    limousine suv sedan vehicle subway tram trolley ferry yacht submarine shuttle jet airplane
    aircraft motorcycle wagon carriage tank pickup convertible cruiser rover dirigible airship
    blimp zeppelin spaceship starship spacecraft shuttlecraft rocket lifeboat raft canoe
""")
_AREA_WORDS = word_set("""
    park campus compound estate farm ranch cemetery graveyard airport base camp zoo fairground
    fairgrounds lot field fields beach forest woods jungle desert valley mountain mountains island
    harbor harbour port docks marina quad meadow countryside grounds resort peak hills
""")
_REGION_WORDS = word_set("""
    city town village county district state country province region neighborhood neighbourhood
    suburb suburbs borough downtown uptown midtown world planet kingdom
""")
_WAY_WORDS = word_set("""
    street st road rd avenue ave boulevard blvd lane alley alleyway highway hwy freeway interstate
    motorway expressway sidewalk crossing intersection corner roundabout ramp square plaza
""")
_PATH_WORDS = word_set("path pathway trail driveway track")
_POSITION_WORDS = word_set("rear front back top bottom edge middle exterior")
_PREPOSITIONS = word_set("""
    of for in on at behind near by with to from outside inside under over above below across
    beside off along
""")
_LEXICON: tuple[tuple[frozenset[str], float], ...] = (
    (_ROOM_WORDS, ROOM), (_BUILDING_WORDS, BUILDING), (_VEHICLE_WORDS, BUILDING), (_AREA_WORDS, AREA),
    (_REGION_WORDS, REGION), (_WAY_WORDS, WAY), (_PATH_WORDS, PATH), (_POSITION_WORDS, POSITION),
)
# Chinese heads: the last character after its locative ('公路上' -> 公路 -> 路).
_ZH_LOCATIVE = re.compile(r"[里上中内外前后旁边]+$")
_ZH_SIZES: tuple[tuple[str, float], ...] = (
    ("室厅房间廊屋舱库台", ROOM), ("楼店馆院家局厂所司堂校寺庙宫殿厦吧站行", BUILDING),
    ("场园山林岛港湾营", AREA), ("市县镇村省区国州乡城", REGION), ("路街巷桥", WAY),
)
_ZH_VEHICLES = "车船艇"
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_DIGIT = re.compile(r"\d")


def key(part: str) -> str:
    """The form two mentions of one heading place share: 'Ready  room' and 'READY ROOM'."""
    return " ".join(part.upper().split())


def _words(part: str) -> list[str]:
    """The words of an English part, lower case, up to its first preposition ('EDGE OF JUNGLE'
    -> edge), without numbers ('STUDIO 4B') and split where a hyphen or slash joins two."""
    words = [w.lower().removesuffix("'s").removesuffix("’s")
             for token in part.replace("-", " ").replace("/", " ").split() if not _DIGIT.search(token)
             for w in _WORD.findall(token)]
    cut = next((i for i, w in enumerate(words) if w in _PREPOSITIONS and i > 0), len(words))
    return words[:cut]


def _word_size(word: str, before: str) -> float | None:
    if word == "hall":
        return ROOM if before in _ROOM_HALLS else BUILDING
    for words, value in _LEXICON:
        if word in words:
            return value
        if word.endswith("s") and (word[:-1] in words or word[:-2] in words) and value > 0:
            return ROOMS if value == ROOM else value
    if word.endswith("room") or word.endswith("house") and len(word) > 5:
        return ROOM if word.endswith("room") else BUILDING
    return None


def _zh_core(part: str) -> str:
    return _ZH_LOCATIVE.sub("", part) or part


def size(part: str) -> float | None:
    """The size the head noun gives (ROOM ... REGION, WAY, PATH, POSITION), or None when no
    word of the part says: the last word whose size is known counts ('CAFE ORPHEUM' is a cafe,
    'HOSPITAL ROOM' a room)."""
    if _CJK.search(part):
        core = _zh_core(part)
        if core[-1] in _ZH_VEHICLES or core.endswith("飞机"):
            return BUILDING
        return next((s for chars, s in _ZH_SIZES if core[-1] in chars), None)
    words = _words(part)
    if not words:
        return None
    found = _word_size(words[-1], words[-2] if len(words) > 1 else "")
    if found is None and len(words) > 1:
        # A kind of building or place before its name: 'CAFE ORPHEUM', 'CONSULATE ZURICH'.
        before = _word_size(words[-2], words[-3] if len(words) > 2 else "")
        found = before if before in (BUILDING, AREA, REGION) else None
    return found


def is_vehicle(part: str) -> bool:
    """A car, a ship, a train...: it moves, so it is part of no place."""
    if _CJK.search(part):
        core = _zh_core(part)
        return core[-1] in _ZH_VEHICLES or core.endswith("飞机")
    words = _words(part)[-2:]
    sized = [w for w in words if _word_size(w, "") is not None]
    return bool(sized) and (sized[-1] in _VEHICLE_WORDS or sized[-1].rstrip("s") in _VEHICLE_WORDS)


def _holds(inner: float, outer: float) -> bool:
    """Whether a part of size `inner` lies in one of size `outer`, by size alone."""
    if inner == POSITION:
        return outer != POSITION
    if inner == WAY:
        return outer == REGION
    if inner == PATH:
        return outer in (AREA, REGION)
    return outer > 0 and inner < outer


@dataclass(frozen=True)
class Containment:
    """What a script's headings show about which of their places holds which."""

    containers: dict[str, float] = field(default_factory=dict)  # part -> the largest size it holds
    sides: dict[str, int] = field(default_factory=dict)  # container -> +1 holds what follows it, -1 what precedes
    rooms: frozenset[str] = frozenset()  # room-sized by use
    outside: frozenset[str] = frozenset()  # the places EXT. headings open with

    def size(self, part: str) -> float | None:
        """The part's size: by its head noun, else ROOM when the script uses it as one."""
        found = size(part)
        if found is None and key(part) in self.rooms:
            return ROOM
        return found

    def _inside(self, places: list[str], i: int, j: int, interior: bool) -> bool:
        """Whether the heading's part `i` lies in its part `j`."""
        inner, outer = places[i], places[j]
        if is_vehicle(inner) or key(inner) == key(outer):
            return False
        a, b = self.size(inner), self.size(outer)
        holds = self.containers.get(key(outer))
        if holds is not None and a is not None and 0 < a <= holds and b in (None, ROOM):
            return True
        if a is not None and b is not None:
            return _holds(a, b)
        if a == POSITION:
            return True
        side = self.sides.get(key(outer))
        if interior and side is not None and (i - j) * side > 0 and (a is None or 0 < a <= BUILDING) \
                and key(inner) not in self.containers:
            return True
        if a is None:
            return False
        if holds is not None:
            return a <= holds if a > 0 else a == WAY and holds >= BUILDING
        return False

    def _outside(self, places: list[str], i: int, j: int) -> bool:
        """A room beside the place an EXT. heading opens with lies in it ('LANDY'S OFFICE --
        CRI' where the script has 'EXT. CRI')."""
        return (self.size(places[i]) == ROOM and size(places[j]) is None
                and key(places[j]) in self.outside and key(places[j]) not in self.containers)

    def part_of(self, places: list[str], *, interior: bool = False) -> list[tuple[str, str]]:
        """(inner, outer) for each pair of one heading's places the script orders, leaving out
        what follows through a third ('KITCHEN' in 'HOUSE' in 'TOWN' gives no KITCHEN-TOWN).

        Args:
            places: The heading's places as written.
            interior: An INT. heading: its parts on a container's inner side lie in it.
        """
        n = range(len(places))
        inside = {(i, j) for i in n for j in n if self._inside(places, i, j, interior)}
        # A room with no other holder in the heading lies in the place it is beside outdoors.
        inside |= {(i, j) for i in n for j in n if i != j and not any(a == i for a, _ in inside)
                   and self._outside(places, i, j)}
        return [(places[i], places[j]) for i, j in sorted(inside)
                if not any((i, k) in inside and (k, j) in inside for k in n)]


def learn_containment(headings: Iterable[tuple[list[str], str | None]]) -> Containment:
    """Learn containers, rooms by use and places with an outside from a script's headings.

    Args:
        headings: Each heading's places as written (already cleaned of times and notes), with
            its INT/EXT ('INT', 'EXT', 'INT/EXT' or None).

    Returns:
        What the headings show (see the module docstring).
    """
    heads = [([p for p in places if p.strip()], int_ext) for places, int_ext in headings]
    held: dict[str, set[tuple[str, float]]] = defaultdict(set)
    written: dict[str, list[int]] = defaultdict(list)
    larger: set[str] = set()  # parts written beside a building or anything larger
    outside: set[str] = set()
    for places, int_ext in heads:
        if int_ext == "EXT" and places:
            outside.add(key(places[0]))
        for i, p in enumerate(places):
            for j, q in enumerate(places):
                s = size(q)
                if key(q) == key(p) or is_vehicle(q) or s is None:
                    continue
                if s >= BUILDING:
                    larger.add(key(p))
                if s in (ROOM, ROOMS, BUILDING) and size(p) in (None, ROOM):
                    if (key(q), s) not in held[key(p)]:
                        written[key(p)].append(1 if j > i else -1)
                    held[key(p)].add((key(q), s))
    containers: dict[str, float] = {}
    for p, qs in held.items():
        holds = max((s for s in (ROOM, ROOMS, BUILDING) if len({q for q, t in qs if t >= s}) >= 2), default=None)
        if holds is None:
            continue
        if size(p) is None:
            containers[p] = holds
        elif holds == ROOM and p not in larger and len(set(written[p])) == 1:
            # A room that holds rooms and is never written beside a building is a suite of
            # them: 'A VETERINARIAN'S OFFICE - THE BACK ROOM', '- A SUPPLY CLOSET'.
            containers[p] = holds
    sides = {p: side for p in containers for side in (1, -1)
             if written[p].count(side) >= 2 and written[p].count(side) >= 3 * written[p].count(-side)}
    holders: dict[str, set[frozenset[str]]] = defaultdict(set)
    for places, int_ext in heads:
        if int_ext != "INT":
            continue
        for p in places:
            found = frozenset(key(q) for q in places if key(q) != key(p) and (
                key(q) in containers or size(q) == BUILDING))
            if found:
                holders[key(p)].add(found)
    rooms = frozenset(p for p, hs in holders.items() if size(p) is None and p not in containers
                      and len(hs) >= 2 and len(frozenset().union(*hs)) >= 2)
    return Containment(containers=containers, sides=sides, rooms=rooms, outside=frozenset(outside))
