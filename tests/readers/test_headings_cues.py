from kgbuild.readers.cues import is_non_person_cue, parse_cue
from kgbuild.readers.headings import (
    is_english_heading,
    looks_like_chinese_heading,
    parse_chinese_heading,
    parse_english_heading,
)


def test_english_heading_with_numbers_both_sides():
    h = parse_english_heading("12A INT. HOUSE - KITCHEN - NIGHT 12A")
    assert (h.number, h.int_ext, h.location, h.time_of_day) == (
        "12A", "INT", ["HOUSE", "KITCHEN"], "NIGHT")
    assert h.text == "INT. HOUSE - KITCHEN - NIGHT"


def test_english_heading_variants():
    assert parse_english_heading("INT./EXT. CAR - NIGHT").int_ext == "INT/EXT"
    assert parse_english_heading("I/E VAN - DAY").int_ext == "INT/EXT"
    assert parse_english_heading("EXT. SPECTRE - 1977 - DAY").location == ["SPECTRE"]
    assert parse_english_heading("INT. LANDY'S OFFICE. DAY").location == ["LANDY'S OFFICE"]
    assert parse_english_heading("INT. X #12A#").number == "12A"


def test_int_ext_and_time_printed_at_the_end_of_a_heading():
    # European scripts print the marker last, with the time after a slash.
    cases = {
        "RECTORY. STUDY. INT/NIGHT": ("INT", ["RECTORY", "STUDY"], "NIGHT"),
        "MANOR EXT/DAY": ("EXT", ["MANOR"], "DAY"),
        "RECTORY. DINING ROOM. INT/EXT/NIGHT": ("INT/EXT", ["RECTORY", "DINING ROOM"], "NIGHT"),
        "FARM. ROOM. INT/DUSK": ("INT", ["FARM", "ROOM"], "DUSK"),
        "BARN - INT": ("INT", ["BARN"], None),
    }
    for line, want in cases.items():
        h = parse_english_heading(line, forced=True)
        assert (h.int_ext, h.location, h.time_of_day) == want, line
    # Words that end in the letters stay places; a line of prose is no heading.
    assert parse_english_heading("THE MINT", forced=True).location == ["THE MINT"]
    assert parse_english_heading("EMERGENCY EXIT", forced=True).location == ["EMERGENCY EXIT"]
    assert parse_english_heading("MANOR EXT/DAY").location == []


def test_words_that_contain_int_or_ext_are_not_headings():
    for line in ["CLINT BARTON walks in.", "INTERCUT WITH:", "EXTREME CLOSE UP", "INTO THE NIGHT"]:
        assert not is_english_heading(line), line


def test_chinese_headings():
    h = parse_chinese_heading("1 老师家 内 日")
    assert (h.number, h.int_ext, h.location, h.time_of_day) == ("1", "INT", ["老师家"], "日")
    h = parse_chinese_heading("1、日.外.青石崔")
    assert (h.int_ext, h.location, h.time_of_day) == ("EXT", ["青石崔"], "日")
    h = parse_chinese_heading("1.     王子神油店日内")
    assert (h.int_ext, h.location, h.time_of_day) == ("INT", ["王子神油店"], "日")
    assert looks_like_chinese_heading("第一场")
    assert looks_like_chinese_heading("1、重庆市，日，外")
    assert not looks_like_chinese_heading("张父：（喝酒）……")


def test_cue_extensions_kept_apart():
    assert parse_cue("CRONIN (O.S., PRELAP)").extensions == ["O.S.", "PRELAP"]
    assert parse_cue("MAN (CONT’D)").extensions == ["CONT'D"]
    cue = parse_cue("BRICK ^")
    assert (cue.name, cue.dual) == ("BRICK", True)
    assert parse_cue("GROUPIE #1").name == "GROUPIE #1"
    assert parse_cue("C-3PO").name == "C-3PO"
    assert parse_cue("夫 人").name == "夫人"


def test_numbers_that_belong_to_the_place_are_kept():
    assert parse_english_heading("EXT. ROUTE 66").location == ["ROUTE 66"]
    h = parse_english_heading("INT. ROOM 101 - NIGHT")
    assert (h.number, h.location) == (None, ["ROOM 101"])
    assert parse_english_heading("INT. HOUSE - DAY     45").number == "45"


def test_year_after_time_or_place_is_not_a_location():
    h = parse_english_heading("INT. X - NIGHT (1973)")
    assert (h.location, h.time_of_day) == (["X"], "NIGHT")
    assert parse_english_heading("EXT. COUNTRY HIGHWAY (2020) - DAY").location == ["COUNTRY HIGHWAY"]


