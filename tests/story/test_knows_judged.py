"""30 `kgbuild knows` answers on Big Fish, judged by a reader who did not write the rules,
re-tallied from the kept verdicts (tests/fixtures/story/judged/big-fish-knows.json).

The fixture keeps the sampled questions (character, scene, item id, label, evidence locations)
and the verdicts, not the screenplay's words. With ../shared/data present, the offline build of
the script still gives each judged answer, so the verdicts still judge what the code answers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.studies.knows_sheet import Answer, Verdict, tally
from kgbuild.pipeline import run_build
from kgbuild.story.knows import knows
from kgbuild.story.order import Order

JUDGED = Path(__file__).resolve().parents[1] / "fixtures" / "story" / "judged" / "big-fish-knows.json"


@pytest.fixture(scope="module")
def judged() -> dict:
    return json.loads(JUDGED.read_text(encoding="utf-8"))


def test_the_judged_answers_meet_the_bar_even_counting_the_flagged_one_wrong(judged):
    verdicts = {v["id"]: v["verdict"] for v in judged["verdicts"]}
    labels = {a["id"]: a["label"] for a in judged["answers"]}
    assert len(verdicts) == 30 and set(verdicts) == set(labels)
    assert Counter(labels.values()) == {"future": 10, "past-absence": 10, "past-presence": 10}
    right = sum(v == "right" for v in verdicts.values())
    assert right == 30
    # The bar (>= 90% right) holds when the answer the judge flagged is counted wrong.
    assert (right - len(judged["flagged"])) / len(verdicts) >= 0.90


def test_the_build_still_gives_the_judged_answers(shared_data, judged):
    """Every judged answer is still what `kgbuild knows` answers: the same item, label and first
    scene for the same character and scene, so the verdicts still judge the code. A rule that
    adds or removes an unrelated fact changes which answers a fresh sample would draw, not these."""
    result = run_build(shared_data / "screenplays" / "big-fish.fountain")
    answers = []
    for kept in judged["answers"]:
        items = {i.id: i for i in knows(result.graph, kept["character"], kept["scene"], order=judged["order"]).items}
        item = items.get(kept["item_id"])
        assert item is not None, kept
        assert (item.label.value, item.first_scene) == (kept["label"], kept["first_scene"]), kept
        answers.append(Answer(id=kept["id"], character=kept["character"], scene=kept["scene"],
                              order=Order(judged["order"]), item=item))
    report = tally(answers, [Verdict(id=v["id"], verdict=v["verdict"], reason="") for v in judged["verdicts"]])
    assert report.not_judged == [] and report.right == 30
    assert report.per_label == {"future": (10, 10), "past-absence": (10, 10), "past-presence": (10, 10)}
