"""The offline extractor: scene-by-scene rules, then a policy over the whole screenplay.

Collection and selection are separate: the rules record what they find in each scene
(`kgbuild.offline.facts`), and `kgbuild.offline.selection` keeps what the language's policy
trusts (`kgbuild.offline.policy`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from kgbuild.embeddings import Embedder
from kgbuild.model import KnowledgeGraph, Persistence, Scene, Scope, Screenplay
from kgbuild.offline import chinese, english
from kgbuild.offline.characters import Cast, display_name, find_cast, mention_patterns
from kgbuild.offline.facts import Facts, Finds, Ref
from kgbuild.offline.headings import heading_places
from kgbuild.offline.policy import policy_for
from kgbuild.offline.scenes import (
    ActionSentence,
    beats,
    is_chinese,
    present_characters,
    read_sentences,
    scene_summary,
    speeches,
)
from kgbuild.offline.selection import SelectionPolicy, assemble
from kgbuild.offline.social import Exchange, add_social
from kgbuild.offline.times import heading_time, text_times
from kgbuild.offline.typer import PhraseTyper


class _Script:
    """What every scene's rules share: the cast and what was learned from the whole text."""

    def __init__(self, screenplay: Screenplay, embedder: Embedder):
        self.cast: Cast = find_cast(screenplay)
        self.patterns: dict[str, re.Pattern[str]] = mention_patterns(self.cast)
        self.names = sorted(set(self.cast.canonical.values()))
        self.read = read_sentences(screenplay, self.cast, self.patterns)
        self.types = english.phrase_types(self.read, PhraseTyper(embedder))
        self.pronouns = english.genders(self.read)


def _add_cooccurrence(facts: Facts, index: int, here: list[Ref], finds: Finds, actors: set[str]) -> None:
    """Who is where and when within one beat.

    The rule name says how the character is there (named in the action, or only speaking) and
    how the place was named (after a place preposition or not): their precision differs a lot.
    """
    for ref in here:
        role = "actor" if ref[1] in actors else "speaker"
        for loc in finds.locations:
            how = "_prep" if loc in finds.placed else ""
            facts.relate(ref, "located_at", loc, index, f"scene_phrase_place_{role}{how}")
        for when in finds.times:
            facts.relate(ref, "present_on", when, index, "scene_text_time")


def _add_beats(facts: Facts, scene: Scene, script: _Script, refs: dict[str, Ref],
               scene_sentences: list[ActionSentence]) -> None:
    chinese_text = is_chinese(scene)
    for start, end in beats(scene):
        beat = [s for s in scene_sentences if start <= s.element < end]
        if chinese_text:
            finds = chinese.add_chinese_sentences(facts, scene.index, beat, script.names)
        else:
            finds = english.add_english_sentences(facts, scene.index, beat, script.types,
                                                  script.pronouns)
        actors = {name for sent in beat for _, name in sent.named}
        here = present_characters(scene, script.cast, script.patterns, start, end)
        _add_cooccurrence(facts, scene.index, [refs[n] for n in here if n in refs], finds, actors)


def _add_dialogue(facts: Facts, scene: Scene, script: _Script, refs: dict[str, Ref]) -> set[str]:
    """Times named in speeches and who talks with whom; returns the scene's speakers."""
    index = scene.index
    said = speeches(scene, script.cast)
    chinese_text = is_chinese(scene)
    for (name, line), following in zip(said, [*said[1:], None]):
        for when in (chinese.times(line) if chinese_text else text_times(line)):
            ref = facts.mention("TimePoint", when if chinese_text else when.lower(), index,
                                "dialogue_time")
            facts.relate(refs[name], "present_on", ref, index, "dialogue_time_speaker")
            if following and following[0] != name:
                facts.relate(refs[following[0]], "present_on", ref, index, "dialogue_time_listener")
    add_social(facts, index, refs,
               [Exchange(a, b, la, lb) for (a, la), (b, lb) in pairwise(said)])
    return {name for name, _ in said}


