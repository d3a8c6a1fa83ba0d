"""Rank a build's scenes and facts for a question: text, meaning and the graph together.

Each scene gets three scores:

- **text**: BM25 of the question's words over the scene's words (`kgbuild.ask.text`);
- **meaning**: the best cosine between the question's MiniLM vector and one of the scene's lines
  (English scripts; MiniLM reads no Chinese, so Chinese scenes have none);
- **graph**: the question's linked entities grounded in the scene (in an entity's evidence or on
  screen there), each counted by its weight, so a scene holding the rare things a question names
  rises above one holding only the hero; plus each relation between two linked entities that the
  scene's evidence shows.

The scores are standardized over the scenes searched and summed (meaning and graph weighted by
`MEANING_WEIGHT` and `GRAPH_WEIGHT`). With `as_of`, scenes after it are not searched and facts
whose evidence starts after it are not shown: a question about what someone knows at a point
never looks ahead. Facts are the relations touching a linked entity, the ones joining two linked
entities first, each with its evidence.

Example:
    >>> result = retrieve("Why does Nadia hide the ring?", StoryIndex.open("out/birthday-girl"), k=5)
    >>> [s.scene for s in result.scenes]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgbuild.ask.link import link_entities
from kgbuild.ask.story_index import SceneLine, StoryIndex
from kgbuild.ask.text import words
from kgbuild.ask.types import AskResult, LinkedEntity, MatchedLine, RankedFact, RankedScene
from kgbuild.embeddings import Embedder
from kgbuild.model import Relation

#: Weight of the meaning score in the sum (the text score counts 1).
MEANING_WEIGHT = 1.0
#: Weight of the graph score in the sum.
GRAPH_WEIGHT = 0.5
#: Lines shown per ranked scene.
LINES_SHOWN = 3


def _standard(values: np.ndarray, searched: np.ndarray) -> np.ndarray:
    part = values[searched]
    spread = part.std()
    out = np.zeros_like(values, dtype=float)
    if spread > 0:
        out[searched] = (part - part.mean()) / spread
    return out


def _meaning(question: str, index: StoryIndex, embedder: Embedder | None) -> np.ndarray | None:
    if index.line_vectors is None:
        return None
    if embedder is None:
        from kgbuild.embeddings import default_embedder

        embedder = default_embedder()
    cosines = index.line_vectors @ embedder.encode([question])[0]
    best = np.full(index.scene_count, -1.0)
    np.maximum.at(best, index.line_owner - 1, cosines)
    return best


def _graph(linked: list[LinkedEntity], index: StoryIndex) -> np.ndarray:
    score = np.zeros(index.scene_count)
    weights = {e.id: e.weight for e in linked}
    for entity in linked:
        for scene in index.entity_scenes.get(entity.id, ()):
            if 1 <= scene <= index.scene_count:
                score[scene - 1] += entity.weight
    for scene in range(1, index.scene_count + 1):
        for relation in index.relations_at(scene):
            if relation.source in weights and relation.target in weights and relation.source != relation.target:
                score[scene - 1] += (weights[relation.source] + weights[relation.target]) / 2
    return score


def _matched_lines(lines: list[SceneLine], query: set[str], chinese: bool) -> list[MatchedLine]:
    scored = []
    for position, line in enumerate(lines):
        if line.cue:
            continue
        shared = query & set(words(line.text, chinese=chinese))
        if shared:
            scored.append((-len(shared), position, line))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [MatchedLine(lines=line.lines, speaker=line.speaker, text=line.text)
            for _, _, line in sorted(scored[:LINES_SHOWN], key=lambda t: t[1])]


def _statement(relation: Relation, index: StoryIndex) -> str:
    def end(entity_id: str) -> str:
        entity = index.entity(entity_id)
        return f'{entity.type} "{entity.name}"' if entity else entity_id
    return f"{end(relation.source)} —{relation.type}→ {end(relation.target)}"


def _facts(linked: list[LinkedEntity], index: StoryIndex, scene_rank: dict[int, int], as_of: int | None,
           limit: int) -> list[RankedFact]:
    weights = {e.id: e.weight for e in linked}
    seen: set[str] = set()
    ranked = []
    for relation in index.graph.relations:
        ends = [w for i, w in ((relation.source, weights.get(relation.source)),
                               (relation.target, weights.get(relation.target))) if w is not None and i]
        if not ends or relation.id in seen:
            continue
        evidence = [ev for ev in relation.evidence if as_of is None or ev.scene <= as_of]
        if not evidence:
            continue
        seen.add(relation.id)
        best = min((scene_rank.get(ev.scene, len(scene_rank) + 1) for ev in evidence), default=len(scene_rank) + 1)
        score = 2.0 * (len(ends) == 2) + sum(ends) / 10 + 1.0 / (1 + best)
        ranked.append(RankedFact(id=relation.id, statement=_statement(relation, index), type=relation.type,
                                 score=round(score, 4), evidence=evidence))
    ranked.sort(key=lambda f: (-f.score, f.id))
    return ranked[:limit]


@dataclass(frozen=True)
class SceneScores:
    """Every scene's scores for one question (arrays indexed by scene - 1) and the linked entities."""

    fused: np.ndarray = field(repr=False)
    text: np.ndarray = field(repr=False)
    meaning: np.ndarray | None = field(repr=False)
    graph: np.ndarray = field(repr=False)
    linked: list[LinkedEntity]


