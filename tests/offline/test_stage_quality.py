"""Offline graph quality against STAGE references, one English and one Chinese dev movie.

The extractor before the selection policy scored relation F1 0.119 (English, en12839...) and
0.067 (Chinese, ch48a3...) on these movies; the floors below are the issue's corpus targets.
"""

from __future__ import annotations

import pytest

from kgbuild.canonicalize.repairs import run_repairs
from kgbuild.evaluation.reference import check_prediction, load_any
from kgbuild.evaluation.stage_kg import score_movie
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

pytestmark = pytest.mark.slow


@pytest.mark.shared_data
@pytest.mark.parametrize(("movie", "entity_floor", "relation_floor"), [
    ("English/en12839bdf037c46a0a3d9de0e50a6cbaa", 0.15, 0.06),
    ("Chinese/ch48a3d3de9f887c24c526ff5db17160702612afcb", 0.40, 0.07),
])
def test_dev_movie_scores(shared_data, embedder, movie, entity_floor, relation_floor):
    folder = shared_data / "stage" / movie
    reference, _, renames = load_any(folder)
    graph = run_repairs(extract_offline(read_screenplay(folder / "script.json"), embedder=embedder))[0]
    predicted, _ = check_prediction(graph, movie)
    score = score_movie(predicted, reference, renames=renames, embedder=embedder, movie=movie)
    # Floors a little under the scores measured when the rules were made to state only what the
    # text shows (entity F1 .169 / .602, relation F1 .084 / .090): a regression guard, not a goal.
    # The Chinese entity floor fell from .55 when the scorer stopped matching Chinese names
    # through MiniLM's [UNK]s (docs/scoring.md, "Chinese names in the scorer"): .437 with jieba's words.
    assert score.entities.f1 >= entity_floor
    assert score.relations.f1 >= relation_floor
    # What is stated is mostly what the reference holds too.
    assert score.entities.precision >= 0.6
    assert score.relation_types["located_at"].tp > 0
