"""Score many movies: pair predictions with references, score each, aggregate micro and macro."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.evaluation.metrics import PRF, Averaged, macro, micro
from kgbuild.evaluation.reference import load_any
from kgbuild.evaluation.stage_kg import MovieScore, ScoreOptions, score_movie
from kgbuild.model import KnowledgeGraph, MovieInfo
from kgbuild.schema import Schema, load_schema


class GroupScore(BaseModel):
    """Aggregates over a set of movies."""

    model_config = ConfigDict(extra="forbid")

    movies: int
    entities_micro: PRF
    relations_micro: PRF
    entities_macro: Averaged
    relations_macro: Averaged
    entity_types: dict[str, PRF]
    relation_types: dict[str, PRF]


class CorpusScore(BaseModel):
    """Per-movie scores plus aggregates over all movies and per group (e.g. language)."""

    model_config = ConfigDict(extra="forbid")

    options: ScoreOptions
    movies: list[MovieScore]
    groups: dict[str, GroupScore] = Field(description="'all' and one entry per reference group.")
    missing_predictions: list[str] = Field(default_factory=list)
    unused_predictions: list[str] = Field(default_factory=list)


def _by_type(scores: list[MovieScore], attr: str) -> dict[str, PRF]:
    out: dict[str, PRF] = {}
    for s in scores:
        for t, prf in getattr(s, attr).items():
            out[t] = out.get(t, PRF()) + prf
    return dict(sorted(out.items()))


def aggregate(scores: list[MovieScore]) -> GroupScore:
    """Micro and macro averages, and per-type sums, over movie scores."""
    return GroupScore(
        movies=len(scores),
        entities_micro=micro([s.entities for s in scores]),
        relations_micro=micro([s.relations for s in scores]),
        entities_macro=macro([s.entities for s in scores]),
        relations_macro=macro([s.relations for s in scores]),
        entity_types=_by_type(scores, "entity_types"),
        relation_types=_by_type(scores, "relation_types"),
    )


def find_references(ref_dir: Path) -> dict[str, Path]:
    """Movie id -> folder, for every folder under ref_dir holding extraction_results.json."""
    found = {p.parent.name: p.parent for p in sorted(ref_dir.rglob("extraction_results.json"))}
    if not found:
        raise InputError(
            "no extraction_results.json below this folder; give the folder of STAGE movies",
            path=str(ref_dir),
        )
    return found


def find_predictions(pred_dir: Path) -> dict[str, Path]:
    """Movie id -> prediction: PRED/<id>/graph.json, PRED/<id>.json or a STAGE-format folder."""
    if not pred_dir.is_dir():
        raise InputError("no such predictions folder", path=str(pred_dir))
    found: dict[str, Path] = {}
    for p in sorted(pred_dir.rglob("graph.json")):
        found[p.parent.name] = p
    for p in sorted(pred_dir.rglob("extraction_results.json")):
        found.setdefault(p.parent.name, p.parent)
    for p in sorted(pred_dir.glob("*.json")):
        if p.name != "graph.json":
            found.setdefault(p.stem, p)
    return found


def score_corpus(
    pred_dir: Path,
    ref_dir: Path,
    *,
    embedder: Embedder,
    options: ScoreOptions | None = None,
    schema: Schema | None = None,
) -> CorpusScore:
    """Score every reference movie against its prediction (an empty graph when missing).

    Groups: 'all', plus one per parent folder of the reference movies (in the STAGE release
    these are 'English' and 'Chinese').
    """
    options = options or ScoreOptions()
    schema = schema or load_schema()
    refs = find_references(ref_dir)
    preds = find_predictions(pred_dir)
    scores: list[MovieScore] = []
    groups: dict[str, list[MovieScore]] = {}
    missing = []
    for movie, folder in refs.items():
        reference, ref_report, renames = load_any(folder, schema=schema)
        if movie in preds:
            predicted, pred_report, _ = load_any(preds[movie], schema=schema)
        else:
            missing.append(movie)
            predicted = KnowledgeGraph(movie=MovieInfo(title=movie, language=reference.movie.language))
            pred_report = None
        score = score_movie(predicted, reference, renames=renames, embedder=embedder,
                            options=options, schema=schema, movie=movie)
        score = score.model_copy(update={"prediction_report": pred_report, "reference_report": ref_report})
        scores.append(score)
        groups.setdefault(folder.parent.name, []).append(score)
    aggregates = {"all": aggregate(scores)}
    if len(groups) > 1:
        aggregates.update({name: aggregate(items) for name, items in sorted(groups.items())})
    return CorpusScore(
        options=options,
        movies=scores,
        groups=aggregates,
        missing_predictions=missing,
        unused_predictions=sorted(set(preds) - set(refs)),
    )
