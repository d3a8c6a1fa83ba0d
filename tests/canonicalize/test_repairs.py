from kgbuild.canonicalize.repairs import (
    dedupe_relations,
    repair_relation_types,
    resolve_same_name,
    run_repairs,
    validate_endpoints,
)
from kgbuild.graph import entity_id, relation_id
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation


def ent(type_, name, scenes=(1,), **kw):
    return Entity(id=entity_id(type_, name), name=name, type=type_, scenes=list(scenes), **kw)


def rel(s, type_, o, scenes=(1,), description=""):
    return Relation(id=relation_id(s.id, type_, o.id), source=s.id, target=o.id, type=type_,
                    scenes=list(scenes), description=description)


def graph(entities, relations):
    return KnowledgeGraph(movie=MovieInfo(title="t", language="en"), entities=entities,
                          relations=relations)


ANNA = ent("Character", "Anna")
BEN = ent("Character", "Ben")
KITCHEN = ent("Location", "Kitchen")
KNIFE = ent("Object", "Knife")
NOON = ent("TimePoint", "Noon")
GUILD = ent("Concept", "Thieves Guild")


def test_endpoints_drop_dangling_and_self():
    ghost = ent("Character", "Ghost")
    g = graph([ANNA, KITCHEN], [rel(ANNA, "located_at", KITCHEN), rel(ANNA, "located_at", ghost),
                                rel(ANNA, "speaks_to", ANNA)])
    out, count = validate_endpoints(g)
    assert [(r.source, r.target) for r in out.relations] == [(ANNA.id, KITCHEN.id)]
    assert count.changed == {"dropped_dangling": 1, "dropped_self": 1}
    assert len(g.relations) == 3  # input untouched


def test_swap_when_reverse_is_admissible():
    g = graph([ANNA, KITCHEN], [rel(KITCHEN, "located_at", ANNA)])
    out, count = repair_relation_types(g)
    r = out.relations[0]
    assert (r.source, r.target, r.type) == (ANNA.id, KITCHEN.id, "located_at")
    assert r.id == relation_id(ANNA.id, "located_at", KITCHEN.id)
    assert count.changed == {"swapped": 1}


def test_retype_when_pair_admits_exactly_one_type():
    g = graph([ANNA, NOON], [rel(ANNA, "located_at", NOON)])
    out, count = repair_relation_types(g)
    assert out.relations[0].type == "present_on"
    assert count.changed == {"retyped": 1}


def test_drop_in_strict_flag_in_lenient():
    # Character -> Character admits several types: no unique rewrite, no swap.
    g = graph([ANNA, BEN], [rel(ANNA, "possesses", BEN)])
    strict, c1 = repair_relation_types(g, strict=True)
    lenient, c2 = repair_relation_types(g, strict=False)
    assert strict.relations == [] and c1.changed == {"dropped": 1}
    assert lenient.relations[0].flags == ["schema_violation"] and c2.changed == {"flagged": 1}


def test_synonym_renamed_and_valid_relations_untouched():
    valid = rel(ANNA, "located_at", KITCHEN)
    g = graph([ANNA, KITCHEN, GUILD], [valid, rel(ANNA, "affiliated_with", GUILD)])
    out, count = repair_relation_types(g)
    assert out.relations[0] == valid
    assert out.relations[1].type == "member_of"
    assert count.changed == {"renamed_synonym": 1}


def test_dedupe_keeps_richer_description_and_all_scenes():
    g = graph([ANNA, KNIFE], [rel(ANNA, "possesses", KNIFE, (3,), "has it"),
                              rel(ANNA, "possesses", KNIFE, (1, 5), "keeps the knife in her boot")])
    out, count = dedupe_relations(g)
    assert len(out.relations) == 1
    assert out.relations[0].description == "keeps the knife in her boot"
    assert out.relations[0].scenes == [1, 3, 5]
    assert count.changed == {"merged": 1}


def test_same_name_concrete_type_beats_event():
    event_knife = ent("Event", "knife", scenes=(7,))
    g = graph([ANNA, KNIFE, event_knife], [rel(ANNA, "performs", event_knife)])
    out, count = resolve_same_name(g)
    assert {e.id for e in out.entities} == {ANNA.id, KNIFE.id}
    knife = next(e for e in out.entities if e.id == KNIFE.id)
    assert knife.scenes == [1, 7]
    assert out.relations[0].target == KNIFE.id
    assert count.changed == {"merged": 1}


def test_run_repairs_reports_every_rule():
    g = graph([ANNA, KITCHEN], [rel(KITCHEN, "located_at", ANNA), rel(ANNA, "located_at", KITCHEN)])
    out, counts = run_repairs(g)
    assert [c.rule for c in counts] == ["same_name", "endpoints", "schema_types", "dedupe"]
    assert len(out.relations) == 1
    assert counts[2].changed == {"swapped": 1} and counts[3].changed == {"merged": 1}


def test_repairs_reproduce_the_release_swaps_and_keep_valid_relations(shared_data):
    from kgbuild.evaluation.repair_agreement import measure

    report = measure(sorted(shared_data.glob("stage/*/*/extraction_results.json")))
    assert report.auto_fixed > 1000
    assert report.agreement >= 0.99
    assert report.valid > 40000 and report.valid_changed == 0
