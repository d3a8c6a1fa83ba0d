"""The judge sheet of `kgbuild knows` answers: a seeded stratified sample, the sheet, the tally."""

from __future__ import annotations

import json

import pytest

from bench.studies.knows_sheet import JUDGE_TEXT, read_verdicts, sample_answers, tally, write_sheet
from kgbuild.errors import InputError


def test_the_sample_is_stratified_and_seeded(story_build):
    answers = sample_answers(story_build.graph, n=6, seed=1)
    assert [a.id for a in answers] == ["K01", "K02", "K03", "K04", "K05", "K06"]
    assert [a.item.label.value for a in answers] == ["future", "past-absence", "past-presence"] * 2
    assert answers == sample_answers(story_build.graph, n=6, seed=1)
    assert len({(a.character, a.item.id) for a in answers}) == 6


def test_sheet_then_marked_verdicts_then_tally(story_build, tmp_path):
    answers = sample_answers(story_build.graph, n=6, seed=1)
    sheet, listing = write_sheet(answers, story_build.screenplay, tmp_path, movie="m")
    text = sheet.read_text(encoding="utf-8")
    assert text.startswith(JUDGE_TEXT.read_text(encoding="utf-8").rstrip())
    assert text.count("Verdict (right / wrong / cant_tell): ") == 6 and "```text" in text
    assert [json.loads(line)["id"] for line in listing.read_text().splitlines()] == [a.id for a in answers]
    marked = text.replace("Verdict (right / wrong / cant_tell): \nReason: ",
                          "Verdict (right / wrong / cant_tell): right\nReason: line 12 shows it.", 5)
    (tmp_path / "marked.md").write_text(marked, encoding="utf-8")
    verdicts = read_verdicts(tmp_path / "marked.md")
    assert [v.verdict for v in verdicts] == ["right"] * 5 and verdicts[0].reason == "line 12 shows it."
    result = tally(answers, [*verdicts[:4], verdicts[4].model_copy(update={"verdict": "wrong"})])
    assert (result.right, result.judged, result.not_judged) == (4, 5, ["K06"])
    assert result.per_label["future"] == (2, 2) and result.per_label["past-presence"] == (1, 1)
    assert result.right_share == pytest.approx(0.8)


def test_bad_verdict_files_are_refused(story_build, tmp_path):
    answers = sample_answers(story_build.graph, n=3, seed=1)
    bad = tmp_path / "v.jsonl"
    bad.write_text('{"id": "K01", "verdict": "maybe"}\n')
    with pytest.raises(InputError, match="none of right, wrong, cant_tell"):
        read_verdicts(bad)
    bad.write_text('{"id": "K01", "verdict": "right"}\n{"id": "K01", "verdict": "wrong"}\n')
    with pytest.raises(InputError, match="K01 has more than one verdict"):
        read_verdicts(bad)
    bad.write_text('{"id": "K09", "verdict": "right"}\n')
    with pytest.raises(InputError, match="not in the sample: K09"):
        tally(answers, read_verdicts(bad))
