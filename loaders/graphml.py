"""GraphML export (networkx), for Gephi, yEd, Cytoscape and friends."""

from __future__ import annotations

import json
import os
from pathlib import Path

import networkx as nx

from kgbuild.atomic import write_text_atomic
from kgbuild.model import KnowledgeGraph


def _scalar(value: object) -> str | int | float | bool:
    if isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False)


def to_networkx(graph: KnowledgeGraph) -> nx.MultiDiGraph:
    """The graph as a networkx MultiDiGraph; list-valued fields become JSON strings."""
    g = nx.MultiDiGraph(title=graph.movie.title, language=graph.movie.language)
    for e in graph.entities:
        g.add_node(e.id, **{k: _scalar(v) for k, v in e.model_dump(mode="json", exclude={"id"}).items()})
    for r in graph.relations:
        attrs = {k: _scalar(v) for k, v in r.model_dump(mode="json", exclude={"source", "target"}).items()}
        g.add_edge(r.source, r.target, key=r.id, **attrs)
    return g


def export_graphml(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> Path:
    """Write the graph as GraphML, atomically."""
    lines = nx.generate_graphml(to_networkx(graph), encoding="utf-8", prettyprint=True)
    return write_text_atomic(path, "\n".join(lines) + "\n")
