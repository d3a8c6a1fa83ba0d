"""The one list of time-of-day words: what a scene heading says about when, in English and Chinese.

Readers take these off the end of a heading (`kgbuild.readers.headings`), the offline rules
keep them out of places (`kgbuild.offline.headings`) and out of objects
(`kgbuild.offline.stoplists.TIME_WORDS`). Extend the lists here, never in a caller.
"""

from __future__ import annotations

#: When in the day (or which day) a heading puts its scene, in capitals: 'INT. HOUSE - NIGHT'.
TIMES_OF_DAY: frozenset[str] = frozenset({
    "DAY", "NIGHT", "MORNING", "EVENING", "AFTERNOON", "DAWN", "DUSK", "SUNSET", "SUNRISE",
    "NOON", "MIDNIGHT", "TWILIGHT", "NIGHTFALL", "DAYBREAK", "SUNDOWN", "SUNUP", "LUNCHTIME",
    "PRE-DAWN", "PREDAWN", "MID-DAY", "MIDDAY", "MAGIC HOUR", "FIRST LIGHT",
    "EARLY MORNING", "LATE MORNING", "EARLY AFTERNOON", "LATE AFTERNOON", "EARLY EVENING",
    "LATE EVENING", "LATE NIGHT", "LATE DAY", "DAY/NIGHT", "NIGHT/DAY", "DAWN/DUSK",
    "SAME DAY", "NEXT DAY", "THE NEXT DAY", "NEXT MORNING", "THE NEXT MORNING",
})

_LATER_AMOUNTS = ("MOMENT", "MINUTE", "SECOND", "HOUR")

#: Times that only relate a scene to the one before: 'CONTINUOUS', 'MOMENTS LATER'.
RELATIVE_TIMES: frozenset[str] = frozenset({
    "CONTINUOUS", "CONTINUING", "CONT'D", "CONTD", "SAME", "SAME TIME", "LATER", "A LITTLE LATER",
    "SOON AFTER",
    *(f"{unit}S LATER" for unit in _LATER_AMOUNTS),
    *(f"{unit} LATER" for unit in _LATER_AMOUNTS),
    *(f"A {unit} LATER" for unit in _LATER_AMOUNTS),
    *(f"A FEW {unit}S LATER" for unit in _LATER_AMOUNTS),
    "AN HOUR LATER",
})

#: Everything an English heading may end with as its time.
HEADING_TIMES: frozenset[str] = TIMES_OF_DAY | RELATIVE_TIMES

#: Single-word times of day in lower case, for prose ('cuts through the night').
TIME_OF_DAY_WORDS: frozenset[str] = frozenset(t.lower() for t in TIMES_OF_DAY if t.isalpha())

#: Chinese times of day in headings ('1 老师家 内 日'), longest first: a regex alternation built
#: from them tries '夜晚' before '夜'.
ZH_TIMES_OF_DAY: tuple[str, ...] = (
    "清晨", "早晨", "上午", "中午", "下午", "傍晚", "黄昏", "夜晚", "深夜", "凌晨", "午夜", "白天",
    "晚上", "早上", "日", "夜", "晨", "昏", "晚", "早", "午",
)
