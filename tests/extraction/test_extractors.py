"""The `Extractor` interface: the build picks one, and each gives its graph with the progress it counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.chunking import chunk_screenplay
from kgbuild.extraction import LLMExtractor, OfflineExtractor
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.offline import extract_offline
from kgbuild.pipeline import BuildOptions
from kgbuild.readers import read_screenplay
from kgbuild.scenes import SceneSelection
from kgbuild.schema import load_schema
from tests.extraction.extraction_helpers import BRICK_BUDGET, SCRIPT_FIXTURE, FixtureModel

HARBOUR = Path(__file__).resolve().parent.parent / "fixtures" / "offline" / "harbour.fountain"


def test_a_build_uses_the_rules_without_llm_settings_and_the_model_with_them(embedder):
    offline = BuildOptions(embedder=embedder).extractor()
    assert isinstance(offline, OfflineExtractor) and offline.name == "offline" and offline.embedder is embedder
    settings = LLMSettings(model="m")
    backend = ScriptedBackend("{}")
    llm = BuildOptions(embedder=embedder, llm=settings, llm_backend=backend).extractor()
    assert isinstance(llm, LLMExtractor) and llm.name == "llm"
    assert (llm.settings, llm.backend) == (settings, backend)


def test_the_offline_extractor_counts_scenes_and_gives_the_rules_graph(embedder):
    screenplay = read_screenplay(HARBOUR)
    chunks = chunk_screenplay(screenplay)
    extractor = OfflineExtractor(embedder)
    schema = load_schema()
    done: list[int] = []

    result = extractor.extract(screenplay, chunks, schema=schema, on_unit=lambda: done.append(1))

    assert extractor.units(screenplay, chunks, None) == len(screenplay.scenes)
    assert 0 < len(done) <= len(screenplay.scenes)
    assert result.llm is None
    assert result.graph.model_dump(exclude={"provenance"}) == extract_offline(
        screenplay, embedder=embedder, schema=schema).model_dump(exclude={"provenance"})
    assert result.graph.provenance is not None and result.graph.provenance.backend == "offline"
    first = SceneSelection.of([(1, 2)])
    assert extractor.units(screenplay, chunks, first) == 2
    assert {s for e in extractor.extract(screenplay, chunks, schema=schema, scenes=first).graph.entities
            for s in e.scenes} <= {1, 2}


@pytest.mark.shared_data
def test_the_llm_extractor_counts_chunks_and_gives_the_grounded_graph_with_its_run(shared_data, tmp_path):
    brick = shared_data / "screenplays" / "brick-and-steel.fountain"
    screenplay = read_screenplay(brick)
    chunks = chunk_screenplay(screenplay, token_budget=BRICK_BUDGET)
    model = FixtureModel(SCRIPT_FIXTURE, brick)
    extractor = LLMExtractor(LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache"),
                             backend=ScriptedBackend(model.reply))
    done: list[int] = []

    result = extractor.extract(screenplay, chunks, schema=load_schema(), on_unit=lambda: done.append(1))

    assert extractor.units(screenplay, chunks, None) == len(done) == len(chunks) == 4
    assert result.llm is not None and result.llm.ungrounded is not None
    assert len(result.llm.run.outcomes) == 4 and result.llm.usage.total.requests > 0
    assert result.graph.provenance is not None and result.graph.provenance.backend == "llm"
    assert result.graph.entities and all(e.evidence for e in result.graph.entities)
