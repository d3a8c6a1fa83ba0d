"""STAGE-QA retrieval: does `ask` put a question's gold scene first, and does it beat plain baselines?

The release's questions (`question_pairs.csv`: id, scene, question, answer, evidence, qa_type)
name their gold scene by its `script.json` title, several joined by ' | '. A question is scored
with its pointer to the scene removed ('In [...],' and '在[...]中'), and a hit is any gold scene
or a scene with the same content (some scripts repeat scenes word for word). Every method ranks
the same scenes of the same build in the same run:

- `kgbuild`: `ask`'s retrieval (text, meaning and the graph, `kgbuild.ask.retrieve`);
- `bm25-scenes`: BM25 over whole scenes;
- `bm25-chunks`: BM25 over 300-token chunks of the script (the paper's native RAG; tokens by the
  project's estimate), a scene ranked where its first chunk ranks;
- `dense-chunks`: MiniLM cosine over the same chunks (English; MiniLM reads no Chinese);
- `hybrid-chunks`: standardized BM25 + dense over the chunks.

Reported per language and per qa_type: hit@1, hit@5, hit@10 and mean reciprocal rank.

Example:
    >>> rows = evaluate_movie(StoryIndex.open("out/en0499"), read_questions("question_pairs.csv"),
    ...                       titles=script_titles("script.json"))
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.ask.retrieve import scene_scores
from kgbuild.ask.story_index import StoryIndex
from kgbuild.ask.text import TextIndex, words
from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.tokens import estimate_tokens

#: The methods every question is ranked by, in report order.
METHODS = ("kgbuild", "bm25-scenes", "bm25-chunks", "dense-chunks", "hybrid-chunks")
#: Tokens per chunk of the chunk baselines (the paper's native RAG).
CHUNK_TOKENS = 300
_POINTER_EN = re.compile(r"^\s*In\s*\[[^\]]*\]\s*[,，]?\s*", re.IGNORECASE)
_POINTER_ZH = re.compile(r"^\s*在\s*\[[^\]]*\]\s*中\s*[,，]?\s*")
_COLUMNS = ("id", "scene", "question", "answer", "evidence", "qa_type")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QAItem(_Model):
    """One question of a question_pairs.csv."""

    id: str
    scenes: list[str] = Field(description="Gold scene titles, as in script.json.")
    question: str
    answer: str
    evidence: str
    qa_type: str


class QuestionRanks(_Model):
    """Where each method ranked the question's first gold scene (None: not ranked at all)."""

    movie: str
    language: str
    id: str
    qa_type: str
    question: str = Field(description="The question as scored (pointer removed).")
    gold: list[int] = Field(description="Gold scenes (1-based), copies of a gold scene's content included.")
    ranks: dict[str, int | None]


class Tally(_Model):
    """hit@1/5/10 and MRR of one method over a set of questions."""

    questions: int
    hit1: float
    hit5: float
    hit10: float
    mrr: float


def strip_pointer(question: str) -> str:
    """The question without its leading pointer to a scene ('In [12、INT. ...], ' / '在[...]中，')."""
    return _POINTER_ZH.sub("", _POINTER_EN.sub("", question, count=1), count=1).strip()


