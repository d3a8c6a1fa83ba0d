"""Scoring part of a movie (`--scenes`) and the two protocols (`--protocol kgbuild|paper`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import kgbuild
from kgbuild.cli.score import score as score_command
from kgbuild.errors import InputError
from kgbuild.evaluation.corpus import load_pair
from kgbuild.evaluation.reference import load_stage_movie, stage_scene_index
from kgbuild.evaluation.stage_kg import PROTOCOLS, ScoreOptions, protocol_name, score_movie
from kgbuild.graph import save_graph
from kgbuild.model import KnowledgeGraph, MovieInfo
from kgbuild.scenes import parse_scene_ranges
from tests.factories import ent, rel


def mention(type_, name, description=""):
    return {"type": type_, "name": name, "description": description, "scope": "local"}


def triple(s, rtype, o):
    return {"subject": s, "object": o, "relation_type": rtype, "relation_name": "", "description": ""}


def part(order, entities, relations):
    return {"ok": True, "document_metadata": {"order": order}, "entities": entities, "relations": relations}


#: Three script.json entries. The third is printed with the number of the second, so STAGE keys
#: it scene_2__2; its order (2) makes it kgbuild's scene 3.
RESULTS = {
    "scene_1_part_1": part(0, [mention("Character", "Anna"), mention("Character", "Ben"),
                               mention("Location", "Kitchen")],
                           [triple("Anna", "located_at", "Kitchen"), triple("Ben", "located_at", "Kitchen")]),
    "scene_2_part_1": part(1, [mention("Character", "Anna"), mention("Location", "Garden")],
                           [triple("Anna", "located_at", "Garden")]),
    "scene_2__2_part_1": part(2, [mention("Character", "Carl"), mention("Location", "Garage", "a workshop"),
                                  mention("Object", "Hammer")],
                              [triple("Carl", "located_at", "Garage"), triple("Carl", "possesses", "Hammer"),
                               triple("Hammer", "located_at", "Garage")]),
}


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    folder = tmp_path / "ref" / "English" / "en0001"
    folder.mkdir(parents=True)
    (folder / "extraction_results.json").write_text(json.dumps(RESULTS), encoding="utf-8")
    (folder / "rename_map.json").write_text("{}", encoding="utf-8")
    return folder


def garage_graph(description="", **movie) -> KnowledgeGraph:
    """Scene 3's graph: Carl, his hammer and the garage (described as `description`)."""
    carl, garage = ent("Character", "Carl", scenes=[3]), ent("Location", "Garage", scenes=[3], description=description)
    hammer = ent("Object", "Hammer", scenes=[3])
    return KnowledgeGraph(movie=MovieInfo(id="en0001", title="t", language="en", **movie),
                          entities=[carl, garage, hammer],
                          relations=[rel(carl, "located_at", garage, scenes=[3]),
                                     rel(carl, "possesses", hammer, scenes=[3]),
                                     rel(hammer, "located_at", garage, scenes=[3])])


class TextEmbedder:
    """Equal texts have similarity 1, different texts 0: what is embedded decides every match."""

    name = "text-identity"

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.index: dict[str, int] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        self.seen += texts
        for t in texts:
            self.index.setdefault(t, len(self.index))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, t in enumerate(texts):
            out[row, self.index[t] % 64] = 1.0
        return out


def test_stage_parts_map_to_kgbuild_scene_indices_by_their_order():
    assert stage_scene_index("scene_2__2_part_1", RESULTS["scene_2__2_part_1"]) == 3
    assert stage_scene_index("scene_7_part_2", {"document_metadata": {}}) == 7
    assert stage_scene_index("scene_7_part_2", None) == 7


def test_the_degree_rule_applies_to_the_restricted_reference(reference):
    whole, _, _ = load_stage_movie(reference)
    first, _, _ = load_stage_movie(reference, scenes=parse_scene_ranges("1"))
    third, _, _ = load_stage_movie(reference, scenes=parse_scene_ranges("3"))
    assert {e.name for e in third.entities} == {"Carl", "Garage", "Hammer"}
    assert third.movie.scene_ranges == [(3, 3)] and whole.movie.scene_ranges == []
    assert {e.scenes[0] for e in third.entities} == {3}
    # Anna has degree 2 in the whole reference (Kitchen, Garden) but 1 in scene 1: not scored there.
    s = score_movie(first, first, embedder=TextEmbedder())
    assert s.scored_reference_entities == 1  # Kitchen, between Anna and Ben
    assert score_movie(whole, whole, embedder=TextEmbedder()).scored_reference_entities == 5


