"""Who is in each scene and how, read from cues, action and speeches; witnesses and tellings."""

from __future__ import annotations

from kgbuild.evidence import quote_occurs
from kgbuild.extraction.presence import read_presence
from kgbuild.model import (
    Element,
    ElementKind,
    Entity,
    KnowledgeGraph,
    MovieInfo,
    PresenceMode,
    Scene,
    Screenplay,
    Source,
    SourceFormat,
)


def _modes(graph, index: int) -> dict[str, str]:
    names = {e.id: e.name for e in graph.entities}
    record = next(s for s in graph.scenes if s.index == index)
    return {names[p.character]: p.mode.value for p in record.presence}


def test_the_scene_layer_of_the_fixture(story_build):
    graph = story_build.graph
    assert [s.index for s in graph.scenes] == [1, 2, 3, 4]
    assert _modes(graph, 1) == {"Anna": "present", "Ben": "present", "Clara": "offscreen"}
    assert _modes(graph, 2) == {"Ben": "present"}  # and a voice-over: the stronger mode wins
    assert _modes(graph, 3) == {"Ben": "present", "Clara": "present", "Anna": "mentioned"}
    assert [(m.kind.value, m.text) for m in graph.scenes[0].markers] == [("year", "1990")]
    assert [(m.kind.value, m.text) for m in graph.scenes[2].markers] == [("later", "LATER")]
    scenes = {s.index: s for s in story_build.screenplay.scenes}
    for record in graph.scenes:
        for p in record.presence:
            assert p.evidence and all(quote_occurs(ev, scenes[ev.scene]) and ev.scene == record.index
                                      for ev in p.evidence)
    ben_in_2 = next(p for p in graph.scenes[1].presence)
    assert [ev.producer for ev in ben_in_2.evidence] == ["rule:presence_shown", "rule:presence_away"]


def test_witnesses_and_tellings(story_build):
    graph = story_build.graph
    names = {e.id: e.name for e in graph.entities}
    facts = {(names[r.source], r.type, names[r.target], tuple(r.scenes)) for r in graph.relations
             if r.type in ("witnesses", "told_about")}
    # Ben left before Anna burned the letter; Clara was only heard; Clara watched Anna hide the key;
    # Clara told Ben of the letter in scene 3.
    assert facts == {("Clara", "witnesses", "Anna hides the key", (4,)),
                     ("Ben", "told_about", "Anna burns the letter", (3,))}
    told = next(r for r in graph.relations if r.type == "told_about")
    assert told.evidence[0].quote == "Anna burned the letter this morning, you know."
    assert told.evidence[0].producer == "derived:speech" and told.evidence[1].scene == 1


def _scene(index: int, *elements: tuple[ElementKind, str, str | None, list[str]]) -> Scene:
    els = [Element(kind=k, text=t, speaker=s, extensions=x, line_start=index * 100 + i, line_end=index * 100 + i)
           for i, (k, t, s, x) in enumerate(elements)]
    return Scene(index=index, heading="INT. ROOM - DAY", elements=els, line_span=(index * 100, index * 100 + 50))


def test_modes_from_cues_action_and_speech():
    A, C, D, P = ElementKind.ACTION, ElementKind.CHARACTER, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL
    screenplay = Screenplay(title="t", language="en", scenes=[_scene(
        1,
        (A, 'A YouTube video titled "NEIL PERRY SPEAKS" plays. In the video, Neil waves.', None, []),
        (C, "TODD", "TODD", ["O.S."]), (D, "Hello?", "TODD", []),
        (C, "KNOX", "KNOX", ["V.O."]), (D, "I remember Charlie.", "KNOX", []),
        (A, "Cameron enters with Meeks's book.", None, []),
        (C, "CAMERON", "CAMERON", []), (P, "(to Nolan)", "CAMERON", []), (D, "Sir.", "CAMERON", []),
    )], source=Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1))
    cast = ["Neil Perry", "Todd Anderson", "Knox Overstreet", "Charlie Dalton", "Richard Cameron", "Meeks",
            "Nolan"]
    entities = [Entity(id=f"character:{n.split()[0].lower()}", name=n, type="Character", scenes=[1],
                       aliases=[n.split()[0].upper()]) for n in cast]
    graph = KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=entities)
    layer = read_presence(screenplay, graph)
    modes = {p.character.removeprefix("character:"): p.mode for p in layer.records[0].presence}
    # Neil is seen in a video: heard or seen from elsewhere, as a voice-over is.
    assert modes == {"neil": PresenceMode.AWAY, "todd": PresenceMode.OFFSCREEN, "knox": PresenceMode.AWAY,
                     "charlie": PresenceMode.MENTIONED, "richard": PresenceMode.PRESENT,
                     "meeks": PresenceMode.MENTIONED, "nolan": PresenceMode.PRESENT}
    kinds = {(s.character.removeprefix("character:"), s.kind) for s in layer.readings[1].sightings}
    assert ("richard", "enters") in kinds and ("nolan", "addressed") in kinds
