"""Who witnesses an event: not the performer under the name the script first gave them (a cue
'CARETAKER/ANGEL' where one name gives way to the other; 'A HOODED MAN' who is revealed: 'It's
GUS MORALES.'), not one only heard from another room, not one who has gone in ahead, and not one
a misread speech names ('Gus was my best friend once.'). The build of
tests/fixtures/offline/heard_not_there.txt, written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.model import KnowledgeGraph
from kgbuild.pipeline import run_build

SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "offline" / "heard_not_there.txt"


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return run_build(SCRIPT).graph


def _witnessed(graph: KnowledgeGraph) -> set[tuple[str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == "witnesses"}


def test_a_renamed_speaker_is_one_character(graph):
    characters = {e.name: set(e.aliases) for e in graph.entities if e.type == "Character"}
    assert "Caretaker" in characters["Angel"] and "Caretaker" not in characters  # 'CARETAKER/ANGEL'
    assert "Hooded Man" in characters["Gus Morales"] and "Hooded Man" not in characters  # 'It's GUS MORALES.'


def test_no_one_witnesses_what_they_do_under_another_name(graph):
    witnessed = _witnessed(graph)
    assert ("Walt Kowalski", "Angel lights a candle") in witnessed
    assert not {w for w in witnessed if w[0] in ("Caretaker", "Hooded Man")}
    assert ("Marta", "Gus Morales opens the crate") in witnessed


def test_no_one_witnesses_from_another_room_or_after_going_ahead_or_in_a_misread_speech(graph):
    witnessed = _witnessed(graph)
    assert ("Marta", "Walt Kowalski drops the lantern") not in witnessed  # heard O.S., then still only screaming
    assert ("Gus Morales", "Walt Kowalski lights the lamp") not in witnessed  # 'Gus has gone in ahead.'
    assert ("Gus Morales", "Walt Kowalski drops a coin") not in witnessed  # 'Gus was my best friend once.'