def _add_scene(facts: Facts, scene: Scene, script: _Script) -> None:
    index = scene.index
    parts = heading_places(scene)
    places = [facts.mention("Location", display_name(p), index,
                            "heading_place" if i == len(parts) - 1 else "heading_outer")
              for i, p in enumerate(parts)]
    for inner, outer in zip(places[1:], places):
        facts.relate(inner, "part_of", outer, index, "heading_part_of", persistence=Persistence.STABLE)
    place = places[-1] if places else None
    when_name = heading_time(scene.time_of_day)
    when = facts.mention("TimePoint", when_name, index, "heading_time") if when_name else None
    scene_sentences = script.read[index]
    present = present_characters(scene, script.cast, script.patterns)
    actors = {name for sent in scene_sentences for _, name in sent.named}
    refs: dict[str, Ref] = {}
    for name in present:
        refs[name] = facts.mention("Character", name, index, "cast",
                                   aliases=tuple(sorted(script.cast.aliases.get(name, ()))),
                                   description=script.cast.introductions.get(name, ""),
                                   scope=Scope.GLOBAL)
        if place:
            role = "actor" if name in actors else "speaker"
            facts.relate(refs[name], "located_at", place, index, "scene_place_" + role, name="is in")
        for outer in places[:-1]:
            facts.relate(refs[name], "located_at", outer, index, "scene_place_outer", name="is in")
    _add_beats(facts, scene, script, refs, scene_sentences)
    speakers = _add_dialogue(facts, scene, script, refs)
    summary = scene_summary(scene)
    title = f"Scene {scene.number or index}: {scene.heading or summary[:60] or 'untitled'}"
    event = facts.mention("Event", title, index, "scene_event", description=summary)
    for name in present:
        facts.relate(refs[name], "performs" if name in speakers else "undergoes", event, index,
                     "scene_event_role")
    if place:
        facts.relate(event, "occurs_at", place, index, "scene_event_place")
    if when:
        facts.relate(event, "occurs_on", when, index, "scene_event_time")


def collect_facts(
    screenplay: Screenplay,
    embedder: Embedder,
    on_scene: Callable[[], object] | None = None,
) -> Facts:
    """Run every rule over every scene and record what each finds (nothing is filtered yet).

    Args:
        screenplay: The parsed screenplay.
        embedder: Types English noun phrases (places, things, people).
        on_scene: Called after each scene (progress).

    Returns:
        The mentions and relation candidates, each tagged with its rule and scene.
    """
    script = _Script(screenplay, embedder)
    facts = Facts()
    for scene in screenplay.scenes:
        _add_scene(facts, scene, script)
        if on_scene is not None:
            on_scene()
    return facts


def extract_offline(
    screenplay: Screenplay,
    *,
    embedder: Embedder | None = None,
    version: str = "",
    on_scene: Callable[[], object] | None = None,
    policy: SelectionPolicy | None = None,
) -> KnowledgeGraph:
    """Build a story graph from a screenplay with rules only.

    Args:
        screenplay: The parsed screenplay.
        embedder: Types noun phrases (places, things, people); the bundled MiniLM model behind
            the on-disk cache when None.
        version: The kgbuild version for the provenance.
        on_scene: Called after each scene (progress).
        policy: Which rules are trusted from how many scenes on; the language's default
            (`kgbuild.offline.policy.policy_for`) when None.

    Returns:
        A graph in the default schema: characters (cues, introductions, mentions), locations
        with part_of from headings and places named in the action, things, time points, one
        event per scene with its participants, place and time, and located_at / present_on /
        interacts_with / possesses / speaks_to and social relations (affinity, hostility,
        kinship) where the rules trust them.

    Example:
        >>> graph = extract_offline(read_screenplay("script.fountain"))  # doctest: +SKIP
    """
    if embedder is None:
        from kgbuild.embeddings import default_embedder

        embedder = default_embedder()
    facts = collect_facts(screenplay, embedder, on_scene)
    return assemble(facts, screenplay, policy or policy_for(screenplay.language), version=version)
