"""One rule for a partial LLM build, followed by `kgbuild build` and `kgbuild.build` alike."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import kgbuild
from bench.llm import server_responder
from kgbuild.output import keeps_existing_build
from kgbuild.testing import FakeOpenAIServer, Fault, FaultPlan


def test_a_partial_build_keeps_an_existing_build_unless_allowed(tmp_path):
    assert not keeps_existing_build(tmp_path, failed=3)  # no build there yet: written, failures in review.jsonl
    (tmp_path / "graph.json").write_text("{}", encoding="utf-8")
    assert keeps_existing_build(tmp_path, failed=3)
    assert not keeps_existing_build(tmp_path, failed=3, allow_partial=True)
    assert not keeps_existing_build(tmp_path, failed=0)


@pytest.mark.shared_data
def test_the_library_build_keeps_the_old_build_when_chunks_fail(shared_data: Path, tmp_path, monkeypatch, caplog):
    script = shared_data / "screenplays" / "brick-and-steel.fountain"
    monkeypatch.setenv("KGBUILD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    out = tmp_path / "out"
    kgbuild.build(script, outdir=out)
    offline = (out / "graph.json").read_bytes()
    always_429 = FaultPlan(rates={Fault.RATE_LIMIT: 1.0}, retry_after=0)
    with FakeOpenAIServer(responder=server_responder(), faults=always_429) as server, \
            caplog.at_level(logging.WARNING, logger="kgbuild"):
        graph = kgbuild.build(script, outdir=out, llm_model="m", llm_base_url=server.base_url)
    assert graph.provenance is not None and graph.provenance.backend == "llm"
    assert (out / "graph.json").read_bytes() == offline
    assert f"the build in {out} was kept: this one is partial" in caplog.text
