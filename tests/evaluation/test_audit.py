"""The truth audit: sampling, the sheet, judge requests, verdict tallies and `kgbuild audit`.

The fixture (tests/fixtures/audit/) is a hand-made graph of a four-scene screenplay, the sample
`kgbuild audit --relations 14` draws from it (facts.jsonl), and verdicts a person gave on that
sample's sheet (verdicts.jsonl). The expected shares below are counted by hand from those
verdicts.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.evaluation.audit import (
    AuditFact,
    allocate,
    fact_section,
    judge_live,
    judge_request,
    judge_text,
    read_sheet_verdicts,
    read_verdicts,
    render_sheet,
    request_lines,
    sample_facts,
    tally,
    verdicts_from_batch,
    wilson,
)
from kgbuild.evaluation.audit.files import judge_sections, load_screenplay
from kgbuild.evaluation.audit.scenes import scene_text
from kgbuild.evaluation.audit.types import JudgeAnswer
from kgbuild.graph import entity_id, load_graph, relation_id
from kgbuild.llm.client import LLMClient
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.model import (
    Element,
    ElementKind,
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Relation,
    Scene,
    Screenplay,
    Source,
    SourceFormat,
)
from kgbuild.schema import load_schema
from kgbuild.testing import FakeOpenAIServer
from tests.cli_in_process import run_cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "audit"
REPO = FIXTURE.parent.parent.parent
RELATIONS = 14  # the --relations the fixture sample and verdicts were made with
Z = 1.959963984540054


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return load_graph(FIXTURE / "graph.json")


@pytest.fixture(scope="module")
def screenplay(graph) -> Screenplay:
    return load_screenplay(FIXTURE / "graph.json", graph)


@pytest.fixture(scope="module")
def sample(graph):
    return sample_facts(graph, relations=RELATIONS, entities=50, seed=0)


def verdict_lines() -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / "verdicts.jsonl").read_text().splitlines()]


def big_graph() -> KnowledgeGraph:
    """A graph with lopsided type sizes: 100 speaks_to, 20 located_at, 3 kinship_with; 40/12/2 entities."""
    ev = [Evidence(scene=1, lines=(1, 1), quote="x", producer="rule:test")]
    entities = ([Entity(id=entity_id("Character", f"c{i}"), name=f"c{i}", type="Character", evidence=ev)
                 for i in range(40)]
                + [Entity(id=entity_id("Location", f"l{i}"), name=f"l{i}", type="Location", evidence=ev)
                   for i in range(12)]
                + [Entity(id=entity_id("Object", f"o{i}"), name=f"o{i}", type="Object", evidence=ev)
                   for i in range(2)])
    relations = []
    for type_name, n in (("speaks_to", 100), ("located_at", 20), ("kinship_with", 3)):
        for i in range(n):
            src, tgt = entities[i % 40].id, entities[(i + 1 + n) % 40].id
            relations.append(Relation(id=relation_id(src, type_name, tgt) + f"-{i}", source=src, target=tgt,
                                      type=type_name, evidence=ev))
    return KnowledgeGraph(movie=MovieInfo(title="big", language="en"), entities=entities, relations=relations)


# -- sampling -----------------------------------------------------------------------------------

def test_allocate_floor_proportional_and_exact_total():
    counts = {"speaks_to": 8, "located_at": 6, "kinship_with": 2, "possesses": 1}
    assert allocate(counts, 14) == {"kinship_with": 2, "located_at": 5, "possesses": 1, "speaks_to": 6}
    assert allocate(counts, 100) == dict(sorted(counts.items()))
    # Floors of 5, then the remaining 10 in proportion to what is left (25 : 95).
    assert allocate({"a": 30, "b": 100}, 20) == {"a": 7, "b": 13}
    # Floors alone exceed the total: turns, largest type first.
    assert allocate({"a": 3, "b": 10, "c": 1, "d": 7}, 12) == {"a": 3, "b": 4, "c": 1, "d": 4}
    assert allocate({"a": 3, "b": 10}, 0) == {"a": 0, "b": 0}
    for total in range(0, 40):
        shares = allocate({"a": 50, "b": 7, "c": 2, "d": 1}, total)
        assert sum(shares.values()) == total
        if total >= 5 + 5 + 2 + 1:
            assert shares["b"] >= 5 and shares["c"] == 2 and shares["d"] == 1


def test_sampling_is_stratified_deterministic_and_numbered():
    kg = big_graph()
    first = sample_facts(kg, relations=30, entities=15, seed=7)
    assert first == sample_facts(kg, relations=30, entities=15, seed=7)
    assert first.facts != sample_facts(kg, relations=30, entities=15, seed=8).facts
    relations = [f for f in first.facts if f.kind == "relation"]
    entities = [f for f in first.facts if f.kind == "entity"]
    assert len(relations) == 30 and len(entities) == 15
    assert Counter(f.type for f in relations) == {"speaks_to": 20, "located_at": 7, "kinship_with": 3}
    assert Counter(f.type for f in entities) == {"Character": 8, "Location": 5, "Object": 2}
    assert [f.id for f in relations] == [f"R{i:03d}" for i in range(1, 31)]
    assert [f.id for f in entities] == [f"E{i:03d}" for i in range(1, 16)]
    assert len({f.ref for f in first.facts}) == 45
    assert first.relation_counts == {"kinship_with": 3, "located_at": 20, "speaks_to": 100}
    # The graph's order does not matter, only its content.
    shuffled = kg.model_copy(update={"relations": kg.relations[::-1], "entities": kg.entities[::-1]})
    assert sample_facts(shuffled, relations=30, entities=15, seed=7) == first


def test_fixture_sample_is_the_stored_one(sample):
    stored = [AuditFact.model_validate_json(line) for line in (FIXTURE / "facts.jsonl").read_text().splitlines()]
    assert sample.facts == stored
    assert Counter(f.type for f in sample.facts) == {
        "speaks_to": 6, "located_at": 5, "kinship_with": 2, "possesses": 1,
        "Character": 4, "Location": 4, "Object": 2}


# -- the sheet ----------------------------------------------------------------------------------

def test_sheet_has_judge_text_fact_evidence_and_cited_scene_text(sample, screenplay):
    sheet = render_sheet(sample, screenplay, load_schema())
    assert sheet.startswith(judge_text().rstrip())
    assert "# Truth audit: judge instructions" in sheet and "cant_tell" in judge_text()
    r001 = sheet[sheet.index("### R001"):sheet.index("### R002")]
    assert 'Character "Owen" —kinship_with→ Character "Nora Hale"' in r001
    assert load_schema().relation("kinship_with").description in r001
    assert 'scene 1, lines 11–12, rule:fixture: "Grandma, why do we still light it?"' in r001
    assert "   12 >           Grandma, why do we still light it?" in r001
    assert "    4   EXT. LIGHTHOUSE - DAY" in r001
    assert "Verdict (supported / not_supported / cant_tell):" in r001
    # A fact citing no evidence is listed as such, with no verdict to give.
    r008 = sheet[sheet.index("### R008"):sheet.index("### R009")]
    assert "**Evidence:** none" in r008 and "Verdict" not in r008
    # Two cited scenes are shown whole; a third as an excerpt around its cited lines, never left out.
    e001 = sheet[sheet.index("### E001"):sheet.index("### E002")]
    assert "**Scene 1** (lines" in e001 and "**Scene 2** (lines" in e001
    assert "**Scene 4** (excerpt around the cited lines)" in e001
    assert "not shown" not in e001
    cited = {(e.scene, e.lines[0]) for f in sample.facts if f.id == "E001" for e in f.evidence}
    scene4 = e001[e001.index("**Scene 4**"):]
    assert all(f"{first:>5} >" in scene4 for scene, first in cited if scene == 4)
    assert 'Aliases: "NORA"' in e001


def test_long_scene_is_cut_around_the_evidence():
    elements = [Element(kind=ElementKind.SCENE_HEADING, text="INT. HALL - DAY", line_start=10, line_end=10)]
    elements += [Element(kind=ElementKind.ACTION, text=f"Action {n}.", line_start=n, line_end=n)
                 for n in range(12, 212)]
    scene = Scene(index=1, heading="INT. HALL - DAY", elements=elements, line_span=(10, 211))
    text = scene_text(scene, [(150, 151)])
    lines = text.splitlines()
    numbered = [line for line in lines if line != "[...]"]
    assert len(numbered) == 60
    assert numbered[0] == "   10   INT. HALL - DAY"
    assert "  150 > Action 150." in lines and "  151 > Action 151." in lines
    assert lines[1] == "[...]" and lines[-1] == "[...]"
    kept = [int(line.split()[0]) for line in numbered[1:]]
    assert kept == list(range(121, 180))
    # Cited lines are never cut, even when there are more of them than the limit.
    spread = scene_text(scene, [(20, 20), (90, 90), (200, 200)], limit=3)
    assert all(f"{n} > Action {n}." in spread for n in (20, 90, 200))
    assert spread.splitlines()[0] == "   10   INT. HALL - DAY"
    short = scene_text(scene.model_copy(update={"elements": elements[:5]}), [(12, 12)])
    assert "[...]" not in short and "   12 > Action 12." in short



def test_a_cue_is_shown_as_the_script_prints_it():
    # Evidence may quote a cue's own words ('阿明摇摇头' is read as 阿明's cue with nothing said);
    # the sheet shows them, not only the speaker they name.
    elements = [Element(kind=ElementKind.SCENE_HEADING, text="12、客厅，日，内", line_start=1, line_end=1),
                Element(kind=ElementKind.CHARACTER, text="阿明摇摇头", speaker="阿明", line_start=2, line_end=2),
                Element(kind=ElementKind.CHARACTER, text="MARKUS (O.S)", speaker="MARKUS", extensions=["O.S."],
                        line_start=3, line_end=3)]
    scene = Scene(index=1, heading="客厅", elements=elements, line_span=(1, 3))
    text = scene_text(scene, [(2, 2)])
    assert "    2 >                     阿明摇摇头" in text.splitlines()
    assert "MARKUS (O.S)" in text

# -- the tally ----------------------------------------------------------------------------------

def test_tally_of_the_fixture_verdicts_matches_the_hand_count(sample):
    report = tally(sample, read_verdicts((FIXTURE / "verdicts.jsonl").read_text()))
    by_type = {t.type: t for t in report.relation_types + report.entity_types}
    # (in graph, judged, supported, not supported, cant tell), counted from verdicts.jsonl by hand;
    # R008 (possesses) cites no evidence and fails without a verdict.
    expected = {"kinship_with": (2, 2, 1, 1, 0), "located_at": (6, 5, 2, 2, 1), "possesses": (1, 1, 0, 1, 0),
                "speaks_to": (8, 6, 3, 3, 0), "Character": (4, 4, 4, 0, 0), "Location": (4, 4, 3, 1, 0),
                "Object": (2, 2, 1, 1, 0)}
    for name, (_in_graph, judged, supported, _not_supported, _cant_tell) in expected.items():
        t = by_type[name]
        assert (t.in_graph, t.judged, t.supported, t.not_supported, t.cant_tell) == expected[name], name
        assert t.share == pytest.approx(supported / judged)
    # Wilson 95% intervals (published values: 3/6 -> .188-.812, 2/5 -> .118-.769, 0/1 -> 0-.793).
    assert (by_type["speaks_to"].low, by_type["speaks_to"].high) == pytest.approx((0.18761, 0.81239), abs=1e-5)
    assert (by_type["located_at"].low, by_type["located_at"].high) == pytest.approx((0.11762, 0.76928), abs=1e-5)
    assert (by_type["possesses"].low, by_type["possesses"].high) == pytest.approx((0.0, 0.79345), abs=1e-5)
    assert (by_type["Character"].low, by_type["Character"].high) == pytest.approx((0.51011, 1.0), abs=1e-5)
    # Weighted share of relations: (2 * 1/2 + 6 * 2/5 + 1 * 0 + 8 * 3/6) / 17.
    assert report.relations.share == pytest.approx(7.4 / 17)
    # Stratified variance: located_at and speaks_to add w² * fpc * q(1-q)/n with the Wilson-centred
    # q; kinship_with and possesses were judged in full (fpc 0).
    z2 = Z * Z
    q_loc, q_spk = (2 + z2 / 2) / (5 + z2), (3 + z2 / 2) / (6 + z2)
    variance = ((6 / 17) ** 2 * (1 / 5) * q_loc * (1 - q_loc) / 5
                + (8 / 17) ** 2 * (2 / 7) * q_spk * (1 - q_spk) / 6)
    assert q_spk == pytest.approx(0.5)
    assert report.relations.low == pytest.approx(7.4 / 17 - Z * math.sqrt(variance))
    assert report.relations.high == pytest.approx(7.4 / 17 + Z * math.sqrt(variance))
    assert (report.relations.low, report.relations.high) == pytest.approx((0.31343, 0.55716), abs=1e-5)
    assert (report.relations.judged, report.relations.supported, report.relations.cant_tell) == (14, 6, 1)
    assert report.relations.coverage == 1.0
    # Every entity was judged: the weighted share (4 + 4 * 3/4 + 2 * 1/2) / 10 has no sampling error.
    assert report.entities.share == pytest.approx(0.8)
    assert (report.entities.low, report.entities.high) == pytest.approx((0.8, 0.8))
    assert report.not_judged == []
    assert next(f for f in report.facts if f.fact_id == "R008").reason == "the fact cites no evidence"


def test_wilson_and_partial_verdicts(sample):
    assert wilson(0, 0) is None
    assert wilson(5, 6) == pytest.approx((0.43650, 0.96995), abs=1e-5)
    partial = [v for v in read_verdicts((FIXTURE / "verdicts.jsonl").read_text()) if v.fact_id != "R001"]
    report = tally(sample, partial)
    assert report.not_judged == ["R001"]
    kinship = next(t for t in report.relation_types if t.type == "kinship_with")
    assert (kinship.sampled, kinship.judged, kinship.share) == (2, 1, 0.0)
    # Only speaks_to judged: the weighted share covers its 8 of 17 relations.
    only = tally(sample, [v for v in partial if v.fact_id in {"R009", "R010"}])
    assert only.relations.coverage == pytest.approx(9 / 17)  # speaks_to and the no-evidence possesses
    assert only.relations.share == pytest.approx(8 / 9 * 1.0 + 1 / 9 * 0.0)


def test_bad_verdicts_are_refused_with_a_clear_error(sample):
    with pytest.raises(InputError, match=r"v\.jsonl:2: unknown verdict 'yes' for 'R002'"):
        read_verdicts('{"fact_id": "R001", "verdict": "supported", "reason": ""}\n'
                      '{"fact_id": "R002", "verdict": "yes", "reason": ""}\n', path="v.jsonl")
    with pytest.raises(InputError, match="verdic"):
        read_verdicts('{"fact_id": "R001", "verdic": "supported"}\n')
    with pytest.raises(InputError, match="not JSON"):
        read_verdicts("R001 supported\n")
    ok = read_verdicts('{"fact_id": "R001", "verdict": "supported", "reason": "r"}\n')
    with pytest.raises(InputError, match=r"facts not in this sample \(R999\)"):
        tally(sample, [*ok, *read_verdicts('{"fact_id": "R999", "verdict": "supported"}\n')])
    with pytest.raises(InputError, match="more than one verdict for R001"):
        tally(sample, ok + ok)
    with pytest.raises(InputError, match="R008 cites no evidence, so it cannot be supported"):
        tally(sample, read_verdicts('{"fact_id": "R008", "verdict": "supported"}\n'))


def test_marked_sheet_reads_back_as_the_same_verdicts(sample, screenplay):
    sheet = render_sheet(sample, screenplay, load_schema())
    given = {v["fact_id"]: v for v in verdict_lines()}
    spelled = {"supported": "Supported", "not_supported": "not supported", "cant_tell": "can't tell"}
    out, current = [], None
    for line in sheet.splitlines():
        if m := re.match(r"^### ([RE]\d+)", line):
            current = m.group(1)
        if line.startswith("Verdict (") and current in given:
            line += " " + spelled[given[current]["verdict"]]
        if line.startswith("Reason:") and current in given:
            line += " " + given[current]["reason"]
        out.append(line)
    verdicts = read_sheet_verdicts("\n".join(out), path="sheet.md")
    assert [(v.fact_id, v.verdict, v.reason) for v in verdicts] == [
        (v["fact_id"], v["verdict"], v["reason"]) for v in verdict_lines()]
    assert read_sheet_verdicts(sheet) == []
    with pytest.raises(InputError, match=r"sheet\.md:\d+: R001: unknown verdict 'maybe'"):
        read_sheet_verdicts(re.sub(r"^(Verdict \(.*\):)$", r"\1 maybe", sheet, count=1, flags=re.M),
                            path="sheet.md")


# -- judge requests -----------------------------------------------------------------------------

def test_requests_are_batch_api_lines_with_the_judge_text_and_a_strict_schema(sample, screenplay):
    sections = judge_sections(sample, screenplay, load_schema())
    assert "R008" not in sections and len(sections) == len(sample.facts) - 1
    lines = [json.loads(line) for line in request_lines(sections, model="judge-model")]
    first = lines[0]
    assert first["custom_id"] == "R001" and first["method"] == "POST" and first["url"] == "/v1/chat/completions"
    body = first["body"]
    assert body["model"] == "judge-model" and body["temperature"] == 0.0
    assert body["messages"][0] == {"role": "system", "content": judge_text()}
    user = body["messages"][1]["content"]
    assert user.startswith("### R001 · kinship_with") and "Grandma, why do we still light it?" in user
    assert "Verdict (" not in user
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["required"] == ["verdict", "reason"]
    assert schema["properties"]["verdict"]["enum"] == ["supported", "not_supported", "cant_tell"]
    assert [line["custom_id"] for line in lines] == list(sections)


def batch_output(verdicts: list[dict]) -> str:
    rows = []
    for v in verdicts:
        content = json.dumps({"verdict": v["verdict"], "reason": v["reason"]})
        rows.append({"custom_id": v["fact_id"], "error": None, "response": {"status_code": 200, "body": {
            "model": "judge-model-2025", "choices": [{"message": {"role": "assistant", "content": content},
                                                      "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 30}}}})
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_batch_results_become_verdicts_and_bad_lines_are_reported():
    good = verdict_lines()[:3]
    text = batch_output(good)
    text += json.dumps({"custom_id": "R004", "response": {"status_code": 500, "body": {}}, "error": None}) + "\n"
    text += json.dumps({"custom_id": "R005", "response": {"status_code": 200, "body": {"choices": [
        {"message": {"content": '{"verdict": "probably", "reason": "x"}'}}]}}}) + "\n"
    text += "not json\n"
    batch = verdicts_from_batch(text, path="results.jsonl")
    assert [(v.fact_id, v.verdict) for v in batch.verdicts] == [(v["fact_id"], v["verdict"]) for v in good]
    assert batch.lines == 6 and len(batch.errors) == 3
    assert batch.errors[0].startswith("results.jsonl:4: R004: no successful response (status 500)")
    assert batch.errors[1].startswith("results.jsonl:5: R005:")
    assert batch.errors[2].startswith("results.jsonl:6: ?: not JSON")


def fixture_judge(text: str) -> str:
    """A judge that answers each fact's request with the fixture verdict of its fact id."""
    given = {v["fact_id"]: v for v in verdict_lines()}
    fact_id = re.match(r"### ([RE]\d+)", text).group(1)
    return json.dumps({"verdict": given[fact_id]["verdict"], "reason": given[fact_id]["reason"]})


