"""Scene headings: recognise them and split them into number, INT/EXT, location parts and time.

Used by every reader, English and Chinese, so a heading means the same thing whatever the format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgbuild.timewords import HEADING_TIMES, RELATIVE_TIMES, ZH_TIMES_OF_DAY

# INT./EXT. prefixes, anchored at the start; the dot or a space must follow so that CLINT or
# INTERCUT are not headings.
_EN_PREFIX = re.compile(
    r"""^(?P<ie>
        INT\.?\s*/\s*EXT | EXT\.?\s*/\s*INT | INT\.?\s*-\s*EXT | EXT\.?\s*-\s*INT
      | I\s*/\s*E | E\s*/\s*I | INT\.?\s+AND\s+EXT | INT | EXT | EST | I/E
    )(?:\.\s*|\s+|\s*[-–—:]\s*)(?=\S)""",
    re.IGNORECASE | re.VERBOSE,
)
# A printed scene number on either side: "12", "12A", "A202", "198DB", "12-A", "#12A#".
_SCENE_NUMBER = r"[A-Z]{0,3}\d{1,4}[A-Z]{0,3}(?:[-.]\d{1,3}[A-Z]?)?"
_LEADING_NUMBER = re.compile(rf"^\s*(?P<num>{_SCENE_NUMBER})(?:[.)]|\s)\s*(?=\S)", re.IGNORECASE)
# A trailing number is a scene number only when set apart by 2+ spaces (printed layouts) or
# repeating the leading one: "EXT. ROUTE 66" and "INT. ROOM 101" keep theirs.
_TRAILING_NUMBER = re.compile(
    rf"\s{{2,}}(?P<num>{_SCENE_NUMBER})\s*\.?\s*$|\s(?P<same>{_SCENE_NUMBER})\s*\.?\s*$", re.IGNORECASE)
_YEAR_SUFFIX = re.compile(r"\s*\((?:1[0-9]|20)\d{2}s?\)\s*$")
_FOUNTAIN_NUMBER = re.compile(r"\s*#(?P<num>[\w.\-]+)#\s*$")

_TIME_WRAPPERS = re.compile(r"^[\s(\[]*(.*?)[\s)\]]*$")
_LOCATION_SPLIT = re.compile(r"\s+[-–—]+\s+|\s*--+\s*|\s*[–—]\s*|\.\s+(?=\S)|\s*,\s+")
_YEAR = re.compile(r"^\(?(?:1[0-9]|20)\d{2}s?\)?$|^\(?(?:PRESENT|PAST|FLASHBACK)\)?$", re.IGNORECASE)

# Chinese headings: "1 老师家 内 日", "1、日.外.青石崔", "3. 日 外 青石岭", "第一场", "2、银行监控室，日，内".
_ZH_SCENE_NUMBER = re.compile(
    r"^\s*(?:第\s*(?P<cn>[0-9０-９一二三四五六七八九十百千零〇两]+)\s*[场場幕集]"
    r"|(?P<num>[0-9０-９]{1,4}[A-Za-z]?)\s*(?:[、.．:：,，)）]|\s|(?=[\u4e00-\u9fff])(?![年月号点分岁]))"
    r")\s*"
)
_ZH_INT_EXT = {"内": "INT", "外": "EXT", "内外": "INT/EXT", "外内": "INT/EXT", "內": "INT"}
_ZH_TOKEN_SPLIT = re.compile(r"[\s,，.．、。:：/／·・|]+")
_ZH_TAIL = re.compile(
    r"(?P<time>" + "|".join(ZH_TIMES_OF_DAY) + r")?\s*(?P<ie>内外|外内|内|外|內)\s*(?P<time2>"
    + "|".join(ZH_TIMES_OF_DAY) + r")?\s*$"
)


@dataclass(frozen=True)
class Heading:
    """The facts a scene heading states."""

    text: str
    number: str | None = None
    int_ext: str | None = None
    location: list[str] = field(default_factory=list)
    time_of_day: str | None = None


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


def _unwrapped(part: str) -> str:
    """A heading part without the brackets and spaces around it: '(LATER)' -> 'LATER'."""
    m = _TIME_WRAPPERS.match(part)
    return m.group(1) if m else part


def _is_time(part: str) -> bool:
    text = _unwrapped(part).upper()
    return text in HEADING_TIMES or any(text.endswith(" " + t) for t in ("DAY", "NIGHT"))


def _split_time(parts: list[str]) -> tuple[list[str], str | None]:
    """Take the times off the end ('DAY - CONTINUOUS'); the first real time of day wins."""
    parts = [_YEAR_SUFFIX.sub("", p) or p for p in parts]
    times: list[str] = []
    while len(parts) >= 2 and _is_time(parts[-1]):
        times.insert(0, _unwrapped(parts.pop()).upper())
    if not times:
        return parts, None
    absolute = [t for t in times if t not in RELATIVE_TIMES]
    return parts, (absolute or times)[0]


def parse_english_heading(line: str, *, forced: bool = False) -> Heading:
    """Split an English heading into its facts.

    Args:
        line: The heading as printed, possibly with scene numbers.
        forced: Fountain's forced heading ('.SNIPER SCOPE POV'): no INT/EXT prefix expected.

    Example:
        >>> parse_english_heading("12A INT. HOUSE - KITCHEN - NIGHT 12A").location
        ['HOUSE', 'KITCHEN']
    """
    text, number = strip_scene_numbers(line)
    rest = text
    int_ext = None
    m = _EN_PREFIX.match(text)
    if m:
        int_ext = _norm_int_ext(m.group("ie"))
        rest = text[m.end():]
    elif not forced:
        return Heading(text=text, number=number)
    parts = [p.strip(" .") for p in _LOCATION_SPLIT.split(rest) if p.strip(" .")]
    parts, time = _split_time(parts)
    if time is None and len(parts) == 1:
        # "INT. LANDY'S OFFICE DAY": time glued on without a separator.
        words = parts[0].rsplit(" ", 1)
        if len(words) == 2 and words[1].upper() in HEADING_TIMES:
            parts, time = [words[0]], words[1].upper()
    location = [p for p in parts if not _YEAR.match(p)]
    return Heading(text=text, number=number, int_ext=int_ext, location=location, time_of_day=time)


def chinese_heading_number(line: str) -> tuple[str | None, str]:
    """Split a leading Chinese scene number ('1、', '3.', '第一场') from the rest of the line."""
    m = _ZH_SCENE_NUMBER.match(line)
    if not m:
        return None, line.strip()
    number = m.group("num") or m.group("cn")
    return number, line[m.end():].strip()


def parse_chinese_heading(line: str) -> Heading:
    """Split a Chinese heading ('1、重庆市，日，外', '1.  王子神油店日内') into its facts.

    A standalone INT/EXT or time token wins over one glued to the location, so in
    '3、面包车内，日，外' the scene is EXT and the location keeps its '内' ('面包车内').

    Example:
        >>> parse_chinese_heading("1.  王子神油店日内").location
        ['王子神油店']
    """
    number, rest = chinese_heading_number(line.strip())
    tokens = [t for t in _ZH_TOKEN_SPLIT.split(rest) if t]
    int_ext = next((_ZH_INT_EXT[t] for t in tokens if t in _ZH_INT_EXT), None)
    time = next((t for t in tokens if t in ZH_TIMES_OF_DAY), None)
    location: list[str] = []
    for token in tokens:
        if token in _ZH_INT_EXT or token in ZH_TIMES_OF_DAY:
            continue
        m = _ZH_TAIL.search(token)
        if m and m.start() > 0 and int_ext is None:
            int_ext = _ZH_INT_EXT[m.group("ie")]
            time = time or m.group("time") or m.group("time2")
            token = token[: m.start()]
        elif time is None and len(token) > 1 and token[-1] in "日夜" and int_ext is not None:
            time, token = token[-1], token[:-1]
        location.append(token)
    return Heading(
        text=line.strip(), number=number, int_ext=int_ext, location=location, time_of_day=time
    )


def looks_like_chinese_heading(line: str) -> bool:
    """True for a line that states a Chinese scene: a number and an INT/EXT or time marker."""
    text = line.strip()
    if re.match(r"^第\s*[0-9０-９一二三四五六七八九十百千零〇两]+\s*[场場幕]", text):
        return True
    number, rest = chinese_heading_number(text)
    if number is None or not rest or len(rest) > 40 or re.search(r"[：:。！？!?“”]", rest):
        return False
    tokens = [t for t in _ZH_TOKEN_SPLIT.split(rest) if t]
    has_ie = any(t in _ZH_INT_EXT for t in tokens) or bool(_ZH_TAIL.search(rest))
    has_time = any(t in ZH_TIMES_OF_DAY for t in tokens)
    return has_ie or (has_time and len(tokens) >= 2)
