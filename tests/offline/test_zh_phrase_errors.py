"""Things and places the Chinese rules must not make of a sound one hears, a look, a misprinted
body part, the thing a picture shows or a position by a vehicle or a dais (issue 30, round 2).
The clauses are written for these tests."""

from __future__ import annotations

from kgbuild.offline.chinese import owned, places, things


def test_chinese_sounds_looks_and_misprinted_body_parts_are_no_ones_things():
    assert owned("阿华听着阿明的口哨", ["阿华", "阿明"]) == []  # a sound he makes
    assert owned("阿明阿华的视线被吸引", ["阿华", "阿明"]) == []  # where they look
    assert owned("阿明贴着阿华的耳条", ["阿华", "阿明"]) == []  # a misprinted 耳朵
    assert owned("阿华的手机响了", ["阿华"]) == [("阿华", "手机")]
    assert owned("阿华的耳环掉了", ["阿华"]) == [("阿华", "耳环")]


def test_chinese_a_picture_of_a_thing_is_not_the_thing():
    assert things("阿明拿着那辆车的照片", ["阿明"]) == ["照片"]
    assert things("阿明拿起杯子的时候", ["阿明"]) == ["杯子"]


def test_chinese_beside_a_vehicle_or_a_dais_is_no_place():
    assert places("阿华走到一辆卡车旁", ["阿华"]) == []
    assert places("校长站在讲台前", []) == []
    assert places("老师在讲台上写字", []) == ["讲台"]  # on it is the place, without 上
    assert places("阿华坐在车内", ["阿华"]) == ["车内"]
    assert places("阿华走到酒楼前", ["阿华"]) == ["酒楼前"]


def test_chinese_on_a_place_is_the_place_and_on_a_vehicle_its_inside():
    assert places("阿华躺在广场上", ["阿华"]) == ["广场"]
    assert places("阿华坐在船上", ["阿华"]) == ["船上"]
    assert places("阿华走到楼上", ["阿华"]) == ["楼上"]


def test_chinese_everyone_is_no_place():
    assert places("阿华突然出现在大家面前", ["阿华"]) == []
    assert places("阿华站在大家中间", ["阿华"]) == []


def test_chinese_a_place_in_a_simile_is_no_setting():
    assert places("阿华像一个醉汉倒在广场上", ["阿华"]) == []
    assert places("阿华像死人一样躺在广场上", ["阿华"]) == ["广场"]
    assert places("阿华像平时一样坐在客厅里", ["阿华"]) == ["客厅"]  # the likeness closed first
