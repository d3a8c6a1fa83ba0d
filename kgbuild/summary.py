"""What a person wants to know about a parsed screenplay at a glance."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from kgbuild.model import ElementKind, Screenplay


class CharacterStat(BaseModel):
    """A speaking character: how often they speak and where they first do."""

    model_config = ConfigDict(extra="forbid")

    name: str
    speeches: int
    first_scene: int


class ScreenplaySummary(BaseModel):
    """Counts over a parsed screenplay."""

    model_config = ConfigDict(extra="forbid")

    title: str
    format: str
    language: str
    scenes: int
    scenes_with_heading: int
    elements: dict[str, int]
    characters: list[CharacterStat]
    locations: list[tuple[str, int]]
    time_of_day: list[tuple[str, int]]
    warnings: int


def summarize(screenplay: Screenplay) -> ScreenplaySummary:
    """Count scenes, speeches per character, locations and times of day.

    Args:
        screenplay: A parsed screenplay.

    Returns:
        The summary; characters ordered by number of speeches, then first appearance.
    """
    speeches: Counter[str] = Counter()
    first_scene: dict[str, int] = {}
    kinds: Counter[str] = Counter()
    locations: Counter[str] = Counter()
    times: Counter[str] = Counter()
    for scene in screenplay.scenes:
        if scene.location:
            locations[" - ".join(scene.location)] += 1
        if scene.time_of_day:
            times[scene.time_of_day] += 1
        for el in scene.elements:
            kinds[el.kind.value] += 1
            if el.kind is ElementKind.CHARACTER and el.speaker:
                speeches[el.speaker] += 1
                first_scene.setdefault(el.speaker, scene.index)
    characters = sorted(
        (CharacterStat(name=n, speeches=c, first_scene=first_scene[n]) for n, c in speeches.items()),
        key=lambda s: (-s.speeches, s.first_scene, s.name),
    )
    return ScreenplaySummary(
        title=screenplay.title,
        format=screenplay.source.format.value,
        language=screenplay.language,
        scenes=len(screenplay.scenes),
        scenes_with_heading=sum(1 for s in screenplay.scenes if s.heading),
        elements=dict(kinds.most_common()),
        characters=characters,
        locations=locations.most_common(),
        time_of_day=times.most_common(),
        warnings=len(screenplay.warnings),
    )
