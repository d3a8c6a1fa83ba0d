"""The one list of time-of-day words: what a scene heading says about when, in English and Chinese.

Readers take these off the end of a heading (`kgbuild.readers.headings`) and know a heading
without INT./EXT. by them (`kgbuild.readers.plaintext`: 'A JUNGLE - NIGHT'), the offline rules
keep them out of places (`kgbuild.offline.headings`) and out of objects
(`kgbuild.offline.stoplists.TIME_WORDS`), and the time markers read 'THE NEXT MORNING' with them
(`kgbuild.readers.time_markers`). Extend the lists here, never in a caller.
"""

from __future__ import annotations

#: When in the day (or which day) a heading puts its scene, in capitals: 'INT. HOUSE - NIGHT'.
TIMES_OF_DAY: frozenset[str] = frozenset({
    "DAY", "NIGHT", "MORNING", "EVENING", "AFTERNOON", "DAWN", "DUSK", "SUNSET", "SUNRISE",
    "NOON", "MIDNIGHT", "TWILIGHT", "NIGHTFALL", "DAYBREAK", "SUNDOWN", "SUNUP", "LUNCHTIME",
    "PRE-DAWN", "PREDAWN", "MID-DAY", "MIDDAY", "MAGIC HOUR", "GOLDEN HOUR", "FIRST LIGHT",
    "EARLY MORNING", "LATE MORNING", "EARLY AFTERNOON", "LATE AFTERNOON", "EARLY EVENING",
    "LATE EVENING", "LATE NIGHT", "LATE DAY", "DAY/NIGHT", "NIGHT/DAY", "DAWN/DUSK",
    "SAME DAY", "NEXT DAY", "THE NEXT DAY", "NEXT MORNING", "THE NEXT MORNING",
    # The middle of a part of the day, with or without its hyphen: 'MID-MORNING', 'MIDAFTERNOON'.
    *(f"MID{joint}{part}" for joint in ("-", "") for part in ("MORNING", "AFTERNOON", "EVENING", "NIGHT")),
})

_LATER_AMOUNTS = ("MOMENT", "MINUTE", "SECOND", "HOUR")

#: The printed forms of continuity marks, a closed class: a scene that goes on from the one before
#: ('INT. HALLWAY -- CONT.', 'EXT. WAREHOUSE  CONT.', 'INT. LOBBY, CONTINUED') or runs at the same
#: moment ('(THAT MOMENT)', 'SIMULTANEOUS').
CONTINUITY_MARKS: frozenset[str] = frozenset({
    "CONTINUOUS", "CONTINUING", "CONTINUED", "CONT'D", "CONTD", "CONT", "CONTINUOUS ACTION",
    "SAME", "SAME TIME", "SAME MOMENT", "THE SAME MOMENT", "THAT MOMENT", "AT THAT MOMENT", "THIS MOMENT",
    "AT THE SAME TIME", "SIMULTANEOUS", "SIMULTANEOUSLY", "MEANWHILE", "LATER ON",
})

