from kgbuild.evaluation.baselines import trivial_graph
from kgbuild.evaluation.reference import load_any
from kgbuild.evaluation.stage_kg import score_movie
from kgbuild.graph import entity_id, relation_id
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation
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


def _reference_with_other_types() -> KnowledgeGraph:
    """Characters the cues name; places the headings name, but typed Object and Concept."""
    margo, teddy = (Entity(id=entity_id("Character", n), name=n, type="Character") for n in ("Margo", "Teddy"))
    others = [Entity(id=entity_id(t, n), name=n, type=t)
              for t, n in (("Object", "Trawler Cabin"), ("Concept", "Harbour"), ("Object", "Road Map"))]
    relations = [Relation(id=relation_id(c.id, "interacts_with", o.id), source=c.id, target=o.id,
                          type="interacts_with") for c in (margo, teddy) for o in (*others, margo, teddy)
                 if c.id != o.id]
    return KnowledgeGraph(movie=MovieInfo(title="ref", language="en"),
                          entities=[margo, teddy, *others], relations=relations)


def test_trivial_baseline_gets_no_object_or_concept_true_positives(fixtures, embedder):
    g = trivial_graph(read_screenplay(fixtures / "stage" / "english_script.json"))
    s = score_movie(g, _reference_with_other_types(), renames={"Harbour Road": "Road Map"},
                    embedder=embedder)
    rows = {t: (p.tp, p.fp, p.fn) for t, p in s.entity_types.items()}
    # Equal names across types do not match; the rename map grounds 'Harbour Road' to an Object,
    # and that true positive is the Location row's, the type the baseline predicted.
    assert rows == {"Character": (2, 0, 0), "Location": (1, 2, 0), "Object": (0, 0, 1),
                    "Concept": (0, 0, 1)}
    assert (s.entities.tp, s.entities.fp, s.entities.fn) == (3, 2, 2)
    assert [(c.predicted_type, c.predicted, c.reference_type) for c in s.cross_type_matches] == [
        ("Location", "Harbour Road", "Object")]


BIRTHDAY_GIRL = "en049957b3c0b54085baddbec23e00506c"


def test_trivial_baseline_on_birthday_girl_scores_only_its_own_types(shared_data, embedder):
    folder = shared_data / "stage" / "English" / BIRTHDAY_GIRL
    reference, _, renames = load_any(folder)
    g = trivial_graph(read_screenplay(folder / "script.json"))
    s = score_movie(g, reference, renames=renames, embedder=embedder, movie=BIRTHDAY_GIRL)
    assert {t for t, p in s.entity_types.items() if p.tp or p.fp} <= {"Character", "Location"}
    assert s.entity_types["Object"].tp == 0 and s.entity_types["Concept"].tp == 0
    assert s.entities.tp == sum(p.tp for p in s.entity_types.values())
