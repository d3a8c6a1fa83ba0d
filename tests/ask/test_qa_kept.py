"""The STAGE-QA answers as measured, replayed with no live request.

tests/fixtures/ask/kept/ holds the answers and the judge's verdicts of the measurement in
docs/results/questions.md (100 development questions, offline builds, answers and verdicts by
people playing gpt-4o), packed without the screenplays' words. The test builds one of the
movies offline, asks `kgbuild qa-eval --answers` its drawn questions in batch mode and answers
every exported round from the kept answers: a request whose payload changed since the
measurement has no kept answer and fails. It then checks each question's verdict and miss
against the measurement. The script and questions come from ../shared/data.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.studies.kept_answers import read_kept, replay_rounds

KEPT = Path(__file__).resolve().parents[1] / "fixtures" / "ask" / "kept"
MEASURED = json.loads((KEPT / "qa-measured.json").read_text(encoding="utf-8"))
MOVIE = "en049957b3c0b54085baddbec23e00506c"  # Birthday Girl: 10 of the drawn questions


@pytest.mark.shared_data
def test_the_kept_answers_replay_the_measured_verdicts(shared_data, tmp_path):
    movie = shared_data / "stage" / "English" / MOVIE
    kept = MEASURED["movies"][MOVIE]["questions"]
    with open(movie / "question_pairs.csv", encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = [r for r in reader if r["id"] in kept]
        fields = reader.fieldnames
    assert len(rows) == len(kept) == 10
    questions = tmp_path / "question_pairs.csv"
    with open(questions, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    build = tmp_path / "build"
    subprocess.run([sys.executable, "-m", "kgbuild", "build", str(movie / "script.json"), "-o", str(build), "-q"],
                   check=True, capture_output=True)
    result = tmp_path / "qa.json"
    done = replay_rounds(read_kept(KEPT / "qa-en.jsonl"),
                         ["qa-eval", str(build), str(questions), "--answers", "--llm-model", "gpt-4o",
                          "--json", str(result)], tmp_path / "rounds", tmp_path / "cache")
    # Two rounds: the answers, then the judge's requests; one answer and one verdict per question.
    assert (done.rounds, done.requests) == (2, 20)
    answered = json.loads(result.read_text(encoding="utf-8"))["answers"]["questions"]
    got = {q["id"]: {"qa_type": q["qa_type"], "outcome": q["outcome"], "miss": q["miss"]} for q in answered}
    assert got == kept
    assert sum(q["outcome"] == "right" for q in got.values()) == 5