def read_questions(path: str | os.PathLike[str]) -> list[QAItem]:
    """Read a STAGE-QA question_pairs.csv.

    Raises:
        InputError: a column is missing.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"missing column(s) {', '.join(missing)}; a STAGE-QA file has the columns "
                             f"{', '.join(_COLUMNS)}", path=str(path), line=1)
        return [QAItem(id=row["id"], scenes=[t.strip() for t in row["scene"].split(" | ") if t.strip()],
                       question=row["question"], answer=row["answer"], evidence=row["evidence"],
                       qa_type=row["qa_type"]) for row in reader]


def script_titles(path: str | os.PathLike[str]) -> list[str]:
    """The scene titles of a STAGE script.json, in order."""
    return [str(entry.get("title", "")).strip() for entry in json.loads(Path(path).read_text(encoding="utf-8"))]


def scene_contents(index: StoryIndex, titles: list[str]) -> list[str]:
    """The text of every scene of the build, in order, for telling scenes with the same content.

    Raises:
        InputError: the titles do not match the build's scenes one for one.
    """
    if len(titles) != index.scene_count:
        raise InputError(f"the script has {len(titles)} scenes and the build {index.scene_count}: the questions "
                         "must belong to the script the build was made from")
    return ["\n".join(line.text for line in lines) for lines in index.scene_lines]


def gold_scenes(item: QAItem, titles: list[str], contents: list[str]) -> list[int]:
    """1-based scenes that answer `item`: the titled ones and every scene with the same content."""
    named = {i for i, title in enumerate(titles) if title in set(item.scenes)}
    same = {contents[i] for i in named}
    return sorted(i + 1 for i, text in enumerate(contents) if i in named or (text and text in same))


def _chunks(index: StoryIndex) -> tuple[list[str], list[set[int]]]:
    """The script cut into chunks of about CHUNK_TOKENS tokens, line by line across scene borders."""
    texts: list[str] = []
    owners: list[set[int]] = []
    current: list[str] = []
    scenes: set[int] = set()
    size = 0
    for scene, lines in zip(index.screenplay.scenes, index.scene_lines, strict=True):
        for piece in [scene.heading, *(line.text for line in lines)]:
            tokens = estimate_tokens(piece) + 1
            if current and size + tokens > CHUNK_TOKENS:
                texts.append("\n".join(current))
                owners.append(scenes)
                current, scenes, size = [], set(), 0
            current.append(piece)
            scenes.add(scene.index)
            size += tokens
    if current:
        texts.append("\n".join(current))
        owners.append(scenes)
    return texts, owners


def _standard(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std() if x.std() > 0 else np.zeros_like(x)


def _scene_order_from_chunks(scores: np.ndarray, owners: list[set[int]]) -> list[int]:
    order: list[int] = []
    seen: set[int] = set()
    for i in np.argsort(-scores, kind="stable"):
        for scene in sorted(owners[int(i)]):
            if scene not in seen:
                seen.add(scene)
                order.append(scene)
    return order


def _rank(order: list[int], gold: list[int]) -> int | None:
    positions = {scene: r for r, scene in enumerate(order, start=1)}
    ranks = [positions[g] for g in gold if g in positions]
    return min(ranks) if ranks else None


class _Baselines:
    """The chunk and scene baselines of one build, indexed once."""

    def __init__(self, index: StoryIndex, embedder: Embedder | None):
        self.index = index
        self.chunks, self.owners = _chunks(index)
        self.chunk_index = TextIndex([words(c, chinese=index.chinese) for c in self.chunks])
        self.vectors = None
        if not index.chinese:
            if embedder is None:
                from kgbuild.embeddings import default_embedder

                embedder = default_embedder()
            self.embedder = embedder
            self.vectors = embedder.encode(self.chunks)

    def orders(self, question: str) -> dict[str, list[int]]:
        query = words(question, chinese=self.index.chinese)
        scene_bm25 = self.index.scene_index.scores(query)
        out = {"bm25-scenes": [int(i) + 1 for i in np.argsort(-scene_bm25, kind="stable")]}
        chunk_bm25 = self.chunk_index.scores(query)
        out["bm25-chunks"] = _scene_order_from_chunks(chunk_bm25, self.owners)
        if self.vectors is not None:
            dense = self.vectors @ self.embedder.encode([question])[0]
            out["dense-chunks"] = _scene_order_from_chunks(dense, self.owners)
            out["hybrid-chunks"] = _scene_order_from_chunks(_standard(chunk_bm25) + _standard(dense), self.owners)
        return out


def evaluate_movie(index: StoryIndex, items: Iterable[QAItem], *, titles: list[str], movie: str,
                   embedder: Embedder | None = None) -> list[QuestionRanks]:
    """Rank every question's gold scene by every method on one build.

    Args:
        index: The build's index.
        items: The questions.
        titles: The script.json titles of the build's scenes, in order (one per scene).
        movie: The movie id, for the rows.
        embedder: The line and chunk embedder (the bundled MiniLM, cached, when None).

    Raises:
        InputError: the titles do not match the build's scenes one for one.
    """
    contents = scene_contents(index, titles)
    baselines = _Baselines(index, embedder)
    language = "Chinese" if index.chinese else "English"
    rows = []
    for item in items:
        question = strip_pointer(item.question)
        gold = gold_scenes(item, titles, contents)
        fused = scene_scores(question, index, embedder=embedder).fused
        orders = {"kgbuild": [int(i) + 1 for i in np.argsort(-fused, kind="stable")], **baselines.orders(question)}
        rows.append(QuestionRanks(movie=movie, language=language, id=item.id, qa_type=item.qa_type,
                                  question=question, gold=gold,
                                  ranks={m: (_rank(orders[m], gold) if m in orders else None) for m in METHODS
                                         if m in orders}))
    return rows


def tally(rows: list[QuestionRanks], method: str) -> Tally | None:
    """hit@1/5/10 and MRR of `method` over the rows that have a gold scene (None if no row has it)."""
    ranks = [r.ranks.get(method) for r in rows if r.gold and method in r.ranks]
    if not ranks:
        return None
    n = len(ranks)

    def share(k: int) -> float:
        return sum(1 for x in ranks if x is not None and x <= k) / n
    mrr = sum(1 / x for x in ranks if x) / n
    return Tally(questions=n, hit1=round(share(1), 4), hit5=round(share(5), 4), hit10=round(share(10), 4),
                 mrr=round(mrr, 4))


def tables(rows: list[QuestionRanks]) -> dict[str, dict[str, Tally]]:
    """{group: {method: tally}} per language ('English', 'Chinese') and per 'language / qa_type'."""
    groups: dict[str, list[QuestionRanks]] = defaultdict(list)
    for row in rows:
        groups[row.language].append(row)
        groups[f"{row.language} / {row.qa_type}"].append(row)
    return {name: {m: t for m in METHODS if (t := tally(groups[name], m)) is not None}
            for name in sorted(groups, key=lambda g: (" / " in g, g))}
