"""A scene whose text prints further headings, read as a run of settings.

A STAGE entry is one scene, but its text may move on to other places under headings of its own
('BEDROOM, JOE'S FLAT - EARLY MORNING', 'EXT. DOCKS - DAY'; the reader keeps each as a shot whose
text is the heading, `kgbuild.readers.stage_json.inner_heading`). Such a heading that names a place
(`kgbuild.offline.headings`: a camera note, 'ANGLE - LATER', or 'SAME SCENE - LATER' names none)
ends the stretch of text before it and opens a new one, a setting of its own: there the heading's
places are where the characters the stretch shows are, where its events happen, and only who the
stretch shows is there to see them. A scene with no such heading is one stretch, itself.

Example:
    >>> [s.heading for s in stretches(scene)]  # doctest: +SKIP
    ["EXT. JOE'S HOUSE - DAY", "BEDROOM, JOE'S FLAT - EARLY MORNING"]
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kgbuild.model import Element, ElementKind, Scene
from kgbuild.offline.headings import heading_places
from kgbuild.readers.headings import parse_english_heading, strip_scene_numbers
from kgbuild.readers.stage_json import inner_heading


def is_inner_heading(el: Element) -> bool:
    """A shot whose text is a scene heading printed inside the scene (see the module docstring)."""
    return el.kind is ElementKind.SHOT and inner_heading(el.text)


# An INT./EXT. marker after a note that opens the line ('FLASHBACK - INT. AIRPORT - DAY').
_MARKER = re.compile(r"\b(?:INT|EXT|I/E|E/I)\b\.?")


def _setting(scene: Scene, el: Element) -> Scene:
    """The stretch an inner heading opens, as a scene of its own (its elements added by the caller);
    a note before its INT./EXT. ('FLASHBACK - ') is no place."""
    text, _ = strip_scene_numbers(el.text)  # the number first: a revision letter goes with it ('R145 ... R')
    marker = _MARKER.search(text)
    heading = parse_english_heading(text[marker.start():] if marker else text, forced=True)
    opening = Element(kind=ElementKind.SCENE_HEADING, text=el.text, line_start=el.line_start,
                      line_end=el.line_end, forced=True)
    return Scene(index=scene.index, number=scene.number, heading=heading.text, int_ext=heading.int_ext,
                 location=heading.location, time_of_day=heading.time_of_day, elements=[opening],
                 line_span=(el.line_start, el.line_end))


def stretches(scene: Scene, places: Callable[[Scene], list[str]] = heading_places) -> list[Scene]:
    """The scene cut at each heading inside it that names a place: the first stretch under the
    scene's own heading, each other under its inner heading (as its `SCENE_HEADING` element, its
    heading facts parsed from it), all with the scene's index.

    Args:
        scene: The scene.
        places: The places a heading names (a script's learned `HeadingPlaces.places`, or
            `heading_places`).

    Returns:
        The stretches in text order; `[scene]` when no inner heading names a place.
    """
    cuts = [el for el in scene.elements if is_inner_heading(el)]
    if not cuts:
        return [scene]
    out: list[Scene] = []
    current: Scene | None = None
    elements: list[Element] = []
    for el in scene.elements:
        opened = _setting(scene, el) if is_inner_heading(el) else None
        if opened is not None and places(opened):
            out.append(_closed(current or scene, elements))
            current, elements = opened, [opened.elements[0]]
            continue
        elements.append(el)
    out.append(_closed(current or scene, elements))
    return out if len(out) > 1 else [scene]


def _closed(stretch: Scene, elements: list[Element]) -> Scene:
    last = max((el.line_end for el in elements), default=stretch.line_span[0])
    return stretch.model_copy(update={"elements": elements, "line_span": (stretch.line_span[0], last)})


def setting_cuts(scene: Scene, places: Callable[[Scene], list[str]] = heading_places) -> list[int]:
    """The first line of each stretch after the first (`stretches`): where the scene cuts to
    another setting."""
    return [s.line_span[0] for s in stretches(scene, places)[1:]]
