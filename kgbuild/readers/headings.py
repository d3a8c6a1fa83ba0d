"""Scene headings: recognise them and split them into number, INT/EXT, location parts and time.

Used by every reader, English and Chinese, so a heading means the same thing whatever the format.
The location parts hold places only: a time may stand anywhere in a heading ('INT. DAY.
LANDY'S OFFICE', 'APARTMENT COMPLEX -- SUNSET, CONNIE'S APARTMENT', 'TSAI'S HOUSE - NIGHT
(LATER)', '蔡家 夜（稍后）'), and editing notes ('- INTERCUT', '(FLASHBACK)') are neither places nor
times. Of several times the first time of day wins over relative ones ('MORNING - SEVERAL YEARS
LATER' is MORNING).

- A part that holds a word of the closed class of camera and editing words (ANGLE, CLOSEUP,
  POV, INSERT, SHOT, FOOTAGE, MONTAGE, FAVORING, `kgbuild.timewords.CAMERA_WORDS`), or opens
  with one that only a shot opens with (CLOSE, TIGHT, WIDE, WIDER, REVERSE), is a note on how the
  scene is shot: 'CABIN - ANOTHER ANGLE', 'SPACE STATION - TIGHT GROUP', 'CLOSEUP OF TED'.
- A time glued to its place by a bare hyphen is still the time slot ('F.B.I. OFFICES-DAY',
  'ROOFTOP-NIGHT', 'BAR- DAY (LATER)'); a time spelt with a hyphen ('PRE-DAWN') is one time.
- A time of day placed by a preposition is a time, not a place before a time: 'JUST BEFORE
  DAWN', 'AFTER DARK', 'THE DEAD OF NIGHT'; a slot left blank ('UNKNOWN') names nothing.
- In Chinese headings a token that ends in a camera word (镜头, 特写, 空镜) is at what it shows
  ('山楂树镜头'), unless it counts shots instead ('一组镜头', a montage); a picture (画面: '新闻画面',
  news footage) or a 蒙太奇 is a note. A bracket standing alone between tokens describes the
  scene ('( 天际线一般的外景 )') and is never a place, as in English.
- A heading's other fields are no places (`Heading.conditions`): after the first part, the
  weather, the season, a date and a clock time ('- RAIN - DAY', '- AUTUMN', 'MARCH 1800', '3
  O'CLOCK PRACTICE'; `is_condition`); in Chinese, by their form wherever they stand ('雪',
  '雨后', '秋天', '（秋）', '1954年', and the season of '冬夜', a winter night, whose 夜 is the
  time), the markers written out (外景, 内景) and 同上, 'same as above', which stands for the
  place of the heading before and names none here. The abbreviated times EVE, NITE and MORN
  are times as a part of their own ('DRAWING ROOM - EVE'); a time left blank ('TIME UNKNOWN')
  names nothing.
- A time of day with a relative time in one part is both ('DAY LATER', 'NIGHT CONTINUOUS').
- A part whose head noun is a screen (SCREEN, MONITOR, TV, TELEVISION, DISPLAY: 'INT. TV
  SCREEN', 'MOTEL ROOM - TELEVISION SET') is a shot of what it shows, no place (`is_display_shot`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgbuild.timewords import (
    ABBREVIATED_TIMES,
    BLANK_SLOTS,
    CAMERA_OPENERS,
    CAMERA_WORDS,
    DISPLAY_WORDS,
    EDITING_VERBS,
    HEADING_NOTES,
    HEADING_TIMES,
    MONTHS,
    RELATIVE_TIMES,
    SEASONS,
    TIME_COUNTS,
    TIME_DIRECTIONS,
    TIME_OF_DAY_MODIFIERS,
    TIME_UNITS,
    TIMES_OF_DAY,
    WEATHER_MODIFIERS,
    WEATHER_WORDS,
    WEEKDAYS,
    ZH_CAMERA_WORDS,
    ZH_HEADING_NOTES,
    ZH_RELATIVE_TIMES,
    ZH_SAME_PLACE,
    ZH_SEASON_AFTER,
    ZH_SEASON_BEFORE,
    ZH_SEASON_CHARS,
    ZH_TIME_JOINS,
    ZH_TIMES_OF_DAY,
    ZH_WEATHER_AFTER,
    ZH_WEATHER_CHARS,
    ZH_WEATHER_MODIFIERS,
)

# INT./EXT. prefixes, anchored at the start; the dot or a space must follow so that CLINT or
# INTERCUT are not headings.
_EN_PREFIX = re.compile(
    r"""^(?P<ie>
        INT\.?\s*/\s*EXT | EXT\.?\s*/\s*INT | INT\.?\s*-\s*EXT | EXT\.?\s*-\s*INT
      | I\s*/\s*E | E\s*/\s*I | INT\.?\s+AND\s+EXT | INT | EXT | EST | I/E
    )(?:\.\s*|\s+|\s*[-–—:]\s*)(?=\S)""",
    re.IGNORECASE | re.VERBOSE,
)
# The same marker at the end, as European scripts print it, with the time after a slash:
# 'RECTORY. STUDY. INT/NIGHT', 'MANOR EXT/DAY', 'DINING ROOM INT/EXT/NIGHT'.
_EN_SUFFIX = re.compile(
    r"""(?:^|[\s.,;:–—-]+)(?P<ie>INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|INT|EXT)\.?
        (?:\s*/\s*(?P<time>[^/]+?))?[\s.]*$""",
    re.IGNORECASE | re.VERBOSE,
)
# A second INT./EXT. after a slash opens another place of the same heading, the other side of an
# intercut: 'JUDY'S FLAT/INT. WASHINGTON AIRPORT', 'DFID - DAY / INT. SIMON'S OFFICE - DAY',
# 'DFID/INT FOREIGN OFFICE', 'HONDA/EXT. EAST HARLEM STREETS'.
_OTHER_SIDE = re.compile(
    r"\s*/\s*(?=(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I\s*/\s*E|E\s*/\s*I|INT|EXT)(?:\.\s*|\s+)\S)")
# A printed scene number on either side: "12", "12A", "A202", "198DB", "12-A", "#12A#".
_SCENE_NUMBER = r"[A-Z]{0,3}\d{1,4}[A-Z]{0,3}(?:[-.]\d{1,3}[A-Z]?)?"
_LEADING_NUMBER = re.compile(rf"^\s*(?P<num>{_SCENE_NUMBER})(?:[.)]|\s)\s*(?=\S)", re.IGNORECASE)
# A trailing number is a scene number only when set apart by 2+ spaces (printed layouts) or
# repeating the leading one: "EXT. ROUTE 66" and "INT. ROOM 101" keep theirs.
_TRAILING_NUMBER = re.compile(
    rf"\s{{2,}}(?P<num>{_SCENE_NUMBER})\s*\.?\s*$|\s(?P<same>{_SCENE_NUMBER})\s*\.?\s*$", re.IGNORECASE)
_YEAR_SUFFIX = re.compile(r"\s*\((?:1[0-9]|20)\d{2}s?\)\s*$")
_FOUNTAIN_NUMBER = re.compile(r"\s*#(?P<num>[\w.\-]+)#\s*$")
# A revision mark in the right margin, after the heading: asterisks ('RIAD ROOFTOP *'), or the
# letter a revised scene's number opens with ('R145 INT. TRUCK STOP -- SPAIN R').
_REVISION_MARK = re.compile(r"\s+(?:\*+|(?P<letter>[A-Z]))\s*$")

_TIME_WRAPPERS = re.compile(r"^[\s(\[]*(.*?)[\s)\]]*$")
# A period ends a part ('INT. DAY. CRI HUB') unless it ends an initial ('A.P. NEWSROOM') or an
# abbreviation ('ST. MARY'S CHURCH', 'APPROX. 5 PM').
_LOCATION_SPLIT = re.compile(
    r"\s+[-–—]+\s+|\s*--+\s*|\s*[–—]\s*|(?<!\b[A-Z])(?<!\bST)(?<!\bMT)(?<!\bDR)(?<!\bMR)(?<!\bMS)(?<!\bFT)"
    r"(?<!\bMRS)(?<!\bJR)(?<!\bAPPROX)\.\s+(?=\S)|\s*,\s+")
_PART_EDGES = " .-–—:;"
_OPENERS, _CLOSERS = "([（【", ")]）】"
_BRACKETS = re.compile(r"[(\[（【]([^)\]）】]*)[)\]）】]")
# A part never starts with a connective: after 'DEPT.' the name goes on ('DEPT. OF HEALTH').
_CONNECTIVE = re.compile(r"(?:OF|AND|&|FOR|'N'?|DE|DEL|DU|DES)\b", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"(?<![\w'])\d{1,4}[A-Z]?(?![\w'])")
_TIME_JOINS = re.compile(r"\s*/\s*|\s+TO\s+|\s+AND\s+|\s*&\s*")


def _alternation(words: tuple[str, ...] | frozenset[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=lambda w: (-len(w), w)))


# 'LATER THAT MORNING', 'TWO DAYS LATER', 'A BIT LATER': times the word lists do not hold.
_TIME_FORMS = re.compile(
    rf"^(?:(?:{_alternation(TIME_OF_DAY_MODIFIERS)})\s+(?:{_alternation(TIMES_OF_DAY)})"
    rf"|(?:(?:(?:{_alternation(TIME_COUNTS)}|\d+)\s+(?:{_alternation(TIME_UNITS)})S?|(?:{_alternation(TIME_UNITS)})S)"
    rf"\s+(?:{_alternation(TIME_DIRECTIONS)}))"
    r"|(?:A\s+BIT|A\s+LITTLE|A\s+WHILE|MUCH|SOME\s+TIME|SOMETIME|SHORTLY|SOON|STILL)\s+(?:LATER|AFTER|AFTERWARDS?)"
    # A time of day placed by a preposition: 'JUST BEFORE DAWN', 'AFTER DARK', 'THE DEAD OF NIGHT'.
    r"|(?:(?:JUST|RIGHT|SHORTLY|SOON|LONG|AN\s+HOUR|HOURS|MINUTES|MOMENTS|A\s+FEW\s+MINUTES)\s+)?"
    rf"(?:BEFORE|AFTER|UNTIL|TILL|PAST|TOWARDS?|AROUND|ABOUT|NEAR|BY|AT)\s+(?:THE\s+)?(?:{_alternation(TIMES_OF_DAY)}|DARK)"
    r"|(?:IN\s+)?(?:THE\s+)?(?:DEAD|MIDDLE)\s+OF\s+(?:THE\s+)?(?:NIGHT|DAY|MORNING|AFTERNOON|EVENING))$")
# A lone modifier is no time ('OFFICE -- LATE' waits for 'AFTERNOON' on the next line) nor a place
# ('OFFICE - DAY, EARLY').
_LONE_MODIFIERS = frozenset({"EARLY", "LATE"})
# A time glued to the last place without a separator: 'LANDY'S OFFICE DAY', 'HOLDEN'S BEDROOM -NIGHT'.
# The place is the shortest that leaves a time: 'MACY'S VEHICLE   LATE AFTERNOON' ends in LATE AFTERNOON.
_GLUED_TIME = re.compile(rf"^(?P<place>.*?\S)(?:\s+-|\s)\s*(?P<time>{_alternation(HEADING_TIMES)})$")
# A bare hyphen that may glue a time to its place: 'F.B.I. OFFICES-DAY', 'BAR- DAY (LATER)'.
_HYPHEN = re.compile(r"(?<=[^\s\-])\s*-\s*(?=\S)")
# A time of day and a time relative to the scene before, in one part: 'DAY LATER', 'NIGHT CONTINUOUS'.
_DAY_THEN_LATER = re.compile(rf"^(?P<time>{_alternation(TIMES_OF_DAY)})\s+(?P<later>\S.*)$")
_RELATIVE_END = re.compile(rf"\b(?:{_alternation(TIME_DIRECTIONS)})$")
_YEAR = re.compile(r"^\(?(?:1[0-9]|20)\d{2}s?\)?$|^\(?(?:PRESENT|PAST|FLASHBACK)\)?$", re.IGNORECASE)

# The fields of a heading after its place that are neither places nor times of day: the weather
# ('- RAIN - DAY', 'IN THE POURING RAIN'), the season ('- AUTUMN', 'SUMMER 1969'), a date ('MARCH
# 1800', '4TH OF JULY', 'MONDAY') and a clock time, with what happens at it ('3 O'CLOCK PRACTICE',
# '10:30 PM').
_FULL_MONTHS = _alternation(tuple(m for m in MONTHS if len(m) > 4 or m in ("MAY", "JUNE", "JULY")))
_ORDINAL = r"\d{1,2}(?:ST|ND|RD|TH)?"
_HEADING_CONDITION = re.compile(
    rf"^(?:IN\s+THE\s+)?(?:(?:{_alternation(WEATHER_MODIFIERS)})\s+)?(?:{_alternation(WEATHER_WORDS)})$"
    rf"|^(?:(?:EARLY|LATE|MID|HIGH|DEEP)[\s-]+)?(?:{_alternation(SEASONS)})(?:TIME)?(?:,?\s+(?:OF\s+)?\d{{4}}S?)?$"
    rf"|^(?:(?:EARLY|LATE|MID)[\s-]+)?(?:{_FULL_MONTHS})(?:\s+{_ORDINAL})?(?:,?\s+\d{{3,4}})?$"
    rf"|^(?:{_alternation(MONTHS)})\.?\s+(?:{_ORDINAL}(?:,?\s+\d{{3,4}})?|\d{{3,4}})$"
    rf"|^(?:THE\s+)?{_ORDINAL}\s+(?:OF\s+)?(?:{_alternation(MONTHS)})\.?(?:,?\s+\d{{3,4}})?$"
    rf"|^(?:{_alternation(WEEKDAYS)})$"
    r"|^(?:AT\s+|ABOUT\s+|AROUND\s+|APPROX\.?\s+|APPROXIMATELY\s+|CIRCA\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:O'CLOCK|O’CLOCK|[AP]\.?\s?M\.?)(?:\s|$)"
    r"|^(?:AT\s+)?\d{1,2}:\d{2}\b")

# Chinese headings: "1 老师家 内 日", "1、日.外.青石崔", "3. 日 外 青石岭", "第一场", "2、银行监控室，日，内".
_ZH_SCENE_NUMBER = re.compile(
    r"^\s*(?:第\s*(?P<cn>[0-9０-９一二三四五六七八九十百千零〇两]+)\s*[场場幕集]"
    # '2场，小上海' and '3场日/内景' count scenes: 场 after the digits, before a separator or a marker.
    rf"|(?P<num>[0-9０-９]{{1,4}}[A-Za-z]?)\s*(?:[场場](?P<sub>[A-Za-z])?(?=$|[\s,，.．、。:：/／]|{'|'.join(ZH_TIMES_OF_DAY)}|内|外)"
    r"|[、.．:：,，)）]|\s|(?=[\u4e00-\u9fff])(?![年月号点分岁]))"
    r")\s*"
)
_ZH_INT_EXT = {"内": "INT", "外": "EXT", "内外": "INT/EXT", "外内": "INT/EXT", "內": "INT"}
_ZH_TOKEN_SPLIT = re.compile(r"[\s,，.．、。:：/／\\·・|]+")
# A note in brackets after the INT./EXT. marker, and whatever the line says after it, is about
# the scene, not a place: '日，内（双画面）', '内（调至外景）或加一场…'.
_ZH_MARKER_NOTE = re.compile(r"(?<=[\s,，.．、。:：/／\\·・|])(?P<mark>内外|外内|内|外|內)\s*[(\[（【].*$")
_ZH_TAIL = re.compile(
    r"(?P<time>" + "|".join(ZH_TIMES_OF_DAY) + r")?\s*(?P<ie>内外|外内|内|外|內)\s*(?P<time2>"
    + "|".join(ZH_TIMES_OF_DAY) + r")?\s*$"
)
# A camera note after what it shows: '山楂树镜头' (a shot of the hawthorn tree) is at the tree.
_ZH_SHOT = re.compile(rf"(?:{'|'.join(ZH_CAMERA_WORDS)})$")
# What a shot counts rather than shows: '一组镜头' (a group of shots, a montage), '几个特写'.
_ZH_QUANTITY = re.compile(r"^(?:[0-9０-９一二三两几数若干]+|一系列|系列)?[组个段些串套系列]*$")
# A bracket standing alone between a heading's tokens: '青石岭旷野 ( 天际线一般的外景 )'.
_ZH_LONE_BRACKET = re.compile(r"(^|[\s,，.．、。:：/／·・|])\s*[(\[（【]([^)\]）】]*)[)\]）】]")
# The INT./EXT. markers written out, 外景 and 内景 ('exterior scene', 'interior scene'), as a token
# or before the place they open ('外景阵地'); a place of one character after them stays whole
# ('外景地', a location for shooting).
_ZH_SCENE_MARKERS = {"外景": "EXT", "内景": "INT", "內景": "INT", "内外景": "INT/EXT", "外内景": "INT/EXT"}
_ZH_GLUED_MARKER = re.compile(r"^(?P<mark>内外景|外内景|外景|内景|內景)(?=\S{2})")
# The fields of a Chinese heading that are neither places nor times of day (see `_zh_condition`).
_ZH_DIGITS = "0-9０-９一二三四五六七八九十百〇零两"
_ZH_WEATHER = re.compile(
    rf"^[{ZH_WEATHER_MODIFIERS}]*(?:雨夹雪|[{ZH_WEATHER_CHARS}]{{1,2}})(?:{'|'.join(ZH_WEATHER_AFTER)})?$")
_ZH_SEASON = rf"[{ZH_SEASON_BEFORE}]?[{ZH_SEASON_CHARS}](?:{'|'.join(ZH_SEASON_AFTER)})?"
# A season and a time of day written as one word ('冬晨', '夏夜', '秋晚', '秋日黄昏'): the season a
# condition, the time of day the scene's time.
_ZH_SEASON_TIME = re.compile(rf"^(?P<season>{_ZH_SEASON})(?P<time>{'|'.join(ZH_TIMES_OF_DAY)})$")
# One time field: a time of day, or two joined as a span or a passing ('黄昏近夜', '夜至早晨'),
# with a continuity mark glued after it ('晨同前场', '晨接前场'): the scene's time is the first.
# A continuity mark may name the scene it goes on from by number: '接66场', '同第12场'.
_ZH_SCENE_REFERENCE = re.compile(r"^[接同]第?[0-9０-９]{1,4}[A-Za-z]?[场場]$")
_ZH_CONTINUITY = "|".join([*sorted({*ZH_SAME_PLACE, *ZH_RELATIVE_TIMES}, key=lambda w: (-len(w), w)),
                           _ZH_SCENE_REFERENCE.pattern.strip("^$")])
_ZH_TIME_FIELD = re.compile(
    rf"^(?P<time>{'|'.join(ZH_TIMES_OF_DAY)})(?:[{ZH_TIME_JOINS}](?:{'|'.join(ZH_TIMES_OF_DAY)}))?"
    rf"(?P<mark>{_ZH_CONTINUITY})?$")
# A scene label in place of a field: the scene (of the prologue, 序) and its sub-scene letter
# ('序场B', '场A') when the number before it is missing or apart.
_ZH_SCENE_LABEL = re.compile(r"^序?[场場][A-Za-z]?$")
_ZH_DATE = re.compile(
    rf"^(?:公元)?[{_ZH_DIGITS}]{{2,4}}年(?:[{_ZH_DIGITS}]{{1,2}}月)?(?:[{_ZH_DIGITS}]{{1,3}}[日号])?(?:{_ZH_SEASON})?$"
    rf"|^[{_ZH_DIGITS}]{{1,2}}月(?:[{_ZH_DIGITS}]{{1,3}}[日号])?$"
    rf"|^[{_ZH_DIGITS}]{{1,2}}[点時时](?:[{_ZH_DIGITS}]{{1,2}}分|半|整|钟)?$")


@dataclass(frozen=True)
class Heading:
    """The facts a scene heading states."""

    text: str
    number: str | None = None
    int_ext: str | None = None
    location: list[str] = field(default_factory=list)
    time_of_day: str | None = None
    sides: list[list[str]] = field(default_factory=list)
    """For a heading of two places or more, each with its own INT./EXT. ('INT. JUDY'S FLAT/INT.
    WASHINGTON AIRPORT', an intercut): the places of each, in order; `location` holds them all.
    Empty for a heading of one place."""
    conditions: list[str] = field(default_factory=list)
    """What else the heading states of its scene, neither place nor time of day: the weather
    ('RAIN', '雪后'), the season ('AUTUMN', '秋天'), a date ('MARCH 1800'), a clock time ('3
    O'CLOCK PRACTICE') and the 'same as above' that stands for the place of the heading before
    ('同上'), as written."""


def _norm_int_ext(raw: str) -> str:
    raw = re.sub(r"[\s.]", "", raw.upper())
    if raw in {"INT", "EXT", "EST"}:
        return "EXT" if raw == "EST" else raw
    return "INT/EXT"


def strip_scene_numbers(line: str) -> tuple[str, str | None]:
    """Remove printed scene numbers ('12A  INT. X - DAY  12A', 'INT. X #12#') from a heading.

    Returns:
        The heading text without numbers, and the number (or None).
    """
    text = line.strip()
    number = None
    m = _FOUNTAIN_NUMBER.search(text)
    if m:
        number = m.group("num")
        text = text[: m.start()].rstrip()
    m = _LEADING_NUMBER.match(text)
    if m and _EN_PREFIX.match(text[m.end():]):
        number = number or m.group("num")
        text = text[m.end():]
    m = _REVISION_MARK.search(text)
    if m and (m.group("letter") is None or (number or "")[:1].upper() == m.group("letter")):
        text = text[: m.start()].rstrip()
    m = _TRAILING_NUMBER.search(text)
    if m:
        trailing = m.group("num") or m.group("same")
        spaced = m.group("num") is not None
        if (spaced and number is None) or (number is not None and trailing.upper() == number.upper()):
            number = number or trailing
            text = text[: m.start()].rstrip()
    return text.strip(), number


def is_english_heading(line: str) -> bool:
    """True when the line starts (after an optional scene number) with INT./EXT./EST./I/E.

    The prefix must be in capitals: 'Est. 1850, the town grew.' is prose. (Fountain, whose
    spec allows lower-case headings, decides that in its own reader.)
    """
    text, _ = strip_scene_numbers(line)
    m = _EN_PREFIX.match(text)
    return m is not None and m.group("ie").isupper()


def _closed_brackets(text: str) -> str:
    """`text` with its unclosed brackets closed at the end: a note cut short ('NIGHT (FLASHBACK')
    stays a note instead of leaving its tail among the places."""
    missing = []
    for ch in text:
        if ch in _OPENERS:
            missing.append(_CLOSERS[_OPENERS.index(ch)])
        elif ch in _CLOSERS and missing:
            missing.pop()
    return text + "".join(reversed(missing))


def split_parts(rest: str) -> list[str]:
    """The parts of a heading after INT./EXT., split at its separators ('--', ' - ', ', ', '. ').

    Never inside brackets ('NIGHT (FLASHBACK - 1985)' is one part), and never at a period that a
    connective follows ('DEPT. OF HEALTH' is one name: no part starts with OF or AND).
    """
    rest = _closed_brackets(rest)
    parts: list[str] = []
    start = 0
    for m in _LOCATION_SPLIT.finditer(rest):
        before = rest[: m.start()]
        inside = sum(before.count(c) for c in _OPENERS) > sum(before.count(c) for c in _CLOSERS)
        if inside or ("." in m.group() and _CONNECTIVE.match(rest, m.end())):
            continue
        parts.append(rest[start: m.start()])
        start = m.end()
    parts.append(rest[start:])
    return [p.strip(_PART_EDGES) for p in parts if p.strip(_PART_EDGES)]


def _unwrapped(part: str) -> str:
    """A heading part without the brackets and spaces around it: '(LATER)' -> 'LATER'."""
    m = _TIME_WRAPPERS.match(part)
    return m.group(1) if m else part


def _time_value(text: str, *, loose: bool = False) -> str | None:
    """`text` as a time ('NIGHT', 'LATER THAT MORNING', 'TWO DAYS LATER'), or None if it is not one.

    `loose` also takes any words ending in DAY, NIGHT or EVE ('FRIDAY NIGHT', 'CHRISTMAS DAY',
    "NEW YEAR'S EVE") and the abbreviated times ('EVE', 'NITE'): only for a part after the first,
    since 'INT. INTERROGATION ROOM DAY' is a place with its time glued on and 'INT. EVE'S
    FLAT' a place.
    """
    value = " ".join(text.upper().replace("’", "'").split()).strip(_PART_EDGES + "?!,")
    if not value:
        return None
    if value in HEADING_TIMES or _TIME_FORMS.match(value):
        return value
    if loose and (value in ABBREVIATED_TIMES or value.endswith((" DAY", " NIGHT", " EVE"))):
        return value
    return None


def _joined_times(text: str) -> list[str] | None:
    """'DAY/DUSK', 'SUNSET TO DUSK', 'NIGHT / LATER': every piece a time, or None. After a slash
    a time may be followed by how the scene is shot ('DAY / DRIVING'), which is dropped."""
    m = _DAY_THEN_LATER.match(" ".join(text.upper().split()).strip(_PART_EDGES + "?!"))
    if m and (later := _time_value(m.group("later"))) is not None and _is_relative(later):
        return [m.group("time"), later]  # 'DAY LATER': the day, later
    pieces = [p for p in _TIME_JOINS.split(text.upper().strip(_PART_EDGES + "?!")) if p.strip()]
    values = [_time_value(p) for p in pieces]
    if len(values) < 2 or values[0] is None:
        return None
    if any(v is None for v in values) and "/" not in text:
        return None
    return [v for v in values if v is not None]


def _part_times(part: str, *, loose: bool) -> list[str] | None:
    """The times a heading part states when it states nothing else, or None.

    Brackets after a time hold notes about it: 'NIGHT (LATER)', 'DAY (AVENGERS 1)', 'DAY [FLASHBACK]'
    are all times (the times among the notes are kept, after the main one). A bracket may also be
    part of the time: '[THE NEXT] MORNING', '(PRESENT) DAY'. A scene number printed into the time
    ('LATE 306 AFTERNOON') is ignored.
    """
    if part.lstrip().startswith(("(", "[", "（", "【")):
        whole = _time_value(_BRACKETS.sub(lambda m: f" {m.group(1)} ", part))  # strict: '(PRESENT) DAY' is DAY
        if whole is not None:
            return [whole]
    inner = [m.group(1) for m in _BRACKETS.finditer(part)]
    outside = _BRACKETS.sub(" ", part)
    if not outside.strip(_PART_EDGES):
        # The whole part is bracketed: '(LATER)' is a time, '(FLASHBACK)' a note.
        found = [v for v in map(_time_value, inner) if v is not None]
        return found or None
    main = _time_value(outside, loose=loose) or _time_value(_NUMBER_TOKEN.sub(" ", outside), loose=loose)
    times = [main] if main is not None else _joined_times(outside)
    if times is None:
        return None
    return times + [v for v in map(_time_value, inner) if v is not None]


def _words(text: str) -> list[str]:
    return [w.strip(".'’-") for w in re.findall(r"[A-Z0-9][A-Z0-9.'’\-]*", text.upper())]


def is_camera_note(part: str) -> bool:
    """Whether a heading part (or a line in capitals) says how the scene is shot: it holds a
    word of the closed class of camera and editing words ('ANOTHER ANGLE', 'CLOSEUP OF TED',
    'WIDE ANGLE STOCK SHOT', 'FAVORING SPOCK', 'SNIPER SCOPE POV') or opens with one that only
    a shot opens with ('TIGHT GROUP', 'CLOSE ON THE DOOR').

    Example:
        >>> is_camera_note("WIDER ANGLE"), is_camera_note("TIGHT GROUP"), is_camera_note("ANGEL'S LANDING")
        (True, True, False)
    """
    outside = _BRACKETS.sub(" ", part)  # 'NEBULA (INTERCUT WITH BRIDGE)' is the nebula
    words = _words(re.sub(r"\bCLOSE\s+UPS?\b", "CLOSEUP", outside if outside.strip(_PART_EDGES) else part,
                          flags=re.IGNORECASE))
    return bool(words) and (words[0] in CAMERA_OPENERS or any(w in CAMERA_WORDS for w in words))


def is_editing_note(text: str) -> bool:
    """Whether a line in capitals is an editing note, not a name: a heading note or a camera
    note, alone or after a verb of the editing ('LOSE SUPER', 'END MONTAGE', 'SUPER', 'TITLES').

    Example:
        >>> is_editing_note("LOSE SUPER"), is_editing_note("SUPERINTENDENT")
        (True, False)
    """
    text = " ".join(_unwrapped(text).upper().split())
    for verb in EDITING_VERBS:
        if text.startswith(verb + " "):
            text = text[len(verb) + 1:]
            break
    return text in HEADING_NOTES or is_camera_note(text)


def _is_note(part: str) -> bool:
    text = " ".join(_unwrapped(part).upper().split())
    return text in HEADING_NOTES or text in _LONE_MODIFIERS or text in BLANK_SLOTS or is_camera_note(part)


def _strip_bracket_notes(part: str) -> tuple[str, list[str]]:
    """A place without the bracketed notes and times after it ('TSAI'S HOUSE (LATER)' ->
    'TSAI'S HOUSE', ['LATER']); other brackets ('LA LOUISIANE (TAVERN)') stay."""
    times: list[str] = []

    def drop(m: re.Match[str]) -> str:
        value = _time_value(m.group(1))
        if value is not None:
            times.append(value)
            return " "
        return " " if _is_note(m.group(1)) else m.group(0)

    place = " ".join(_BRACKETS.sub(drop, part).split()).strip(_PART_EDGES)
    return place, times


def _is_relative(time: str) -> bool:
    return time in RELATIVE_TIMES or bool(_RELATIVE_END.search(time))


def _unglued(parts: Iterable[str]) -> list[str]:
    """Parts with a time glued on by a bare hyphen split in two: 'ROOFTOP-NIGHT' -> 'ROOFTOP',
    'NIGHT'; 'BAR- DAY (LATER)' -> 'BAR', 'DAY (LATER)'; 'STREETS- DAY LATER' -> 'STREETS', 'DAY
    LATER'. A time spelt with a hyphen ('PRE-DAWN', 'MID-DAY') stays whole, and so does a part
    that is a time as it stands."""
    out: list[str] = []
    for part in parts:
        out += _hyphen_split(part) if _part_times(part, loose=False) is None else [part]
    return out


def _hyphen_split(part: str) -> list[str]:
    """`part` cut at the first bare hyphen after which it is a time, or `part` alone."""
    for m in _HYPHEN.finditer(part):
        place, time = part[: m.start()], part[m.end():]
        last = place.split()[-1]
        if (len(last.strip(".")) > 1 and _part_times(time, loose=False) is not None
                and _time_value(f"{last}-{time}") is None):
            return [place, time]
    return [part]


def is_condition(part: str) -> bool:
    """Whether a heading part after the first states the weather, the season, a date or a clock
    time of the scene rather than a place (`Heading.conditions`).

    Example:
        >>> is_condition("RAIN"), is_condition("MARCH 1800"), is_condition("3 O'CLOCK PRACTICE")
        (True, True, True)
        >>> is_condition("RAIN FOREST"), is_condition("ST. MARCH'S CHURCH")
        (False, False)
    """
    return bool(_HEADING_CONDITION.match(" ".join(part.upper().replace("’", "'").split()).strip(_PART_EDGES)))


def is_display_shot(part: str) -> bool:
    """Whether a heading part is a shot of a screen rather than a place: its head noun, the
    last word outside brackets (before SET), is one of the closed class of screens
    (`kgbuild.timewords.DISPLAY_WORDS`: 'TV SCREEN', 'SECURITY MONITOR', 'TELEVISION SET'). Places
    joined by a slash are settings of one scene, read apart later: 'VILLA/VIDEO MONITORS' stays.

    Example:
        >>> is_display_shot("TV SCREEN"), is_display_shot("TV STUDIO"), is_display_shot("HOLLYWOOD SIGN")
        (True, False, False)
    """
    if "/" in part or "\\" in part:
        return False
    words = _words(_BRACKETS.sub(" ", part))
    if len(words) > 1 and words[-1] == "SET":
        words = words[:-1]
    return bool(words) and words[-1] in DISPLAY_WORDS


def _split_time(parts: list[str]) -> tuple[list[str], str | None, list[str]]:
    """Take the times, the notes and the conditions (`is_condition`, after the first part) out
    of a heading's parts, wherever they stand; the first time of day wins over relative times
    ('NIGHT - A FEW MINUTES LATER' is NIGHT).

    Returns:
        The places, the time and the conditions.
    """
    times: list[str] = []
    places: list[str] = []
    conditions: list[str] = []
    for n, part in enumerate(_unglued(_YEAR_SUFFIX.sub("", p) or p for p in parts)):
        found = _part_times(part, loose=n > 0)
        if found is not None:
            times += found
            continue
        if n > 0 and is_condition(part):
            conditions.append(part)
            continue
        if _is_note(part) or _BRACKETS.fullmatch(part.strip()) or is_display_shot(part):
            # An editing note, or a bracketed remark ('NIGHT - [THE STORM]', '(THAT EVENING)'):
            # what a heading puts in brackets is a note, never a place; nor is a screen.
            continue
        place, noted = _strip_bracket_notes(part)
        times += noted
        if place:
            places.append(place)
    if not times and places:
        # 'INT. LANDY'S OFFICE DAY', 'INT HOLDEN'S BEDROOM -NIGHT': a time glued to the last place.
        m = _GLUED_TIME.match(places[-1].upper())
        if m and m.group("place").strip(_PART_EDGES) and _time_value(m.group("place")) is None:
            places[-1] = places[-1][: m.end("place")].strip(_PART_EDGES)
            times.append(" ".join(m.group("time").split()))
    if not times:
        return places, None, conditions
    absolute = [t for t in times if not _is_relative(t)]
    return places, (absolute or times)[0], conditions


def parse_english_heading(line: str, *, forced: bool = False) -> Heading:
    """Split an English heading into its facts.

    Args:
        line: The heading as printed, possibly with scene numbers.
        forced: Fountain's forced heading ('.SNIPER SCOPE POV'): no INT/EXT prefix expected.

    A heading that names two places, each with its own INT./EXT. (an intercut: 'INT. JUDY'S
    FLAT/INT. WASHINGTON AIRPORT'), gives both among its places and each in `Heading.sides`; a
    marker never stays glued to a place ('JUDY'S FLAT/INT').

    Example:
        >>> parse_english_heading("12A INT. HOUSE - KITCHEN - NIGHT 12A").location
        ['HOUSE', 'KITCHEN']
        >>> parse_english_heading("INT. JUDY'S FLAT/INT. AIRPORT - NIGHT").sides
        [["JUDY'S FLAT"], ['AIRPORT']]
        >>> parse_english_heading("RECTORY. STUDY. INT/NIGHT", forced=True).location
        ['RECTORY', 'STUDY']
    """
    text, number = strip_scene_numbers(line)
    rest = text
    int_ext = None
    m = _EN_PREFIX.match(text)
    suffix = _EN_SUFFIX.search(text) if not m and forced else None
    if m:
        int_ext = _norm_int_ext(m.group("ie"))
        rest = text[m.end():]
    elif suffix and suffix.start() > 0:
        int_ext = _norm_int_ext(suffix.group("ie"))
        rest = text[: suffix.start()] + (f" - {suffix.group('time')}" if suffix.group("time") else "")
    elif not forced:
        return Heading(text=text, number=number)
    sides: list[list[str]] = []
    times: list[str | None] = []
    conditions: list[str] = []
    for n, side in enumerate(_OTHER_SIDE.split(rest) if m else [rest]):
        marker = _EN_PREFIX.match(side) if n else None
        if marker is not None:
            int_ext = int_ext if _norm_int_ext(marker.group("ie")) == int_ext else "INT/EXT"
            side = side[marker.end():]
        parts, time, noted = _split_time(split_parts(side))
        sides.append([p for p in parts if not _YEAR.match(p)])
        times.append(time)
        conditions += noted
    location = [p for side in sides for p in side]
    time = next((t for t in times if t is not None), None)
    return Heading(text=text, number=number, int_ext=int_ext, location=location, time_of_day=time,
                   sides=[side for side in sides if side] if len(sides) > 1 else [], conditions=conditions)


def chinese_heading_number(line: str) -> tuple[str | None, str]:
    """Split a leading Chinese scene number ('1、', '3.', '第一场') from the rest of the line."""
    m = _ZH_SCENE_NUMBER.match(line)
    if not m:
        return None, line.strip()
    number = (m.group("num") + (m.group("sub") or "")) if m.group("num") else m.group("cn")
    return number, line[m.end():].strip()


def parse_chinese_heading(line: str) -> Heading:
    """Split a Chinese heading ('1、重庆市，日，外', '1.  王子神油店日内') into its facts.

    A standalone INT/EXT or time token wins over one glued to the location, so in
    '3、面包车内，日，外' the scene is EXT and the location keeps its '内' ('面包车内'). The
    markers may be written out (外景, 内景: '外景  草料棚  日  雪'), one for each of two places
    ('外景/内景  院落/接待室', an INT./EXT. scene), or glued before the place ('外景阵地'). The
    weather, the season, a date or a clock time, and the 'same as above' standing for the place
    of the heading before are conditions of the scene, not places (`_zh_condition`); a season
    written as one word with a time of day ('冬晨', '夏夜', winter morning, summer night) is the
    season and the scene's time.

    Example:
        >>> parse_chinese_heading("1.  王子神油店日内").location
        ['王子神油店']
    """
    number, rest = chinese_heading_number(line.strip())
    rest = _ZH_MARKER_NOTE.sub(lambda m: m.group("mark"), rest)
    rest, relative = _zh_lone_brackets(rest)
    rest, field_times = _zh_time_brackets(rest)
    tokens = []
    markers: list[str] = []
    conditions: list[str] = []
    for token in _ZH_TOKEN_SPLIT.split(rest):
        token, noted, bracketed = _zh_bracket_notes(token)
        relative += noted
        conditions += bracketed
        if _zh_camera_note(token):
            continue
        glued = _ZH_GLUED_MARKER.match(token)
        if glued:
            markers.append(_ZH_SCENE_MARKERS[glued.group("mark")])
            token = token[glued.end():]
        if token in ZH_RELATIVE_TIMES:
            relative.append(token)
        elif _ZH_SCENE_LABEL.match(token):
            continue
        elif token not in ZH_TIMES_OF_DAY and (field := _ZH_TIME_FIELD.match(token)):
            field_times.append(field.group("time"))
            mark = field.group("mark")
            if mark:
                (conditions if mark in ZH_SAME_PLACE else relative).append(mark)
        elif token in _ZH_SCENE_MARKERS:
            markers.append(_ZH_SCENE_MARKERS[token])
        elif _zh_condition(token):
            conditions.append(token)
        elif seasonal := _ZH_SEASON_TIME.match(token):
            conditions.append(seasonal.group("season"))
            field_times.append(seasonal.group("time"))
        elif token and token not in ZH_HEADING_NOTES:
            tokens.append(token)
    markers += [_ZH_INT_EXT[t] for t in tokens if t in _ZH_INT_EXT]
    int_ext = None if not markers else markers[0] if len(set(markers)) == 1 else "INT/EXT"
    time = next((t for t in [*tokens, *field_times] if t in ZH_TIMES_OF_DAY), None)
    location: list[str] = []
    for token in tokens:
        if token in _ZH_INT_EXT or token in ZH_TIMES_OF_DAY:
            continue
        m = _ZH_TAIL.search(token)
        if m and m.start() == 0:
            # Markers alone ('日内', '夜外'): the scene's time and side, not a place.
            int_ext = int_ext or _ZH_INT_EXT[m.group("ie")]
            time = time or m.group("time") or m.group("time2")
            continue
        timed = m is not None and bool(m.group("time") or m.group("time2"))
        if m and m.start() > 0 and (timed or (int_ext is None and m.start() > 1)):
            # Markers glued to the place: '重庆市日外'; with a time they are markers even beside a
            # standalone one ('祠堂日外  /  内', an INT./EXT. scene), alone only without one.
            tail_mark = _ZH_INT_EXT[m.group("ie")]
            int_ext = tail_mark if int_ext in (None, tail_mark) else "INT/EXT"
            time = time or m.group("time") or m.group("time2")
            token = token[: m.start()]
        elif time is None and len(token) > 1 and token[-1] in "日夜" and int_ext is not None:
            time, token = token[-1], token[:-1]
        token = _ZH_SHOT.sub("", token)
        if token:
            location.append(token)
    return Heading(
        text=line.strip(), number=number, int_ext=int_ext, location=location,
        time_of_day=time or (relative[0] if relative else None), conditions=conditions,
    )


def _zh_condition(token: str) -> bool:
    """A Chinese heading token that states a condition of the scene, not a place, by its form:
    the weather ('雪', '小雨', '雨后', '大雾'), the season ('春天', '初冬', '冬季'), a date or a
    clock time ('1954年', '1951年冬天', '3月5日', '八点'), or 'same as above' ('同上')."""
    return (token in ZH_SAME_PLACE or bool(_ZH_WEATHER.match(token))
            or re.fullmatch(_ZH_SEASON, token) is not None or bool(_ZH_DATE.match(token)))


def _zh_camera_note(token: str) -> bool:
    """A Chinese heading token that is a camera note: a picture on a screen ('新闻画面', news
    footage: the scene is what a screen shows), or a shot that counts rather than shows ('一组镜头',
    a group of shots: a montage). A shot of something ('山楂树镜头') is at what it shows."""
    m = _ZH_SHOT.search(token)
    if m is None:
        return False
    return m.group() == "画面" or m.group() == "蒙太奇" or bool(_ZH_QUANTITY.match(token[: m.start()]))


def _zh_lone_brackets(rest: str) -> tuple[str, list[str]]:
    """A Chinese heading without the brackets that stand alone between its tokens, and the
    times among them: such a bracket describes the scene ('( 天际线一般的外景 )', 'a skyline-like
    exterior') or times it; it is never a place, as in English."""
    times: list[str] = []

    def drop(m: re.Match[str]) -> str:
        inner = "".join(m.group(2).split())
        if inner in ZH_RELATIVE_TIMES or inner in ZH_TIMES_OF_DAY:
            times.append(inner)
        elif (value := _time_value(inner)) is not None:
            times.append(value)
        return m.group(1) + " "

    return _ZH_LONE_BRACKET.sub(drop, rest), times


def _zh_time_brackets(rest: str) -> tuple[str, list[str]]:
    """A Chinese heading without the brackets that hold only time fields, and their times of
    day: '古寺(夜，黎明)' -> '古寺', ['夜', '黎明'] (at night, till dawn); '野外(日)' -> '野外'. The
    separators inside such a bracket do not cut the heading into places."""
    times: list[str] = []

    def drop(m: re.Match[str]) -> str:
        fields = [f for f in _ZH_TOKEN_SPLIT.split(m.group(1)) if f]
        matched = [_ZH_TIME_FIELD.match(f) for f in fields]
        if not fields or not all(matched):
            return m.group(0)
        times.extend(f.group("time") for f in matched if f is not None)
        return " "

    return _BRACKETS.sub(drop, rest), times


def _zh_bracket_notes(token: str) -> tuple[str, list[str], list[str]]:
    """A Chinese heading token without its bracketed times, conditions and notes ('夜（稍后）' ->
    '夜', ['稍后']; '祠堂（秋）' -> '祠堂', [], ['秋']); other brackets stay."""
    times: list[str] = []
    conditions: list[str] = []

    def drop(m: re.Match[str]) -> str:
        inner = m.group(1).strip()
        if inner in ZH_RELATIVE_TIMES or inner in ZH_TIMES_OF_DAY or _ZH_SCENE_REFERENCE.match(inner):
            times.append(inner)
            return ""
        if _zh_condition(inner):
            conditions.append(inner)
            return ""
        value = _time_value(inner)
        if value is not None:
            times.append(value)
            return ""
        return "" if inner in ZH_HEADING_NOTES or _is_note(inner) else m.group(0)

    return _BRACKETS.sub(drop, token).strip(), times, conditions


def looks_like_chinese_heading(line: str) -> bool:
    """True for a line that states a Chinese scene: a number and an INT/EXT or time marker."""
    text = line.strip()
    if re.match(r"^第\s*[0-9０-９一二三四五六七八九十百千零〇两]+\s*[场場幕]", text):
        return True
    number, rest = chinese_heading_number(text)
    if number is None or not rest or len(rest) > 40 or re.search(r"[：:。！？!?]", rest):
        return False
    tokens = [t for t in _ZH_TOKEN_SPLIT.split(rest) if t]
    # The markers as tokens of their own: '日 外', '夜内' ('108. 日外 七星潭山谷').
    markers = [t for t in tokens if t in _ZH_INT_EXT or t in _ZH_SCENE_MARKERS or t in ZH_TIMES_OF_DAY
               or _ZH_TAIL.fullmatch(t)]
    if re.search(r"[“”]", rest) and not markers:
        return False  # quoted speech; a quote mark in a heading is a scanning blot ('76. 夜 内”县衙大堂')
    has_ie = (any(t in _ZH_INT_EXT or t in _ZH_SCENE_MARKERS or _ZH_TAIL.fullmatch(t) for t in tokens)
              or bool(_ZH_TAIL.search(rest)))
    has_time = any(t in ZH_TIMES_OF_DAY for t in tokens)
    return has_ie or (has_time and len(tokens) >= 2)
