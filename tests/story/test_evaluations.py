"""The story-time evaluations: per-scene characters and ICRP dossiers against STAGE."""

from __future__ import annotations

import pytest

from bench.studies.dossiers import score_character
from bench.studies.presence import build_for, compare_movie, match_scene, reference_scenes
from kgbuild.extraction.descriptors import is_descriptor

FARGO = "English/en44fd740e98fd44c186677b99ad139c57"


@pytest.mark.parametrize(("name", "descriptor"), [
    ("Texas Ranger #1", True), ("Branch Manager", True), ("someone else", True), ("boys playing cricket", True),
    ("Holden'S Grandmother", True), ("Player One", True), ("he", True), ("Officer Olson", False),
    ("Small Eyes", False), ("Santa Claus", False), ("Marge", False),
    ("日本兵", True), ("缠绕铁链的对手", True), ("宫羽田朋友", True),
    ("宫二", False), ("三姐", False), ("瑞先生", False),
])
def test_descriptors(name, descriptor):
    assert is_descriptor(name) is descriptor


def test_matching_within_a_scene_is_one_to_one():
    predicted = {"Carl Showalter": {"carl_showalter", "carl"}, "Jerry": {"jerry"}, "Wade": {"wade"}}
    reference = {"Carl Showalter": {"carl_showalter"}, "Jerry Lundegaard": {"jerry_lundegaard"},
                 "Jean Lundegaard": {"jean_lundegaard"}}
    pairs, extra, missed = match_scene(predicted, reference)
    assert sorted(pairs) == [("Carl Showalter", "Carl Showalter"), ("Jerry", "Jerry Lundegaard")]
    assert extra == ["Wade"] and missed == ["Jean Lundegaard"]


@pytest.mark.shared_data
def test_fargo_scenes_and_marges_dossier(shared_data, tmp_path):
    movie = shared_data / "stage" / FARGO
    reference = reference_scenes(movie)
    assert "Marge" in reference[8] and not any(is_descriptor(n) for names in reference.values() for n in names)
    graph, screenplay = build_for(movie, tmp_path)
    assert (tmp_path / movie.name / "graph.json").is_file() and build_for(movie, tmp_path)[0] == graph
    row = compare_movie(graph, movie)
    assert row.scenes == 44 and row.counts.f1 > 0.7
    marge = score_character(graph, screenplay, movie, movie / "ICRP" / "Marge")
    assert marge.found_as == "Marge" and marge.lines_held == marge.lines == 258
    assert marge.not_verbatim == 0 and marge.dossier_lines > marge.lines
