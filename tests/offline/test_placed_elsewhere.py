"""Who the offline graph puts at a scene's heading place when the sentence that names someone
does not show them there: it places them elsewhere ('Outside, ...', 'seen through the window',
'老师乙在屋外敲门', '房顶之上'), or only names them (a question, 'if X is still there', 'certain
that X must be', 'until X comes', 'the book X left', 'X呢?'), or the scene intercuts with another
place where they are first shown."""

from __future__ import annotations

from kgbuild.extraction.presence import read_presence
from kgbuild.model import PresenceMode
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """Title: Not Here

INT. KITCHEN - NIGHT

NORA BELL stirs a pot. She can't start dinner until Owen comes.

Nora wonders if Clara is still at the office.

Nora is certain that Ruth must be at the station by now.

Nora picks up the novel Victor left and reads.

Where is Mark? Nora checks the clock.

NORA
Nobody ever comes home on time.

INT. LIVING ROOM - NIGHT

Ruth sits on the couch. Outside, Owen paces by the car.

Ruth looks through the window and spots Clara.

Victor, outside on the porch, taps on the glass.

RUTH
Come in, all of you.

INT. OFFICE - DAY

Mark sits at his desk, dials.

MARK
Pick up.

INTERCUT WITH:

Nora answers the phone in her kitchen.

NORA
Hello?

EXT. PORCH - NIGHT

Owen, Clara, Victor and Mark wait. Ruth steps out to them.

OWEN
Finally.

CLARA
Hi.

VICTOR
Hello.

MARK
Evening.
"""


def _build(tmp_path, text: str = SCRIPT, name: str = "script.fountain"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    screenplay = read_screenplay(path)
    return screenplay, extract_offline(screenplay)


def _located(graph) -> set[tuple[str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source].split()[0], names[r.target]) for r in graph.relations if r.type == "located_at"}


def test_a_name_the_sentence_only_talks_about_is_not_at_the_heading_place(tmp_path):
    _, graph = _build(tmp_path)
    located = _located(graph)
    assert ("Nora", "Kitchen") in located
    assert ("Owen", "Kitchen") not in located  # 'until Owen comes': not yet there
    assert ("Clara", "Kitchen") not in located  # 'wonders if Clara is ...'
    assert ("Ruth", "Kitchen") not in located  # 'certain that Ruth must be ...'
    assert ("Victor", "Kitchen") not in located  # 'the novel Victor left'
    assert ("Mark", "Kitchen") not in located  # 'Where is Mark?'


def test_a_name_the_sentence_places_elsewhere_is_not_at_the_heading_place(tmp_path):
    _, graph = _build(tmp_path)
    located = _located(graph)
    assert ("Ruth", "Living Room") in located
    assert ("Owen", "Living Room") not in located  # 'Outside, Owen paces' in an INT. scene
    assert ("Clara", "Living Room") not in located  # spotted through the window
    assert ("Victor", "Living Room") not in located  # 'outside on the porch'
    assert ("Mark", "Office") in located and ("Nora", "Office") not in located  # first shown after INTERCUT
    assert {("Owen", "Porch"), ("Clara", "Porch"), ("Victor", "Porch"), ("Mark", "Porch")} <= located


def test_the_scene_layer_keeps_who_is_elsewhere_out_of_the_room(tmp_path):
    screenplay, graph = _build(tmp_path)
    layer = read_presence(screenplay, graph)
    names = {e.id: e.name.split()[0] for e in graph.entities}
    modes = {(r.index, names[p.character]): p.mode for r in layer.records for p in r.presence}
    assert modes[(1, "Owen")] is PresenceMode.MENTIONED and modes[(1, "Mark")] is PresenceMode.MENTIONED
    assert modes[(2, "Owen")] is PresenceMode.AWAY and modes[(2, "Ruth")] is PresenceMode.PRESENT


ZH = """1 教室 日 内

老师甲在讲课，学生们听着。

老师乙在屋外敲门。

老师甲：进来。

2 卧室 夜 内

县长躺在床上。

房顶之上，胡万端枪扫射。

县长：谁？

3 楼顶 日 外

黄四郎举起望远镜。

望远镜里，张牧之策马而来。

黄四郎放下望远镜。武举人呢？无人应答。

黄四郎：走吧。

4 大厅 日 内

老师乙：校长找你。

胡万：好。

张牧之：走。

武举人：是。
"""


def test_chinese_names_placed_outside_above_or_through_a_telescope_or_asked_after(tmp_path):
    _, graph = _build(tmp_path, ZH, "script.txt")
    located = _located(graph)
    assert ("老师甲", "教室") in located and ("县长", "卧室") in located and ("黄四郎", "楼顶") in located
    assert ("老师乙", "教室") not in located  # '在屋外敲门': outside the room
    assert ("胡万", "卧室") not in located  # '房顶之上': on the roof
    assert ("张牧之", "楼顶") not in located  # '望远镜里': seen through the telescope
    assert ("武举人", "楼顶") not in located  # '武举人呢？': asked after
    assert {("老师乙", "大厅"), ("胡万", "大厅"), ("张牧之", "大厅"), ("武举人", "大厅")} <= located


# Where a Chinese sentence puts someone other than at the heading's place: described by another
# floor ('楼下的王婆婆'), not found ('并未发现李四'), or standing somewhere in a relative clause
# another's verb takes ('看见站在街边的李四'). Written for this test.
ZH_ELSEWHERE = """1 阳台 日 外

阿福趴在栏杆上往下看。

楼下的王婆婆正在晒被子。

阿福：婆婆好！

2 包间 夜 内

阿福推门进去，扫视一周，并未发现李四，退了出去。

3 街角 日 外

阿福停下车，看见不远处站在街边的李四。

李四：你来了。

4 院子 日 外

王婆婆：收被子了。

5 酒楼大厅 夜 内

舞台上，一个歌女在唱歌。

阿福：好听。

“疤脸”抬头看见眼前阿福的举动，摘下帽子。
"""


def test_chinese_names_on_another_floor_not_found_or_seen_standing_elsewhere(tmp_path):
    _, graph = _build(tmp_path, ZH_ELSEWHERE, "script.txt")
    located = _located(graph)
    assert ("阿福", "阳台") in located and ("阿福", "包间") in located and ("王婆婆", "院子") in located
    assert ("王婆婆", "阳台") not in located  # '楼下的': downstairs
    assert ("李四", "包间") not in located  # '并未发现': not found there
    assert ("李四", "街边") in located and ("阿福", "街边") not in located  # he sees who stands there
    assert ("阿福", "酒楼大厅") in located  # '舞台上，…' is a part of the hall, not another room
    names = {e.id: e.name for e in graph.entities}
    handled = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "interacts_with"}
    assert ("阿福", "帽子") not in handled  # 阿福 is seen; '疤脸' takes off the hat