def test_live_judging_goes_through_the_client_and_its_cache(sample, screenplay, tmp_path):
    sections = judge_sections(sample, screenplay, load_schema())
    settings = LLMSettings(model="judge-model", cache_dir=tmp_path / "cache", concurrency=4)
    backend = ScriptedBackend(lambda request: fixture_judge(request.messages[1].content))
    run = judge_live(sections, settings, backend=backend)
    assert not run.failures and len(run.verdicts) == len(sections)
    assert run.usage.total.requests == len(sections)
    report = tally(sample, run.verdicts)
    assert report.relations.share == pytest.approx(7.4 / 17) and report.entities.share == pytest.approx(0.8)
    # The export sends the same request as the client: a rerun is answered from the cache.
    client = LLMClient(backend, "judge-model")
    assert client.request_for(judge_request("judge-model", sections["R001"]).messages, JudgeAnswer) == \
        judge_request("judge-model", sections["R001"])
    again = judge_live(sections, settings, backend=ScriptedBackend(RuntimeError("no request expected")))
    assert again.usage.total.requests == 0 and again.verdicts == run.verdicts
    # A fact whose replies never validate stays unjudged, recorded with its reason.
    broken = judge_live({"R001": sections["R001"]}, settings.model_copy(update={"model": "other"}),
                        backend=ScriptedBackend('{"verdict": "maybe", "reason": "x"}'))
    assert broken.verdicts == [] and broken.failures[0].fact_id == "R001"


