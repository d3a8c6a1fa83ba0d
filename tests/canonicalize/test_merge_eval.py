"""The merge evaluation: pairwise scores, the two golds, and the benchmark's synthetic corpus."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from bench.merge import MergeBench, bench_clustering, format_merge_bench
from bench.studies.merge_eval import (
    MentionSet,
    evaluate,
    macro,
    moviecoref_mentions,
    pair_score,
    pooled,
    stage_mentions,
)
from kgbuild.model import Entity, Scope


def test_pairwise_counts():
    score = pair_score("toy", predicted=[0, 0, 1, 2, 2], gold=["a", "a", "a", "b", "c"])
    assert (score.gold_pairs, score.predicted_pairs, score.correct_pairs) == (3, 2, 1)
    assert score.precision == 0.5 and score.recall == pytest.approx(1 / 3)
    assert score.f1 == pytest.approx(0.4)
    nothing = pair_score("none", predicted=[0, 1, 2], gold=["a", "a", "b"])
    assert nothing.precision is None and nothing.recall == 0.0 and nothing.f1 == 0.0
    total = pooled("all", [score, nothing])
    assert (total.gold_pairs, total.predicted_pairs, total.correct_pairs) == (4, 2, 1)
    assert macro([score, nothing])[0] == 0.5  # precision averaged where defined


def test_evaluate_scores_the_offline_merge(embedder):
    names = ["Robert Moseley", "Moseley", "MOSELEY", "Ann", "Young Ann", "Kitchen"]
    mentions = [Entity(id=f"m{i}", name=n, type="Location" if n == "Kitchen" else "Character",
                       scope=Scope.GLOBAL) for i, n in enumerate(names)]
    gold = ["moseley", "moseley", "moseley", "ann", "young ann", "kitchen"]
    [score] = evaluate([MentionSet(name="toy", mentions=mentions, gold=gold)], embedder)
    assert (score.gold_pairs, score.predicted_pairs, score.correct_pairs) == (3, 3, 3)


@pytest.mark.shared_data
def test_stage_mentions_carry_the_rename_map(shared_data):
    folder = next((shared_data / "stage" / "English").glob("en*"))
    mentions = stage_mentions(folder)
    names = [m.name for m in mentions.mentions]
    assert len(names) == len(set(names)) == len(mentions.gold)
    assert mentions.script and mentions.script.endswith("script.json")
    renames = json.loads((folder / "rename_map.json").read_text(encoding="utf-8"))
    carried = [n for n in names if n in renames]
    assert carried, "the rename-map aliases are mentions"
    label = dict(zip(names, mentions.gold, strict=True))
    linked = [a for a in carried if renames[a] in label]
    assert linked
    assert all(label[a] == label[renames[a]] for a in linked)
    assert all(m.type != "Event" for m in mentions.mentions)


@pytest.mark.shared_data
def test_moviecoref_mentions_exclude_pronouns(shared_data):
    labels = shared_data / "external" / "moviecoref" / "labels" / "bourne.csv"
    mentions = moviecoref_mentions(labels)
    names = {m.name for m in mentions.mentions}
    assert {"Landy", "LANDY", "Pamela Landy"} <= names
    assert not names & {"you", "You", "I", "his", "him", "she"}
    gold = dict(zip([m.name for m in mentions.mentions], mentions.gold, strict=True))
    assert gold["Landy"] == gold["LANDY"] == gold["Pamela Landy"]


@pytest.mark.shared_data
def test_moviecoref_mentions_carry_the_scenes_of_their_screenplay(shared_data):
    root = shared_data / "external" / "moviecoref"
    mentions = moviecoref_mentions(root / "labels" / "bourne.csv", root / "screenplay" / "bourne.txt")
    assert mentions.script and mentions.script.endswith("bourne.txt")
    scenes = {m.name: m.scenes for m in mentions.mentions}
    assert len(scenes["Bourne"]) > 10 and all(a < b for a, b in pairwise(scenes["Bourne"]))
    assert sum(bool(s) for s in scenes.values()) > 0.9 * len(scenes)
    assert moviecoref_mentions(root / "labels" / "bourne.csv").mentions[0].scenes == []


def test_benchmark_corpus_is_clustered_into_true_duplicates():
    run = bench_clustering(600)
    assert 590 <= run.mentions <= 610 and run.candidate_clusters > 50
    assert run.pair_precision > 0.9 and run.peak_mb > 0
    lines = format_merge_bench(MergeBench(clustering=[run]))
    assert "600 mentions" in lines[0] or f"{run.mentions:,} mentions" in lines[0]
