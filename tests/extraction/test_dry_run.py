"""`kgbuild build --dry-run`: the exact first requests, what the cache answers, tokens and cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.extraction.llm.estimate import COMPLETION_PER_USER_TOKEN, estimate_llm_build
from kgbuild.llm.cache import ResponseCache, cache_key
from kgbuild.llm.costs import ModelPrice, load_prices
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ChatResult, Usage
from kgbuild.pipeline import BuildOptions, prepare_build, run_build
from tests.extraction.extraction_helpers import BRICK_BUDGET, SCRIPT_FIXTURE, FixtureModel, request_kind


def test_price_files_in_json_and_toml_override_the_list_prices(tmp_path):
    toml = tmp_path / "prices.toml"
    toml.write_text('["my-local"]\ninput_per_mtok = 1.0\noutput_per_mtok = 3.0\nbatch_discount = 0.25\n'
                    '["gpt-4o-mini"]\ninput_per_mtok = 0.2\noutput_per_mtok = 0.8\n', encoding="utf-8")
    table = load_prices(toml)
    usage = Usage(prompt_tokens=2_000_000, completion_tokens=1_000_000)
    assert table.cost("my-local", usage) == pytest.approx(5.0)
    assert table.cost("my-local", usage, batch=True) == pytest.approx(1.25)
    assert table.price("gpt-4o-mini") == ModelPrice(input_per_mtok=0.2, output_per_mtok=0.8)
    assert table.price("gpt-4o") is not None  # the other list prices stay
    as_json = tmp_path / "prices.json"
    as_json.write_text(json.dumps({"my-local": {"input_per_mtok": 0, "output_per_mtok": 0}}), encoding="utf-8")
    assert load_prices(as_json).cost("my-local", usage) == 0.0


@pytest.mark.parametrize(("name", "text", "message"), [
    ("bad.json", "{not json", "not valid JSON"),
    ("bad.toml", "[x\n", "not valid TOML"),
    ("neg.json", '{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}', "model 'm': input_per_mtok"),
    ("half.json", '{"m": {"input_per_mtok": 1}}', "model 'm': output_per_mtok"),
    ("list.json", "[1, 2]", "maps model names"),
])
def test_a_price_file_that_cannot_be_used_says_what_is_wrong(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_prices(path)


def test_a_read_only_cache_creates_and_writes_nothing(tmp_path):
    missing = tmp_path / "none" / "llm.sqlite"
    with ResponseCache(missing, read_only=True) as cache:
        assert len(cache) == 0 and cache.get("k") is None
    assert not (tmp_path / "none").exists()
    path = tmp_path / "c" / "llm.sqlite"
    with ResponseCache(path) as cache:
        cache.put("k", ChatResult(content="{}"), model="m")
    before = sorted(p.name for p in path.parent.iterdir())
    with ResponseCache(path, read_only=True) as cache:
        assert cache.get("k") is not None
        with pytest.raises(Exception, match="read-only"):
            cache.put("k2", ChatResult(content="{}"), model="m")
    assert sorted(p.name for p in path.parent.iterdir()) == before


pytestmark_data = pytest.mark.shared_data


@pytest.fixture
def brick(shared_data: Path) -> Path:
    return shared_data / "screenplays" / "brick-and-steel.fountain"


def first_extraction_keys(requests) -> set[str]:
    return {cache_key(r) for r in requests
            if request_kind([m.model_dump() for m in r.messages]) == "extract" and len(r.messages) == 2}


@pytestmark_data
def test_the_dry_run_builds_the_exact_first_requests_and_follows_the_cache(brick, tmp_path):
    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache")
    options = BuildOptions(token_budget=BRICK_BUDGET, llm=settings)
    state = prepare_build(brick, options)
    fresh = estimate_llm_build(state.screenplay, state.chunks, settings)
    assert not (tmp_path / "cache").exists()  # nothing written, not even the cache file
    assert (fresh.chunks, fresh.done_chunks, fresh.cache_hits) == (4, 0, 0)
    assert [r.task for r in fresh.requests] == ["extract", "reflect"] * 4
    assert all(r.exact_prompt == (r.task == "extract") for r in fresh.requests)
    assert "STAGE's own answers" in fresh.basis.source
    extract = [r for r in fresh.requests if r.task == "extract"]
    assert extract[0].completion_tokens > 0
    assert len(fresh.worst_case_retries) == 4 * 2 * 2  # 2 retries, each an extraction and a review

    # The build sends exactly those extraction requests first.
    backend = ScriptedBackend(FixtureModel(SCRIPT_FIXTURE, brick).reply)
    run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings, llm_backend=backend))
    assert {r.key for r in extract} == first_extraction_keys(backend.requests)

    # Everything is cached now: nothing to send, and the model's own answers set the basis.
    done = estimate_llm_build(state.screenplay, state.chunks, settings)
    assert (done.requests, done.worst_case_retries, done.done_chunks) == ([], [], 4)
    # 16 extraction and review requests, then the merge stage's one question (Brick's Patio or Pool).
    assert done.cache_hits == 16 and len(backend.requests) == 17
    assert "measured on 8 replies of scripted-model" in done.basis.source
    assert done.basis.extract_per_user_token != COMPLETION_PER_USER_TOKEN

    # Another threshold changes the review prompt only: the extractions are cached, the reviews exact.
    stricter = settings.model_copy(update={"threshold": 8})
    review = estimate_llm_build(state.screenplay, state.chunks, stricter)
    assert [r.task for r in review.requests] == ["reflect"] * 4
    assert all(r.exact_prompt and r.key for r in review.requests)


@pytestmark_data
def test_dry_run_on_the_command_line_prints_tokens_and_cost_and_writes_nothing(brick, tmp_path):
    runner = CliRunner()
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    offline = runner.invoke(cli, ["build", str(brick), "-o", str(out), "--dry-run", "--scenes", "2-5"])
    assert offline.exit_code == 0, offline.output
    assert "scenes 2-5 (4 of 8)" in offline.output and "no LLM cost" in offline.output
    priced = runner.invoke(cli, ["build", str(brick), "--dry-run", "--llm-model", "gpt-4o-mini",
                                 "--llm-cache-dir", str(cache)])
    assert priced.exit_code == 0, priced.output
    assert "requests to send on first attempts" in priced.output and "through a Batch API" in priced.output
    assert "$0.15 in / $0.6 out per 1M tokens" in priced.output
    unknown = runner.invoke(cli, ["build", str(brick), "--dry-run", "--llm-model", "my-local",
                                  "--llm-cache-dir", str(cache)])
    assert unknown.exit_code == 0
    assert "no price known for model 'my-local': give one with --prices FILE" in unknown.output
    prices = tmp_path / "p.toml"
    prices.write_text('["my-local"]\ninput_per_mtok = 1\noutput_per_mtok = 2\n', encoding="utf-8")
    given = runner.invoke(cli, ["build", str(brick), "--dry-run", "--llm-model", "my-local", "--prices",
                                str(prices), "--llm-cache-dir", str(cache)])
    assert given.exit_code == 0 and "my-local: $1 in / $2 out" in given.output
    assert not out.exists() and not cache.exists()
    refused = runner.invoke(cli, ["build", str(brick), "--dry-run", "--llm-model", "m", "--llm-batch-export",
                                  str(tmp_path / "b.jsonl")])
    assert refused.exit_code == 2 and "leave out --llm-batch-export" in refused.output


@pytestmark_data
def test_an_llm_build_of_some_scenes_asks_about_those_scenes_only(brick, tmp_path):
    from kgbuild.extraction.llm.run import script_words
    from kgbuild.scenes import parse_scene_ranges
    from tests.extraction.extraction_helpers import scene_ids

    model = FixtureModel(SCRIPT_FIXTURE, brick)
    backend = ScriptedBackend(model.reply)
    selection = parse_scene_ranges("2-7")
    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache")
    state = run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings, llm_backend=backend,
                                          scenes=selection))
    asked = {scene_ids([m.model_dump() for m in r.messages]) for r in backend.requests}
    assert asked == {(2, 3, 4, 5), (6, 7)}
    assert [o.chunk_id for o in state.llm.run.outcomes] == ["scenes_2_5", "scenes_6_7"]
    assert state.graph.movie.scene_ranges == [(2, 7)]
    for fact in [*state.graph.entities, *state.graph.relations]:
        assert all(2 <= ev.scene <= 7 for ev in fact.evidence), fact.id
    assert state.llm.rates.words == script_words(state.screenplay, selection) < script_words(state.screenplay)
    # The prompts are those of a whole build: the second chunk's is answered from its cache.
    again = ScriptedBackend(model.reply)
    whole = run_build(brick, BuildOptions(token_budget=BRICK_BUDGET, llm=settings, llm_backend=again))
    chunks_asked = [r for r in again.requests
                    if request_kind([m.model_dump() for m in r.messages]) != "adjudicate"]
    assert {scene_ids([m.model_dump() for m in r.messages]) for r in chunks_asked} == {(1,), (8,)}
    assert whole.graph.movie.scene_ranges == []
