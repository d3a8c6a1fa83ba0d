"""`ask` with an LLM: the answer request, the checks of its citations, and the real `openai` client
against the local fake server (cache, faults, batch export)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.ask import AskSession
from kgbuild.ask.answer import (
    NO_SUCH_LINE,
    NOT_RETRIEVED,
    QUOTE_NOT_IN_LINES,
    QUOTE_NOT_IN_SCENE,
    answer_all,
    answer_messages,
    check_citation,
    quote_holds,
    scene_block,
    scenes_named,
    shown_scenes,
)
from kgbuild.ask.types import CitedLines
from kgbuild.cli import cli
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan

QUESTION = "How does Nora fix the broken gear?"


def line_of(text: str, words: str) -> int:
    """The number of the request line holding `words` ('[26] Nora kneels ...' -> 26)."""
    found = re.search(r"^\[(\d+)(?:-\d+)?\] .*" + re.escape(words), text, re.MULTILINE)
    assert found, f"no line with {words!r} in the request"
    return int(found.group(1))


def gear_answer(user: str, *, stray: bool = True) -> str:
    """A reply to the gear question: a good citation, and (with `stray`) one to a scene not shown."""
    citations = [{"scene": 5, "lines": [line_of(user, "hairpin")],
                  "quote": "replaces the cracked spring with a hairpin"}]
    if stray:
        citations.append({"scene": 4, "lines": [21], "quote": "The lamp went dark!"})
    return json.dumps({"answer": "She replaces the cracked spring with a hairpin (scene 5).",
                       "citations": citations, "says_script_does_not_say": False})


def gear_responder(body: dict) -> str:
    return gear_answer(body["messages"][1]["content"])


def llm_args(server: FakeOpenAIServer, cache: Path) -> list[str]:
    return ["--llm-model", "answer-model", "--llm-base-url", server.base_url, "--llm-cache-dir", str(cache)]


# -- the request and the checks -------------------------------------------------------------------

def test_the_request_numbers_the_lines_of_the_ranked_scenes_and_lists_the_facts(session):
    result = session.retrieve(QUESTION, k=2)
    system, user = answer_messages(result, session.index)
    assert system.content.startswith("[kgbuild prompt answer v1]")
    assert f"Question: {QUESTION}" in user.content
    assert "Scene 5\n[25] INT. LIGHTHOUSE - LAMP ROOM - NIGHT\n[26] Nora kneels by the broken gear." in user.content
    assert "\nFACTS\n- Character" in user.content
    # Dialogue shows its speaker; cue lines are not shown on their own.
    assert "] NORA: Because the boats still come." in user.content
    assert "\n[5] NORA\n" not in user.content
    bounded = session.retrieve(QUESTION, k=2, as_of=3)
    assert "Nothing after scene 3 counts." in answer_messages(bounded, session.index)[1].content


def test_a_long_scene_shows_its_matched_lines_first(session):
    block = scene_block(session.index, 1, {(6, 6)}, limit=120)
    assert "NORA: Because the boats still come." in block and "[...]" in block
    assert "polishes the brass lens" not in block


def test_citations_are_checked_against_what_the_request_showed(session):
    result = session.retrieve(QUESTION, k=2)
    shown = shown_scenes(result)
    assert shown[5] is None and shown[1] is None  # ranked: every line citable
    fact_only = [s for s, lines in shown.items() if lines is not None]
    assert fact_only == [3]  # shown by a fact's evidence only: its evidence lines alone

    def check(scene: int, lines: list[int], quote: str):
        return check_citation(CitedLines(scene=scene, lines=lines, quote=quote), shown, session.index)

    assert check(5, [26], "replaces the cracked spring with a hairpin").problem is None
    assert check(5, [26], "She REPLACES the cracked   spring").problem is None  # case and spacing
    assert check(5, [26], "kneels by the broken gear ... with a hairpin").problem is None
    assert check(5, [26], "She glues the spring").problem == QUOTE_NOT_IN_LINES
    assert check(5, [99], "with a hairpin").problem == NO_SUCH_LINE
    assert check(4, [21], "The lamp went dark!").problem == NOT_RETRIEVED
    assert check(40, [1], "x").problem == NOT_RETRIEVED
    found = check(1, [], "Because the boats still come.")
    assert found.problem is None and found.lines == [6]
    assert check(1, [], "Because the ships still go.").problem == QUOTE_NOT_IN_SCENE
    # In a scene shown by a fact's evidence alone, only the evidence's lines may be quoted.
    only = {3: {16}}
    cited = CitedLines(scene=3, lines=[16], quote="Owen hides the tin whistle under his pillow.")
    assert check_citation(cited, only, session.index).problem is None
    cited = CitedLines(scene=3, lines=[20], quote="Nowhere.")
    assert check_citation(cited, only, session.index).problem == NO_SUCH_LINE
    assert check_citation(cited.model_copy(update={"lines": []}), only, session.index).problem == QUOTE_NOT_IN_SCENE


def test_quotes_and_scene_mentions():
    assert quote_holds("“Storm’s coming tonight,” boy", '"Storm\'s coming tonight," boy.')
    assert quote_holds("the brass lens with a ragg", "Owen polishes the brass lens with a rag.")  # near, long
    assert not quote_holds("a ragg", "with a rag")  # short quotes as written
    assert not quote_holds(" ... ", "anything")
    assert scenes_named("He runs (scene 4), then hides it (scenes 3 and 7; scenes 9-11).") == {3, 4, 7, 9, 10, 11}
    assert scenes_named("他把哨子藏起来（场景 3）。") == {3}
    assert scenes_named("In scene 12 he counts 40 boats (the first of 3).") == set()


# -- the LLM through the project's client ---------------------------------------------------------

def test_answers_are_checked_cached_and_many_share_one_client(build, session, tmp_path):
    backend = ScriptedBackend(lambda request: gear_answer(request.messages[1].content))
    settings = LLMSettings(model="answer-model", cache_dir=tmp_path / "cache")
    results = [session.retrieve(QUESTION, k=2), session.retrieve("Why does Nora fix the lamp?", k=2)]
    run = answer_all(results, session.index, settings, backend=backend)
    assert len(backend.requests) == 2 and run.usage.total.requests == 2
    answer = run.results[0].answer
    assert answer is not None and answer.supported and answer.prompt == "answer v1"
    assert [(c.scene, c.lines) for c in answer.citations] == [(5, [26])]
    assert [(c.scene, c.problem) for c in answer.flagged] == [(4, NOT_RETRIEVED)]
    assert answer.cited_unretrieved == [4]
    assert results[0].answer is None  # the input is not changed
    again = AskSession(build, llm=settings, backend=ScriptedBackend(RuntimeError("no request expected")))
    assert again.ask(QUESTION, k=2).answer == answer


def test_ask_command_answers_with_citations_and_reuses_the_cache(build, tmp_path):
    runner = CliRunner()
    with FakeOpenAIServer(responder=gear_responder) as server:
        text = runner.invoke(cli, ["ask", str(build), QUESTION, "--k", "2", *llm_args(server, tmp_path / "c")])
        assert text.exit_code == 0, text.output
        assert server.count() == 1
        body = server.requests[0].body
        assert body["response_format"]["type"] == "json_schema" and body["model"] == "answer-model"
        data = json.loads(runner.invoke(cli, ["ask", str(build), QUESTION, "--k", "2", "--format", "json",
                                              *llm_args(server, tmp_path / "c")]).output)
        assert server.count() == 1  # the same request is answered from the cache
    lines = text.output.splitlines()
    assert lines[1] == "Answer (answer-model): She replaces the cracked spring with a hairpin (scene 5)."
    assert 'scene 5, line 26: "replaces the cracked spring with a hairpin"' in text.output
    assert 'dropped: scene 4, line 21: "The lamp went dark!" (not retrieved)' in text.output
    assert "1. Scene 5:" in text.output  # the evidence follows the answer
    assert data["answer"]["citations"][0]["scene"] == 5 and data["answer"]["cited_unretrieved"] == [4]
    assert data["scenes"][0]["scene"] == 5


def test_a_truncated_answer_is_asked_again_and_a_malformed_one_leaves_the_evidence(build, tmp_path):
    runner = CliRunner()
    plan = FaultPlan(queue=[Fault.TRUNCATED, Fault.OK])
    with FakeOpenAIServer(responder=gear_responder, faults=plan) as server:
        result = runner.invoke(cli, ["ask", str(build), QUESTION, "--format", "json",
                                     *llm_args(server, tmp_path / "c1")])
        assert result.exit_code == 0, result.output
        assert server.count() == 2
        assert "cut off at the length limit" in server.requests[1].body["messages"][-1]["content"]
    assert json.loads(result.output)["answer"]["supported"] is True
    with FakeOpenAIServer(responder=gear_responder, faults=FaultPlan(rates={Fault.MALFORMED: 1.0})) as server:
        result = runner.invoke(cli, ["ask", str(build), QUESTION, *llm_args(server, tmp_path / "c2")])
        assert result.exit_code == 0, result.output
        assert server.count() == 3  # the request and two repairs
    assert "No answer: task answer: no reply validated as ModelAnswer" in result.output
    assert "1. Scene 5:" in result.output


def test_the_script_does_not_say(build, tmp_path):
    reply = json.dumps({"answer": "The script does not say.", "citations": [], "says_script_does_not_say": True})
    with FakeOpenAIServer(responder=lambda body: reply) as server:
        result = CliRunner().invoke(cli, ["ask", str(build), "What is Owen's middle name?", "--format", "json",
                                          *llm_args(server, tmp_path / "c")])
    answer = json.loads(result.output)["answer"]
    assert answer["supported"] is False and answer["text"] == "The script does not say."


def test_batch_export_then_import_then_the_answer(build, tmp_path):
    runner = CliRunner()
    cache = tmp_path / "cache"
    requests = tmp_path / "requests.jsonl"
    args = ["ask", str(build), QUESTION, "--llm-model", "answer-model", "--llm-cache-dir", str(cache)]
    exported = runner.invoke(cli, [*args, "--llm-batch-export", str(requests)])
    assert exported.exit_code == 3, exported.output
    assert "1 requests pending" in exported.output
    line = json.loads(requests.read_text())
    user = line["body"]["messages"][1]["content"]
    completion = {"id": "c", "object": "chat.completion", "created": 0, "model": "answer-model",
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": gear_answer(user, stray=False)}}],
                  "usage": {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960}}
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"custom_id": line["custom_id"], "error": None,
                                   "response": {"status_code": 200, "body": completion}}) + "\n")
    imported = runner.invoke(cli, ["llm", "import", str(results), "--cache-dir", str(cache)])
    assert imported.exit_code == 0, imported.output
    answered = runner.invoke(cli, [*args, "--llm-batch-export", str(requests), "--format", "json"])
    assert answered.exit_code == 0, answered.output
    assert json.loads(answered.output)["answer"]["citations"][0]["lines"] == [26]


def test_llm_flags_without_a_model_are_refused(build):
    result = CliRunner().invoke(cli, ["ask", str(build), QUESTION, "--max-cost", "1"])
    assert result.exit_code == 2 and "need an LLM: add --llm-model" in result.output


@pytest.mark.parametrize("as_of", [None, 3])
def test_no_llm_no_answer(session, as_of):
    result = session.ask(QUESTION, as_of=as_of)
    assert result.answer is None and result.answer_error is None
