"""The library face (`kgbuild.build`, `load_graph`, `query`, `score`, `merge`, ...), the networkx
round trip, and the examples of docs/api.md ("Use from Python"), run as they are written."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import kgbuild
from kgbuild.errors import InputError, OutputError
from kgbuild.loaders.errors import QueryError, StoreError
from kgbuild.model import (
    RELATION_ORDER,
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Relation,
    from_networkx,
    to_networkx,
)

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "lizard-people.fountain"
#: The embedding cache the tests share: warm after the first run, so builds take about a second.
CACHE = Path("/tmp/kgcache")


@pytest.fixture(scope="module", autouse=True)
def _cache_dir():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGBUILD_CACHE_DIR", str(CACHE))
        yield


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder holding examples/lizard-people.fountain, as the repository root does."""
    root = tmp_path_factory.mktemp("api")
    (root / "examples").mkdir()
    shutil.copy(EXAMPLE, root / "examples" / EXAMPLE.name)
    return root


@pytest.fixture(scope="module")
def built(workdir) -> tuple[KnowledgeGraph, Path]:
    """The bundled example built offline with merging, and its build folder."""
    outdir = workdir / "build"
    return kgbuild.build(workdir / "examples" / EXAMPLE.name, outdir=outdir), outdir


@pytest.fixture(scope="module")
def raw(workdir) -> KnowledgeGraph:
    """The bundled example built offline without merging (nothing written)."""
    return kgbuild.build(workdir / "examples" / EXAMPLE.name, merge=False)


# --- the examples of docs/api.md ----------------------------------------------------------


