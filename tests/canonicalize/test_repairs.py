from kgbuild.canonicalize.repairs import (
    dedupe_relations,
    repair_relation_types,
    require_evidence,
    resolve_same_name,
    run_repairs,
    validate_endpoints,
)
from kgbuild.graph import relation_id
from kgbuild.model import KnowledgeGraph, MovieInfo
from tests import factories

# Every fact of these graphs is seen in scene 1 unless told, with a quote of its first scene.


def ev(scene, quote):
    return factories.ev(scene, quote, lines=(scene * 10, scene * 10))


def ent(type_, name, scenes=(1,), evidence=None, **kw):
    evidence = [ev(scenes[0], f"{name} is here.")] if evidence is None else evidence
    return factories.ent(type_, name, scenes=scenes, evidence=evidence, **kw)


def rel(s, type_, o, scenes=(1,), description="", evidence=None):
    evidence = [ev(scenes[0], f"{s.name} and {o.name}.")] if evidence is None else evidence
    return factories.rel(s, type_, o, scenes=scenes, description=description, evidence=evidence)


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


def test_dedupe_keeps_richer_description_all_scenes_and_all_evidence():
    g = graph([ANNA, KNIFE], [rel(ANNA, "possesses", KNIFE, (3,), "has it"),
                              rel(ANNA, "possesses", KNIFE, (1, 5), "keeps the knife in her boot")])
    out, count = dedupe_relations(g)
    assert len(out.relations) == 1
    assert out.relations[0].description == "keeps the knife in her boot"
    assert out.relations[0].scenes == [1, 3, 5]
    assert [e.scene for e in out.relations[0].evidence] == [1, 3]  # merged, in scene order
    assert count.changed == {"merged": 1}



def test_dedupe_keeps_the_first_relation_persistence_and_name():
    """The first of repeated relations survives (its persistence, its verb if it has one); before
    the one merge policy the one with the longer description did."""
    first = rel(ANNA, "possesses", KNIFE, (3,), "has it").model_copy(update={"persistence": "stable"})
    richer = rel(ANNA, "possesses", KNIFE, (1,), "keeps the knife in her boot").model_copy(
        update={"persistence": "momentary", "name": "keeps", "flags": ["schema_violation"]})
    out, _ = dedupe_relations(graph([ANNA, KNIFE], [first, richer]))
    [merged] = out.relations
    assert merged.persistence == "stable" and merged.name == "keeps"
    assert merged.description == "keeps the knife in her boot" and merged.flags == ["schema_violation"]

def names_types(g):
    return sorted((e.name, e.type) for e in g.entities)


def test_same_name_keeps_a_time_point_and_a_place_apart():
    night_time, night_place = ent("TimePoint", "night"), ent("Location", "Night", scenes=(2,))
    g = graph([ANNA, night_time, night_place],
              [rel(ANNA, "present_on", night_time), rel(ANNA, "located_at", night_place)])
    out, count = resolve_same_name(g)
    assert out == g and count.changed == {}


def test_same_name_keeps_a_character_and_a_place_apart():
    alley_char, alley_place = ent("Character", "Alley"), ent("Location", "alley", scenes=(4,))
    g = graph([alley_char, alley_place, ANNA], [rel(ANNA, "located_at", alley_place)])
    out, count = resolve_same_name(g)
    assert names_types(out) == [("Alley", "Character"), ("Anna", "Character"), ("alley", "Location")]
    assert out.relations == g.relations and count.changed == {}


