"""A build folder made ready for questions: scene text, its BM25 index and line vectors, and the
graph's entities with the scenes each is grounded in.

Opening one costs a second or two (the BM25 index, the line vectors from the embedding cache);
every question after that reuses it, so `kgbuild.ask.AskSession` opens a build once.

Example:
    >>> index = StoryIndex.open("out/lizard-people")
    >>> index.scene_count, index.chinese
    (38, False)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kgbuild.ask.text import TextIndex, is_chinese, words
from kgbuild.chunking import render_element
from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder
from kgbuild.model import Element, ElementKind, Entity, KnowledgeGraph, PresenceMode, Relation, Screenplay

#: Elements shorter than this (in characters) get no vector of their own: 'Yes.', '(beat)'.
MIN_LINE_CHARS = 16
_SKIPPED = {ElementKind.PAGE_BREAK, ElementKind.NOTE, ElementKind.SCENE_HEADING}
_ON_SCREEN = {PresenceMode.PRESENT, PresenceMode.OFFSCREEN}


@dataclass(frozen=True)
class SceneLine:
    """One element of a scene as a question's evidence: where it is and what it says."""

    scene: int
    lines: tuple[int, int]
    speaker: str | None
    text: str
    cue: bool = False


@dataclass
class StoryIndex:
    """What `ask` searches: one build's scenes, lines and graph."""

    graph: KnowledgeGraph
    screenplay: Screenplay
    chinese: bool
    scene_lines: list[list[SceneLine]]
    scene_index: TextIndex
    line_vectors: np.ndarray | None
    line_owner: np.ndarray
    vector_lines: list[SceneLine]
    entity_scenes: dict[str, set[int]] = field(default_factory=dict)

    @property
    def scene_count(self) -> int:
        """How many scenes the screenplay has (scene numbers are 1..scene_count)."""
        return len(self.screenplay.scenes)

    @classmethod
    def open(cls, build: str | os.PathLike[str], *, embedder: Embedder | None = None) -> StoryIndex:
        """Read a build folder (graph.json and screenplay.json) and index it.

        Args:
            build: A build folder of `kgbuild build`.
            embedder: The line embedder; the bundled MiniLM (cached) when None. Line vectors are
                made for English scripts only: MiniLM reads no Chinese.

        Raises:
            InputError: the folder lacks graph.json or screenplay.json.
        """
        from kgbuild.graph import load_graph
        from kgbuild.readers import load_screenplay

        folder = BuildFolder(build_folder(build))
        return cls.build(load_graph(folder.graph), load_screenplay(folder.screenplay), embedder=embedder)

    @classmethod
    def build(cls, graph: KnowledgeGraph, screenplay: Screenplay, *, embedder: Embedder | None = None) -> StoryIndex:
        """Index a graph and the screenplay it was built from (neither is changed)."""
        scene_lines = [[_line(scene.index, el) for el in scene.elements if el.kind not in _SKIPPED and el.text.strip()]
                       for scene in screenplay.scenes]
        chinese = is_chinese(" ".join(line.text for lines in scene_lines[:40] for line in lines))
        documents = [words(f"{scene.heading}\n" + "\n".join(line.text for line in lines), chinese=chinese)
                     for scene, lines in zip(screenplay.scenes, scene_lines, strict=True)]
        vector_lines = [] if chinese else [line for lines in scene_lines for line in lines
                                           if not line.cue and len(line.text) >= MIN_LINE_CHARS]
        vectors = None
        if vector_lines:
            if embedder is None:
                from kgbuild.embeddings import default_embedder

                embedder = default_embedder()
            vectors = embedder.encode([line.text for line in vector_lines])
        owner = np.array([line.scene for line in vector_lines], dtype=int)
        return cls(graph=graph, screenplay=screenplay, chinese=chinese, scene_lines=scene_lines,
                   scene_index=TextIndex(documents), line_vectors=vectors, line_owner=owner,
                   vector_lines=vector_lines, entity_scenes=_entity_scenes(graph))

    def rarity(self, entity_id: str) -> float:
        """How much a scene's holding this entity tells: log(scenes / scenes it is in), 0 if in none."""
        scenes = self.entity_scenes.get(entity_id)
        return math.log(self.scene_count / len(scenes)) if scenes else 0.0

    def entity(self, entity_id: str) -> Entity | None:
        """The graph's entity of this id."""
        return self._entities.get(entity_id)

    def relations_at(self, scene: int) -> list[Relation]:
        """The relations with evidence in this scene."""
        return self._relations_by_scene.get(scene, [])

    def __post_init__(self) -> None:
        self._entities = {e.id: e for e in self.graph.entities}
        self._relations_by_scene: dict[int, list[Relation]] = {}
        for relation in self.graph.relations:
            for scene in sorted({ev.scene for ev in relation.evidence}):
                self._relations_by_scene.setdefault(scene, []).append(relation)


def build_folder(build: str | os.PathLike[str]) -> Path:
    """The build folder of `build` (a folder, or a file in one), checked to hold graph.json and
    screenplay.json.

    Raises:
        InputError: one of them is missing.
    """
    given = Path(build)
    folder = BuildFolder(given.parent if given.is_file() else given)
    for path in (folder.graph, folder.screenplay):
        if not path.is_file():
            raise InputError(f"no {path.name} here: ask reads a build folder of 'kgbuild build SCRIPT -o OUTDIR'",
                             path=str(folder.path))
    return folder.path


def _line(scene: int, element: Element) -> SceneLine:
    text = render_element(element) if element.kind is not ElementKind.CHARACTER else element.text
    return SceneLine(scene=scene, lines=(element.line_start, element.line_end),
                     speaker=element.speaker if element.kind is ElementKind.DIALOGUE else None, text=text.strip(),
                     cue=element.kind is ElementKind.CHARACTER)


def _entity_scenes(graph: KnowledgeGraph) -> dict[str, set[int]]:
    """The scenes each entity is grounded in: its own scenes, and where a character is on screen."""
    scenes = {e.id: set(e.scenes) | {ev.scene for ev in e.evidence} for e in graph.entities}
    for record in graph.scenes:
        for presence in record.presence:
            if presence.mode in _ON_SCREEN:
                scenes.setdefault(presence.character, set()).add(record.index)
    return scenes
