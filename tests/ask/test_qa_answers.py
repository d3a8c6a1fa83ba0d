"""`qa-eval --answers`: answers from ask's evidence, judged against the gold answers, live and through
two Batch API round trips (answers, then the judge), with the real `openai` client and the fake server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.ask import StoryIndex
from kgbuild.cli import cli
from kgbuild.evaluation.qa_answers import (
    AnsweredQuestion,
    answer_and_judge,
    answer_tables,
    judge_text,
    prepare_movie,
)
from kgbuild.evaluation.qa_eval import read_questions, script_titles
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.testing import FakeOpenAIServer
from tests.ask.conftest import FIXTURE

QUESTIONS = """id,scene,question,answer,evidence,qa_type
1,5、INT. LIGHTHOUSE - LAMP ROOM - NIGHT,How does Nora fix the broken gear?,She replaces the cracked spring with a \
hairpin.,She replaces the cracked spring with a hairpin.,causal/relational queries
2,2、EXT. HARBOUR - DAY,"In [2、EXT. HARBOUR - DAY], What does Ivers give Owen?",A tin whistle.,hands Owen a tin \
whistle,objects/props
3,3、INT. LIGHTHOUSE - KITCHEN - MORNING,Where does Owen hide the whistle?,Under his pillow.,Owen hides the tin \
whistle under his pillow.,detailed description
4,4、EXT. CLIFF PATH - NIGHT,Who watches from the stairs?,Owen.,Owen watches from the stairs.,detailed description
"""


def line_of(text: str, words: str) -> int:
    found = re.search(r"^\[(\d+)(?:-\d+)?\] .*" + re.escape(words), text, re.MULTILINE)
    assert found, f"no line with {words!r}"
    return int(found.group(1))


def answer_for(user: str) -> dict:
    """The stand-in model: right about the gear, a citation out of the evidence for the whistle's
    giver, wrong about the hiding place and the watcher."""
    if "broken gear" in user:
        return {"answer": "With a hairpin in place of the cracked spring (scene 5).", "says_script_does_not_say": False,
                "citations": [{"scene": 5, "lines": [line_of(user, "hairpin")], "quote": "with a hairpin"}]}
    if "Ivers give" in user:
        return {"answer": "A whistle (scene 99).", "says_script_does_not_say": False,
                "citations": [{"scene": 99, "lines": [1], "quote": "a whistle"}]}
    if "hide the whistle" in user:
        return {"answer": "In the kettle (scene 3).", "says_script_does_not_say": False,
                "citations": [{"scene": 3, "lines": [line_of(user, "kettle")], "quote": "Nora boils kettle water."}]}
    return {"answer": "Nora (scene 1).", "says_script_does_not_say": False,
            "citations": [{"scene": 1, "lines": [line_of(user, "stairs")], "quote": "Owen watches from the stairs."}]}


def judge_for(user: str) -> dict:
    answer = user.split("Answer to judge: ", 1)[1]
    right = "hairpin" in answer or "pillow" in answer
    return {"verdict": "right" if right else "wrong", "reason": "same as the reference" if right else "another answer"}


def responder(body: dict) -> str:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system.startswith("[kgbuild prompt answer v1]"):
        return json.dumps(answer_for(user))
    assert system == judge_text()
    return json.dumps(judge_for(user))


@pytest.fixture
def questions(tmp_path) -> Path:
    path = tmp_path / "question_pairs.csv"
    path.write_text(QUESTIONS, encoding="utf-8")
    return path


def check_rows(rows: list[dict]) -> None:
    by_id = {row["id"]: row for row in rows}
    assert by_id["1"]["outcome"] == "right" and by_id["1"]["miss"] is None
    assert by_id["2"]["outcome"] == "wrong" and by_id["2"]["answer"]["cited_unretrieved"] == [99]
    assert by_id["2"]["reason"] == "cites scenes that were not retrieved: 99"
    gold_seen = set(by_id["2"]["gold"]) & set(by_id["2"]["retrieved"])
    assert by_id["2"]["miss"] == ("reading" if gold_seen else "retrieval")
    assert (by_id["3"]["outcome"], by_id["3"]["miss"], by_id["3"]["retrieved"]) == ("wrong", "reading", [3])
    assert (by_id["4"]["outcome"], by_id["4"]["miss"], by_id["4"]["retrieved"]) == ("wrong", "retrieval", [1])


def test_answers_judged_per_qa_type_with_the_misses(build, questions, tmp_path):
    index = StoryIndex.open(build)
    prepared = prepare_movie(index, read_questions(questions), titles=script_titles(FIXTURE / "script.json"),
                             movie="lighthouse", k=1)
    backend = ScriptedBackend(lambda request: responder(
        {"messages": [m.model_dump() for m in request.messages]}))
    settings = LLMSettings(model="answer-model", cache_dir=tmp_path / "cache")
    rows = answer_and_judge(prepared, settings, judge_model="judge-model", backend=backend)
    check_rows([r.model_dump() for r in rows])
    # Four answers, then three verdicts: the answer citing a scene out of the evidence is not judged.
    assert [r.model for r in backend.requests] == ["answer-model"] * 4 + ["judge-model"] * 3
    tables = answer_tables(rows)
    english = tables["English"]
    assert (english.questions, english.right, english.wrong, english.accuracy) == (4, 1, 3, 0.25)
    assert (english.reading_misses + english.retrieval_misses, english.cited_unretrieved) == (3, 1)
    assert tables["English / detailed description"].accuracy == 0.0
    assert tables["English / causal/relational queries"].accuracy == 1.0
    # A judge whose replies never validate leaves the question unresolved; a rerun asks again.
    broken = ScriptedBackend(lambda request: '{"verdict": "maybe"}')
    unresolved = answer_and_judge(prepared[:1], settings, judge_model="another-judge", backend=broken)
    assert unresolved[0].outcome == "unresolved" and unresolved[0].reason.startswith("no verdict: ")
    assert AnsweredQuestion.model_validate(unresolved[0].model_dump()) == unresolved[0]


def test_qa_eval_answers_live_and_through_two_batch_round_trips(build, questions, tmp_path):
    runner = CliRunner()
    base = ["qa-eval", str(build), str(questions), "--script", str(FIXTURE / "script.json"), "--answers", "--k", "1",
            "--llm-model", "answer-model", "--judge-model", "judge-model"]
    live_json = tmp_path / "live.json"
    with FakeOpenAIServer(responder=responder) as server:
        live = runner.invoke(cli, [*base, "--llm-base-url", server.base_url, "--llm-cache-dir", str(tmp_path / "live"),
                                   "--json", str(live_json)])
        assert live.exit_code == 0, live.output
        assert server.count() == 7
    assert "Answers (answer-model, judged by judge-model)" in live.output
    assert re.search(r"English\s+│\s+4\s+│\s+1\s+│\s+3\s+│\s+0\.250", live.output), live.output
    data = json.loads(live_json.read_text())
    check_rows(data["answers"]["questions"])
    assert data["answers"]["tables"]["English"]["accuracy"] == 0.25 and "kgbuild" in data["tables"]["English"]

    cache = tmp_path / "batch-cache"
    requests = tmp_path / "requests.jsonl"
    batch = [*base, "--llm-cache-dir", str(cache), "--llm-batch-export", str(requests)]
    for round_number, model, count in ((1, "answer-model", 4), (2, "judge-model", 3)):
        exported = runner.invoke(cli, batch)
        assert exported.exit_code == 3, (round_number, exported.output)
        lines = [json.loads(line) for line in requests.read_text().splitlines()]
        assert len(lines) == count and {line["body"]["model"] for line in lines} == {model}
        results = tmp_path / f"results-{round_number}.jsonl"
        results.write_text("".join(json.dumps({"custom_id": line["custom_id"], "error": None, "response": {
            "status_code": 200, "body": {"id": "c", "object": "chat.completion", "created": 0, "model": model,
                                         "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                             "role": "assistant", "content": responder(line["body"])}}],
                                         "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                   "total_tokens": 15}}}}) + "\n" for line in lines))
        imported = runner.invoke(cli, ["llm", "import", str(results), "--cache-dir", str(cache)])
        assert imported.exit_code == 0, imported.output
    done_json = tmp_path / "batch.json"
    done = runner.invoke(cli, [*batch, "--json", str(done_json)])
    assert done.exit_code == 0, done.output
    assert json.loads(done_json.read_text())["answers"] == data["answers"]


def test_answers_need_an_llm(build, questions):
    runner = CliRunner()
    args = ["qa-eval", str(build), str(questions), "--script", str(FIXTURE / "script.json")]
    assert "--answers needs an LLM" in runner.invoke(cli, [*args, "--answers"]).output
    assert "are for --answers" in runner.invoke(cli, [*args, "--llm-model", "m"]).output