def _api_examples() -> list[str]:
    """The python blocks of docs/api.md's "Use from Python", before its reference part."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    start = text.index("\n## Use from Python\n")
    end = text.index("\n## Reference\n", start)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_api_page_shows_the_examples_before_its_reference():
    examples = _api_examples()
    assert 2 <= len(examples) <= 4
    # Every python block of the page is one of them (tests/docs leaves this page to this test).
    assert (REPO / "docs" / "api.md").read_text(encoding="utf-8").count("```python\n") == len(examples)


@pytest.mark.slow
def test_docs_examples_run(workdir, monkeypatch, capsys):
    blocks = _api_examples()
    cwd = workdir / "docs-api"
    (cwd / "examples").mkdir(parents=True)
    shutil.copy(EXAMPLE, cwd / "examples" / EXAMPLE.name)
    monkeypatch.chdir(cwd)
    names: dict[str, object] = {"__name__": "docs"}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/api.md (Use from Python, block {number})", "exec"), names)
    printed = capsys.readouterr().out

    graph = names["graph"]
    assert isinstance(graph, KnowledgeGraph)
    assert kgbuild.load_graph(cwd / "out" / "lizard-people") == graph
    assert (cwd / "out" / "lizard-people" / "graph.lbdb").exists()
    characters = names["characters"]
    assert characters and set(characters) <= {e.name for e in graph.entities if e.type == "Character"}
    assert f"{len(characters)} characters: " in printed

    g = names["g"]
    assert isinstance(g, nx.MultiDiGraph) and g.number_of_edges() == len(graph.relations)
    central = names["central"]
    assert len(central) == 3 and all(n in g for n in central)
    centrality = names["centrality"]
    assert centrality[central[0]] == max(centrality.values())

    rows = names["rows"]
    assert len(rows) == 3 and all(set(r) == {"character", "relations"} for r in rows)
    counts = [r["relations"] for r in rows]
    assert counts == sorted(counts, reverse=True) and counts[0] > 0
    assert str(rows) in printed

    result = names["result"]
    assert 0.9 <= result.entities.f1 <= 1.0 and 0.9 <= result.relations.f1 <= 1.0
    assert f"entities F1 {result.entities.f1:.3f}" in printed


# --- the package --------------------------------------------------------------------------------


def test_import_stays_light():
    code = ("import sys, kgbuild; heavy = ('torch', 'sentence_transformers', 'ladybug', 'networkx', "
            "'numpy', 'pydantic'); print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_every_exported_name_resolves():
    for name in kgbuild.__all__:
        assert getattr(kgbuild, name) is not None
    assert kgbuild.KnowledgeGraph is KnowledgeGraph
    assert set(kgbuild.__all__) <= set(dir(kgbuild))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        kgbuild.nothing  # noqa: B018


@pytest.mark.parametrize("name", ["build", "load_graph", "save_graph", "read_screenplay", "query",
                                  "score", "merge"])
def test_public_functions_say_args_returns_raises_and_example(name):
    doc = inspect.getdoc(getattr(kgbuild, name))
    for part in ("Args:", "Returns:", "Raises:", "Example:", ">>> "):
        assert part in doc, f"kgbuild.{name} lacks {part}"


# --- build, load, save, read --------------------------------------------------------------------


def test_build_returns_the_graph_it_writes(built):
    graph, outdir = built
    assert graph.movie.title and graph.entities and graph.relations
    assert graph.provenance is not None and graph.provenance.backend == "offline"
    for name in ("graph.json", "graph.lbdb", "screenplay.json", "report.md", "graph.graphml", "merge_log.jsonl"):
        assert (outdir / name).exists(), name
    assert kgbuild.load_graph(outdir) == graph
    assert kgbuild.load_graph(outdir / "graph.json") == graph


def test_build_without_outdir_writes_nothing(raw, workdir):
    assert raw.entities
    assert {p.name for p in workdir.iterdir()} <= {"build", "examples", "docs-api"}
    assert not (workdir / "examples" / "graph.json").exists()


def test_build_refuses_another_scripts_folder_before_any_work(built, tmp_path):
    graph, outdir = built
    other = tmp_path / "other.fountain"
    other.write_text(EXAMPLE.read_text(encoding="utf-8") + "\nFADE OUT.\n", encoding="utf-8")
    with pytest.raises(OutputError, match="holds the build of another script"):
        kgbuild.build(other, outdir=outdir)
    assert kgbuild.load_graph(outdir) == graph


def test_build_takes_the_options_of_the_command_line_as_one_value(raw, workdir, tmp_path):
    options = kgbuild.BuildOptions(merge=False)
    graph = kgbuild.build(workdir / "examples" / EXAMPLE.name, options=options, outdir=tmp_path / "out")
    assert graph.entities == raw.entities and graph.relations == raw.relations
    assert kgbuild.load_graph(tmp_path / "out") == graph and not (tmp_path / "out" / "merge_log.jsonl").exists()
    for keywords in ({"merge": False}, {"lenient": True}, {"llm_model": "m"}, {"scenes": "1-2"}):
        with pytest.raises(InputError, match=r"options=BuildOptions\(...\) or as keywords .*, not both"):
            kgbuild.build(EXAMPLE, options=options, **keywords)


def test_build_refuses_llm_options_without_a_model():
    with pytest.raises(InputError, match="need an LLM"):
        kgbuild.build(EXAMPLE, max_cost=1.0)


def test_build_refuses_a_missing_script(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        kgbuild.build(tmp_path / "missing.fountain")


def test_save_and_load_round_trip(built, tmp_path):
    graph, _ = built
    path = kgbuild.save_graph(graph, tmp_path / "copy" / "graph.json")
    assert path == tmp_path / "copy" / "graph.json"
    assert kgbuild.load_graph(path) == graph
    with pytest.raises(InputError, match="no such graph file"):
        kgbuild.load_graph(tmp_path / "nothing.json")


def test_read_screenplay_reads_scripts_and_build_screenplays(built, workdir, tmp_path):
    _, outdir = built
    screenplay = kgbuild.read_screenplay(workdir / "examples" / EXAMPLE.name)
    assert isinstance(screenplay, kgbuild.Screenplay) and screenplay.scenes
    assert kgbuild.read_screenplay(outdir / "screenplay.json") == screenplay
    broken = tmp_path / "screenplay.json"
    broken.write_text(json.dumps({"source": {}, "scenes": []}), encoding="utf-8")
    with pytest.raises(InputError, match="not a valid kgbuild screenplay.json"):
        kgbuild.read_screenplay(broken)


# --- query, score, merge ------------------------------------------------------------------------


def test_query_returns_rows_as_dicts(built):
    graph, outdir = built
    rows = kgbuild.query("MATCH (c:Character) RETURN count(c) AS n", db=outdir)
    assert rows == [{"n": sum(e.type == "Character" for e in graph.entities)}]
    name = next(e.name for e in graph.entities if e.type == "Character")
    rows = kgbuild.query("MATCH (c:Character) WHERE c.name = $name RETURN c.id AS id, c.type AS type",
                         db=outdir / "graph.lbdb", params={"name": name})
    assert rows == [{"id": next(e.id for e in graph.entities if e.name == name and e.type == "Character"),
                     "type": "Character"}]


def test_query_errors_say_what_is_wrong(built, tmp_path):
    _, outdir = built
    with pytest.raises(QueryError):
        kgbuild.query("MATCH (c:Character) RETURN c.name AS name LIMIT $n", db=outdir)
    with pytest.raises(StoreError, match="no embedded store"):
        kgbuild.query("MATCH (n) RETURN n", db=tmp_path / "none.lbdb")


def test_score_of_a_graph_against_itself_is_perfect(built):
    graph, outdir = built
    result = kgbuild.score(graph, graph)
    assert isinstance(result, kgbuild.MovieScore)
    assert result.entities.f1 == 1.0 and result.relations.f1 == 1.0
    assert result.movie == graph.movie.key and result.title == graph.movie.title
    by_path = kgbuild.score(outdir, outdir / "graph.json")
    assert by_path.entities == result.entities and by_path.relations == result.relations


def test_score_refuses_a_reference_of_another_movie_unless_forced(built):
    graph, _ = built
    other = graph.model_copy(update={"movie": graph.movie.model_copy(update={"id": "fargo", "title": "Fargo"})})
    with pytest.raises(InputError, match="the prediction is of .* and the reference of 'Fargo' .*another movie"):
        kgbuild.score(graph, other)
    with pytest.raises(InputError, match="another movie"):
        kgbuild.score(other, graph)
    forced = kgbuild.score(graph, other, force=True)
    assert forced.entities.f1 == 1.0 and forced.movie == "fargo"


def test_score_counts_what_it_leaves_out(built):
    graph, _ = built
    rel = graph.relations[0]
    dangling = rel.model_copy(update={"id": "rel:dangling", "target": "character:nobody"})
    pred = graph.model_copy(update={"relations": [*graph.relations, dangling]})
    strict = kgbuild.score(pred, graph, options=kgbuild.ScoreOptions(threshold=0.95))
    assert strict.prediction_report.dangling_relations == 1
    assert strict.relations.f1 == 1.0


def test_merge_is_the_build_merge_stage(raw, built, workdir, tmp_path):
    graph, outdir = built
    before = raw.model_copy(deep=True)
    merged = kgbuild.merge(raw, workdir / "examples" / EXAMPLE.name)
    assert raw == before
    assert merged.entities == graph.entities and merged.relations == graph.relations
    path = kgbuild.save_graph(raw, tmp_path / "graph.json")
    assert kgbuild.merge(path, outdir / "screenplay.json").entities == graph.entities
    assert len(kgbuild.merge(raw).entities) <= len(raw.entities)


# --- networkx -----------------------------------------------------------------------------------


def test_networkx_round_trip_of_a_real_build(built):
    graph, _ = built
    g = graph.to_networkx()
    assert isinstance(g, nx.MultiDiGraph)
    assert list(g.nodes) == [e.id for e in graph.entities]
    assert g.number_of_edges() == len(graph.relations)
    assert KnowledgeGraph.from_networkx(g) == graph
    assert to_networkx(graph).graph == g.graph


def test_networkx_attributes_are_the_model_fields(built):
    graph, _ = built
    g = graph.to_networkx()
    entity = next(e for e in graph.entities if e.evidence)
    attrs = g.nodes[entity.id]
    assert set(attrs) == set(Entity.model_fields) - {"id"}
    assert attrs["name"] == entity.name and attrs["scope"] == entity.scope.value
    assert attrs["evidence"][0] == entity.evidence[0].model_dump(mode="json")
    rel = graph.relations[0]
    edge = g.edges[rel.source, rel.target, rel.id]
    assert set(edge) == set(Relation.model_fields) - {"id", "source", "target"}
    assert edge["type"] == rel.type
    assert g.graph["movie"] == graph.movie.model_dump(mode="json")
    assert g.graph["format"] == graph.format
    assert g.graph["provenance"] == graph.provenance.model_dump(mode="json")
    assert g.graph[RELATION_ORDER] == [r.id for r in graph.relations]


def test_networkx_round_trip_through_node_link_json(built):
    graph, _ = built
    data = json.loads(json.dumps(nx.node_link_data(graph.to_networkx(), edges="edges")))
    assert from_networkx(nx.node_link_graph(data, edges="edges")) == graph


def test_networkx_algorithms_run_on_the_graph(built):
    graph, _ = built
    g = graph.to_networkx()
    centrality = nx.degree_centrality(g)
    assert set(centrality) == {e.id for e in graph.entities}
    characters = g.subgraph(n for n, t in g.nodes(data="type") if t == "Character")
    assert characters.number_of_nodes() == sum(e.type == "Character" for e in graph.entities)


def _small() -> KnowledgeGraph:
    ev = Evidence(scene=1, lines=(2, 3), quote="NORA waves at OWEN.", producer="rule:action")
    nora = Entity(id="character:nora", name="Nora", type="Character", evidence=[ev], scenes=[1])
    owen = Entity(id="character:owen", name="Owen", type="Character", evidence=[ev], scenes=[1])
    rels = [Relation(id=f"rel:{i}", source=s, target=t, type="speaks_to", evidence=[ev])
            for i, (s, t) in enumerate([("character:owen", "character:nora"),
                                        ("character:nora", "character:owen"),
                                        ("character:owen", "character:nora")])]
    return KnowledgeGraph(movie=MovieInfo(title="T", language="en", scenes=1), entities=[nora, owen],
                          relations=rels)


def test_networkx_keeps_relation_order_and_parallel_edges():
    graph = _small()
    g = graph.to_networkx()
    assert g.number_of_edges("character:owen", "character:nora") == 2
    assert [k for _, _, k in g.edges(keys=True)] != [r.id for r in graph.relations]
    assert from_networkx(g) == graph


def test_networkx_round_trip_of_a_dangling_relation():
    graph = _small()
    dangling = graph.relations[0].model_copy(update={"id": "rel:x", "target": "location:nowhere"})
    graph = graph.model_copy(update={"relations": [*graph.relations, dangling]})
    g = graph.to_networkx()
    assert g.nodes["location:nowhere"] == {}
    assert from_networkx(g) == graph


def test_networkx_edits_come_back():
    g = _small().to_networkx()
    g.remove_node("character:owen")
    g.add_node("location:park", name="Park", type="Location")
    back = from_networkx(g)
    assert [e.id for e in back.entities] == ["character:nora", "location:park"]
    assert back.relations == []
    assert back.entities[1].scope.value == "local"


def test_to_networkx_refuses_duplicate_ids():
    graph = _small()
    twice = graph.model_copy(update={"entities": [*graph.entities, graph.entities[0]]})
    with pytest.raises(InputError, match="two entities have the id 'character:nora'"):
        twice.to_networkx()
    twice = graph.model_copy(update={"relations": [*graph.relations, graph.relations[0]]})
    with pytest.raises(InputError, match="two relations have the id 'rel:0'"):
        twice.to_networkx()


def test_from_networkx_refuses_what_is_not_a_kgbuild_graph():
    with pytest.raises(InputError, match="expected a networkx MultiDiGraph"):
        from_networkx(nx.DiGraph())
    with pytest.raises(InputError, match="no 'movie' attribute"):
        from_networkx(nx.MultiDiGraph())
    g = _small().to_networkx()
    g.graph["colour"] = "red"
    with pytest.raises(InputError, match="unknown graph attributes 'colour'"):
        from_networkx(g)
    g = _small().to_networkx()
    g.graph["format"] = "kgbuild.graph/99"
    with pytest.raises(InputError, match="format 'kgbuild.graph/99'"):
        from_networkx(g)
    g = _small().to_networkx()
    g.nodes["character:nora"]["centrality"] = 0.5
    with pytest.raises(InputError, match="node 'character:nora' is not valid: centrality"):
        from_networkx(g)
    g = _small().to_networkx()
    g.nodes["character:nora"]["id"] = "character:someone"
    with pytest.raises(InputError, match="keyed 'character:nora'"):
        from_networkx(g)
    g = _small().to_networkx()
    g.edges["character:nora", "character:owen", "rel:1"]["persistence"] = "forever"
    with pytest.raises(InputError, match="key 'rel:1'.*persistence"):
        from_networkx(g)