#: Times that only relate a scene to the one before: 'CONTINUOUS', 'MOMENTS LATER'.
RELATIVE_TIMES: frozenset[str] = frozenset({
    *CONTINUITY_MARKS, "LATER", "A LITTLE LATER", "SOON AFTER",
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
    "晚上", "早上", "黎明", "拂晓", "破晓", "日出", "日落", "薄暮", "入夜", "午后", "正午", "晌午",
    "子夜", "半夜", "夜间", "夜里", "晨曦", "日", "夜", "晨", "昏", "晚", "早", "午",
)

#: Times of day as screenplays abbreviate them ('DRAWING ROOM - EVE', '- NITE', '- MORN'): a time
#: only as a heading part of its own after the first, never glued to a place ('INT. ADAM AND EVE').
ABBREVIATED_TIMES: frozenset[str] = frozenset({"EVE", "NITE", "MORN"})

#: Modifiers that join a time of day ('LATER THAT MORNING', 'THE NEXT AFTERNOON', 'EARLY DAY').
TIME_OF_DAY_MODIFIERS: tuple[str, ...] = (
    "EARLY", "LATE", "LATER", "EARLIER", "THE NEXT", "NEXT", "THAT", "THIS", "THE SAME", "SAME",
    "LATER THAT", "EARLIER THAT", "LATE THAT", "EARLY THAT", "EARLY IN THE", "LATE IN THE", "IN THE",
    "THE FOLLOWING", "FOLLOWING", "THE PREVIOUS", "PREVIOUS", "ONE",
)

#: Units a heading counts time in: 'TWO DAYS LATER', '30 YEARS LATER', 'SEVERAL WEEKS EARLIER'.
TIME_UNITS: tuple[str, ...] = ("SECOND", "MINUTE", "HOUR", "DAY", "NIGHT", "WEEK", "MONTH", "YEAR", "MOMENT")

#: Counts of those units, before them ('A FEW', 'SEVERAL', 'TWO', '3').
TIME_COUNTS: tuple[str, ...] = (
    "A", "AN", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "TWELVE",
    "FIFTEEN", "TWENTY", "THIRTY", "FORTY", "FIFTY", "A HUNDRED", "A FEW", "FEW", "SEVERAL", "MANY", "SOME",
    "A COUPLE OF", "A COUPLE", "COUPLE OF",
)

#: Words after such a count that make it a time relative to the scene before.
TIME_DIRECTIONS: tuple[str, ...] = ("LATER", "EARLIER", "AGO", "BEFORE", "AFTER", "AFTERWARDS", "PASS", "PASSED")

#: Notes that put a scene in the present ('NEW YORK - PRESENT DAY'): heading notes, not times of day.
PRESENT_NOTES: frozenset[str] = frozenset({"PRESENT", "PRESENT DAY", "THE PRESENT"})

#: Editing and camera notes a heading may carry besides its places and its time: 'NIGHT -
#: INTERCUT', 'DAY (FLASHBACK)', 'DAWN -- TIME CUTS'. They are neither places nor times.
HEADING_NOTES: frozenset[str] = frozenset({
    *PRESENT_NOTES,
    "FLASHBACK", "FLASH BACK", "FLASHBACKS", "FLASHBACK SEQUENCE", "END FLASHBACK", "END OF FLASHBACK",
    "FLASHFORWARD", "FLASH FORWARD", "FLASH-FORWARD", "BACK TO PRESENT", "BACK TO THE PRESENT",
    "PAST", "THE PAST", "DREAM", "DREAM SEQUENCE", "FANTASY",
    "NIGHTMARE", "MEMORY", "INTERCUT", "INTERCUTTING", "INTERCUT WITH", "AERIAL", "AERIAL SHOT",
    "AERIAL VIEW", "ESTABLISHING", "ESTABLISHING SHOT", "EST", "MONTAGE", "SERIES OF SHOTS",
    "VARIOUS SHOTS", "TIME CUT", "TIME CUTS", "MOCO", "SLOW MOTION", "B&W", "BLACK AND WHITE",
    "SPLIT SCREEN", "STOCK FOOTAGE", "ARCHIVE FOOTAGE", "SUPER", "TITLE", "TITLES", "POV", "SHOT", "SHOTS",
})

#: The words of a camera or editing note, a closed class of screenplay grammar: a heading part
#: that holds one ('ANOTHER ANGLE', 'CLOSEUP OF TED', 'WIDE ANGLE STOCK SHOT', 'FAVORING SPOCK')
#: says how the scene is shot, not where it is.
CAMERA_WORDS: frozenset[str] = frozenset({
    "ANGLE", "ANGLES", "CLOSEUP", "CLOSEUPS", "CLOSE-UP", "CLOSE-UPS", "POV", "P.O.V", "P.O.V.",
    "INSERT", "INSERTS", "SHOT", "SHOTS", "FOOTAGE", "MONTAGE", "INTERCUT", "INTERCUTTING",
    "FAVORING", "FAVOURING",
    # The sizes of a shot as scripts abbreviate them: (extreme, big, medium) close-up, extreme long
    # shot ('ECU ON THE TULIP', 'MCU'); CLOSE UP in two words is read as CLOSEUP (`is_camera_note`).
    "CU", "ECU", "XCU", "BCU", "MCU", "ELS", "XLS",
})

#: Words that open a camera note and nothing else a heading names: 'CLOSE ON THE DOOR', 'TIGHT
#: GROUP', 'WIDE ON THE HARBOUR', 'REVERSE ON MARA'.
CAMERA_OPENERS: frozenset[str] = frozenset({
    "CLOSE", "CLOSER", "TIGHT", "TIGHTER", "WIDE", "WIDER", "WIDENING", "REVERSE", "EXTREME", "AERIAL",
})

#: Verbs of the editing that start or end a note: 'LOSE SUPER', 'END MONTAGE', 'BEGIN FLASHBACK'.
EDITING_VERBS: frozenset[str] = frozenset({"LOSE", "END", "BEGIN", "START", "RESUME", "BACK TO", "OUT OF"})

_BLANKS = ("UNKNOWN", "UNSPECIFIED", "UNDETERMINED", "TBD", "N/A", "?")

#: Words a heading slot holds when it names nothing, alone or as the time left blank: 'INT.
#: PARTY HOUSE - UNKNOWN', 'INT. CAB, TIME UNKNOWN'.
BLANK_SLOTS: frozenset[str] = frozenset({
    *_BLANKS, *(f"TIME {b}" for b in _BLANKS), *(f"{b} TIME" for b in _BLANKS),
})

#: Things whose picture a shot shows, a closed class of screens: a heading part whose head noun is
#: one ('INT. TV SCREEN', 'SECURITY MONITOR', 'TELEVISION SET') is a shot of what it shows, no
#: place anyone is at. A sign is not among them: 'EXT. HOLLYWOOD SIGN' is a place.
DISPLAY_WORDS: frozenset[str] = frozenset({
    "SCREEN", "SCREENS", "VIEWSCREEN", "MONITOR", "MONITORS", "TV", "TELEVISION", "DISPLAY", "DISPLAYS",
})

#: Chinese camera notes ending a heading token: a shot ('镜头', '特写', '空镜', '杂景': miscellaneous
#: shots), a picture on a screen ('画面': '新闻画面', news footage), a montage ('蒙太奇').
ZH_CAMERA_WORDS: tuple[str, ...] = ("镜头", "画面", "特写", "空镜", "杂景", "蒙太奇")

#: Chinese times that relate a scene to the one before: '稍后' (later), '次日' (the next day).
ZH_RELATIVE_TIMES: tuple[str, ...] = (
    "若干年后", "片刻后", "几天后", "数日后", "数天后", "一周后", "数月后", "多年后", "数年后", "几年后",
    "接上场", "接前场", "第二天", "稍后", "随后", "同时", "连续", "继续", "当天", "同日", "次日", "翌日", "隔天",
)

#: Words that join two Chinese times of day into one time field, a span or a passing: '黄昏近夜'
#: (dusk near night), '黄昏入夜' (dusk into night), '夜至早晨', '晨到午', '夜接日'.
ZH_TIME_JOINS = "近入至到接"

#: Chinese heading notes (flashback, dream, montage...): neither places nor times.
ZH_HEADING_NOTES: frozenset[str] = frozenset({
    "闪回", "回忆", "回忆中", "梦境", "幻想", "幻境", "幻觉", "现实", "空镜", "字幕", "画面组合", "镜头组合",
    "蒙太奇",
    # The parts of a script: prologue, wedge, epilogue, opening and closing titles.
    "序", "序幕", "序章", "楔子", "引子", "尾声", "片头", "片尾",
})

#: The weather a heading may state after its place ('- RAIN - DAY', '- NIGHT - SNOWING'), a
#: closed class: neither a place nor a time. A heading part is weather when it is one of these,
#: after a word of how it falls and IN THE ('IN THE POURING RAIN', 'HEAVY SNOW'); not after THE
#: alone, which names ('BACKSTAGE - THE FOG', a club), and SHOWERS is a room.
WEATHER_WORDS: frozenset[str] = frozenset({
    "RAIN", "RAINING", "RAINY", "RAINFALL", "RAINSTORM", "DOWNPOUR", "DRIZZLE", "DRIZZLING",
    "SNOW", "SNOWING", "SNOWY", "SNOWFALL", "SNOWSTORM", "BLIZZARD", "SLEET", "HAIL",
    "STORM", "STORMY", "THUNDERSTORM", "THUNDER", "LIGHTNING", "FOG", "FOGGY", "MIST", "MISTY",
    "WIND", "WINDY", "GALE", "OVERCAST", "CLOUDY", "SUNNY", "HEATWAVE", "HEAT WAVE", "FROST",
})

#: How weather falls or stands, before its word: 'HEAVY RAIN', 'THE DRIVING SNOW'.
WEATHER_MODIFIERS: frozenset[str] = frozenset({
    "HEAVY", "LIGHT", "POURING", "DRIVING", "FALLING", "STEADY", "THICK", "DENSE", "SOFT", "GENTLE",
    "FREEZING", "BLOWING", "HOWLING", "TORRENTIAL", "BITTER", "FIRST",
})

#: The seasons, in capitals ('EXT. ORCHARD - AUTUMN'), with FALL for autumn.
SEASONS: frozenset[str] = frozenset({"SPRING", "SUMMER", "AUTUMN", "FALL", "WINTER"})

#: The months and the days of the week, as a heading dates its scene ('MARCH 1800', 'MONDAY').
MONTHS: tuple[str, ...] = (
    "JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER",
    "NOVEMBER", "DECEMBER", "JAN", "FEB", "MAR", "APR", "JUN", "JUL", "AUG", "SEP", "SEPT", "OCT",
    "NOV", "DEC",
)
WEEKDAYS: tuple[str, ...] = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")

#: Chinese weather in a heading ('外景  草料棚  日  雪', '日  雨后'), by its form: weather
#: characters (rain, snow, fog, wind, clear, overcast, thunder, lightning, frost, hail), after a
#: word of how much ('小雨', '大雾', '暴风雪') and before one of when ('雪后', '雨停', '雨中', '阴天').
ZH_WEATHER_CHARS = "雨雪雾风晴阴雷电霜雹"
ZH_WEATHER_MODIFIERS = "小中大暴细阵毛微狂浓薄轻"
ZH_WEATHER_AFTER: tuple[str, ...] = ("后", "中", "天", "停", "过")

#: Chinese seasons ('春天', '秋', '初冬', '盛夏', '冬季', '冬日'): a season character between an
#: optional word of which part of it and one of the season.
ZH_SEASON_CHARS = "春夏秋冬"
ZH_SEASON_BEFORE = "初早暮晚盛深寒隆仲孟残"
ZH_SEASON_AFTER: tuple[str, ...] = ("天", "季", "日", "末", "初")

#: The heading writes 'same as above' for the place of the heading before ('外景  同上  日'): a
#: mark of continuity, never a place of that name.
ZH_SAME_PLACE: frozenset[str] = frozenset({"同上", "同前", "同前场", "同场", "同场景", "同一场景", "同一地点"})