# -- the command line ---------------------------------------------------------------------------

@pytest.fixture
def build_dir(tmp_path) -> Path:
    folder = tmp_path / "build"
    folder.mkdir()
    for name in ("graph.json", "screenplay.json"):
        shutil.copy(FIXTURE / name, folder / name)
    return folder


def test_cli_round_trip_sheet_then_verdicts(build_dir):
    runner = CliRunner()
    result = runner.invoke(cli, ["audit", str(build_dir), "--relations", str(RELATIONS)])
    assert result.exit_code == 0, result.output
    audit = build_dir / "audit"
    assert {p.name for p in audit.iterdir()} == {"sheet.md", "facts.jsonl", "requests.jsonl",
                                                  "sheet-relations.md", "sheet-entities.md"}
    assert (audit / "facts.jsonl").read_text() == (FIXTURE / "facts.jsonl").read_text()
    # Each part sheet carries the whole judge text and only its kind of fact; together they hold
    # every section of the whole sheet.
    whole = (audit / "sheet.md").read_text()
    parts = {kind: (audit / f"sheet-{kind}.md").read_text() for kind in ("relations", "entities")}
    for kind, text in parts.items():
        assert text.startswith(judge_text().rstrip()), kind
        assert "## Verdicts" in text and "## Answer" in text and "# Audit sheet:" in text, kind
    assert "### R001" in parts["relations"] and "### E001" not in parts["relations"]
    assert "### E001" in parts["entities"] and "### R001" not in parts["entities"]
    def sections(text: str) -> list[str]:
        return sorted(s.split("\n## ")[0].rstrip() for s in text.split("\n### ")[1:])

    assert sections(whole) == sorted(s for text in parts.values() for s in sections(text))
    assert len((audit / "requests.jsonl").read_text().splitlines()) == 23
    assert "Sampled 14 of 17 relations (4 types) and 10 of 10 entities (3 types), seed 0" in result.output
    result = runner.invoke(cli, ["audit", str(build_dir / "graph.json"), "--relations", str(RELATIONS),
                                 "--verdicts", str(FIXTURE / "verdicts.jsonl")])
    assert result.exit_code == 0, result.output
    assert "Relations: weighted supported share 43.5% (95% 31.3–55.7%)" in result.output
    assert "Entities: weighted supported share 80.0% (95% 80.0–80.0%)" in result.output
    report = json.loads((audit / "audit.json").read_text())
    assert report["relations"]["share"] == pytest.approx(7.4 / 17)
    assert "| located_at | 6 | 5 | 5 | 2 | 2 | 1 | 40.0% | 11.8–76.9% |" in (audit / "audit.md").read_text()
    # Tallying with other sample options than the sheet's is refused.
    wrong = runner.invoke(cli, ["audit", str(build_dir), "--verdicts", str(FIXTURE / "verdicts.jsonl")])
    assert isinstance(wrong.exception, InputError) and "another sample" in str(wrong.exception)


