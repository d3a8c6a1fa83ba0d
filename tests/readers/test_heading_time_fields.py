"""Time fields a heading writes beyond one time of day, and marks that are no places: Chinese times
in brackets ('(夜，黎明)'), two times joined as one field ('黄昏入夜', '夜至早晨'), a continuity
mark glued to a time ('晨同前场'), a sub-scene letter ('12场B', '场A'), miscellaneous shots (杂景);
English revision marks in the margin ('... R', '... *'), shot sizes ('ECU', 'MEDIUM CLOSE UP')
and the middle of a part of the day ('MID-MORNING'). Headings written for this test.
"""

from __future__ import annotations

import pytest

from kgbuild.readers.headings import (
    parse_chinese_heading,
    parse_english_heading,
    strip_scene_numbers,
)


@pytest.mark.parametrize(("line", "number", "places", "time"), [
    ("40 破庙(夜，黎明)", "40", ["破庙"], "夜"),
    ("41 荒野(日)", "41", ["荒野"], "日"),
    ("42 郊外(晨)", "42", ["郊外"], "晨"),
    ("7场，渔村茶馆，黄昏近夜", "7", ["渔村茶馆"], "黄昏"),
    ("8场，码头仓库，黄昏入夜", "8", ["码头仓库"], "黄昏"),
    ("9场，渔村茶馆内外，夜至早晨", "9", ["渔村茶馆"], "夜"),
    ("10场，县衙内，晨至日", "10", ["县衙"], "晨"),
    ("11场，县衙内，夜到午", "11", ["县衙"], "夜"),
    ("12场B，米铺，晨同前场", "12B", ["米铺"], "晨"),
    ("13场A，米铺后院，晨接前场", "13A", ["米铺后院"], "晨"),
    ("14场B，米铺，午后（接9场）", "14B", ["米铺"], "午后"),
    ("序场B，渡口，日", None, ["渡口"], "日"),
    ("15场，杂景，日", "15", [], "日"),
    ("16场，渔村杂景，晨", "16", ["渔村"], "晨"),
    # A place that is a word with 外 stays whole; a longer place still loses a glued marker.
    ("17 门外", "17", ["门外"], None),
    ("18 县城外", "18", ["县城"], None),
])
def test_chinese_time_fields(line, number, places, time):
    heading = parse_chinese_heading(line)
    assert (heading.number, heading.location, heading.time_of_day) == (number, places, time)


@pytest.mark.parametrize(("line", "places", "time"), [
    ("R12 INT. NIGHT. BUS DEPOT -- LISBON R", ["BUS DEPOT", "LISBON"], "NIGHT"),
    ("R30A EXT. DAY. NORTH GATE R", ["NORTH GATE"], "DAY"),
    ("EXT. HARBOUR WALL -- CONTINUOUS *", ["HARBOUR WALL"], "CONTINUOUS"),
    # A letter that is no revision mark names: HANGAR B.
    ("12 INT. HANGAR B", ["HANGAR B"], None),
    ("INT. DAY. CONTROL ROOM -- MEDIUM CLOSE UP:", ["CONTROL ROOM"], "DAY"),
    ("EXT. MEADOW - ECU ON THE POPPY - DAY", ["MEADOW"], "DAY"),
    ("EXT. HARBOUR - MCU - NIGHT", ["HARBOUR"], "NIGHT"),
    ("EXT. VILLAGE - BAKER'S SHOP - MID-MORNING", ["VILLAGE", "BAKER'S SHOP"], "MID-MORNING"),
    ("INT. LIBRARY - MIDAFTERNOON", ["LIBRARY"], "MIDAFTERNOON"),
])
def test_english_time_fields_and_marks(line, places, time):
    text, _ = strip_scene_numbers(line)
    heading = parse_english_heading(text)
    assert (heading.location, heading.time_of_day) == (places, time)

