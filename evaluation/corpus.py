"""Score many movies: pair predictions with references, score each, aggregate micro and macro."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.evaluation.metrics import PRF, Averaged, macro, micro
from kgbuild.evaluation.reference import LoadReport, load_any
from kgbuild.evaluation.stage_kg import MovieScore, ScoreOptions, protocol_name, score_movie
from kgbuild.folders import BuildFolder
from kgbuild.model import KnowledgeGraph, MovieInfo
from kgbuild.scenes import SceneSelection, recorded_selection, restrict_graph
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
    protocol: str = Field(default="kgbuild", description="The options' preset: kgbuild, paper or custom.")
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
    for p in sorted(pred_dir.rglob(BuildFolder.GRAPH)):
        if any(part.startswith(".") for part in p.relative_to(pred_dir).parts[:-1]):
            continue  # a corpus build's staging area, not a movie
        found[p.parent.name] = p
    for p in sorted(pred_dir.rglob("extraction_results.json")):
        found.setdefault(p.parent.name, p.parent)
    for p in sorted(pred_dir.glob("*.json")):
        if p.name != BuildFolder.GRAPH:
            found.setdefault(p.stem, p)
    return found


def load_pair(pred: Path | None, ref: Path, *, scenes: SceneSelection | None = None,
              schema: Schema | None = None) -> tuple[KnowledgeGraph | None, LoadReport | None,
                                                     KnowledgeGraph, LoadReport, dict[str, str]]:
    """Load a prediction and its reference, both restricted to the scenes scored.

    The scenes are `scenes` when given, else the ranges the prediction was built from
    (`MovieInfo.scene_ranges`, `kgbuild build --scenes`), else every scene. The reference is
    restricted before anything is counted, so its degree >= 2 rule applies to the restricted
    reference.

    Args:
        pred: The prediction (a graph.json, build folder or STAGE folder), or None for none.
        ref: The reference (a STAGE folder or a graph.json).
        scenes: The scenes to score, overriding the prediction's recorded ranges.
        schema: The schema; the default when None.

    Returns:
        The prediction and its load report (None, None without one), the reference, its load
        report and its rename map.
    """
    predicted = pred_report = None
    selection = scenes
    if pred is not None:
        predicted, pred_report, _ = load_any(pred, schema=schema)
        if selection is None:
            selection = recorded_selection(predicted)
        if selection is not None:
            predicted = restrict_graph(predicted, selection)
    reference, ref_report, renames = load_any(ref, schema=schema, scenes=selection)
    return predicted, pred_report, reference, ref_report, renames


def score_corpus(
    pred_dir: Path,
    ref_dir: Path,
    *,
    embedder: Embedder,
    options: ScoreOptions | None = None,
    schema: Schema | None = None,
    scenes: SceneSelection | None = None,
) -> CorpusScore:
    """Score every reference movie against its prediction (an empty graph when missing).

    Groups: 'all', plus one per parent folder of the reference movies (in the STAGE release
    these are 'English' and 'Chinese'). With `scenes`, every movie is scored on those scenes;
    without, a prediction built from some scenes is scored on those (see `load_pair`).
    """
    options = options or ScoreOptions()
    schema = schema or load_schema()
    refs = find_references(ref_dir)
    preds = find_predictions(pred_dir)
    scores: list[MovieScore] = []
    groups: dict[str, list[MovieScore]] = {}
    missing = []
    for movie, folder in refs.items():
        loaded, pred_report, reference, ref_report, renames = load_pair(
            preds.get(movie), folder, scenes=scenes, schema=schema)
        if loaded is None:
            missing.append(movie)
        predicted = loaded or KnowledgeGraph(movie=MovieInfo(title=movie, language=reference.movie.language))
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
        protocol=protocol_name(options),
        movies=scores,
        groups=aggregates,
        missing_predictions=missing,
        unused_predictions=sorted(set(preds) - set(refs)),
    )
