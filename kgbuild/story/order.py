"""Screen order and story order of the scenes.

Scene indices are screen order. Story order sorts the scenes by the time markers the script
writes (`kgbuild.readers.time_markers`, kept per scene in graph.json) and keeps screen order
wherever the markers say nothing. The rules, in full:

- A scene's time is the first of its own markers that places it: a year; else an amount before
  the present (`THREE YEARS AGO`: the present minus three years); else the present; else a
  flashback (just before the time in effect where it interrupts).
- The present is the latest year any marker of the script states (no year anywhere: 0, and the
  other times are relative to it).
- A scene without a marker of its own, or with only `LATER` ('THE NEXT MORNING', ...), is at the
  time in effect: the last time a marker set in screen order. Scenes before the first marker
  take the first marker's time.
- A heading's year, present or 'ago' sets the time in effect; a heading's `FLASHBACK` places only
  its own scene (the scene after it is back where the flashback interrupted); a flashback title
  or transition (`FLASHBACK TO:`) holds until the next marker, and `END FLASHBACK` /
  `BACK TO PRESENT` returns to the time in effect before it.
- Scenes are sorted by time (a flashback just before the scenes of the time it interrupts), then
  by screen order, so scenes at the same time keep their screen order.

Example:
    >>> order = story_order(graph.scenes)  # doctest: +SKIP
    >>> order.position[12], order.basis[12]  # doctest: +SKIP
    (3, 'flashback before 1998 (heading of scene 12)')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kgbuild.model import MarkerKind, SceneRecord, TimeMarker


class Order(StrEnum):
    """Which order scene comparisons use."""

    SCREEN = "screen"
    STORY = "story"


@dataclass(frozen=True)
class SceneOrder:
    """Where each scene is in one order.

    Attributes:
        order: Screen or story.
        position: Scene index -> 0-based position in this order.
        basis: Scene index -> why it is there ('1973 (heading of scene 2)', 'screen order').
        time: Scene index -> (years, flashback rank) the sort used; None in screen order.
    """

    order: Order
    position: dict[int, int]
    basis: dict[int, str]
    time: dict[int, tuple[float, int] | None]

    def before(self, a: int, b: int) -> bool:
        """True when scene `a` comes before scene `b` in this order."""
        return self.position.get(a, a) < self.position.get(b, b)

    def at_or_before(self, a: int, b: int) -> bool:
        """True when scene `a` is scene `b` or comes before it."""
        return a == b or self.before(a, b)

    def first(self, scenes: list[int]) -> int | None:
        """The earliest of some scenes in this order (None for none)."""
        return min(scenes, key=lambda s: self.position.get(s, s)) if scenes else None


def screen_order(scenes: list[SceneRecord]) -> SceneOrder:
    """Scenes in screen order (their indices)."""
    ordered = sorted(s.index for s in scenes)
    return SceneOrder(Order.SCREEN, {s: i for i, s in enumerate(ordered)},
                      {s: "screen order" for s in ordered}, {s: None for s in ordered})


def _present(scenes: list[SceneRecord]) -> float:
    years = [m.year for s in scenes for m in s.markers if m.kind is MarkerKind.YEAR and m.year is not None]
    return float(max(years)) if years else 0.0


def _placing(markers: list[TimeMarker], present: float) -> tuple[TimeMarker, float | None] | None:
    """The marker that places a scene and the time it gives (None for a flashback: relative)."""
    for kind in (MarkerKind.YEAR, MarkerKind.AGO, MarkerKind.PRESENT):
        for m in markers:
            if m.kind is not kind:
                continue
            if kind is MarkerKind.YEAR and m.year is not None:
                return m, float(m.year)
            if kind is MarkerKind.AGO and m.years_ago is not None:
                return m, present - m.years_ago
            if kind is MarkerKind.PRESENT:
                return m, present
    flashback = next((m for m in markers if m.kind is MarkerKind.FLASHBACK), None)
    return (flashback, None) if flashback is not None else None


def _label(marker: TimeMarker, years: float, present: float, has_years: bool) -> str:
    if marker.kind is MarkerKind.YEAR:
        return f"{years:g}"
    if marker.kind is MarkerKind.PRESENT:
        return f"the present ({years:g})" if has_years else "the present"
    ago = f"{present - years:g} years before the present"
    return f"{ago} ({years:g})" if has_years else ago


@dataclass
class _Effect:
    time: tuple[float, int]
    basis: str
    label: str


def story_order(scenes: list[SceneRecord]) -> SceneOrder:
    """Scenes sorted by the time markers of their headings and titles (see the module docstring).

    Args:
        scenes: The graph's scene layer.

    Returns:
        Positions, the basis of each scene's place, and the times the sort used.

    Example:
        >>> story_order(graph.scenes).basis[1]  # doctest: +SKIP
        '1973 (heading of scene 2, set before it)'
    """
    ordered = sorted(scenes, key=lambda s: s.index)
    present = _present(ordered)
    has_years = any(m.kind is MarkerKind.YEAR for s in ordered for m in s.markers)
    times: dict[int, tuple[float, int]] = {}
    basis: dict[int, str] = {}
    effect: _Effect | None = None
    before_flashback: _Effect | None = None
    waiting: list[int] = []  # scenes before the first marker that places anything
    for scene in ordered:
        placed = _placing(scene.markers, present)
        ends = any(m.kind is MarkerKind.FLASHBACK_END for m in scene.markers)
        if ends and placed is None:
            effect = before_flashback or _Effect((present, 0), f"back from a flashback (scene {scene.index})",
                                                 "the present")
            before_flashback = None
        if placed is not None:
            marker, years = placed
            where = f"{marker.source} of scene {scene.index}"
            if years is not None:
                label = _label(marker, years, present, has_years)
                effect = _Effect((years, 0), f"{label} ({where})", label)
                before_flashback = None
            else:
                base = effect.time[0] if effect is not None else present
                label = effect.label if effect is not None else "the present"
                flash = _Effect((base, -1), f"flashback before {label} ({where})", f"a flashback before {label}")
                if marker.source == "heading":
                    times[scene.index], basis[scene.index] = flash.time, flash.basis
                    continue
                before_flashback = before_flashback or effect
                effect = flash
        if effect is None:
            waiting.append(scene.index)
            continue
        for index in waiting:
            times[index], basis[index] = effect.time, f"{effect.basis}, set before it"
        waiting = []
        times[scene.index] = effect.time
        basis[scene.index] = effect.basis if placed is not None else f"as the scene before: {effect.basis}"
    for index in waiting:
        times[index], basis[index] = (present, 0), "no time marker before or at it: screen order"
    sort = sorted(ordered, key=lambda s: (times[s.index], s.index))
    return SceneOrder(Order.STORY, {s.index: i for i, s in enumerate(sort)}, basis,
                      {s.index: times[s.index] for s in ordered})


def scene_order(scenes: list[SceneRecord], order: Order | str = Order.SCREEN) -> SceneOrder:
    """The scenes in screen or story order.

    Args:
        scenes: The graph's scene layer.
        order: 'screen' or 'story'.

    Returns:
        The order.
    """
    return story_order(scenes) if Order(order) is Order.STORY else screen_order(scenes)
