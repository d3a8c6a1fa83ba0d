"""Extraction: a screenplay's facts as a raw graph, by a model or by rules.

- `kgbuild.extraction.llm`: LLM extraction per chunk (events first, reflection, grounding).
- `kgbuild.offline`: the rules, with no model.
- `presence`: the scene layer, who is in each scene and how, read from the screenplay.
"""