def test_same_name_folds_a_concept_into_the_character_with_its_evidence():
    police, police_concept = ent("Character", "Police", scenes=(2,)), ent("Concept", "police", scenes=(5,))
    g = graph([police_concept, ANNA, police], [rel(ANNA, "member_of", police_concept, (5,))])
    out, count = resolve_same_name(g)
    assert names_types(out) == [("Anna", "Character"), ("Police", "Character")]
    merged = next(e for e in out.entities if e.id == police.id)
    assert merged.scenes == [2, 5]
    assert [(e.scene, e.quote) for e in merged.evidence] == [(2, "Police is here."), (5, "police is here.")]
    assert [(r.source, r.target) for r in out.relations] == [(ANNA.id, police.id)]
    assert count.changed == {"merged": 1}
    assert count.examples == ["merged: Concept 'police' into Character"]


def test_same_name_fold_takes_the_longest_description_and_a_global_scope():
    police = ent("Character", "Police", description="Cops.")
    concept = ent("Concept", "police", scenes=(5,), description="The law in town.", scope="global")
    out, _ = resolve_same_name(graph([police, concept], []))
    [merged] = out.entities
    assert (merged.id, merged.type, merged.scope) == (police.id, "Character", "global")
    assert merged.description == "The law in town." and merged.aliases == []


def test_same_name_folds_an_event_into_the_occasion_but_not_into_an_object():
    wedding, wedding_event = ent("Occasion", "The Wedding", scenes=(3,)), ent("Event", "the wedding", scenes=(3,))
    event_knife = ent("Event", "knife", scenes=(7,))
    g = graph([ANNA, KNIFE, event_knife, wedding_event, wedding],
              [rel(ANNA, "performs", event_knife, (7,)), rel(ANNA, "participates_in", wedding_event, (3,))])
    out, count = resolve_same_name(g)
    assert names_types(out) == [("Anna", "Character"), ("Knife", "Object"), ("The Wedding", "Occasion"),
                                ("knife", "Event")]
    assert {(r.type, r.target) for r in out.relations} == {("performs", event_knife.id),
                                                           ("participates_in", wedding.id)}
    assert count.changed == {"merged": 1}


def test_require_evidence_drops_and_counts_facts_without_any():
    ghost = ent("Character", "Ghost", evidence=[])
    g = graph([ANNA, KITCHEN, ghost], [rel(ANNA, "located_at", KITCHEN),
                                       rel(ANNA, "speaks_to", ghost),
                                       rel(KITCHEN, "part_of", KITCHEN, evidence=[]),
                                       rel(BEN, "located_at", KITCHEN, evidence=[])])
    out, count = require_evidence(g)
    assert [e.name for e in out.entities] == ["Anna", "Kitchen"]
    assert [(r.source, r.target) for r in out.relations] == [(ANNA.id, KITCHEN.id)]
    assert count.rule == "evidence"
    assert count.changed == {"dropped_entity": 1, "dropped_with_end": 1, "dropped_relation": 2}
    assert count.examples[0] == "dropped_entity: Character 'Ghost'"
    assert len(g.entities) == 3  # input untouched


def test_run_repairs_reports_every_rule_and_requires_evidence_last():
    ghost = ent("Character", "Ghost", evidence=[])
    g = graph([ANNA, KITCHEN, ghost], [rel(KITCHEN, "located_at", ANNA), rel(ANNA, "located_at", KITCHEN),
                                       rel(ghost, "located_at", KITCHEN)])
    out, counts = run_repairs(g)
    assert [c.rule for c in counts] == ["same_name", "endpoints", "schema_types", "dedupe", "evidence"]
    assert [e.name for e in out.entities] == ["Anna", "Kitchen"]
    assert len(out.relations) == 1
    assert counts[2].changed == {"swapped": 1} and counts[3].changed == {"merged": 1}
    assert counts[4].changed == {"dropped_entity": 1, "dropped_with_end": 1}


def test_repairs_reproduce_the_release_swaps_and_keep_valid_relations(shared_data):
    from bench.studies.repair_agreement import measure

    report = measure(sorted(shared_data.glob("stage/*/*/extraction_results.json")))
    assert report.auto_fixed > 1000
    assert report.agreement >= 0.99
    assert report.valid > 40000 and report.valid_changed == 0
