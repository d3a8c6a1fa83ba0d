"""Where an introduced name begins and ends (round a56 of the truth audit): a name never runs over
the end of a sentence ('a CANDLE. BARNES, 20-ish' gave "Candle. Barnes", '...of an H-K. AN
EXPLOSION, the thing' gave "H-K. An Explosion"), never holds a possessive ("MARCUS' FACE, a thin
membrane" gave the character "Marcus' Face"), and capitals after an indefinite article are a
description that introduces someone only with an age ('Kyle gets a GREEN BARCODE, the engineer
is on to Star' gave the character "Green Barcode").

The screenplay is made up for these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

from kgbuild.offline.characters import find_cast
from kgbuild.readers import read_screenplay

SCENES = [
    ("INT. BUNKER - NIGHT", """A MATCH flares and lights a LANTERN. HOLLIS, 30s, wiry and tired, sits by it.
HOLLIS
Who's on watch?
A rocket hits the hull of a DRONE. AN EXPLOSION, the drone spins away.
Outside, a WALKER crosses the yard. A SHAPE, the size of a dog, follows it."""),
    ("INT. WORKSHOP - DAY", """The inside of TOMAS' MASK, a thin shell with eye holes, is lowered over a frame.
TOMAS
Does it fit?
Ines gets a RED TICKET, the clerk is already calling the next one.
INES
Mine is red.
Then a YOUNG COURIER, 19, bursts in with a parcel.
TOMAS
Put it there."""),
]


def _cast(tmp_path: Path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"title": t, "content": c} for t, c in SCENES]), encoding="utf-8")
    return find_cast(read_screenplay(path))


def test_a_name_never_runs_over_the_end_of_a_sentence(tmp_path: Path):
    names = set(_cast(tmp_path).canonical.values())
    assert "Hollis" in names
    assert not [n for n in names if "." in n], names  # no 'Lantern. Hollis', no 'Drone. An Explosion'


def test_a_possessive_and_what_is_owned_are_no_name(tmp_path: Path):
    cast = _cast(tmp_path)
    assert cast.resolve("TOMAS") == "Tomas"
    assert not [n for n in set(cast.canonical.values()) if "'" in n]


def test_capitals_after_an_article_introduce_someone_only_with_an_age(tmp_path: Path):
    names = set(_cast(tmp_path).canonical.values())
    assert "Young Courier" in names
    for thing in ("Red Ticket", "Explosion", "An Explosion", "Shape"):
        assert thing not in names, thing