def test_heading_times_come_from_the_shared_list():
    # Found in the STAGE and sample scripts: once read as a place, now the scene's time.
    for line, time in [("INT. DINER - LATE MORNING", "LATE MORNING"),
                       ("INT. STAIRWELL - A MINUTE LATER", "A MINUTE LATER"),
                       ("INT. HALLWAY, SCOTT'S APARTMENT BUILDING, A MOMENT LATER", "A MOMENT LATER")]:
        h = parse_english_heading(line)
        assert h.time_of_day == time and time not in h.location, line
    # A relative time gives way to a time of day; alone it is the time.
    assert parse_english_heading("EXT. ROAD - NIGHT - A FEW MINUTES LATER").time_of_day == "NIGHT"
    assert parse_english_heading("EXT. ROAD - SOON AFTER").time_of_day == "SOON AFTER"
    assert parse_chinese_heading("4 街道 外 傍晚").time_of_day == "傍晚"


def test_lower_case_prefix_is_prose():
    for line in ["Est. 1850, the town grew.", "int. fight", "Ext. Yes."]:
        assert not is_english_heading(line), line
    assert is_english_heading("EXT. HARBOUR - NIGHT")


def test_times_anywhere_in_a_heading_leave_only_places():
    # Shapes found in the shared data (scripts of several formats, STAGE script.json), written anew.
    for line, location, time in [
        ("EXT. DAY - HARBIN", ["HARBIN"], "DAY"),                                  # time first
        ("INT. DAY. MORROW'S OFFICE -- EMBASSY -- OSLO", ["MORROW'S OFFICE", "EMBASSY", "OSLO"], "DAY"),
        ("INT. WU'S HOUSE - NIGHT (LATER)", ["WU'S HOUSE"], "NIGHT"),              # a relative time after it
        ("EXT. DOCKS - DUSK [CONTINUOUS]", ["DOCKS"], "DUSK"),
        ("INT. MILL (1931) -- SUNSET, ROSA'S ROOM", ["MILL", "ROSA'S ROOM"], "SUNSET"),  # time in the middle
        ("EXT. FARM -- NIGHT -- FLASHBACK", ["FARM"], "NIGHT"),                    # a note after the time
        ("INT. TOWER, LOBBY - DAY (PART ONE)", ["TOWER", "LOBBY"], "DAY"),
        ("INT. LAB, DESK - DAY 2 - DAY (MOCO)", ["LAB", "DESK"], "DAY"),
        ("INT. BARN - MORNING - TEN YEARS LATER", ["BARN"], "MORNING"),
        ("EXT. PIER, LATER THAT EVENING", ["PIER"], "LATER THAT EVENING"),
        ("INT. CABIN, A BIT LATER", ["CABIN"], "A BIT LATER"),
        ("INT. ATTIC - [THE NEXT] MORNING", ["ATTIC"], "THE NEXT MORNING"),
        ("INT. ATTIC - (PRESENT) DAY", ["ATTIC"], "DAY"),
        ("EXT. MILL ROAD - SUNRISE TO NOON", ["MILL ROAD"], "SUNRISE"),
        ("INT. VAN - DAY / DRIVING", ["VAN"], "DAY"),
        ("INT. OFFICE (OLD WING) -- LATE 212 AFTERNOON", ["OFFICE (OLD WING)"], "LATE AFTERNOON"),
        ("EXT. COAST - SUNSET - AERIAL", ["COAST"], "SUNSET"),
        ("EXT. ALLEY - SAME - INTERCUT", ["ALLEY"], "SAME"),
        ("INT MARA'S KITCHEN -NIGHT", ["MARA'S KITCHEN"], "NIGHT"),
        ("INT CONTROL ROOM DAY", ["CONTROL ROOM"], "DAY"),
        ("EXT - THE OLD MILL (CELLAR) - NIGHT", ["THE OLD MILL (CELLAR)"], "NIGHT"),
        ("INT. A.B. PRINTING SHOP - DAY", ["A.B. PRINTING SHOP"], "DAY"),
        ("INT. DR. LUND'S OFFICE - DAY", ["DR. LUND'S OFFICE"], "DAY"),
        ("INT. CHAPEL -", ["CHAPEL"], None),
        ("EXT. BRIDGE - ESTABLISHING - EARLY DAY", ["BRIDGE"], "EARLY DAY"),
        ("EXT. SUNSET BOULEVARD - NIGHT", ["SUNSET BOULEVARD"], "NIGHT"),
    ]:
        h = parse_english_heading(line)
        assert (h.location, h.time_of_day) == (location, time), line


def test_times_and_notes_in_chinese_headings_are_not_places():
    for line, location, time in [
        ("5 吴家 夜（稍后）", ["吴家"], "夜"),
        ("6、吴家，夜，内（闪回）", ["吴家"], "夜"),
        ("7、日，外，哈尔滨", ["哈尔滨"], "日"),
        ("8 稍后 吴家 内", ["吴家"], "稍后"),
        ("9 画面组合", [], None),
    ]:
        h = parse_chinese_heading(line)
        assert (h.location, h.time_of_day) == (location, time), line


def test_cues_that_speak_for_no_one_character():
    assert is_non_person_cue("ALL") and is_non_person_cue("Crowd") and is_non_person_cue("众人")
    # A Chinese cue opening with an indefinite person: 'one of them chimes in', 'someone'.
    assert is_non_person_cue("一人应和") and is_non_person_cue("有人")
    assert not is_non_person_cue("一男子") and not is_non_person_cue("程勇") and not is_non_person_cue("ALLISON")


