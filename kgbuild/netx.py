"""A story graph as a networkx MultiDiGraph, and back, without losing anything.

One node per entity (key: the entity id; attributes: the entity's other fields, evidence as a
list of dicts), one edge per relation (key: the relation id; endpoints: its source and target;
attributes: its other fields), and the graph attributes `format`, `movie`, `provenance` (dicts)
and `scenes` (the scene layer: a list of dicts), plus `relation_order`, the relation ids in the
graph's order (networkx iterates edges by node, not in the order they were added). Values are
JSON-ready (enums as strings, line spans as lists), so `networkx.node_link_data` output goes straight to `json.dumps`.

A relation endpoint that is no entity of the graph (a dangling relation, which a loader would
count and skip) becomes a node without attributes; `from_networkx` turns such nodes back into
nothing, so `from_networkx(to_networkx(g)) == g` for every graph with unique ids.

Example:
    >>> import networkx as nx
    >>> g = to_networkx(graph)  # doctest: +SKIP
    >>> nx.degree_centrality(g)  # doctest: +SKIP
    >>> from_networkx(g) == graph  # doctest: +SKIP
    True
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import networkx as nx
from pydantic import ValidationError

from kgbuild.errors import InputError
from kgbuild.model import GRAPH_FORMAT, Entity, KnowledgeGraph, MovieInfo, Provenance, Relation, SceneRecord

#: The graph attribute listing the relation ids in the graph's order.
RELATION_ORDER = "relation_order"
_GRAPH_KEYS = frozenset({"format", "movie", "provenance", "scenes", RELATION_ORDER})


def _first_duplicate(ids: list[str]) -> str | None:
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    return repeated[0] if repeated else None


def to_networkx(graph: KnowledgeGraph) -> nx.MultiDiGraph[str]:
    """The graph as a networkx MultiDiGraph (a new object; `graph` is not changed).

    Args:
        graph: The story graph.

    Returns:
        Nodes keyed by entity id, edges keyed by relation id, graph attributes `format`,
        `movie`, `provenance`, `scenes` and `relation_order` (see the module docstring).

    Raises:
        InputError: two entities share an id, or two relations share an id (networkx keys
            must be unique).

    Example:
        >>> g = to_networkx(graph)  # doctest: +SKIP
        >>> g.nodes["character:sophie"]["name"]  # doctest: +SKIP
        'Sophie'
    """
    twice = _first_duplicate([e.id for e in graph.entities])
    if twice is not None:
        raise InputError(f"two entities have the id {twice!r}; a networkx node needs a unique key "
                         "(merge the graph first: kgbuild merge, or kgbuild.merge)")
    twice = _first_duplicate([r.id for r in graph.relations])
    if twice is not None:
        raise InputError(f"two relations have the id {twice!r}; a networkx edge needs a unique key "
                         "(rebuild the graph: relation ids come from kgbuild.graph.relation_id)")
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    g.graph.update({
        "format": graph.format,
        "movie": graph.movie.model_dump(mode="json"),
        "provenance": graph.provenance.model_dump(mode="json") if graph.provenance is not None else None,
        "scenes": [scene.model_dump(mode="json") for scene in graph.scenes],
        RELATION_ORDER: [r.id for r in graph.relations],
    })
    for entity in graph.entities:
        g.add_node(entity.id, **entity.model_dump(mode="json", exclude={"id"}))
    for relation in graph.relations:
        g.add_edge(relation.source, relation.target, key=relation.id,
                   **relation.model_dump(mode="json", exclude={"id", "source", "target"}))
    return g


def _invalid(what: str, e: ValidationError) -> InputError:
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return InputError(f"{what} is not valid: {where}: {first['msg']} ({e.error_count()} problems); "
                      "attributes must be the fields of the kgbuild model (as to_networkx writes them)")


def _checked_key(kind: str, attrs: dict[str, Any], field: str, value: Any) -> None:
    if field in attrs and attrs[field] != value:
        raise InputError(f"{kind} has the attribute {field}={attrs[field]!r} but is keyed {value!r}; "
                         f"drop the attribute (the {kind} key is its {field})")


def _entity(key: Any, attrs: dict[str, Any]) -> Entity:
    _checked_key("node", attrs, "id", key)
    try:
        return Entity.model_validate({**attrs, "id": key})
    except ValidationError as e:
        raise _invalid(f"node {key!r}", e) from e


def _relation(u: Any, v: Any, key: Any, attrs: dict[str, Any]) -> Relation:
    for field, value in (("id", key), ("source", u), ("target", v)):
        _checked_key("edge", attrs, field, value)
    try:
        return Relation.model_validate({**attrs, "id": key, "source": u, "target": v})
    except ValidationError as e:
        raise _invalid(f"edge {u!r} -> {v!r} (key {key!r})", e) from e


def _ordered(relations: list[Relation], order: Any) -> list[Relation]:
    """Relations in the recorded order; any the order does not name follow, as networkx has them."""
    if not isinstance(order, list):
        return relations
    rank = {rid: i for i, rid in enumerate(order) if isinstance(rid, str)}
    return sorted(relations, key=lambda r: rank.get(r.id, len(rank)))


def from_networkx(g: nx.MultiDiGraph[str]) -> KnowledgeGraph:
    """The story graph of a networkx MultiDiGraph made by `to_networkx` (and possibly edited).

    Nodes without attributes are relation endpoints that are no entity (see the module
    docstring) and make no entity. Relations come in `relation_order`, then any edge it does not
    name in networkx's order.

    Args:
        g: A directed multigraph whose node and edge attributes are the fields of `Entity` and
            `Relation` (other than the ids and endpoints, which are the keys), with the graph
            attribute `movie` (and optionally `format`, `provenance`, `scenes`, `relation_order`).

    Returns:
        A new KnowledgeGraph; `g` is not changed.

    Raises:
        InputError: not a directed multigraph, no `movie` attribute, another graph format, an
            unknown graph attribute, or a node or edge whose attributes are not a valid entity
            or relation (unknown attributes included).

    Example:
        >>> from_networkx(to_networkx(graph)) == graph  # doctest: +SKIP
        True
    """
    if not (isinstance(g, nx.Graph) and g.is_directed() and g.is_multigraph()):
        raise InputError(f"expected a networkx MultiDiGraph (as KnowledgeGraph.to_networkx makes), "
                         f"got {type(g).__name__}")
    unknown = sorted(set(g.graph) - _GRAPH_KEYS)
    if unknown:
        raise InputError(f"unknown graph attributes {', '.join(map(repr, unknown))}; a kgbuild graph has "
                         f"{', '.join(sorted(_GRAPH_KEYS))}")
    if "movie" not in g.graph:
        raise InputError("the networkx graph has no 'movie' attribute (a dict with title and language, "
                         "as to_networkx writes it)")
    tag = g.graph.get("format", GRAPH_FORMAT)
    if tag != GRAPH_FORMAT:
        raise InputError(f"the networkx graph says format {tag!r}; this kgbuild reads {GRAPH_FORMAT!r}")
    try:
        movie = MovieInfo.model_validate(g.graph["movie"])
        raw = g.graph.get("provenance")
        provenance = Provenance.model_validate(raw) if raw is not None else None
        scenes = [SceneRecord.model_validate(scene) for scene in g.graph.get("scenes") or []]
    except ValidationError as e:
        raise _invalid("the graph attribute movie, provenance or scenes", e) from e
    entities = [_entity(key, attrs) for key, attrs in g.nodes(data=True) if attrs]
    relations = [_relation(u, v, key, attrs) for u, v, key, attrs in g.edges(keys=True, data=True)]
    return KnowledgeGraph(format=tag, movie=movie, entities=entities,
                          relations=_ordered(relations, g.graph.get(RELATION_ORDER)), scenes=scenes,
                          provenance=provenance)