def scene_scores(question: str, index: StoryIndex, *, as_of: int | None = None,
                 embedder: Embedder | None = None) -> SceneScores:
    """The fused score of every scene (minus infinity past `as_of`), its parts, and the linked entities."""
    linked = link_entities(question, index)
    searched = np.ones(index.scene_count, dtype=bool)
    if as_of is not None:
        searched[as_of:] = False
    text = index.scene_index.scores(words(question, chinese=index.chinese))
    meaning = _meaning(question, index, embedder)
    graph = _graph(linked, index)
    fused = _standard(text, searched) + GRAPH_WEIGHT * _standard(graph, searched)
    if meaning is not None:
        fused = fused + MEANING_WEIGHT * _standard(meaning, searched)
    fused[~searched] = -np.inf
    return SceneScores(fused=fused, text=text, meaning=meaning, graph=graph, linked=linked)


def retrieve(question: str, index: StoryIndex, *, as_of: int | None = None, k: int = 5, facts: int = 10,
             embedder: Embedder | None = None) -> AskResult:
    """The scenes and facts that bear on `question`, best first, with their evidence.

    Args:
        question: The question, as asked.
        index: The build's index (`StoryIndex.open`).
        as_of: Search scenes 1..as_of only, and show facts whose evidence lies in them.
        k: Scenes returned.
        facts: Facts returned at most.
        embedder: The line embedder (the index's own model, cached, when None).

    Returns:
        The ranked evidence; `answer` is None (`kgbuild.ask.answer` writes one with an LLM).
    """
    scores = scene_scores(question, index, as_of=as_of, embedder=embedder)
    fused, linked, meaning = scores.fused, scores.linked, scores.meaning
    order = [int(i) for i in np.argsort(-fused, kind="stable") if np.isfinite(fused[i])]
    query = set(words(question, chinese=index.chinese))
    names = {e.id: e.name for e in linked}
    scenes = []
    for i in order[:k]:
        scene = index.screenplay.scenes[i]
        present = [names[e] for e in names if scene.index in index.entity_scenes.get(e, ())]
        scenes.append(RankedScene(
            scene=scene.index, heading=scene.heading, score=round(float(fused[i]), 4),
            text_score=round(float(scores.text[i]), 4),
            meaning_score=None if meaning is None else round(float(meaning[i]), 4),
            graph_score=round(float(scores.graph[i]), 4), entities=present,
            lines=_matched_lines(index.scene_lines[i], query, index.chinese)))
    rank = {index.screenplay.scenes[i].index: r for r, i in enumerate(order)}
    return AskResult(question=question, as_of_scene=as_of, entities=linked, scenes=scenes,
                     facts=_facts(linked, index, rank, as_of, facts))
