"""The contract every graph store passes: same load, same answers to the example queries
(docs/stores.md).

Parametrized over the stores: the embedded store and FalkorDB (a Bolt server each test starts
on free loopback ports) always run; Neo4j runs when NEO4J_URI is set (and is skipped with the
reason otherwise). The example queries do not filter by movie, so point NEO4J_URI /
NEO4J_DATABASE at an empty database; the tests delete the movies they load. Answers are compared
with answers computed from the graph in Python, so every store is held to the same expectation.
"""

from __future__ import annotations

import pytest

from kgbuild.loaders.examples import EXAMPLES, params_for_graph
from kgbuild.model import KnowledgeGraph
from tests.loaders.conftest import HOSTILE_NAMES, MARGO_EVIDENCE, THREAT_EVIDENCE, make_small_graph
from tests.loaders.stores import expected_rows, forget_test_movies, open_test_store, same_answer, unique_movie

#: The Bolt servers carry the `bolt` marker (-m "not bolt" leaves them out).
STORES = ["embedded", pytest.param("falkordb", marks=pytest.mark.bolt), pytest.param("neo4j", marks=pytest.mark.bolt)]


@pytest.fixture(params=STORES)
def store(request, tmp_path):
    opened = open_test_store(request.param, tmp_path, request)
    try:
        yield opened
        if request.param != "embedded":  # a shared server; the embedded store's folder is temporary
            forget_test_movies(opened)
    finally:
        opened.close()


def _check_examples(store, graph: KnowledgeGraph, **given) -> int:
    """Run every example; return how many gave a non-empty answer."""
    non_empty = 0
    for query in EXAMPLES:
        if query.needs_scene_layer and not graph.scenes:
            continue  # answers what it can, but nothing the graph's own knows() gives
        params = {**params_for_graph(query, graph), **{k: v for k, v in given.items() if k in query.samples}}
        result = store.query(query.cypher, params)
        expected = expected_rows(query.name, graph, params)
        assert result.columns == _columns(query.cypher), query.name
        assert same_answer(query.name, result.rows, expected), (query.name, result.rows[:5], expected[:5])
        non_empty += bool(expected)
    return non_empty


def _columns(cypher: str) -> list[str]:
    returned = cypher.split("RETURN", 1)[1].split("ORDER BY")[0]
    return [part.split(" AS ")[1].strip() for part in returned.split(",")]


@pytest.mark.shared_data
def test_examples_answer_alike_on_a_stage_reference_graph(store, stage_graph):
    movie = unique_movie("stage")
    counts = store.load(stage_graph, movie=movie, replace=True)
    assert counts.nodes == len(stage_graph.entities)
    assert counts.relations == len(stage_graph.relations) - len(counts.refused)
    assert _check_examples(store, stage_graph) == len([q for q in EXAMPLES if not q.needs_scene_layer])


def test_examples_answer_alike_on_a_small_graph(store, small_graph):
    store.load(small_graph, movie=unique_movie("small"), replace=True)
    assert _check_examples(store, small_graph) == len([q for q in EXAMPLES if not q.needs_scene_layer])


@pytest.mark.parametrize(("character", "scene"), [("Ben", 1), ("ben", 3), ("Clara", 4)])
def test_examples_answer_alike_on_a_graph_with_a_scene_layer(store, story_graph, character, scene):
    counts = store.load(story_graph, movie=unique_movie("story"), replace=True)
    assert counts.nodes == len(story_graph.entities) + len(story_graph.scenes)
    presences = sum(len(s.presence) for s in story_graph.scenes)
    assert counts.relations == len(story_graph.relations) + presences and not counts.refused
    assert _check_examples(store, story_graph, character=character, scene=scene) >= 3  # the story examples


