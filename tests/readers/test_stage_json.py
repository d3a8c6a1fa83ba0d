import json

import pytest

from kgbuild.errors import InputError
from kgbuild.model import ElementKind, SourceFormat
from kgbuild.readers import read_screenplay


def _cues(scene):
    return [(e.speaker, e.extensions) for e in scene.elements if e.kind is ElementKind.CHARACTER]


def test_english_stage_json_one_scene_per_entry(fixtures):
    sp = read_screenplay(fixtures / "stage" / "english_script.json")
    assert sp.source.format is SourceFormat.STAGE_JSON
    assert sp.language == "en"
    assert [s.number for s in sp.scenes] == ["1", "2", "3"]
    first = sp.scenes[0]
    assert (first.heading, first.int_ext, first.location, first.time_of_day) == (
        "EXT. HARBOUR - NIGHT", "EXT", ["HARBOUR"], "NIGHT")
    assert _cues(first) == [("MARGO", []), ("TEDDY", ["O.S."])]
    paren = [e for e in first.elements if e.kind is ElementKind.PARENTHETICAL]
    assert [(p.text, p.speaker) for p in paren] == [("(shouting)", "TEDDY")]
    second = sp.scenes[1]
    assert _cues(second) == [("TEDDY", []), ("MARGO", [])]
    assert [e.text for e in second.elements if e.kind is ElementKind.TRANSITION] == ["CUT TO:"]
    assert _cues(sp.scenes[2]) == [("MARGO", ["V.O."])]
    assert sp.scenes[1].time_of_day == "CONTINUOUS"


def test_chinese_stage_json(fixtures):
    sp = read_screenplay(fixtures / "stage" / "chinese_script.json")
    assert sp.language == "zh"
    assert len(sp.scenes) == 2
    first = sp.scenes[0]
    assert (first.int_ext, first.location, first.time_of_day) == ("EXT", ["渔港"], "夜")
    assert [c for c, _ in _cues(first)] == ["阿梅", "小武"]
    assert [c for c, _ in _cues(sp.scenes[1])] == ["小武", "阿梅"]
    assert not any(e.text.startswith("、") for e in first.elements)


@pytest.mark.parametrize(
    "content, message",
    [
        ("[", "not valid JSON"),
        ("{}", "non-empty JSON list"),
        ("[]", "non-empty JSON list"),
        ('[{"title": "1"}]', 'no "content"'),
    ],
)
def test_malformed_stage_json(tmp_path, content, message):
    path = tmp_path / "script.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_screenplay(path, format=SourceFormat.STAGE_JSON)


@pytest.mark.slow
def test_every_shared_stage_script_has_one_scene_per_entry(shared_data):
    scripts = sorted(shared_data.glob("stage/*/*/script.json"))
    assert len(scripts) == 11
    for script in scripts:
        entries = json.loads(script.read_text(encoding="utf-8"))
        sp = read_screenplay(script)
        assert len(sp.scenes) == len(entries), script
        assert sum(1 for s in sp.scenes for e in s.elements if e.kind is ElementKind.CHARACTER) > 20


def test_a_chinese_script_learns_its_speakers_from_every_scene(tmp_path):
    # 宾馆老板 stands alone before a colon only in scene 1; in scene 2 the cue carries what he does.
    entries = [
        {"_id": 1, "title": "1.神油店日内",
         "content": "宾馆老板：房租赶紧付吧。\n程勇：交不出来啊。\n宾馆老板：那你想办法。"},
        {"_id": 2, "title": "2.神油店外日外", "content": "程勇：什么事都跟人家讲啊？\n宾馆老板瞪眼：你不是缺钱吗？\n"
                                                         "警察将驾驶证递给了程勇：这儿不能停车。\n程勇：好的。\n警察：快走。"},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    second = read_screenplay(path).scenes[1]
    assert [c for c, _ in _cues(second)] == ["程勇", "宾馆老板", "警察", "程勇", "警察"]
    rows = [(e.kind, e.text) for e in second.elements if e.kind in (ElementKind.ACTION, ElementKind.CHARACTER)]
    # A cue that tells an action before the line is that action, then the speaker's cue; a cue
    # that only says how the line is said ('瞪眼' has no narration word) stays the cue as written.
    assert (ElementKind.ACTION, "警察将驾驶证递给了程勇") in rows
    assert (ElementKind.CHARACTER, "宾馆老板瞪眼") in rows
    assert (ElementKind.CHARACTER, "警察") in rows


def test_a_scene_number_printed_on_both_sides_of_a_title_without_int_or_ext(tmp_path):
    entries = [{"_id": 0, "title": "6 AN ALLEY WAY IN NOVAGRUDOK 6", "content": "Snow falls."},
               {"_id": 1, "title": "162C IN A DEEP BOG 162C", "content": "They wade in."},
               {"_id": 2, "title": "7 ROOM 101", "content": "A door."}]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    scenes = read_screenplay(path).scenes
    assert [(s.number, s.heading) for s in scenes] == [
        ("6", "AN ALLEY WAY IN NOVAGRUDOK"), ("162C", "IN A DEEP BOG"), ("7", "ROOM 101")]
