"""Scene-by-scene rules that turn a parsed screenplay into a story graph."""

from __future__ import annotations

import re
from collections.abc import Callable

from kgbuild.embeddings import Embedder
from kgbuild.graph import GraphBuilder
from kgbuild.model import ElementKind, KnowledgeGraph, Persistence, Scene, Scope, Screenplay
from kgbuild.offline.characters import Cast, display_name, find_cast, mention_patterns
from kgbuild.offline.phrases import noun_phrases
from kgbuild.offline.sentences import learn_genders, sentence_relations
from kgbuild.offline.stoplists import AMBIENCE, BODY_PARTS, GENERIC_PEOPLE, SPATIAL_PARTS
from kgbuild.offline.times import heading_time, text_times
from kgbuild.offline.typer import PhraseTyper

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


Named = list[tuple[int, str]]  # (offset in the sentence, canonical character name)


def _action_sentences(scene: Scene) -> list[str]:
    return [s for el in scene.elements if el.kind is ElementKind.ACTION for s in sentences(el.text)]


def _characters_in(sentence: str, patterns: dict[str, re.Pattern[str]]) -> list[tuple[int, str]]:
    found = []
    for name, pattern in patterns.items():
        m = pattern.search(sentence)
        if m:
            found.append((m.start(), name))
    return sorted(found)


def _named_sentences(screenplay: Screenplay, patterns: dict[str, re.Pattern[str]]) -> dict[int, list[tuple[str, Named]]]:
    """Per scene index, its action sentences with the characters each names (computed once)."""
    return {
        scene.index: [(s, _characters_in(s, patterns)) for s in _action_sentences(scene)]
        for scene in screenplay.scenes
    }


def _add_sentences(b: GraphBuilder, index: int, scene_sentences: list[tuple[str, Named]],
                   phrase_types: dict[str, str], place: str | None,
                   genders: dict[str, str]) -> dict[str, set[str]]:
    """Entities and relations of the scene's action sentences; returns the ids seen by type."""
    previous: str | None = None
    seen: dict[str, set[str]] = {}
    for sentence, named in scene_sentences:
        typed, relations = sentence_relations(sentence, named, phrase_types, previous, genders)
        for phrase, etype in typed:
            eid = b.entity(etype, phrase.text, index)
            seen.setdefault(etype, set()).add(eid)
            if etype == "Character" and place:
                b.relation(eid, "located_at", place, index)
        for when in text_times(sentence):
            seen.setdefault("TimePoint", set()).add(b.entity("TimePoint", when.lower(), index))
        for rel in relations:
            source = b.entity(rel.subject[0], rel.subject[1], index)
            target = b.entity(rel.object[0], rel.object[1], index)
            b.relation(source, rel.type, target, index, evidence=sentence[:200])
        if named:
            previous = named[-1][1]
    return seen


def _add_cooccurrence(b: GraphBuilder, index: int, characters: list[str], seen: dict[str, set[str]],
                      place: str | None) -> None:
    """Scene-level links: who is where and when, and what lies where."""
    for cid in characters:
        for loc in seen.get("Location", ()):
            b.relation(cid, "located_at", loc, index)
        for when in seen.get("TimePoint", ()):
            b.relation(cid, "present_on", when, index)
    if place:
        for obj in seen.get("Object", ()):
            b.relation(obj, "located_at", place, index)


_STOP = {"Object": BODY_PARTS | SPATIAL_PARTS | AMBIENCE,
         "Location": SPATIAL_PARTS | BODY_PARTS | AMBIENCE, "Character": GENERIC_PEOPLE}


def _phrase_types(named: dict[int, list[tuple[str, Named]]], typer: PhraseTyper) -> dict[str, str]:
    """Type every noun phrase of the action lines once for the whole screenplay."""
    seen: dict[str, None] = {}
    for scene_sentences in named.values():
        for sentence, _ in scene_sentences:
            for phrase in noun_phrases(sentence):
                seen[phrase.text] = None
    typed = typer.classify(list(seen))
    return {p: t for p, t in typed.items() if p not in _STOP.get(t, ())}


def _genders(named: dict[int, list[tuple[str, Named]]]) -> dict[str, str]:
    return learn_genders([
        [(sentence, chars[0][1] if chars else None) for sentence, chars in scene_sentences]
        for scene_sentences in named.values()
    ])


def _add_scene(b: GraphBuilder, scene: Scene, cast: Cast, patterns: dict[str, re.Pattern[str]],
               scene_sentences: list[tuple[str, Named]], phrase_types: dict[str, str],
               genders: dict[str, str]) -> None:
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
    seen = _add_sentences(b, index, scene_sentences, phrase_types, place, genders)
    _add_cooccurrence(b, index, list(ids.values()), seen, place)
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


def extract_offline(
    screenplay: Screenplay,
    *,
    embedder: Embedder | None = None,
    version: str = "",
    on_scene: Callable[[], object] | None = None,
) -> KnowledgeGraph:
    """Build a story graph from a screenplay with rules only.

    Args:
        screenplay: The parsed screenplay.
        embedder: Types noun phrases (places, things, people); the bundled MiniLM model behind
            the on-disk cache when None.
        version: The kgbuild version for the provenance.
        on_scene: Called after each scene (progress).

    Returns:
        A graph in the default schema: characters (cues, introductions, mentions), locations
        with part_of from headings, time points, one event per scene with its participants,
        place and time, and located_at / present_on / speaks_to relations.
    """
    if embedder is None:
        from kgbuild.embeddings import default_embedder

        embedder = default_embedder()
    cast = find_cast(screenplay)
    patterns = mention_patterns(cast)
    named = _named_sentences(screenplay, patterns)
    phrase_types = _phrase_types(named, PhraseTyper(embedder))
    genders = _genders(named)
    builder = GraphBuilder()
    for scene in screenplay.scenes:
        _add_scene(builder, scene, cast, patterns, named[scene.index], phrase_types, genders)
        if on_scene is not None:
            on_scene()
    return builder.to_graph(screenplay, backend="offline", version=version)