def test_evidence_is_stored_as_parallel_lists(store, small_graph):
    movie = unique_movie("evidence")
    store.load(small_graph, movie=movie, replace=True)
    node = store.query("MATCH (n:Character) WHERE n.movie = $movie AND n.name = 'Margo Vance' "
                       "RETURN n.evidence_scenes AS s, n.evidence_lines AS l, n.evidence_quotes AS q, "
                       "n.evidence_producers AS p", {"movie": movie}).rows
    assert node == [[[1, 2], ["12-13", ""], [e.quote for e in MARGO_EVIDENCE],
                     [e.producer for e in MARGO_EVIDENCE]]]
    rel = store.query("MATCH ()-[r:hostility_with]->() WHERE r.movie = $movie AND r.name = 'threatens' "
                      "RETURN r.evidence_scenes AS s, r.evidence_lines AS l, r.evidence_quotes AS q, "
                      "r.evidence_producers AS p", {"movie": movie}).rows
    assert rel == [[[2, 3], ["40-40", "88-90"], [e.quote for e in THREAT_EVIDENCE],
                    [e.producer for e in THREAT_EVIDENCE]]]
    bare = store.query("MATCH (o:Object) WHERE o.movie = $movie AND o.name = 'Radio' "
                       "RETURN o.evidence_scenes AS s, o.evidence_quotes AS q", {"movie": movie}).rows
    assert bare == [[[], []]]


def test_loading_twice_gives_the_same_counts(store, small_graph):
    movie = unique_movie("twice")
    first = store.load(small_graph, movie=movie, replace=False)
    second = store.load(small_graph, movie=movie, replace=False)
    third = store.load(small_graph, movie=movie, replace=True)
    assert (first.nodes, first.relations) == (len(small_graph.entities), len(small_graph.relations))
    assert (second.nodes, second.relations) == (first.nodes, first.relations)
    assert (third.nodes, third.relations) == (first.nodes, first.relations)


def test_replace_reloads_one_movie_and_leaves_another_untouched(store, small_graph):
    kept, replaced = unique_movie("kept"), unique_movie("replaced")
    store.load(small_graph, movie=kept, replace=True)
    store.load(small_graph, movie=replaced, replace=True)
    before = store.counts(kept)
    smaller = small_graph.model_copy(update={"entities": small_graph.entities[:4],
                                             "relations": small_graph.relations[:3]})
    counts = store.load(smaller, movie=replaced, replace=True)
    assert (counts.nodes, counts.relations) == (4, 3)
    assert store.counts(kept) == before == (len(small_graph.entities), len(small_graph.relations))
    names = store.query("MATCH (c:Character) WHERE c.movie = $movie RETURN c.name AS name ORDER BY name",
                        {"movie": kept}).rows
    assert names == [["Margo Vance"], ["Rook"], ["Teddy Brake"]]


def test_a_store_lists_its_movies_and_writes_when_asked(store, small_graph):
    movies = sorted([unique_movie("listed"), unique_movie("listed")])
    for movie in movies:
        store.load(small_graph, movie=movie, replace=True)
    assert [m for m in store.movies() if m in movies] == movies
    store.query("MATCH (n) WHERE n.movie = $movie DETACH DELETE n", {"movie": movies[0]}, write=True)
    assert store.counts(movies[0]) == (0, 0) and movies[0] not in store.movies()
    assert store.counts(movies[1]) == (len(small_graph.entities), len(small_graph.relations))


def test_hostile_names_are_stored_verbatim_and_bad_types_refused(store, hostile_graph):
    movie = unique_movie("hostile") + " '}) DETACH DELETE (n"
    bystander = unique_movie("bystander")
    store.load(make_small_graph(), movie=bystander, replace=True)
    counts = store.load(hostile_graph, movie=movie, replace=True)
    reasons = {r.id: r.reason for r in counts.refused}
    assert counts.nodes == len(HOSTILE_NAMES) + 1  # the Location; the rogue-typed entity refused
    assert counts.relations == 3
    assert "is not in the schema" in reasons["rogue:1"]
    unknown = [r for r in hostile_graph.relations if r.type in {"loves", "]->() DETACH DELETE n //"}]
    assert all("is not in the schema" in reasons[r.id] for r in unknown)
    stored = store.query("MATCH (c:Character) WHERE c.movie = $movie "
                         "RETURN c.name AS name, c.aliases AS aliases, c.description AS description",
                         {"movie": movie}).rows
    assert sorted(row[0] for row in stored) == sorted(HOSTILE_NAMES)
    assert all(row[1] == [row[0], "a;b", "semi;colon"] and row[2] == f"said: {row[0]}" for row in stored)
    assert store.counts(bystander) == (len(make_small_graph().entities),
                                       len(make_small_graph().relations))