def test_cli_batch_results_and_live_judge(build_dir, tmp_path):
    runner = CliRunner()
    results = tmp_path / "results.jsonl"
    results.write_text(batch_output(verdict_lines()))
    out = tmp_path / "out"
    result = runner.invoke(cli, ["audit", str(build_dir), "--relations", str(RELATIONS), "-o", str(out),
                                 "--results", str(results)])
    assert result.exit_code == 0, result.output
    assert len((out / "verdicts.jsonl").read_text().splitlines()) == 23
    assert json.loads((out / "audit.json").read_text())["entities"]["share"] == pytest.approx(0.8)
    with FakeOpenAIServer(responder=lambda body: fixture_judge(body["messages"][1]["content"])) as server:
        live = tmp_path / "live"
        result = runner.invoke(cli, ["audit", str(build_dir), "--relations", str(RELATIONS), "-o", str(live),
                                     "--judge", "--llm-model", "judge-model", "--llm-base-url", server.base_url,
                                     "--llm-cache-dir", str(tmp_path / "cache")])
        assert result.exit_code == 0, result.output
        assert server.count() == 23
    assert json.loads((live / "audit.json").read_text())["relations"]["share"] == pytest.approx(7.4 / 17)
    both = runner.invoke(cli, ["audit", str(build_dir), "--judge", "--results", str(results)])
    assert both.exit_code == 2 and "at most one of" in both.output


