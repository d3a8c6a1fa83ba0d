"""Extraction: a screenplay's facts as a raw graph, by a model or by rules, behind one interface.

The build pipeline calls an `Extractor` (`types`): `OfflineExtractor` runs the rules of
`kgbuild.offline` (no model), `LLMExtractor` the LLM extraction of `kgbuild.extraction.llm`
(per chunk, events first, reflection, grounding), whose requests go through the transport in
`kgbuild.llm`. `presence` reads the scene layer, who is in each scene and how, from the
screenplay (the derive stage and the story commands use it).

Example:
    >>> from kgbuild.extraction import OfflineExtractor
    >>> graph = OfflineExtractor().extract(screenplay, chunks, schema=load_schema()).graph  # doctest: +SKIP
"""

from kgbuild.extraction.extractors import LLMExtractor, OfflineExtractor
from kgbuild.extraction.types import Extraction, Extractor

__all__ = ["Extraction", "Extractor", "LLMExtractor", "OfflineExtractor"]
