"""Who is heard or seen through a medium without being at the heading's place, and which cue-shaped
or capitals-shaped words are no character at all: the offline facts and the scene layer of
tests/fixtures/offline/heard_not_there.txt (written for these tests, plain text as IMSDb and
STAGE scripts are)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.extraction.presence import read_presence
from kgbuild.model import KnowledgeGraph, PresenceMode
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "offline" / "heard_not_there.txt"


@pytest.fixture(scope="module")
def built() -> tuple[object, KnowledgeGraph]:
    screenplay = read_screenplay(SCRIPT)
    return screenplay, extract_offline(screenplay)


def _pairs(graph: KnowledgeGraph, rtype: str) -> set[tuple[str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_a_medium_named_by_a_slug_a_cue_or_the_speaker_s_name_is_not_the_heading_place(built):
    _, graph = built
    located = _pairs(graph, "located_at")
    assert ("Walt Kowalski", "Harbor Bar") in located and ("Marta", "Motel Room") in located
    assert ("Dana Pryce", "Harbor Bar") not in located  # 'ON TV Dana Pryce is reporting', then her plain cue
    assert ("Weatherman", "Harbor Bar") not in located  # first heard after the slug 'ON A TV MONITOR'
    assert ("Recorded Voice", "Walt's Kitchen") not in located  # a voice answering the phone
    assert ("Gus Morales", "Walt's Kitchen") not in located  # '(O.S. RADIO FILTER)', under a cue and in the action
    assert ("Tv Narrator", "Motel Room") not in located  # a narrator is no one in the room
    assert ("Gus Morales", "Harbor Bar") not in located  # 'Gus was my best friend once.': a speech, not action
    assert ("Marta", "Harbor Bar") in located  # 'MARTA I told you ...': the cue of a speech read as action
    assert ("Marta", "Cellar") not in located  # heard O.S., then 'Marta keeps screaming': still only heard
    assert ("Walt Kowalski", "Cellar") in located


def test_a_narrator_speaks_to_no_one_in_the_room(built):
    _, graph = built
    spoken = _pairs(graph, "speaks_to")
    assert not {p for p in spoken if "Tv Narrator" in p}
    assert ("Marta", "Walt Kowalski") in spoken  # in the car: 'WALT [MARTA]' is Walt


def test_a_line_and_a_broadcast_are_talked_on_by_their_own(built):
    _, graph = built
    spoken = _pairs(graph, "speaks_to")
    located = _pairs(graph, "located_at")
    # '(into radio) Gus, you there?', then GUS (O.S. RADIO FILTER) answers: the two ends of the line
    assert ("Walt Kowalski", "Gus Morales") in spoken and ("Gus Morales", "Walt Kowalski") in spoken
    # the reporter questions the mayor on the television; neither is in the kitchen, nor talks to Walt
    assert ("Reporter", "Mayor Quinn") in spoken and ("Mayor Quinn", "Reporter") in spoken
    assert not {p for p in spoken if "Walt Kowalski" in p and ("Mayor Quinn" in p or "Reporter" in p)}
    assert ("Mayor Quinn", "Walt's Kitchen") not in located and ("Reporter", "Walt's Kitchen") not in located


def test_devices_directions_and_glued_words_are_no_characters(built):
    _, graph = built
    characters = {e.name for e in graph.entities if e.type == "Character"}
    assert {"Walt Kowalski", "Marta", "Gus Morales", "Dana Pryce", "Weatherman", "Tv Narrator"} <= characters
    assert not {"Television Set", "Loudspeakers", "Slowly Crane Away", "An Explosion", "Candle. Barnes"} & characters
    assert not any("[" in name for name in characters)  # 'WALT [MARTA]': the bracket is a note


def test_the_scene_layer_says_heard_not_seen(built):
    screenplay, graph = built
    layer = read_presence(screenplay, graph)
    names = {e.id: e.name for e in graph.entities}
    modes = {(r.index, names[p.character]): p.mode for r in layer.records for p in r.presence}
    assert modes[(1, "Dana Pryce")] is PresenceMode.AWAY and modes[(1, "Weatherman")] is PresenceMode.AWAY
    assert modes[(2, "Recorded Voice")] is PresenceMode.AWAY  # told of a phone call, then the voice
    assert modes[(2, "Gus Morales")] is PresenceMode.AWAY
    assert modes[(3, "Tv Narrator")] is PresenceMode.AWAY
    assert modes[(6, "Gus Morales")] is PresenceMode.MENTIONED
    assert modes[(9, "Marta")] is PresenceMode.OFFSCREEN
