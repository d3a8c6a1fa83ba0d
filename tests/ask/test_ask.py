"""`kgbuild ask` and `qa-eval` on a screenplay written for these tests, built offline."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kgbuild.ask import StoryIndex
from kgbuild.ask.link import link_entities
from kgbuild.ask.text import words
from kgbuild.cli import cli
from kgbuild.evaluation.qa_eval import (
    evaluate_movie,
    gold_scenes,
    read_questions,
    script_titles,
    strip_pointer,
    tables,
)
from tests.ask.conftest import FIXTURE


def test_words_stem_english_and_cut_chinese():
    assert words("Why did Owen hide the whistles?", chinese=False) == ["owen", "hide", "whistl"]
    chinese = words("诺拉为什么去灯塔？", chinese=True)
    assert "灯塔" in chinese and "为什么" not in chinese


def test_the_question_links_the_graphs_entities_longest_form_first(session):
    linked = link_entities("Why does Captain Ivers laugh at Owen's lamp?", session.index)
    names = {e.name: e for e in linked}
    assert "Ivers" in " ".join(names) and "Owen" in " ".join(names)
    assert all(e.weight >= 0 for e in linked)
    # A near spelling of a name of five letters or more links as fuzzy.
    fuzzy = link_entities("What did Iverz say?", session.index)
    assert [e.how for e in fuzzy if "Ivers" in e.name] == ["fuzzy"]


def test_ask_ranks_the_scene_that_holds_the_answer_first_with_its_lines(session):
    result = session.ask("How does Nora fix the broken gear?", k=3)
    assert result.scenes[0].scene == 5
    assert any("hairpin" in line.text for line in result.scenes[0].lines)
    assert all(fact.evidence for fact in result.facts)


def test_ask_as_of_a_scene_never_looks_ahead(session):
    result = session.ask("How does Nora fix the broken gear?", as_of=3, k=10)
    assert result.as_of_scene == 3
    assert [s.scene for s in result.scenes] and max(s.scene for s in result.scenes) <= 3
    assert all(ev.scene <= 3 for fact in result.facts for ev in fact.evidence)


def test_ask_command_prints_the_ranked_evidence_and_json(build):
    runner = CliRunner()
    text = runner.invoke(cli, ["ask", str(build), "Where does Owen hide the whistle?", "--k", "2"])
    assert text.exit_code == 0, text.output
    assert "1. Scene 3:" in text.output and "pillow" in text.output
    data = json.loads(runner.invoke(cli, ["ask", str(build), "Where does Owen hide the whistle?",
                                          "--format", "json"]).output)
    assert data["scenes"][0]["scene"] == 3 and data["question"].startswith("Where")
    bad = runner.invoke(cli, ["ask", str(build), "Anything?", "--scene", "99"])
    assert bad.exit_code != 0


def test_pointer_is_removed_and_a_copy_of_the_gold_scene_counts():
    assert strip_pointer("In [2、EXT. HARBOUR - DAY], What does Ivers give Owen?") == "What does Ivers give Owen?"
    assert strip_pointer("在[3、内景 厨房]中，欧文把哨子藏在哪里？") == "欧文把哨子藏在哪里？"
    items = read_questions(FIXTURE / "question_pairs.csv")
    titles = script_titles(FIXTURE / "script.json")
    contents = [json.loads((FIXTURE / "script.json").read_text())[i]["content"] for i in range(len(titles))]
    assert gold_scenes(items[1], titles, contents) == [2, 6]


def test_qa_eval_ranks_every_method_on_the_same_questions(build):
    index = StoryIndex.open(build)
    rows = evaluate_movie(index, read_questions(FIXTURE / "question_pairs.csv"),
                          titles=script_titles(FIXTURE / "script.json"), movie="lighthouse")
    assert [r.id for r in rows] == ["1", "2", "3"]
    assert rows[0].ranks["kgbuild"] == 1 and rows[2].ranks["kgbuild"] == 1
    assert set(rows[0].ranks) == {"kgbuild", "bm25-scenes", "bm25-chunks", "dense-chunks", "hybrid-chunks"}
    table = tables(rows)
    assert table["English"]["kgbuild"].questions == 3 and table["English"]["kgbuild"].hit5 == 1.0
    assert "English / objects/props" in table


def test_qa_eval_command_and_a_script_of_another_build(build, tmp_path):
    out = tmp_path / "qa.json"
    result = CliRunner().invoke(cli, ["qa-eval", str(build), str(FIXTURE / "question_pairs.csv"),
                                      "--script", str(FIXTURE / "script.json"), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "kgbuild" in result.output and "bm25-scenes" in result.output
    data = json.loads(out.read_text())
    assert len(data["questions"]) == 3 and "English" in data["tables"]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(json.loads((FIXTURE / "script.json").read_text())[:4]))
    refused = CliRunner().invoke(cli, ["qa-eval", str(build), str(FIXTURE / "question_pairs.csv"),
                                       "--script", str(short)])
    assert refused.exit_code != 0 and "the script has 4 scenes and the build 6" in str(refused.exception)
