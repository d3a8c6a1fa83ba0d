"""The offline rules one by one: selection, headings, Chinese text, times, social cues, beats."""

from __future__ import annotations

from kgbuild.model import Element, ElementKind, Scene, Screenplay, Source, SourceFormat
from kgbuild.offline.chinese import owned, places, things, times
from kgbuild.offline.facts import Facts
from kgbuild.offline.headings import heading_places
from kgbuild.offline.scenes import beats
from kgbuild.offline.selection import SelectionPolicy, assemble
from kgbuild.offline.social import is_vocative_kin, kin_in_name
from kgbuild.offline.times import heading_time, text_times


def _scene(heading: str, location: list[str], texts: list[str] = ()) -> Scene:
    elements = [Element(kind=ElementKind.ACTION, text=t, line_start=i + 2, line_end=i + 2)
                for i, t in enumerate(texts)]
    return Scene(index=1, heading=heading, location=location, elements=elements,
                 line_span=(1, len(texts) + 1))


def _screenplay() -> Screenplay:
    source = Source(path="t.fountain", format=SourceFormat.FOUNTAIN, sha256="0" * 64, size_bytes=1)
    return Screenplay(title="t", language="en", source=source, scenes=[])


def _facts() -> Facts:
    facts = Facts()
    anna, ben = ("Character", "Anna"), ("Character", "Ben")
    for scene in (1, 2, 3):
        facts.mention(*anna, scene, "cast")
        facts.mention(*ben, scene, "cast")
        facts.relate(ben, "affinity_with", anna, scene, "talk")
    facts.mention("Object", "knife", 2, "phrase")
    facts.relate(anna, "interacts_with", ("Object", "knife"), 2, "hold")
    facts.relate(anna, "interacts_with", ("Object", "spoon"), 2, "hold")  # spoon never mentioned
    return facts


def test_selection_counts_scenes_and_needs_both_ends():
    policy = SelectionPolicy(mention_rules={"cast": 1, "phrase": 1},
                             relation_rules={"talk": 3, "hold": 1})
    graph = assemble(_facts(), _screenplay(), policy)
    names = {e.id: e.name for e in graph.entities}
    triples = {(names[r.source], r.type, names[r.target], tuple(r.scenes)) for r in graph.relations}
    # Symmetric relations are stored once, the smaller id first; the dangling spoon is dropped.
    assert triples == {("Anna", "affinity_with", "Ben", (1, 2, 3)),
                       ("Anna", "interacts_with", "knife", (2,))}
    stricter = SelectionPolicy(mention_rules={"cast": 1}, relation_rules={"talk": 4, "hold": 1})
    graph = assemble(_facts(), _screenplay(), stricter)
    assert graph.relations == [] and {e.name for e in graph.entities} == {"Anna", "Ben"}


def test_heading_places_clean_and_order():
    assert heading_places(_scene("INT. APARTMENT, CHICAGO - NIGHT", ["APARTMENT", "CHICAGO"])) == [
        "CHICAGO", "APARTMENT"]
    assert heading_places(_scene("INT. CARL'S HOUSE, LIVING ROOM - DAY", ["CARL'S HOUSE", "LIVING ROOM"])) == [
        "CARL'S HOUSE", "LIVING ROOM"]
    assert heading_places(_scene("EXT. STREET - SAME - INTERCUT", ["STREET", "SAME", "INTERCUT"])) == ["STREET"]
    assert heading_places(_scene("INT. CHURCH -", ["CHURCH -"])) == ["CHURCH"]
    assert heading_places(_scene("街道日外", ["街道"])) == ["街道"]


def test_chinese_places_things_owners_and_times():
    assert places("他走进监控室") == ["监控室"]
    assert places("大厅里") == ["大厅"] and places("车内") == ["车内"]
    assert places("雨伞掉在地上") == ["地上"]
    assert places("他慢慢站起来") == []
    assert things("司机接过对讲机", []) == ["对讲机"]
    assert things("他掏出枪慢慢走了进去", []) == ["枪"]
    assert things("阿强递给阿明一个打火机", ["阿强", "阿明"]) == ["打火机"]
    assert owned("阿明的手机一直在响", ["阿明"]) == [("阿明", "手机")]
    assert times("那天晚上下雨，第二天他在1936年6月1日出发，三年前") == [
        "那天晚上", "第二天", "1936年6月1日", "三年前"]


def test_english_times():
    assert text_times("Moments later, at seven o'clock that night. Two years ago, on Friday.") == [
        "Moments later", "seven o'clock", "that night", "Two years ago", "Friday"]
    assert text_times("He may leave.") == []
    assert heading_time("NIGHT") == "night" and heading_time("MOMENTS LATER") is None
    assert heading_time("夜") == "夜晚"


def test_kinship_cues():
    assert kin_in_name("Ben's Mother", {"Ben", "Ben's Mother"}) == "Ben"
    assert kin_in_name("Ben's Car", {"Ben", "Ben's Car"}) is None
    assert kin_in_name("程勇儿子", {"程勇", "程勇儿子"}) == "程勇"
    assert kin_in_name("程勇的妻子", {"程勇", "程勇的妻子"}) == "程勇"
    assert kin_in_name("张三", {"张三", "张"}) is None
    assert is_vocative_kin("Mom, listen to me.") and is_vocative_kin("Not now, Dad.")
    assert is_vocative_kin("爸，你别管了。")
    assert not is_vocative_kin("My dad is away.") and not is_vocative_kin("爸爸不在家。")


def test_beats_split_long_scenes_at_elements():
    scene = _scene("INT. ROOM - DAY", ["ROOM"], ["a" * 1000, "b" * 1000, "c" * 1000, "d" * 10])
    assert beats(scene, size=2500) == [(0, 2), (2, 4)]
    assert beats(_scene("INT. ROOM", ["ROOM"]), size=2500) == [(0, 0)]
