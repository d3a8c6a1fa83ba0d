"""The two extractors: the rules (`OfflineExtractor`) and a model (`LLMExtractor`).

Both satisfy `kgbuild.extraction.types.Extractor`. Their work is imported when they extract, so
making one loads neither the rules' word lists nor the `openai` client.

Example:
    >>> extractor = LLMExtractor(LLMSettings(model="gpt-4o-mini"))  # doctest: +SKIP
    >>> extractor.extract(screenplay, chunks, schema=load_schema()).llm.usage.total.requests  # doctest: +SKIP
    42
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgbuild.extraction.types import Extraction
from kgbuild.model import Chunk, Screenplay
from kgbuild.schema import Schema
from kgbuild.version import __version__

if TYPE_CHECKING:
    from kgbuild.embeddings import Embedder
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.llm.types import ChatBackend
    from kgbuild.scenes import SceneSelection


@dataclass(frozen=True)
class OfflineExtractor:
    """The offline rules (`kgbuild.offline`): screenplay structure and text rules, no model.

    Attributes:
        embedder: Types noun phrases (places, things); the bundled MiniLM model behind the
            on-disk cache when None.
    """

    embedder: Embedder | None = None

    @property
    def name(self) -> str:
        """'offline'."""
        return "offline"

    def units(self, screenplay: Screenplay, chunks: list[Chunk], scenes: SceneSelection | None) -> int:
        """One unit per scene (of the selection, when there is one)."""
        return len(scenes) if scenes is not None else len(screenplay.scenes)

    def extract(self, screenplay: Screenplay, chunks: list[Chunk], *, schema: Schema,
                scenes: SceneSelection | None = None, on_unit: Callable[[], None] | None = None) -> Extraction:
        """The rules' graph of the screenplay (the chunks are not used: the rules read scenes).

        Args, Returns: as `Extractor.extract`; `llm` is None.
        """
        from kgbuild.offline import extract_offline

        graph = extract_offline(screenplay, embedder=self.embedder, version=__version__, on_scene=on_unit,
                                scenes=scenes, schema=schema)
        return Extraction(graph=graph)


@dataclass(frozen=True)
class LLMExtractor:
    """LLM extraction (`kgbuild.extraction.llm`): per chunk, with reflection, then grounded.

    Attributes:
        settings: Model, endpoint, concurrency, budget, reflection and cache settings.
        backend: Send the requests here instead of the OpenAI-compatible endpoint of `settings`
            (a scripted backend in tests).
    """

    settings: LLMSettings
    backend: ChatBackend | None = None

    @property
    def name(self) -> str:
        """'llm'."""
        return "llm"

    def units(self, screenplay: Screenplay, chunks: list[Chunk], scenes: SceneSelection | None) -> int:
        """One unit per chunk."""
        return len(chunks)

    def extract(self, screenplay: Screenplay, chunks: list[Chunk], *, schema: Schema,
                scenes: SceneSelection | None = None, on_unit: Callable[[], None] | None = None) -> Extraction:
        """Every chunk extracted, the kept answers assembled into one graph grounded in the text.

        Args, Returns: as `Extractor.extract`; `llm` holds the run, what grounding left out and
        the chunks below the review threshold.

        Raises:
            BatchPendingError, BudgetExceededError, LLMStallError, LLMRequestError,
            SchemaNotExtractableError: as `kgbuild.extraction.llm.run.run_llm_extraction`.
        """
        from kgbuild.extraction.llm.extract import assemble
        from kgbuild.extraction.llm.run import run_llm_extraction, token_usage

        settings = self.settings
        result = run_llm_extraction(screenplay, chunks, settings, backend=self.backend, on_chunk=on_unit,
                                    scenes=scenes, schema=schema)
        assembly = assemble(screenplay, result.run.outcomes, version=__version__, model=settings.model,
                            token_usage=token_usage(result.usage), schema=schema,
                            admit_below_threshold=settings.admit_below_threshold)
        run = result.run.model_copy(update={"admit_below_threshold": settings.admit_below_threshold})
        return Extraction(graph=assembly.graph, llm=result.model_copy(update={
            "run": run, "ungrounded": assembly.ungrounded, "below_threshold": assembly.below_threshold}))
