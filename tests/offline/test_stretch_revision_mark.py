"""A heading printed inside a scene with a revised scene number keeps no revision letter in its
place ('R12 INT. ... LISBON R'). Heading written for this test."""

from __future__ import annotations

from kgbuild.model import Element, ElementKind, Scene
from kgbuild.offline.stretches import _setting


def test_inner_heading_drops_the_revision_letter_of_its_number():
    el = Element(kind=ElementKind.SHOT, text="R12 INT. NIGHT. BUS DEPOT -- LISBON R", line_start=3, line_end=3)
    scene = Scene(index=1, heading="INT. DAY. CAFE", elements=[el], line_span=(1, 4))
    assert _setting(scene, el).location == ["BUS DEPOT", "LISBON"]
