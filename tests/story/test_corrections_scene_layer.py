"""Corrections keep the scene layer in step: merged, renamed and rejected characters."""

from __future__ import annotations

from kgbuild.canonicalize.corrections import Correction, apply_corrections
from kgbuild.model import Evidence, KnowledgeGraph, MovieInfo, Presence, PresenceMode, SceneRecord
from tests.factories import ent, ev


def _ev(line: int) -> Evidence:
    """Scene 1's line `line`, seen by the presence rule."""
    return ev(1, f"line {line}", lines=(line, line), producer="rule:presence_shown")


def _graph() -> KnowledgeGraph:
    people = [ent("Character", n, scenes=[1], evidence=[_ev(1)]) for n in ("Neil", "Neil Perry", "Todd")]
    presence = [Presence(character=people[0].id, mode=PresenceMode.MENTIONED, evidence=[_ev(5)]),
                Presence(character=people[1].id, mode=PresenceMode.PRESENT, evidence=[_ev(2)]),
                Presence(character=people[2].id, mode=PresenceMode.PRESENT, evidence=[_ev(3)])]
    return KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=people,
                          scenes=[SceneRecord(index=1, heading="INT. ROOM", presence=presence)])


def test_a_merge_joins_presences_and_a_rejection_drops_them():
    graph, results = apply_corrections(_graph(), [
        (1, Correction(action="merge", entities=["character:neil", "character:neil_perry"], name="Neil Perry")),
        (2, Correction(action="reject", fact="character:todd")),
        (3, Correction(action="rename", fact="character:neil_perry", name="Neil Anderson Perry")),
    ])
    assert all(r.applied for r in results)
    (only,) = graph.scenes[0].presence
    assert only.character == "character:neil_anderson_perry" and only.mode is PresenceMode.PRESENT
    assert [e.lines for e in only.evidence] == [(2, 2), (5, 5)]
