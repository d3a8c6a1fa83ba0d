"""The offline extractor: a real story graph from screenplay structure and text rules, no LLM.

It is the default on a fresh machine and the baseline every LLM run is compared to. The graph
uses the same schema and ids as an LLM build; its provenance says backend 'offline'.
"""

from kgbuild.offline.extract import extract_offline

__all__ = ["extract_offline"]
