"""Heading places and their part_of, on a screenplay written for these tests and on rules alone.

Kinds 1 and 2 of the truth audit (issue 30): heading words that are no places (continuity marks,
notes, states of the place), and part_of written backwards or guessed from the written order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.model import Scene
from kgbuild.offline import extract_offline
from kgbuild.offline.containment import learn_containment
from kgbuild.offline.headings import heading_places, is_state, learn_heading_places
from kgbuild.readers import read_screenplay
from kgbuild.readers.headings import parse_chinese_heading, parse_english_heading

HEADINGS = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "headings.fountain"


@pytest.fixture(scope="module")
def graph(embedder):
    return run_repairs(extract_offline(read_screenplay(HEADINGS), embedder=embedder))[0]


def _relations(graph, rtype):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_heading_words_that_are_no_places(graph):
    places = {e.name for e in graph.entities if e.type == "Location"}
    assert {"Albatross", "Galley", "Chart Room", "Boiler Room", "Interview Room", "Granville",
            "Dept. Of Harbours", "Waiting Room", "Hearse", "Biplane", "9th Avenue", "Lighthouse",
            "Chapel", "Mill Lane", "Pier"} <= places
    # Continuity marks, notes, a participle, a state, a count and a name cut at its period.
    for name in ["Following", "Cont", "Lighthouse Cont", "Driving", "In Flight", "Three Lanes",
                 "That Moment", "(that Moment)", "Flashback", "1979)", "Dept", "Of Harbours"]:
        assert name not in places, name


def test_part_of_only_where_the_script_shows_the_order(graph):
    part_of = _relations(graph, "part_of")
    # ALBATROSS holds the rooms written after it; GRANVILLE those written before it.
    assert {("Galley", "Albatross"), ("Chart Room", "Albatross"), ("Boiler Room", "Albatross"),
            ("Interview Room", "Granville"), ("Records Office", "Granville"),
            ("Waiting Room", "Dept. Of Harbours")} <= part_of
    # Backwards, or nothing shows which holds which: an EXT. heading's open water and dry dock
    # are where the ship is, not parts of it; a pier and a bay are two places.
    for pair in [("Granville", "Interview Room"), ("Open Water", "Albatross"), ("Drydock", "Albatross"),
                 ("Marina Bay", "Pier"), ("Pier", "Marina Bay")]:
        assert pair not in part_of, pair


def test_the_scene_is_at_its_innermost_place(graph):
    located = _relations(graph, "located_at")
    assert {("Tomas", "Interview Room"), ("Tomas", "Granville")} <= located
    occurs = _relations(graph, "occurs_at")
    assert any(place == "Interview Room" for event, place in occurs if "hands" in event.lower()), occurs


def _scene(heading: str, int_ext: str | None = "INT", index: int = 1) -> Scene:
    h = parse_chinese_heading(heading) if any("\u4e00" <= c <= "\u9fff" for c in heading) \
        else parse_english_heading(heading)
    return Scene(index=index, heading=h.text, int_ext=int_ext or h.int_ext, location=h.location, line_span=(1, 1))


def test_states_of_the_place():
    for part in ["DRIVING", "FOLLOWING", "PARKED", "HEADING DOWNTOWN", "IN FLIGHT", "ON FOOT", "TWO LANES",
                 "LATE AFERNOON", "RUINS"]:
        assert is_state(part), part
    for part in ["LANDING", "CLEARING", "ON STAGE", "IN BAXTER'S KITCHEN", "THREE RIVERS STADIUM", "BACK ROOM"]:
        assert not is_state(part), part
    assert heading_places(_scene("INT. SQUAD CAR (UPSIDE DOWN), STREET - CONTINUOUS")) == ["STREET", "SQUAD CAR"]


def test_containment_in_chinese_headings():
    # A room lies in a building whichever side it is written on; two places of one size are not ordered.
    grammar = learn_heading_places(_Script([_scene("5、走廊，医院，夜，内"), _scene("6、车站，书店，日，外", "EXT")]))
    assert grammar.part_of(_scene("5、走廊，医院，夜，内")) == [("走廊", "医院")]
    assert grammar.part_of(_scene("6、车站，书店，日，外", "EXT")) == []


def test_a_container_holds_only_what_it_is_written_with():
    grammar = learn_containment([
        (["TINY HOUSE", "NOGALES", "MEXICO"], "INT"), (["STASH HOUSE", "NOGALES"], "EXT"),
        (["SHIP", "BRIDGE"], "INT"), (["ENTERPRISE", "READY ROOM"], "INT"), (["ENTERPRISE", "CORRIDOR"], "INT"),
        (["ENTERPRISE", "SICKBAY"], "INT"), (["ENTERPRISE", "BRIDGE"], "INT"), (["THE RIFT", "SPACE"], "EXT"),
        (["ENTERPRISE", "SPACE"], "EXT"),
    ])
    assert grammar.part_of(["TINY HOUSE", "NOGALES", "MEXICO"], interior=True) == [("TINY HOUSE", "NOGALES")]
    # A part on the side where ENTERPRISE's rooms are written lies in it inside (INT.), not outside.
    assert grammar.part_of(["ENTERPRISE", "SICKBAY"], interior=True) == [("SICKBAY", "ENTERPRISE")]
    assert grammar.part_of(["ENTERPRISE", "SPACE"]) == []
    assert grammar.part_of(["THE RIFT", "SPACE"]) == []
    # BRIDGE is found inside two vessels: a room by use.
    assert grammar.part_of(["ENTERPRISE", "BRIDGE"], interior=True) == [("BRIDGE", "ENTERPRISE")]


class _Script:
    def __init__(self, scenes: list[Scene]):
        self.scenes = scenes


NOTES = HEADINGS.with_name("heading_notes.fountain")


@pytest.fixture(scope="module")
def notes_graph(embedder):
    return run_repairs(extract_offline(read_screenplay(NOTES), embedder=embedder))[0]


def test_camera_notes_times_and_slug_lines_are_no_places_nor_characters(notes_graph):
    # Round 2 of the truth audit: a camera framing, a shot of a speaker, a time glued by a bare
    # hyphen or placed by a preposition, a state, and slug lines and editing notes read as cues.
    entities = {(e.type, e.name) for e in notes_graph.entities}
    places = {name for kind, name in entities if kind == "Location"}
    people = {name for kind, name in entities if kind == "Character"}
    assert {"Harbour Master's Office", "Watch Tower", "Estuary", "Mara's Van", "Quay", "Lighthouse"} <= places
    for name in ["Another Angle", "Oskar", "Watch Tower-night", "Just Before", "On The Move", "Tight Group"]:
        assert name not in places, name
    assert {"Mara", "Oskar"} <= people
    for name in ["Lighthouse", "Quay", "Super", "Lose Super"]:
        assert name not in people, name
    located = _relations(notes_graph, "located_at")
    assert ("Oskar", "Harbour Master's Office") in located
    assert not {(who, where) for who, where in located if where in ("Oskar", "Another Angle", "Tight Group")}


def test_two_settings_joined_by_a_slash_hold_neither():
    scenes = [_scene("8、王家卧室/王家院内，夜，内", index=1), _scene("9、王家卧室，王家院内，夜，内", index=2)]
    grammar = learn_heading_places(_Script(scenes))
    assert grammar.part_of(scenes[0]) == []
    assert grammar.part_of(scenes[1]) == [("王家卧室", "王家院内")]
    assert set(grammar.places(scenes[0])) == {"王家卧室", "王家院内"}


# Headings naming several places (an intercut, a split screen) and heading notes after the
# INT./EXT. marker; written for this test.
SETTINGS_ZH = [
    {"title": "1、茶馆，日，内", "content": "阿福坐在窗边喝茶。\n阿福：掌柜的，再来一壶。\n掌柜：来了。"},
    {"title": "2、茶馆\\\\药铺\\\\码头，日，内",
     "content": "阿福拿起茶碗。\n秀兰走进药铺。\n秀兰：抓一副药。\n阿福：好茶。"},
    {"title": "3、渡口、竹林，夜，外（双画面）", "content": "阿福：走吧。\n秀兰：等等我。"},
    {"title": "4、书房，夜，内（调至外景）或加一场看书", "content": "阿福：睡吧。"},
]


def test_a_heading_of_several_places_places_no_one_and_a_marker_is_no_place(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SETTINGS_ZH, ensure_ascii=False), encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    places = {e.name for e in graph.entities if e.type == "Location"}
    assert {"茶馆", "药铺", "码头", "渡口", "竹林", "书房"} <= places
    assert not {p for p in places if "\\" in p or p.startswith(("内", "外"))}
    located = _relations(graph, "located_at")
    assert ("阿福", "茶馆") in located and ("阿福", "书房") in located
    # Scenes 2 and 3: the heading does not say who is where; the action puts 秀兰 in the shop.
    assert ("秀兰", "药铺") in located
    assert not {(who, where) for who, where in located if where in ("码头", "渡口", "竹林")}
    assert ("秀兰", "茶馆") not in located and ("阿福", "药铺") not in located
    assert not _relations(graph, "part_of") & {("药铺", "茶馆"), ("码头", "药铺"), ("竹林", "渡口")}


# Headings whose fields are markers, times, weather, seasons, dates and 'same as above'; written
# for this test.
FIELDS_ZH = [
    {"title": "1外景  麦场  日  雪", "content": "老周扛着木锨走过麦场。\n老周：雪下大了。"},
    {"title": "2内景  柴房  黎明  小雨", "content": "秀兰蹲在灶前烧火。\n秀兰：柴湿了。"},
    {"title": "3外景  同上  日  雨后", "content": "老周和秀兰一起扫着积水。\n老周：歇会儿吧。"},
    {"title": "4外景/内景  公社大院/广播室  日  秋天", "content": "秀兰推开广播室的门。\n秀兰：开会了。"},
]
FIELDS_EN = [
    {"title": "INT. HOLLOWAY HALL - MUSIC ROOM - EVE", "content": "CLARA plays the piano.\n\nCLARA\nListen."},
    {"title": "EXT. HOLLOWAY HALL - KENT - APRIL 1812 - NIGHT", "content": "CLARA walks out.\n\nCLARA\nCold."},
    {"title": "EXT. TENNIS COURT - RAIN - 4 O'CLOCK LESSON", "content": "CLARA swings.\n\nCLARA\nAgain."},
]


@pytest.mark.parametrize(("scenes", "places", "not_places"), [
    (FIELDS_ZH, {"麦场", "柴房"}, {"外景", "内景", "雪", "小雨", "黎明", "同上", "雨后", "秋天"}),
    (FIELDS_EN, {"Music Room", "Tennis Court"}, {"Eve", "April 1812", "Rain", "4 O'clock Lesson"}),
])
def test_heading_fields_are_no_places(tmp_path, scenes, places, not_places):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(scenes, ensure_ascii=False), encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    found = {e.name for e in graph.entities if e.type == "Location"}
    assert places <= found
    assert not found & not_places
    located, part_of = _relations(graph, "located_at"), _relations(graph, "part_of")
    assert not {pair for pair in located | part_of if pair[1] in not_places}
