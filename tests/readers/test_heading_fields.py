"""The fields of a scene heading that are neither places nor times of day: written-out INT./EXT.
markers (外景, 内景), times of day (黎明, EVE), the weather (雪, 雨后, RAIN), the season (秋天,
SUMMER), a date or a clock time (MARCH 1800, 3 O'CLOCK PRACTICE) and 'same as above' (同上).
Headings written for this test.
"""

from __future__ import annotations

import pytest

from kgbuild.readers.headings import is_condition, parse_chinese_heading, parse_english_heading


@pytest.mark.parametrize(("line", "int_ext", "places", "time", "conditions"), [
    ("外景  麦场  日  雪", "EXT", ["麦场"], "日", ["雪"]),
    ("内景  柴房  夜  小雨", "INT", ["柴房"], "夜", ["小雨"]),
    ("外景  山坳  黎明  大雾", "EXT", ["山坳"], "黎明", ["大雾"]),
    ("晒谷场  日  雨后", None, ["晒谷场"], "日", ["雨后"]),
    ("县医院病房  日  初春", None, ["县医院病房"], "日", ["初春"]),
    ("外景  河堤  日  秋天  （ 字幕  1962年  江北 ）", "EXT", ["河堤"], "日", ["秋天"]),
    ("外景  同上  日  雨", "EXT", [], "日", ["同上", "雨"]),
    ("外景/内景  公社大院/广播室  日", "INT/EXT", ["公社大院", "广播室"], "日", []),
    ("内/外景  车厢/站台  夜", "INT/EXT", ["车厢", "站台"], "夜", []),
    ("外景堤坝  夜  冬天  风雪", "EXT", ["堤坝"], "夜", ["冬天", "风雪"]),
    ("12  外景  码头  1958年冬天", "EXT", ["码头"], None, ["1958年冬天"]),
    # A season in brackets after the place; markers glued after it with a time, and another alone.
    ("5、李家祠堂（秋）日 外", "EXT", ["李家祠堂"], "日", ["秋"]),
    ("6、李家祠堂（冬）夜外  /  内", "INT/EXT", ["李家祠堂"], "夜", ["冬"]),
    # Scenes counted 'N场' before a separator or a marker; a place 场 begins stays.
    ("2场，枣林小院，同前场", None, ["枣林小院"], None, ["同前场"]),
    ("3场日/内景", "INT", [], "日", []),
    ("4场院  日  外", "EXT", ["场院"], "日", []),
    # Places the weather or a marker only begins: a snowfield, a location for shooting.
    ("外景  雪地  日", "EXT", ["雪地"], "日", []),
    ("外景地  日", None, ["外景地"], "日", []),
    # A season and a time of day as one word: the season a condition, the time the scene's time.
    ("8、钟楼·冬晨·外", "EXT", ["钟楼"], "晨", ["冬"]),
    ("9、账房·冬夜·内", "INT", ["账房"], "夜", ["冬"]),
    ("10、戏园·夏夜·外", "EXT", ["戏园"], "夜", ["夏"]),
    ("11、马厩·秋晚·内", "INT", ["马厩"], "晚", ["秋"]),
    ("12  外景  渡口  深秋黄昏", "EXT", ["渡口"], "黄昏", ["深秋"]),
    ("13、冬青巷  日  外", "EXT", ["冬青巷"], "日", []),
])
def test_chinese_heading_fields(line, int_ext, places, time, conditions):
    heading = parse_chinese_heading(line)
    assert (heading.int_ext, heading.location, heading.time_of_day, heading.conditions) == (
        int_ext, places, time, conditions)


@pytest.mark.parametrize(("line", "places", "time", "conditions"), [
    ("INT. HOLLOWAY HALL - MUSIC ROOM - EVE", ["HOLLOWAY HALL", "MUSIC ROOM"], "EVE", []),
    ("EXT. HOLLOWAY HALL - RAIN - DAY", ["HOLLOWAY HALL"], "DAY", ["RAIN"]),
    ("EXT. QUAYSIDE - NIGHT - HEAVY SNOW", ["QUAYSIDE"], "NIGHT", ["HEAVY SNOW"]),
    ("EXT. HOLLOWAY HALL - KENT - APRIL 1812 - NIGHT", ["HOLLOWAY HALL", "KENT"], "NIGHT", ["APRIL 1812"]),
    ("EXT. TENNIS COURT - 4 O'CLOCK LESSON", ["TENNIS COURT"], None, ["4 O'CLOCK LESSON"]),
    ("INT. DINER - 11:45 PM", ["DINER"], None, ["11:45 PM"]),
    ("EXT. ORCHARD - LATE AUTUMN", ["ORCHARD"], None, ["LATE AUTUMN"]),
    ("EXT. HIGH STREET - CHRISTMAS EVE", ["HIGH STREET"], "CHRISTMAS EVE", []),
    # A first part is a place whatever its words: Eve's flat, a rain forest, the March hall.
    ("INT. EVE'S FLAT - NIGHT", ["EVE'S FLAT"], "NIGHT", []),
    ("EXT. RAIN FOREST - DAY", ["RAIN FOREST"], "DAY", []),
    ("INT. EVE - NIGHT", ["EVE"], "NIGHT", []),
    # A room named after what falls there, a club named THE FOG; a clock time said approximately.
    ("INT. GYM - SHOWERS - DAY", ["GYM", "SHOWERS"], "DAY", []),
    ("INT. BACKSTAGE - THE FOG - NIGHT", ["BACKSTAGE", "THE FOG"], "NIGHT", []),
    ("INT. DINER - APPROX. 5 PM - COUNTER", ["DINER", "COUNTER"], None, ["APPROX. 5 PM"]),
    # The time left blank; a time of day and a later glued on by a bare hyphen.
    ("INT TAXI, TIME UNKNOWN", ["TAXI"], None, []),
    ("EXT. MILL LANE - UNKNOWN TIME", ["MILL LANE"], None, []),
    ("EXT HARBOUR ROAD- NIGHT LATER", ["HARBOUR ROAD"], "NIGHT", []),
    ("INT. PANTRY - DAY MOMENTS LATER", ["PANTRY"], "DAY", []),
    ("EXT. NINETY-NINTH STREET- DAWN", ["NINETY-NINTH STREET"], "DAWN", []),
    ("INT. X-RAY SUITE - DAY", ["X-RAY SUITE"], "DAY", []),
    # A screen is a shot of what it shows, not a place; a studio or a sign is a place.
    ("INT. TV SCREEN", [], None, []),
    ("INT. MOTEL ROOM - TELEVISION SET - NIGHT", ["MOTEL ROOM"], "NIGHT", []),
    ("INT. GUARD POST - SECURITY MONITOR", ["GUARD POST"], None, []),
    ("INT. CASTLE KEEP/VIDEO MONITORS - NIGHT", ["CASTLE KEEP/VIDEO MONITORS"], "NIGHT", []),
    ("INT. TV STUDIO - DAY", ["TV STUDIO"], "DAY", []),
    ("EXT. GIANT NEON SIGN - NIGHT", ["GIANT NEON SIGN"], "NIGHT", []),
])
def test_english_heading_fields(line, places, time, conditions):
    heading = parse_english_heading(line)
    assert (heading.location, heading.time_of_day, heading.conditions) == (places, time, conditions)


def test_conditions_are_whole_parts():
    assert is_condition("IN THE POURING RAIN") and is_condition("SUMMER 1969") and is_condition("MONDAY")
    assert not is_condition("RAIN BARREL") and not is_condition("SUMMER HOUSE") and not is_condition("MAYFAIR")
