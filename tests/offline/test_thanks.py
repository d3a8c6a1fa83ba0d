"""Thanks are an attitude only where the words show gratitude (the first-look audit of after-5,
kind 2): a thanks formula said while reading a message, closing a refused offer or turning to
'but' is manners, not a positive attitude toward the one who hears it; the same formula right
after the listener handed the speaker something is gratitude for it.

The ferry screenplay is written for these tests: each scene is two people alone, so whom the
words are aimed at is never in doubt, and only the words differ.
"""

from __future__ import annotations

import re

import pytest

from kgbuild.offline import extract_offline
from kgbuild.offline.dialogue import attitude_cues, given_to
from kgbuild.readers import read_screenplay

FERRY = """Title: The Night Ferry

INT. FERRY OFFICE - NIGHT

ODILE sorts tickets at the counter. BRUNO waits by the door.

BRUNO
The late boat is full, Odile. I kept you a seat anyway.

Odile scrolls through her pager and does not look up.

ODILE
Good. Fine. Thank you so much.

INT. FERRY DECK - NIGHT

Bruno leans on the rail. Odile lights a lamp.

ODILE
Do you want my cabin tonight, Bruno?

BRUNO
No. No, no. I sleep on deck.
(a beat)
But thanks. Thanks very much.

INT. FERRY BAR - NIGHT

Odile pours two coffees. Bruno counts his coins.

BRUNO
You were right about the tide, Odile.

ODILE
Thanks very much, but it was luck really.

INT. FERRY GALLEY - NIGHT

Bruno stirs a pot of soup. Odile sits down.

ODILE
Thank you so much for the soup, Bruno. You saved my night.

Odile thanks Bruno and leaves.

INT. FERRY CABIN - NIGHT

Bruno mends a net. Odile sits beside him.

Bruno thanks Odile for the blanket.

BRUNO
I owe you one.

INT. FERRY BRIDGE - NIGHT

Odile checks the compass. Bruno wipes the glass.

Odile unfolds a chart and hands it to Bruno.

BRUNO
Thank you so much, Odile.
"""


@pytest.fixture(scope="module")
def ferry(embedder, tmp_path_factory):
    path = tmp_path_factory.mktemp("ferry") / "ferry.fountain"
    path.write_text(FERRY)
    return extract_offline(read_screenplay(path), embedder=embedder)


def _attitudes(graph):
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target], e.scene, e.producer)
            for r in graph.relations if r.type in ("favorable_toward", "affinity_with") for e in r.evidence}


def test_a_thanks_formula_alone_is_no_attitude(ferry):
    attitudes = _attitudes(ferry)
    # 'Thank you so much' while reading a message, 'But thanks. Thanks very much.' after turning
    # down a cabin, 'Thanks very much, but...' in reply to praise: manners, not warmth.
    assert not any(scene in (1, 2, 3) for _, _, scene, _ in attitudes)
    # 'Odile thanks Bruno and leaves.' says nothing of what for.
    assert ("Odile", "Bruno", 4, "rule:thanks_action") not in attitudes


def test_thanks_that_say_what_for_are_an_attitude(ferry):
    attitudes = _attitudes(ferry)
    assert ("Odile", "Bruno", 4, "rule:thanks") in attitudes
    assert ("Bruno", "Odile", 5, "rule:thanks_action") in attitudes
    # The same formula that was manners in the office is gratitude for the chart just handed.
    assert ("Bruno", "Odile", 6, "rule:thanks_given") in attitudes


def test_thanks_cues_in_both_languages():
    def rules(text):
        return [c.rule for c, _ in attitude_cues(text)]

    assert rules("Thank you so much for the lift.") == ["thanks"]
    assert rules("I can't thank you enough.") == rules("I'm so grateful.") == ["thanks"]
    # A weighted formula alone is a cue only for what was just given (`given_to`).
    assert rules("Thank you so much.") == ["thanks_given"]
    assert rules("Thanks so much for nothing.") == rules("Thanks.") == []
    assert rules("Thanks very much for asking, but no.") == rules("But thank you so much for asking.") == []
    # Chinese: what for, or the feeling; not a weighted formula alone, nor thanks turning to 不过.
    assert rules("太感谢你们的帮助了。") == rules("谢谢你为我做的一切。") == rules("我感激不尽。") == ["thanks_zh"]
    assert rules("太谢谢你了！") == rules("真谢谢你呀！") == rules("太感谢了！") == ["thanks_given_zh"]
    assert rules("非常感谢你的好意，不过我不能收。") == []


def test_what_the_listener_just_gave_the_speaker():
    odile, bruno = re.compile(r"\bOdile\b"), re.compile(r"\bBruno\b")
    assert given_to("Odile unfolds a chart and hands it to Bruno.", odile, bruno)
    assert given_to("Odile gives him the chart.", odile, bruno)
    assert not given_to("Odile scrolls through her pager and does not look up.", odile, bruno)
    assert not given_to("Bruno hands the chart to Odile.", odile, bruno)  # the other way round
    assert given_to("秀兰把药递给老周。", re.compile("秀兰"), re.compile("老周"))
