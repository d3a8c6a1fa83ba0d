"""The LLM persona summary: grounded in the dossier, cached, batch-exportable."""

from __future__ import annotations

import json

import pytest

from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BatchPendingError
from kgbuild.story.dossier import build_dossier
from kgbuild.story.persona import cited_scenes, persona_messages, write_personas

GROUNDED = json.dumps({"summary": "Ben is terse and cuts roses alone (scene 2); he learns from Clara that "
                       "the letter was burned (scene 3).", "scenes": [2, 3]})


@pytest.fixture
def ben(story_build):
    return build_dossier(story_build.graph, story_build.screenplay, "Ben")


def test_a_grounded_summary_is_kept_and_a_rerun_is_answered_from_the_cache(ben, tmp_path):
    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache")
    backend = ScriptedBackend(GROUNDED)
    run = write_personas([ben], settings, backend=backend)
    assert run.failures == {} and run.dossiers[0].persona.startswith("Ben is terse")
    assert run.dossiers[0].persona_model == "scripted-model" and ben.persona is None
    again = ScriptedBackend(GROUNDED)
    assert write_personas([ben], settings, backend=again).dossiers[0].persona == run.dossiers[0].persona
    assert again.requests == []
    user = persona_messages(ben)[1].content
    assert 'line (scene 2, voice): "I should never have left her alone with it."' in user
    assert persona_messages(ben)[0].content.startswith("[kgbuild prompt persona v1]")


def test_a_summary_citing_scenes_the_dossier_lacks_is_refused(ben, tmp_path):
    reply = json.dumps({"summary": "Ben hides the key (scene 4).", "scenes": [4]})
    run = write_personas([ben], LLMSettings(model="m", cache_dir=tmp_path), backend=ScriptedBackend(reply))
    assert run.dossiers[0].persona is None
    assert "cites scenes no dossier item carries: [4]" in run.failures[ben.id]
    assert cited_scenes("as seen (scenes 3, 7 and 9) and (scene 12)") == {3, 7, 9, 12}


def test_batch_export_writes_the_requests_and_stops(ben, tmp_path):
    out = tmp_path / "requests.jsonl"
    settings = LLMSettings(model="m", cache_dir=tmp_path / "cache", batch_export=out)
    with pytest.raises(BatchPendingError, match="1 requests pending"):
        write_personas([ben], settings)
    request = json.loads(out.read_text().splitlines()[0])
    assert request["body"]["model"] == "m" and "persona v1" in request["body"]["messages"][0]["content"]


def test_the_dossier_command_exits_3_when_batch_export_wrote_the_requests(story_build, tmp_path):
    from click.testing import CliRunner

    from kgbuild.cli import cli
    from kgbuild.graph import save_graph

    out = tmp_path / "build"
    out.mkdir()
    save_graph(story_build.graph, out / "graph.json")
    (out / "screenplay.json").write_text(story_build.screenplay.model_dump_json(), encoding="utf-8")
    requests = tmp_path / "requests.jsonl"
    result = CliRunner().invoke(cli, ["dossier", str(out), "Ben", "--llm-model", "m", "--llm-cache-dir",
                                      str(tmp_path / "cache"), "--llm-batch-export", str(requests)])
    assert result.exit_code == 3, result.output
    assert len(requests.read_text().splitlines()) == 1
