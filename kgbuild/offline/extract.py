"""Scene-by-scene rules that turn a parsed screenplay into a story graph."""

from __future__ import annotations

import re

from kgbuild.graph import GraphBuilder
from kgbuild.model import (
    ElementKind,
    KnowledgeGraph,
    MovieInfo,
    Persistence,
    Provenance,
    Scene,
    Scope,
    Screenplay,
)
from kgbuild.offline.characters import Cast, display_name, find_cast, mention_patterns
from kgbuild.offline.times import heading_time

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])|(?<=[。！？])")


def sentences(text: str) -> list[str]:
    """Split action text into sentences (English and Chinese punctuation)."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _present_characters(scene: Scene, cast: Cast, patterns: dict[str, re.Pattern[str]]) -> list[str]:
    present: dict[str, None] = {}
    for el in scene.elements:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            name = cast.resolve(el.speaker)
            if name:
                present[name] = None
        elif el.kind is ElementKind.ACTION:
            for name, pattern in patterns.items():
                if pattern.search(el.text):
                    present[name] = None
    return list(present)


def _speakers_in_order(scene: Scene, cast: Cast) -> list[str]:
    out = []
    for el in scene.elements:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            name = cast.resolve(el.speaker)
            if name:
                out.append(name)
    return out


def _scene_summary(scene: Scene) -> str:
    action = " ".join(el.text for el in scene.elements if el.kind is ElementKind.ACTION)
    first = sentences(action)[:2]
    return " ".join(first)[:300]


def _add_scene(b: GraphBuilder, scene: Scene, cast: Cast, patterns: dict[str, re.Pattern[str]]) -> None:
    index = scene.index
    location_ids = [b.entity("Location", display_name(p), index) for p in scene.location]
    for inner, outer in zip(location_ids[1:], location_ids):
        b.relation(inner, "part_of", outer, index, persistence=Persistence.STABLE)
    place = location_ids[-1] if location_ids else None
    when_name = heading_time(scene.time_of_day)
    when = b.entity("TimePoint", when_name, index) if when_name else None
    present = _present_characters(scene, cast, patterns)
    ids = {}
    for name in present:
        ids[name] = b.entity("Character", name, index, aliases=sorted(cast.aliases.get(name, ())),
                             description=cast.introductions.get(name, ""), scope=Scope.GLOBAL)
        if place:
            b.relation(ids[name], "located_at", place, index, name="is in")
        if when:
            b.relation(ids[name], "present_on", when, index)
    speakers = _speakers_in_order(scene, cast)
    for a, c in zip(speakers, speakers[1:]):
        if a != c and a in ids and c in ids:
            b.relation(ids[a], "speaks_to", ids[c], index, name="speaks to")
    summary = _scene_summary(scene)
    title = f"Scene {scene.number or index}: {scene.heading or summary[:60] or 'untitled'}"
    event = b.entity("Event", title, index, description=summary)
    for name in present:
        b.relation(ids[name], "performs" if name in speakers else "undergoes", event, index)
    if place:
        b.relation(event, "occurs_at", place, index)
    if when:
        b.relation(event, "occurs_on", when, index)


def extract_offline(screenplay: Screenplay, *, version: str = "") -> KnowledgeGraph:
    """Build a story graph from a screenplay with rules only.

    Args:
        screenplay: The parsed screenplay.
        version: The kgbuild version for the provenance.

    Returns:
        A graph in the default schema: characters (cues, introductions, mentions), locations
        with part_of from headings, time points, one event per scene with its participants,
        place and time, and located_at / present_on / speaks_to relations.
    """
    cast = find_cast(screenplay)
    patterns = mention_patterns(cast)
    builder = GraphBuilder()
    for scene in screenplay.scenes:
        _add_scene(builder, scene, cast, patterns)
    return KnowledgeGraph(
        movie=MovieInfo(title=screenplay.title, language=screenplay.language,
                        source_sha256=screenplay.source.sha256, scenes=len(screenplay.scenes)),
        entities=list(builder.entities.values()),
        relations=list(builder.relations.values()),
        provenance=Provenance(kgbuild_version=version, backend="offline"),
    )
