"""Scene selections: build or score part of a script ('--scenes 12-40', '3', '1-10,50-60').

A selection is a set of inclusive ranges of scene indices (`Scene.index`: 1-based, story order,
as `kgbuild parse` numbers the scenes). A build of a selection holds only facts grounded in
those scenes and records the ranges in its movie metadata (`MovieInfo.scene_ranges`); a score
of a selection compares the reference and the prediction on those scenes only.

Example:
    >>> selection = parse_scene_ranges("12-40,3")
    >>> selection.describe(), 3 in selection, 41 in selection
    ('3, 12-40', True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kgbuild.errors import InputError
from kgbuild.model import Entity, KnowledgeGraph, Relation, Screenplay

_RANGE = re.compile(r"^\s*(\d+)\s*(?:[-–]\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class SceneSelection:
    """Inclusive ranges of scene indices, sorted and merged (3-5 and 6-9 are 3-9).

    Attributes:
        ranges: (first, last) scene indices, inclusive, ascending, not touching; make it with
            `SceneSelection.of` or `parse_scene_ranges`.
    """

    ranges: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, ranges: Iterable[tuple[int, int]]) -> SceneSelection:
        """The selection of these ranges, sorted and merged.

        Raises:
            InputError: a range that starts below 1 or ends before it starts.
        """
        merged: list[tuple[int, int]] = []
        for first, last in sorted(ranges):
            if first < 1 or last < first:
                raise InputError(f"scene range {first}-{last} is empty or below scene 1; scenes are "
                                 "numbered from 1, as 'kgbuild parse' lists them")
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
            else:
                merged.append((first, last))
        if not merged:
            raise InputError("no scene range given")
        return cls(ranges=tuple(merged))

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and any(first <= index <= last for first, last in self.ranges)

    def __iter__(self) -> Iterator[int]:
        for first, last in self.ranges:
            yield from range(first, last + 1)

    def __len__(self) -> int:
        return sum(last - first + 1 for first, last in self.ranges)

    @property
    def last(self) -> int:
        """The highest scene index selected."""
        return self.ranges[-1][1]

    def describe(self) -> str:
        """'3, 12-40': the ranges as `--scenes` takes them (with spaces)."""
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)

    def as_list(self) -> list[tuple[int, int]]:
        """The ranges as stored in `MovieInfo.scene_ranges`."""
        return list(self.ranges)


def parse_scene_ranges(text: str) -> SceneSelection:
    """Read a `--scenes` value: 'A-B', a single 'N', or several joined by commas ('1-10,50-60').

    Raises:
        InputError: anything else ('12-', 'a-b', '0', '9-3').
    """
    ranges = []
    for piece in text.split(","):
        m = _RANGE.match(piece)
        if m is None:
            raise InputError(f"cannot read the scene range {piece.strip()!r} of {text!r}: write A-B, N, "
                             "or several joined by commas (1-10,50-60)")
        first = int(m.group(1))
        ranges.append((first, int(m.group(2)) if m.group(2) else first))
    return SceneSelection.of(ranges)


def recorded_selection(graph: KnowledgeGraph) -> SceneSelection | None:
    """The scene ranges a graph was built from (`MovieInfo.scene_ranges`), or None for a whole script."""
    return SceneSelection.of(graph.movie.scene_ranges) if graph.movie.scene_ranges else None


def check_selection(selection: SceneSelection, screenplay: Screenplay) -> None:
    """Refuse a selection that goes past the screenplay's last scene.

    Raises:
        InputError: names the script's scene count.
    """
    count = len(screenplay.scenes)
    if selection.last > count:
        raise InputError(f"--scenes {selection.describe()} goes past the last scene: the script has {count} "
                         "scenes ('kgbuild parse SCRIPT' lists them)", path=screenplay.source.path)


def select_screenplay(screenplay: Screenplay, selection: SceneSelection | None) -> Screenplay:
    """The screenplay with only the selected scenes, each keeping its index and source lines."""
    if selection is None:
        return screenplay
    return screenplay.model_copy(update={"scenes": [s for s in screenplay.scenes if s.index in selection]})


def _grounded(scenes: list[int], evidence_scenes: Iterable[int], selection: SceneSelection) -> bool:
    return any(s in selection for s in scenes) or any(s in selection for s in evidence_scenes)


def _trim_entity(entity: Entity, selection: SceneSelection) -> Entity:
    return entity.model_copy(update={"scenes": [s for s in entity.scenes if s in selection],
                                     "evidence": [e for e in entity.evidence if e.scene in selection]})


def _trim_relation(relation: Relation, selection: SceneSelection) -> Relation:
    return relation.model_copy(update={"scenes": [s for s in relation.scenes if s in selection],
                                       "evidence": [e for e in relation.evidence if e.scene in selection]})


def restrict_graph(graph: KnowledgeGraph, selection: SceneSelection) -> KnowledgeGraph:
    """The facts of `graph` grounded in the selected scenes, with only those scenes and evidence.

    An entity or relation is grounded in a scene when the scene is among its `scenes` or its
    evidence cites it. A relation is kept when it is grounded in the selection and both its ends
    are kept. The graph's `movie.scene_ranges` becomes the selection.

    Args:
        graph: Any graph (a build, a reference, a graph of another tool).
        selection: The scenes to keep.

    Returns:
        A new graph; `graph` is not changed.
    """
    entities = [_trim_entity(e, selection) for e in graph.entities
                if _grounded(e.scenes, (ev.scene for ev in e.evidence), selection)]
    kept = {e.id for e in entities}
    relations = [_trim_relation(r, selection) for r in graph.relations
                 if r.source in kept and r.target in kept
                 and _grounded(r.scenes, (ev.scene for ev in r.evidence), selection)]
    movie = graph.movie.model_copy(update={"scene_ranges": selection.as_list()})
    return graph.model_copy(update={"movie": movie, "entities": entities, "relations": relations})

