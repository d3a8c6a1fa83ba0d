"""Screen order and story order from the time markers."""

from __future__ import annotations

from kgbuild.model import Evidence, MarkerKind, SceneRecord, TimeMarker
from kgbuild.story.order import Order, scene_order, story_order


def _marker(kind: MarkerKind, text: str, source: str = "heading", **extra) -> TimeMarker:
    ev = Evidence(scene=1, lines=(1, 1), quote=text, producer="rule:time_marker")
    return TimeMarker(kind=kind, text=text, source=source, evidence=ev, **extra)


def _scenes(*markers: list[TimeMarker]) -> list[SceneRecord]:
    return [SceneRecord(index=i, heading=f"SCENE {i}", markers=m) for i, m in enumerate(markers, start=1)]


def _sorted(order) -> list[int]:
    return sorted(order.position, key=order.position.__getitem__)


def test_years_sort_scenes_and_unmarked_scenes_follow_the_one_before():
    scenes = _scenes([], [_marker(MarkerKind.YEAR, "1998", year=1998)], [],
                     [_marker(MarkerKind.YEAR, "1973", year=1973)], [_marker(MarkerKind.LATER, "LATER")],
                     [_marker(MarkerKind.PRESENT, "PRESENT")])
    order = story_order(scenes)
    assert _sorted(order) == [4, 5, 1, 2, 3, 6]
    assert order.basis[1] == "1998 (heading of scene 2), set before it"
    assert order.basis[3] == "as the scene before: 1998 (heading of scene 2)"
    assert order.basis[6] == "the present (1998) (heading of scene 6)"
    assert order.before(4, 2) and not order.before(2, 4)
    assert _sorted(scene_order(scenes, "screen")) == [1, 2, 3, 4, 5, 6]


def test_ago_is_counted_back_from_the_present():
    scenes = _scenes([_marker(MarkerKind.PRESENT, "THE PRESENT DAY", "title")], [],
                     [_marker(MarkerKind.AGO, "THREE YEARS AGO", "title", years_ago=3)], [],
                     [_marker(MarkerKind.PRESENT, "PRESENT DAY", "title")])
    order = scene_order(scenes, Order.STORY)
    assert _sorted(order) == [3, 4, 1, 2, 5]
    assert order.time[3] == (-3.0, 0)


def test_a_heading_flashback_places_its_scene_only_a_title_flashback_holds_until_it_ends():
    scenes = _scenes([_marker(MarkerKind.YEAR, "1900", year=1900)], [],
                     [_marker(MarkerKind.FLASHBACK, "FLASHBACK")], [],
                     [_marker(MarkerKind.FLASHBACK, "FLASHBACK", "title")], [],
                     [_marker(MarkerKind.FLASHBACK_END, "END FLASHBACK", "title")], [])
    order = story_order(scenes)
    assert _sorted(order) == [3, 5, 6, 1, 2, 4, 7, 8]
    assert order.basis[3] == "flashback before 1900 (heading of scene 3)"
    assert order.basis[4] == "as the scene before: 1900 (heading of scene 1)"
    assert order.basis[7].startswith("as the scene before: 1900")


def test_a_script_without_markers_keeps_screen_order():
    order = story_order(_scenes([], [], []))
    assert _sorted(order) == [1, 2, 3]
    assert set(order.basis.values()) == {"no time marker before or at it: screen order"}