def test_a_prediction_built_from_some_scenes_is_scored_on_them(reference, tmp_path):
    pred = tmp_path / "pred.json"
    save_graph(garage_graph(scene_ranges=[(3, 3)]), pred)
    predicted, _, ref_graph, _, _ = load_pair(pred, reference)
    assert ref_graph.movie.scene_ranges == [(3, 3)] and len(predicted.entities) == 3
    result = CliRunner().invoke(score_command, [str(pred), str(reference)])
    assert result.exit_code == 0, result.output
    assert "Scenes: 3, as recorded in the prediction" in result.output
    assert "degree >= 2 rule counts the restricted reference" in result.output
    row = next(line for line in result.output.splitlines() if "en0001" in line)
    assert row.count("1.000") == 6
    # --scenes overrides the recorded ranges; a range without reference facts is refused.
    other = CliRunner().invoke(score_command, [str(pred), str(reference), "--scenes", "1-2"])
    assert other.exit_code == 0 and "Scenes: 1-2 (--scenes)" in other.output
    empty = CliRunner().invoke(score_command, [str(pred), str(reference), "--scenes", "9"])
    assert isinstance(empty.exception, InputError) and "no facts in scenes 9" in str(empty.exception)


def test_the_api_scores_scenes_too(reference, tmp_path):
    result = kgbuild.score(garage_graph(), reference, scenes="3", cache_dir=tmp_path / "cache")
    assert (result.entities.f1, result.relations.f1) == (1.0, 1.0)
    assert result.scene_ranges == [(3, 3)] and result.protocol == "kgbuild"
    whole = kgbuild.score(garage_graph(), reference, cache_dir=tmp_path / "cache")
    assert whole.entities.recall < 1.0


def test_the_kgbuild_protocol_is_todays_defaults_and_paper_differs_as_documented():
    assert PROTOCOLS["kgbuild"] == ScoreOptions()
    paper = PROTOCOLS["paper"]
    assert {k for k in ScoreOptions.model_fields if getattr(paper, k) != getattr(ScoreOptions(), k)} == {
        "entity_text", "name_identity"}
    assert protocol_name(paper) == "paper" and protocol_name(ScoreOptions(threshold=0.5)) == "custom"


def test_the_paper_protocol_embeds_name_and_description_and_skips_name_identity(reference):
    ref, _, _ = load_stage_movie(reference, scenes=parse_scene_ranges("3"))
    same_words = garage_graph(description="a workshop")
    other_words = garage_graph(description="where Carl keeps his tools")
    embedder = TextEmbedder()
    assert score_movie(other_words, ref, embedder=embedder, options=PROTOCOLS["kgbuild"]).entities.tp == 3
    assert embedder.seen == []  # equal names matched before any embedding
    paper = score_movie(other_words, ref, embedder=embedder, options=PROTOCOLS["paper"])
    assert paper.entities.tp == 2 and paper.protocol == "paper"  # the garage's descriptions differ
    assert "Garage: where Carl keeps his tools" in embedder.seen and "Garage: a workshop" in embedder.seen
    assert score_movie(same_words, ref, embedder=embedder, options=PROTOCOLS["paper"]).entities.tp == 3


def test_score_prints_its_protocol_and_the_options_given_over_it(reference, tmp_path):
    pred = tmp_path / "pred.json"
    save_graph(garage_graph(), pred)
    runner = CliRunner()
    default = runner.invoke(score_command, [str(pred), str(reference), "--cache-dir", str(tmp_path / "c")])
    assert default.exit_code == 0, default.output
    assert default.output.startswith("Protocol: kgbuild (threshold 0.80 on names, normalized-name identity on")
    paper = runner.invoke(score_command, [str(pred), str(reference), "--protocol", "paper", "--threshold",
                                          "0.7", "--cache-dir", str(tmp_path / "c"), "--json",
                                          str(tmp_path / "s.json")])
    assert paper.exit_code == 0, paper.output
    assert paper.output.startswith("Protocol: paper with --threshold 0.7 (threshold 0.70 on name and "
                                   "description as one text, normalized-name identity off")
    assert json.loads((tmp_path / "s.json").read_text())["protocol"] == "custom"
