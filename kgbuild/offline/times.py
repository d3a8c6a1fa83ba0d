"""Time points: the time of day of scene headings and dates or years named in the text."""

from __future__ import annotations

import re

# Heading times that name a position relative to another scene, not a time point.
_RELATIVE = re.compile(
    r"^(?:CONTINUOUS|CONTINUING|LATER|MOMENTS LATER|A LITTLE LATER|SECONDS LATER|MINUTES LATER|"
    r"HOURS LATER|SAME|SAME TIME|SOON AFTER|CONT'D|SAME DAY)$"
)
_ZH_TIMES = {"日": "白天", "夜": "夜晚", "晨": "清晨", "昏": "黄昏", "晚": "晚上", "早": "早上", "午": "中午"}
_NUMBER = r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|several|twenty|thirty)"
_TEXT_TIMES = re.compile(
    r"\b(?:(?:that|this|the next|the following|next|last|one|every|the same)\s+"
    r"(?:night|morning|evening|afternoon|day|week|weekend|summer|winter|spring|autumn|fall|year|month)"
    r"|(?:moments|seconds|minutes|hours|days|weeks|months|years|a (?:moment|minute|second|while|day|week|year)|"
    rf"{_NUMBER} (?:seconds?|minutes?|hours?|days?|weeks?|months?|years?))\s+(?:later|ago|before|earlier)"
    rf"|{_NUMBER}\s+o'clock|\d{{1,2}}(?::\d{{2}})?\s*(?:a\.?m\.?|p\.?m\.?)"
    r"|(?:Christmas|New Year'?s?|Halloween|Easter|Thanksgiving|prom)(?:\s+(?:Eve|Day|Night))?"
    r"|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day(?:\s+(?:morning|night|evening|afternoon))?"
    r"|(?:January|February|March|April|June|July|August|September|October|November|December)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+(?:1[5-9]|20)\d{2})?"
    r"|(?:1[5-9]|20)\d{2}s?|dawn|dusk|sunrise|sunset|midnight|noon|tonight|tomorrow|yesterday)\b",
    re.IGNORECASE,
)


def heading_time(time_of_day: str | None) -> str | None:
    """The time point a heading's time of day names, or None for CONTINUOUS, LATER, ..."""
    if not time_of_day:
        return None
    text = time_of_day.strip()
    if text in _ZH_TIMES:
        return _ZH_TIMES[text]
    if _RELATIVE.match(text.upper()) or "LATER" in text.upper():
        return None
    return text.lower() if text.isupper() else text


def text_times(text: str) -> list[str]:
    """Dates, years, named days and relative day phrases mentioned in a piece of text."""
    return [m.group(0) for m in _TEXT_TIMES.finditer(text)]
