"""Where the Chinese rules put someone who goes beside a thing, up to a person, or somewhere and
then on: beside anything is a position, a place inside a title is no place, and 后 after a verb of
motion is 'after' (round 5). The clauses are written for these tests."""

from __future__ import annotations

from kgbuild.offline.chinese import places


def test_chinese_beside_anything_is_no_place():
    assert places("阿华走到洗手池旁", ["阿华"]) == []
    assert places("阿华走到洗手池旁边", ["阿华"]) == []
    assert places("阿华坐在学校旁", ["阿华"]) == []
    assert places("阿华来到河边", ["阿华"]) == ["河边"]  # the riverside is a place
    assert places("阿华站在路旁", ["阿华"]) == ["路旁"]  # and so is the roadside
    assert places("阿华站在楼道护栏边上", ["阿华"]) == ["楼道"]  # the railing is in the corridor


def test_chinese_a_place_in_a_title_is_no_place():
    assert places("阿华走到内务府大臣面前", ["阿华"]) == []
    assert places("阿华走到派出所所长面前", ["阿华"]) == []
    assert places("阿华走进派出所", ["阿华"]) == ["派出所"]


def test_chinese_after_going_somewhere_is_there_not_behind_it():
    assert places("阿华回到房间后", ["阿华"]) == ["房间"]
    assert places("阿华走进大厅后", ["阿华"]) == ["大厅"]
    assert places("阿华站在大楼前", ["阿华"]) == ["大楼前"]
