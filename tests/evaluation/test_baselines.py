from kgbuild.evaluation.baselines import trivial_graph
from kgbuild.readers import read_screenplay


def test_trivial_baseline_from_cues_and_headings(fixtures):
    sp = read_screenplay(fixtures / "stage" / "english_script.json")
    g = trivial_graph(sp)
    names = {(e.type, e.name): e.scenes for e in g.entities}
    assert names == {
        ("Location", "Harbour"): [1],
        ("Location", "Trawler Cabin"): [2],
        ("Location", "Harbour Road"): [3],
        ("Character", "Margo"): [1, 2, 3],
        ("Character", "Teddy"): [1, 2],
    }
    ids = {e.id: e.name for e in g.entities}
    triples = {(ids[r.source], r.type, ids[r.target], tuple(r.scenes)) for r in g.relations}
    assert triples == {
        ("Margo", "located_at", "Harbour", (1,)),
        ("Teddy", "located_at", "Harbour", (1,)),
        ("Teddy", "located_at", "Trawler Cabin", (2,)),
        ("Margo", "located_at", "Trawler Cabin", (2,)),
        ("Margo", "located_at", "Harbour Road", (3,)),
    }
    assert g.provenance.backend == "baseline:trivial"
