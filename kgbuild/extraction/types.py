"""The one interface the build calls to extract a screenplay's facts: `Extractor`.

An extractor turns a parsed screenplay (and its scene-aligned chunks) into a raw graph: every
fact with its evidence, in the schema's entity types, before repairs and merging. The pipeline's
extract stage asks it for the number of units its progress counts, then calls `extract` once per
screenplay. Two extractors exist: the rules (`kgbuild.extraction.extractors.OfflineExtractor`,
one unit per scene) and a model (`LLMExtractor`, one unit per chunk).

Example:
    >>> extractor = OfflineExtractor()  # doctest: +SKIP
    >>> result = extractor.extract(screenplay, chunks, schema=load_schema())  # doctest: +SKIP
    >>> result.graph.provenance.backend  # doctest: +SKIP
    'offline'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kgbuild.model import Chunk, KnowledgeGraph, Screenplay
from kgbuild.schema import Schema

if TYPE_CHECKING:
    from kgbuild.extraction.llm.run import LLMExtraction
    from kgbuild.scenes import SceneSelection


@dataclass(frozen=True)
class Extraction:
    """What an extractor gives back.

    Attributes:
        graph: The raw graph: every entity and relation with its evidence, before the repairs.
        llm: The LLM run that made it (chunk outcomes, usage, what grounding left out), for the
            report, review.jsonl and the budget of the later stages; None for the rules.
    """

    graph: KnowledgeGraph
    llm: LLMExtraction | None = None


class Extractor(Protocol):
    """Extracts the facts of one screenplay: what the build pipeline calls, whatever extracts."""

    @property
    def name(self) -> str:
        """A short name for progress and messages: 'offline' or 'llm'."""
        ...

    def units(self, screenplay: Screenplay, chunks: list[Chunk], scenes: SceneSelection | None) -> int:
        """How many times `extract` will call its `on_unit` for these arguments (progress)."""
        ...

    def extract(self, screenplay: Screenplay, chunks: list[Chunk], *, schema: Schema,
                scenes: SceneSelection | None = None, on_unit: Callable[[], None] | None = None) -> Extraction:
        """The raw graph of one screenplay.

        Args:
            screenplay: The parsed screenplay (the whole script, even when `scenes` selects part).
            chunks: Its scene-aligned chunks (of the selected scenes only).
            schema: The graph schema: the types to extract.
            scenes: Only these scenes give facts, the whole script still naming the cast; None:
                every scene.
            on_unit: Called after each unit of work (a scene, a chunk).

        Returns:
            The graph, and the run that made it.

        Raises:
            KgbuildError: a subclass saying what stopped the extraction (for a model: the
                budget, batch export, the server).
        """
        ...
