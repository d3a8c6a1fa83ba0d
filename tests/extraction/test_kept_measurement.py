"""The LLM path as measured, rebuilt from the kept answers with no live request.

Each set of tests/fixtures/llm/kept/ is one measured build (docs/results/llm-path.md, "The LLM path, measured"):
two STAGE dev movies, scenes 1-40, three chunk budgets. The test runs the same build in batch
mode, answers every exported round from the kept answers (which fails when a request payload
has changed since the measurement), and checks the requests, the estimated tokens and the
STAGE-KG counts against what was measured, then draws the truth audit's sample again and
re-tallies the kept verdicts (audit-<set>.json) into the supported shares docs/results/llm-path.md
reports. When a rule has removed facts since the judging, the sample drawn again holds a few facts
no reader has judged yet: audit-<set>.json lists them ('awaiting'), the test checks that exactly
those lack a verdict, and the shares are checked again once they are judged.
The score also writes the reference facts the graph misses (`kgbuild score --write-missed`);
for the sets with a missed-<set>.json the test draws their audit samples again and re-tallies
those verdicts too: the share of the misses the scenes support. The scripts and references come from
../shared/data.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from bench.studies.kept_answers import read_kept, rebuild
from kgbuild.evaluation.audit import sample_facts, tally
from kgbuild.evaluation.audit.types import Verdict
from kgbuild.extraction.llm.run import script_words
from kgbuild.graph import load_graph
from kgbuild.readers import read_screenplay
from kgbuild.scenes import parse_scene_ranges
from tests.cli_in_process import run_cli

pytestmark = pytest.mark.slow

KEPT = Path(__file__).resolve().parents[1] / "fixtures" / "llm" / "kept"
MEASURED = json.loads((KEPT / "measured.json").read_text(encoding="utf-8"))["sets"]


@functools.cache
def _words(script: Path, scenes: str) -> int:
    """The words of `scenes` of `script` (the three sets of a language share one script: it is read once)."""
    return script_words(read_screenplay(script), parse_scene_ranges(scenes))


def _in_process(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """The rebuild's `kgbuild` commands, run in this process (tests/cli_in_process.py)."""
    ran = run_cli(*args, env=env)
    return ran.returncode, ran.stderr


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_the_kept_answers_rebuild_the_measured_graph(name, shared_data, tmp_path):
    measured = MEASURED[name]
    build = [str(shared_data / measured["script"]), "--scenes", measured["scenes"], "--budget",
             str(measured["budget"]), "--llm-model", measured["model"]]
    # The words the tokens per 1,000 words of docs/results/llm-path.md divide by.
    assert _words(shared_data / measured["script"], measured["scenes"]) == measured["words"]
    rebuilt = rebuild(read_kept(KEPT / f"{name}.jsonl"), build, tmp_path / "out", tmp_path / "cache", run=_in_process)
    assert (rebuilt.requests, rebuilt.prompt_tokens, rebuilt.completion_tokens) == (
        measured["requests"], measured["prompt_tokens"], measured["completion_tokens"])
    scores = tmp_path / "score.json"
    reference = shared_data / measured["reference"]
    scored = run_cli("score", str(rebuilt.graph), str(reference), "--scenes", measured["scenes"], "--json", str(scores),
                     "--write-missed", str(tmp_path / "missed"))
    assert scored.returncode == 0, scored.stderr
    got = json.loads(scores.read_text(encoding="utf-8"))
    for part in ("entities", "relations"):
        assert {k: got[part][k] for k in ("tp", "fp", "fn")} == measured[part], part
    audit = json.loads((KEPT / f"audit-{name}.json").read_text(encoding="utf-8"))
    sample = sample_facts(load_graph(rebuilt.graph), relations=audit["relations"], entities=audit["entities"],
                          seed=audit["seed"])
    assert [(f.id, f.ref) for f in sample.facts] == [(f["id"], f["ref"]) for f in audit["facts"]]
    report = tally(sample, [Verdict(**v) for v in audit["verdicts"]])
    # A rule that removed facts draws some new ones into the sample; they wait for a reader, named.
    assert report.not_judged == audit.get("awaiting", [])
    if not report.not_judged:
        assert (report.relations.share, report.entities.share) == pytest.approx(
            (audit["reported"]["relations"], audit["reported"]["entities"]))
    missed_file = KEPT / f"missed-{name}.json"
    if not missed_file.exists():
        return
    missed = json.loads(missed_file.read_text(encoding="utf-8"))
    # The misses are the score's false negatives: every one of them, no more.
    counts = {"relations": measured["relations"]["fn"], "entities": measured["entities"]["fn"]}
    for part in ("relations", "entities"):
        graph = load_graph(tmp_path / "missed" / part / "graph.json")
        assert len(getattr(graph, part)) == counts[part], part
        kept = missed[part]
        sample = sample_facts(graph, relations=kept["relations"], entities=kept["entities"], seed=kept["seed"])
        assert [(f.id, f.ref) for f in sample.facts] == [(f["id"], f["ref"]) for f in kept["facts"]], part
        report = tally(sample, [Verdict(**v) for v in kept["verdicts"]])
        assert report.not_judged == []
        assert getattr(report, part).share == pytest.approx(kept["reported"]), part
