"""A name ending in a word the script writes after 'the' ('the frost', 'the cashier'): a mention
leaving that word out is a role's shop ('Donut Hut' of the Donut Hut Cashier), unless the script
gives the shorter mention as that character's own name (a cue: JACK for Jack Frost).

The screenplay is made up for this test.
"""

from __future__ import annotations

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

ICE_RINK = """\
INT. ICE RINK - NIGHT

JACK FROST, a pale boy, skates alone. Ice creaks under the frost.

JACK
Nobody sees me.

Across the ice, DONUT HUT CASHIER, 50s, wipes a counter.

DONUT HUT CASHIER
We're closing, kid.

Jack grabs the lantern. The cashier shrugs.

JACK
Just one more lap.

Donut Hut grabs the mop.
"""


@pytest.fixture(scope="module")
def rink(embedder, tmp_path_factory):
    path = tmp_path_factory.mktemp("rink") / "rink.fountain"
    path.write_text(ICE_RINK, encoding="utf-8")
    return run_repairs(extract_offline(read_screenplay(path), embedder=embedder))[0]


def _performs(graph):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == "performs"}


def test_a_name_the_script_gives_is_the_character_though_its_last_word_is_a_noun(rink):
    assert ("Jack Frost", "Jack Frost grabs the lantern") in _performs(rink)


def test_a_role_left_out_still_names_no_one(rink):
    assert not any(who == "Donut Hut Cashier" for who, _ in _performs(rink))
