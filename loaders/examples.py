"""Example queries that run unchanged on the embedded store and on Neo4j.

They stay inside the Cypher both dialects share: every returned column is named with AS, node
kinds are compared through the stored `type` property rather than `labels(n)`, time is read from
`first_scene`/`last_scene` rather than list indexes, and `type(r)` works on the embedded store
because kgbuild defines it there. The README shows the same queries.

Example:
    >>> example("kinship-and-hostility").params
    {}
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.errors import QueryError
from kgbuild.model import KnowledgeGraph


class ExampleQuery(BaseModel):
    """A named query with sample parameter values."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    cypher: str
    params: dict[str, Any] = Field(default_factory=dict, description="Sample values.")


EXAMPLES: tuple[ExampleQuery, ...] = (
    ExampleQuery(
        name="characters-by-relations",
        description="Characters by number of relations, most connected first.",
        cypher=(
            "MATCH (c:Character)-[r]-()\n"
            "RETURN c.name AS character, count(r) AS relations\n"
            "ORDER BY relations DESC, character\n"
            "LIMIT $limit"
        ),
        params={"limit": 10},
    ),
    ExampleQuery(
        name="kinship-and-hostility",
        description="Kinship and hostility among characters, and the scene each is first seen.",
        cypher=(
            "MATCH (a:Character)-[r:kinship_with|hostility_with]->(b:Character)\n"
            "RETURN a.name AS character, type(r) AS relation, b.name AS other,\n"
            "       r.first_scene AS first_scene\n"
            "ORDER BY relation, character, other"
        ),
    ),
    ExampleQuery(
        name="where-and-when",
        description="Where a character is seen (locations) and when (time points), by scene.",
        cypher=(
            "MATCH (c:Character {name: $character})-[r:located_at|present_on]->(p)\n"
            "RETURN p.name AS place_or_time, p.type AS kind, r.scenes AS scenes\n"
            "ORDER BY r.first_scene, place_or_time"
        ),
        params={"character": "Reggie"},
    ),
    ExampleQuery(
        name="objects-possessed",
        description="The objects a character possesses, and in which scenes.",
        cypher=(
            "MATCH (c:Character {name: $character})-[r:possesses]->(o:Object)\n"
            "RETURN o.name AS object, o.description AS description, r.scenes AS scenes\n"
            "ORDER BY object"
        ),
        params={"character": "Reggie"},
    ),
    ExampleQuery(
        name="known-up-to-scene",
        description="All that is known up to scene N: every relation first seen by then.",
        cypher=(
            "MATCH (a)-[r]->(b)\n"
            "WHERE r.first_scene <= $scene\n"
            "RETURN a.name AS subject, type(r) AS relation, b.name AS object,\n"
            "       r.first_scene AS scene\n"
            "ORDER BY scene, subject, relation, object"
        ),
        params={"scene": 3},
    ),
)


def example(name: str) -> ExampleQuery:
    """The example query called `name`.

    Raises:
        QueryError: no such example (the message lists them).
    """
    for query in EXAMPLES:
        if query.name == name:
            return query
    raise QueryError(f"no example query {name!r}; choose one of: "
                     + ", ".join(q.name for q in EXAMPLES))


def params_for_graph(query: ExampleQuery, graph: KnowledgeGraph) -> dict[str, Any]:
    """Parameter values that make sense for a graph: its most connected character, its middle scene.

    Args:
        query: The example.
        graph: The graph the store holds.

    Returns:
        The example's parameters with `character` and `scene` chosen from the graph.
    """
    types = {e.id: e.type for e in graph.entities}
    degree: Counter[str] = Counter()
    for r in graph.relations:
        degree.update(x for x in (r.source, r.target) if types.get(x) == "Character")
    names = {e.id: e.name for e in graph.entities}
    top = min(degree, key=lambda eid: (-degree[eid], names[eid])) if degree else None
    values: dict[str, Any] = {}
    for key, sample in query.params.items():
        if key == "character" and top is not None:
            values[key] = names[top]
        elif key == "scene":
            values[key] = max(1, graph.movie.scenes // 2)
        else:
            values[key] = sample
    return values
