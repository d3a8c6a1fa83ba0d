"""GraphML export (networkx), for Gephi, yEd, Cytoscape and friends.

GraphML attributes hold no lists, so list-valued fields (aliases, scenes, and the evidence as the
four parallel lists every store carries: `evidence_scenes`, `evidence_lines`, `evidence_quotes`,
`evidence_producers`) are JSON text. Nodes carry `label` = the entity name, which Gephi shows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import networkx as nx

from kgbuild.atomic import write_text_atomic
from kgbuild.loaders.records import evidence_lists
from kgbuild.model import Entity, KnowledgeGraph, Relation


def _scalar(value: object) -> str | int | float | bool:
    if isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False)


def _attributes(item: Entity | Relation, exclude: set[str]) -> dict[str, str | int | float | bool]:
    fields = item.model_dump(mode="json", exclude={*exclude, "evidence"})
    return {k: _scalar(v) for k, v in {**fields, **evidence_lists(item.evidence)}.items()}


def _flat_networkx(graph: KnowledgeGraph) -> nx.MultiDiGraph[str]:
    """The graph as a networkx MultiDiGraph of scalar attributes only (GraphML holds no lists):
    list-valued fields become JSON strings. `KnowledgeGraph.to_networkx` is the lossless form."""
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph(title=graph.movie.title, language=graph.movie.language)
    for e in graph.entities:
        g.add_node(e.id, label=e.name, **_attributes(e, {"id"}))
    for r in graph.relations:
        g.add_edge(r.source, r.target, key=r.id, **_attributes(r, {"source", "target"}))
    return g


def export_graphml(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> Path:
    """Write the graph as GraphML, atomically."""
    lines = nx.generate_graphml(_flat_networkx(graph), encoding="utf-8", prettyprint=True)
    return write_text_atomic(path, "\n".join(lines) + "\n")
