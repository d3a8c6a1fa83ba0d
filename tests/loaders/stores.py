"""The stores under contract test, opened as the product opens them (`open_store`), and answers
computed in Python."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgbuild.loaders.store import GraphStore, open_store
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import load_schema
from kgbuild.story.knows import knows
from tests.loaders.bolt_server import BoltTarget, neo4j_target


def open_test_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> GraphStore:
    """The product's store called `kind`, opened with `open_store`: the embedded store in a
    temporary folder, a FalkorDB started now, or Neo4j from NEO4J_URI (or a skip)."""
    if kind == "embedded":
        return open_store(tmp_path / "graph.lbdb")
    target = (BoltTarget(kind="falkordb", uri=request.getfixturevalue("falkordb").uri, user="neo4j", password="")
              if kind == "falkordb" else neo4j_target())
    return open_store(target.uri, database=target.database, **target.auth)


def forget_test_movies(store: GraphStore) -> None:
    """Delete the movies the tests loaded (`unique_movie`), so a shared Neo4j stays clean."""
    for movie in store.movies():
        if movie.startswith(TEST_MOVIE_PREFIX):
            store.query("MATCH (n) WHERE n.movie = $movie DETACH DELETE n", {"movie": movie}, write=True)


#: The start of every movie name `unique_movie` makes.
TEST_MOVIE_PREFIX = "kgbuild-test "


def unique_movie(label: str) -> str:
    """A movie name no one else uses, so tests on a shared Neo4j do not collide."""
    return f"{TEST_MOVIE_PREFIX}{label} {uuid.uuid4().hex[:8]}"


# ---- answers computed from the graph in Python, independently of any store ----

def _stored(graph: KnowledgeGraph) -> tuple[dict[str, Any], list[Any]]:
    schema = load_schema()
    entities = {e.id: e for e in graph.entities if e.type in schema.entity_type_names()}
    relations = [
        r for r in graph.relations
        if r.source in entities and r.target in entities
        and schema.is_admissible(schema.canonical_relation(r.type), entities[r.source].type,
                                 entities[r.target].type)
    ]
    return entities, relations


def _first(scenes: list[int]) -> int | None:
    return min(scenes) if scenes else None


def expected_rows(name: str, graph: KnowledgeGraph, params: dict[str, Any]) -> list[list[Any]]:
    """What an example query must answer for `graph`, in its ORDER BY order."""
    entities, relations = _stored(graph)
    schema = load_schema()
    rtype = {r.id: schema.canonical_relation(r.type) for r in relations}
    if name == "characters-by-relations":
        degree: Counter[str] = Counter()
        for r in relations:  # in_scene links are no relations of the graph
            for end in (r.source, r.target):
                if entities[end].type == "Character":
                    degree[end] += 1
        rows = sorted(([entities[e].name, n] for e, n in degree.items()), key=lambda x: (-x[1], x[0]))
        return rows[: params["limit"]]
    if name == "kinship-and-hostility":
        rows = [[entities[r.source].name, rtype[r.id], entities[r.target].name, _first(r.scenes)]
                for r in relations if rtype[r.id] in {"kinship_with", "hostility_with"}
                and entities[r.source].type == entities[r.target].type == "Character"]
        return sorted(rows, key=lambda x: (x[1], x[0], x[2]))
    def called(entity_id: str) -> bool:  # the character parameter: a name or alias, any case
        e = entities[entity_id]
        return params["character"].lower() in {n.lower() for n in [e.name, *e.aliases]}

    if name == "where-and-when":
        chosen = [r for r in relations if rtype[r.id] in {"located_at", "present_on"}
                  and entities[r.source].type == "Character" and called(r.source)]
        chosen.sort(key=lambda r: (_first(r.scenes) is None, _first(r.scenes) or 0,
                                   entities[r.target].name))
        return [[entities[r.target].name, entities[r.target].type, r.scenes] for r in chosen]
    if name == "objects-possessed":
        rows = [[entities[r.target].name, entities[r.target].description, r.scenes]
                for r in relations if rtype[r.id] == "possesses"
                and entities[r.source].type == "Character" and entities[r.target].type == "Object"
                and called(r.source)]
        return sorted(rows, key=lambda x: x[0])
    if name == "known-up-to-scene":
        rows = [[entities[r.source].name, rtype[r.id], entities[r.target].name, _first(r.scenes)]
                for r in relations if r.scenes and min(r.scenes) <= params["scene"]]
        return sorted(rows, key=lambda x: (x[3], x[0], x[1], x[2]))
    if name == "scene-cast":
        record = next((r for r in graph.scenes if r.index == params["scene"]), None)
        rows = [[entities[p.character].name, p.mode.value, [e.quote for e in p.evidence]]
                for p in (record.presence if record else []) if p.character in entities]
        return sorted(rows, key=lambda x: (x[1], x[0]))
    if name in ("knows-events", "knows-entities"):
        if not graph.scenes:
            return []
        known = knows(graph, params["character"], params["scene"])
        events = name == "knows-events"
        rows = [[i.name, i.first_scene, i.label.value] if events else [i.name, i.type, i.first_scene, i.label.value]
                for i in known.items if (i.type == "Event") == events]
        return sorted(rows, key=ORDER_KEYS[name])
    raise AssertionError(f"no expected answer for example {name}")


#: The ORDER BY keys of each example, as a function of a result row.
ORDER_KEYS: dict[str, Callable[[list[Any]], tuple]] = {
    "characters-by-relations": lambda row: (-row[1], row[0]),
    "kinship-and-hostility": lambda row: (row[1], row[0], row[2]),
    "where-and-when": lambda row: (min(row[2]) if row[2] else float("inf"), row[0]),
    "objects-possessed": lambda row: (row[0],),
    "known-up-to-scene": lambda row: (row[3], row[0], row[1], row[2]),
    "scene-cast": lambda row: (row[1], row[0]),
    "knows-events": lambda row: (row[1], row[0]),
    "knows-entities": lambda row: (row[2], row[1], row[0]),
}


def same_answer(name: str, actual: list[list[Any]], expected: list[list[Any]]) -> bool:
    """Same rows (as a multiset), in an order the query's ORDER BY allows."""
    key = ORDER_KEYS[name]
    ordered = [key(row) for row in actual] == sorted(key(row) for row in actual)
    return ordered and sorted(map(repr, actual)) == sorted(map(repr, expected))
