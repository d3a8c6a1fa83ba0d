"""Who the offline graph puts at a Chinese scene's heading place: not who is seen on a screen, who
is in another room the action moves to or after a heading written inside the scene, or who is
heard on the phone."""

from __future__ import annotations

from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """1 银行监控室 日 内

镜头在监控室的电脑屏幕上慢慢移动，从屏幕上，我们可以看到沙僧正在大厅里劫持银行职工。

唐僧走进监控室，把警卫打倒在地。

大厅里，猪八戒揪住一个男子。

2 程勇家 夜 内

程勇坐在沙发上。程勇接起电话。

程勇：喂？

吕受益：程老板，出事了。

程勇：我马上来。

3 印度工厂 日 内

厂长：恩。

厂长插入钥匙，彭浩走了进来。

117办公室日内

办公室内，赵立忠和瑞士代表交谈。

赵立忠：给印度最高法院。

4 面包车内 日 内

唐僧：走。

沙僧：好。

猪八戒：快点。

彭浩：等等。
"""


def test_screens_other_rooms_and_phone_calls_are_not_the_heading_place(tmp_path):
    path = tmp_path / "script.txt"
    path.write_text(SCRIPT, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    located = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "located_at"}
    assert ("唐僧", "银行监控室") in located and ("程勇", "程勇家") in located
    assert ("沙僧", "银行监控室") not in located  # on the monitors
    assert ("猪八戒", "银行监控室") not in located  # in the hall the action moves to
    assert ("吕受益", "程勇家") not in located  # first heard after 程勇 picks up the phone
    assert ("程勇", "沙发") not in located  # furniture is no place
    assert ("厂长", "印度工厂") in located and ("赵立忠", "印度工厂") not in located  # after '117办公室日内'
    assert "赵立忠" in names.values()  # still in the scene: only not at its heading's place
    assert ("彭浩", "印度工厂") in located  # '插入钥匙' inserts a key: no cut


CROWD = """1 武馆 日 内

寿哥：今天人家上门来叫板。

一人应和：我们他妈的怕过谁呀！

雄哥：兄弟算是练过几年。

2 茶楼 日 内

寿哥：喝茶。

雄哥：好。
"""


def test_a_voice_of_no_one_in_particular_is_no_character_and_keeps_a_scene_from_being_a_pair(tmp_path):
    path = tmp_path / "script.txt"
    path.write_text(CROWD, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    assert "一人应和" not in names.values() and {"寿哥", "雄哥"} <= set(names.values())
    spoken = {(names[r.source], names[r.target], r.scenes[0]) for r in graph.relations if r.type == "speaks_to"}
    assert ("寿哥", "雄哥", 1) not in spoken  # three voices in the 武馆: not a conversation of two
    assert ("寿哥", "雄哥", 2) in spoken