def test_cli_unknown_verdict_exits_2_with_one_line(build_dir, tmp_path):
    bad = tmp_path / "verdicts.jsonl"
    bad.write_text('{"fact_id": "R001", "verdict": "true", "reason": ""}\n')
    result = run_cli("audit", str(build_dir), "--verdicts", str(bad))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"kgbuild: error: {bad}:1: unknown verdict 'true' for 'R001'; use one of supported, not_supported, cant_tell"]


def test_cli_refuses_a_screenplay_of_another_script(build_dir, tmp_path):
    other = Screenplay.model_validate_json((build_dir / "screenplay.json").read_text())
    other = other.model_copy(update={"source": Source(path="x.fountain", format=SourceFormat.FOUNTAIN,
                                                      sha256="0" * 64, size_bytes=1)})
    (build_dir / "screenplay.json").write_text(other.model_dump_json())
    result = CliRunner().invoke(cli, ["audit", str(build_dir)])
    assert isinstance(result.exception, InputError) and "not the one the graph was built from" in str(result.exception)
    # A script file works as well as the screenplay.json.
    result = CliRunner().invoke(cli, ["audit", str(build_dir), "--screenplay", str(FIXTURE / "lighthouse.fountain"),
                                      "-o", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "   12 >           Grandma" in (tmp_path / "a" / "sheet.md").read_text()


def test_fact_section_for_a_judge_has_no_verdict_line(sample, screenplay):
    fact = sample.facts[0]
    assert "Verdict (" not in fact_section(fact, screenplay, load_schema(), verdict_lines=False)
    assert "Verdict (" in fact_section(fact, screenplay, load_schema())


def test_cli_apply_turns_not_supported_verdicts_into_rejections(build_dir, tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["audit", str(build_dir), "--relations", str(RELATIONS)]).exit_code == 0
    corrections = tmp_path / "movie.corrections.jsonl"
    args = ["audit", str(build_dir), "--relations", str(RELATIONS), "--verdicts",
            str(FIXTURE / "verdicts.jsonl"), "--apply", "--corrections", str(corrections)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    verdicts = [json.loads(line) for line in (FIXTURE / "verdicts.jsonl").read_text().splitlines()]
    facts = {f["id"]: f["ref"] for f in map(json.loads, (FIXTURE / "facts.jsonl").read_text().splitlines())}
    wanted = {facts[v["fact_id"]] for v in verdicts if v["verdict"] == "not_supported"}
    lines = [json.loads(line) for line in corrections.read_text().splitlines()]
    assert {c["fact"] for c in lines} == wanted and all(c["action"] == "reject" for c in lines)
    # Applying the same verdicts again adds nothing.
    again = runner.invoke(cli, args)
    assert f"Added 0 rejections to {corrections} ({len(wanted)} were there already)" in again.output
    assert runner.invoke(cli, ["audit", str(build_dir), "--apply"]).exit_code == 2