def test_continuity_marks_and_notes_in_their_printed_forms():
    # Forms from the truth audit (issue 30), written anew: neither places nor cut into places.
    for line, location, time in [
        ("INT. BOATHOUSE -- LOFT -- CONT.", ["BOATHOUSE", "LOFT"], "CONT"),       # continuity, abbreviated
        ("EXT GRAIN SILO     CONT.", ["GRAIN SILO"], "CONT"),                       # glued to the place
        ("INT RIVERA'S TRUCK   LATE AFTERNOON", ["RIVERA'S TRUCK"], "LATE AFTERNOON"),  # the longest time
        ("INT. GREENHOUSE, CONTINUED", ["GREENHOUSE"], "CONTINUED"),
        ("INT. ATRIUM - SIMULTANEOUS", ["ATRIUM"], "SIMULTANEOUS"),
        ("INT. CHAPEL - (THAT MOMENT)", ["CHAPEL"], "THAT MOMENT"),
        ("INT. CHAPEL - (THE VIGIL)", ["CHAPEL"], None),                            # a bracket is a note
        ("EXT. QUARRY - NIGHT (FLASHBACK - 1979)", ["QUARRY"], "NIGHT"),          # no split inside brackets
        ("EXT. QUARRY - DAY (DREAM SEQUENCE", ["QUARRY"], "DAY"),                  # a note left open
        ("INT. DEPT. OF MOTOR VEHICLES, WAITING ROOM - DAY", ["DEPT. OF MOTOR VEHICLES", "WAITING ROOM"], "DAY"),
        ("INT. DAY. LANDY'S OFFICE -- CRI", ["LANDY'S OFFICE", "CRI"], "DAY"),      # a period that separates
    ]:
        h = parse_english_heading(line)
        assert (h.location, h.time_of_day) == (location, time), line


def test_chinese_markers_and_notes_are_not_places():
    for line, location, time, side in [
        ("8 书房 夜外", ["书房"], "夜", "EXT"),       # the markers as a token of their own
        ("9、日内", [], "日", "INT"),
        ("序", [], None, None),                     # the prologue
        ("10 老槐树镜头", ["老槐树"], None, None),   # a shot of the old locust tree
    ]:
        h = parse_chinese_heading(line)
        assert (h.location, h.time_of_day, h.int_ext) == (location, time, side), line


def test_camera_notes_glued_times_and_time_phrases_in_english_headings():
    # Shapes from round 2 of the truth audit, written anew.
    for line, location, time in [
        ("INT. SIGNAL BOX - ANOTHER ANGLE", ["SIGNAL BOX"], None),
        ("INT. FERRY TERMINAL - WIDER ANGLE", ["FERRY TERMINAL"], None),
        ("INT. MESS HALL - TIGHT GROUP", ["MESS HALL"], None),
        ("EXT. SLIPWAY - CLOSEUP OF THE HULL - NIGHT", ["SLIPWAY"], "NIGHT"),
        ("INT. ENGINE ROOM - FAVORING THE STOKER", ["ENGINE ROOM"], None),
        ("INT. CUSTOMS SHED - WIDE ANGLE STOCK SHOT", ["CUSTOMS SHED"], None),
        ("INT. HARBOUR OFFICES-DAY", ["HARBOUR OFFICES"], "DAY"),                   # a bare hyphen
        ("EXT. WATER TOWER-NIGHT", ["WATER TOWER"], "NIGHT"),
        ("EXT. BOAT SHED- DAY (LATER)", ["BOAT SHED"], "DAY"),
        ("INT. BOAT SHED PRE-DAWN", ["BOAT SHED"], "PRE-DAWN"),                     # a time spelt with one
        ("EXT. ORCHARD - JUST BEFORE DAWN", ["ORCHARD"], "JUST BEFORE DAWN"),      # a time phrase
        ("EXT. PIER - AFTER DARK", ["PIER"], "AFTER DARK"),
        ("INT. BOATHOUSE - UNKNOWN", ["BOATHOUSE"], None),                          # a slot left blank
    ]:
        h = parse_english_heading(line)
        assert (h.location, h.time_of_day) == (location, time), line


def test_camera_notes_and_lone_brackets_in_chinese_headings():
    for line, location in [
        ("3、一组镜头 码头，日，外", ["码头"]),                     # a group of shots: a montage
        ("4、一组镜头", []),
        ("5、新闻画面", []),                                       # news footage
        ("6、日.外.山坡 ( 云海一般的远景 )", ["山坡"]),             # a description in brackets
        ("7 老槐树镜头", ["老槐树"]),                               # a shot of the tree is at the tree
    ]:
        assert parse_chinese_heading(line).location == location, line
    # A heading spilled into a scene's text, with its markers glued or a scanning blot.
    assert looks_like_chinese_heading("108. 日外 山谷") and looks_like_chinese_heading("76. 夜 内”县衙")
    assert not looks_like_chinese_heading("3 “你好”他说")
