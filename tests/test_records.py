"""The one merge policy of entity and relation records, and rewiring relation ends."""

from __future__ import annotations

from kgbuild.graph import (
    MAX_EVIDENCE,
    GraphBuilder,
    merge_entity_records,
    merge_relation_records,
    relation_id,
    rewire_relations,
)
from kgbuild.model import Entity, Persistence, Relation, Scope
from tests.factories import ev


def ent(name: str, *, etype: str = "Character", eid: str = "", **kw) -> Entity:
    return Entity(id=eid or f"{etype.lower()}:{name.lower().replace(' ', '_')}", name=name, type=etype, **kw)


def rel(**kw) -> Relation:
    fields = {"id": "rel:1", "source": "character:anna", "target": "object:knife", "type": "possesses"} | kw
    return Relation(**fields)


# Entities


def test_the_first_record_decides_id_name_and_type():
    first = ent("Anna", etype="Character", scenes=[2])
    other = ent("Anna Karenina", etype="Concept", scenes=[1])
    merged = merge_entity_records(first, other)
    assert (merged.id, merged.name, merged.type) == ("character:anna", "Anna", "Character")


def test_scenes_are_the_sorted_union():
    merged = merge_entity_records(ent("Anna", scenes=[5, 2]), ent("Anna", scenes=[3, 2]), ent("Anna", scenes=[1]))
    assert merged.scenes == [1, 2, 3, 5]


def test_aliases_keep_first_appearance_and_take_the_other_names():
    first = ent("Anna", aliases=["Annie", "Countess"])
    other = ent("Anna Karenina", aliases=["Countess", "Mrs Karenina"])
    assert merge_entity_records(first, other).aliases == ["Annie", "Countess", "Anna Karenina", "Mrs Karenina"]


def test_no_alias_is_the_kept_name_up_to_case_and_punctuation():
    first = ent("Anna K.", aliases=["anna k", "Annie"])
    other = ent("ANNA K", aliases=["Anna K.", "Ann"])
    assert merge_entity_records(first, other).aliases == ["Annie", "Ann"]


def test_description_is_the_longest_and_the_earliest_of_equals():
    assert merge_entity_records(ent("A", description="short"), ent("A", description="much longer")).description \
        == "much longer"
    assert merge_entity_records(ent("A", description="first"), ent("A", description="other")).description == "first"
    assert merge_entity_records(ent("A"), ent("A", description="given later")).description == "given later"
    assert merge_entity_records(ent("A"), ent("A")).description == ""


def test_scope_is_global_when_any_record_is():
    assert merge_entity_records(ent("A"), ent("A", scope=Scope.GLOBAL)).scope is Scope.GLOBAL
    assert merge_entity_records(ent("A", scope=Scope.GLOBAL), ent("A")).scope is Scope.GLOBAL
    assert merge_entity_records(ent("A"), ent("A")).scope is Scope.LOCAL


def test_attributes_are_unioned_and_the_first_value_wins():
    first = ent("A", attributes={"age": "40s", "job": "spy"})
    other = ent("A", attributes={"age": "50s", "hair": "red"})
    assert merge_entity_records(first, other).attributes == {"age": "40s", "job": "spy", "hair": "red"}


def test_evidence_is_kept_with_its_producer_deduplicated_in_scene_order():
    shared = ev(3, "Anna waits.", producer="rule:a")
    first = ent("A", evidence=[shared, ev(4, producer="rule:a")])
    other = ent("A", evidence=[shared.model_copy(update={"producer": "llm:m"}), ev(1, producer="llm:m")])
    merged = merge_entity_records(first, other)
    assert [(e.scene, e.producer) for e in merged.evidence] == [(1, "llm:m"), (3, "rule:a"), (4, "rule:a")]


def test_evidence_is_capped_but_every_producer_keeps_an_item():
    first = ent("A", evidence=[ev(s, producer="rule:a") for s in range(1, 10)])
    other = ent("A", evidence=[ev(20, producer="llm:m")])
    merged = merge_entity_records(first, other)
    assert len(merged.evidence) == MAX_EVIDENCE
    assert {e.producer for e in merged.evidence} == {"rule:a", "llm:m"}


def test_one_record_alone_is_normalized_and_no_record_is_changed():
    lone = ent("Anna", aliases=["Annie", "Annie", "ANNA"], scenes=[3, 1, 3])
    assert merge_entity_records(lone).aliases == ["Annie"] and merge_entity_records(lone).scenes == [1, 3]
    first, other = ent("A", scenes=[1]), ent("B", scenes=[2], aliases=["Bee"])
    before = (first.model_copy(deep=True), other.model_copy(deep=True))
    merge_entity_records(first, other)
    assert (first, other) == before


def test_a_fresh_first_record_names_the_survivor_and_every_member_becomes_an_alias():
    members = [ent("Moseley", scope=Scope.GLOBAL), ent("Robert Moseley", description="A detective.")]
    merged = merge_entity_records(Entity(id="character:bob", name="Bob Moseley", type="Character"), *members)
    assert merged.id == "character:bob" and merged.aliases == ["Moseley", "Robert Moseley"]
    assert merged.scope is Scope.GLOBAL and merged.description == "A detective."


# Relations


def test_relation_keeps_the_first_identity_and_persistence():
    first = rel(persistence=Persistence.STABLE)
    other = rel(id="rel:2", persistence=Persistence.MOMENTARY, description="the longer description")
    merged = merge_relation_records(first, other)
    assert (merged.id, merged.source, merged.target, merged.type) == ("rel:1", "character:anna", "object:knife",
                                                                      "possesses")
    assert merged.persistence is Persistence.STABLE
    assert merged.description == "the longer description"


def test_relation_name_is_the_first_non_empty():
    assert merge_relation_records(rel(), rel(name="grabs"), rel(name="holds")).name == "grabs"
    assert merge_relation_records(rel(name="holds"), rel(name="grabs")).name == "holds"
    assert merge_relation_records(rel(), rel()).name == ""


def test_relation_scenes_flags_and_evidence_are_unioned():
    first = rel(scenes=[4], flags=["schema_violation"], evidence=[ev(4)])
    other = rel(scenes=[1, 4], flags=["doubtful", "schema_violation"], evidence=[ev(1), ev(4)])
    merged = merge_relation_records(first, other)
    assert merged.scenes == [1, 4]
    assert merged.flags == ["doubtful", "schema_violation"]
    assert [e.scene for e in merged.evidence] == [1, 4]


def test_relation_description_equal_lengths_keep_the_first():
    assert merge_relation_records(rel(description="abc"), rel(description="xyz")).description == "abc"


# Rewiring


def test_rewire_moves_ends_and_recomputes_ids():
    moved = rel(id=relation_id("character:ann", "possesses", "object:knife"), source="character:ann")
    kept = rel(id="rel:untouched", source="character:ben")
    out = rewire_relations([moved, kept], {"character:ann": "character:anna"})
    assert out[0].source == "character:anna"
    assert out[0].id == relation_id("character:anna", "possesses", "object:knife")
    assert out[1] == kept  # an unmapped relation keeps even an id of another form
    assert moved.source == "character:ann"  # the input is not changed


def test_rewire_leaves_self_relations_and_repeats_to_the_caller():
    a = rel(source="character:ann", target="character:anna", type="kinship_with")
    b = rel(source="character:ann", target="object:knife")
    c = rel(id=relation_id("character:anna", "possesses", "object:knife"), source="character:anna")
    out = rewire_relations([a, b, c], {"character:ann": "character:anna"})
    assert len(out) == 3
    assert out[0].source == out[0].target == "character:anna"
    assert out[1].id == out[2].id and out[2] == c


# The graph builder uses the policy


def test_builder_merges_repeats_by_the_policy():
    b = GraphBuilder()
    anna = b.entity("Character", "Anna", 3, description="A spy.", scope=Scope.GLOBAL, evidence=[ev(3)])
    b.entity("Character", "ANNA", 1, description="A spy in a red coat.", aliases=["Annie"], evidence=[ev(1)])
    b.entity("Character", "Anna", 2, scope=Scope.LOCAL)
    merged = b.entities[anna]
    assert merged.name == "Anna" and merged.aliases == ["Annie"]
    assert merged.scenes == [1, 2, 3] and merged.description == "A spy in a red coat."
    assert merged.scope is Scope.GLOBAL  # a later local call does not make it local again
    assert [e.scene for e in merged.evidence] == [1, 3]
    knife = b.entity("Object", "Knife", 1)
    b.relation(anna, "possesses", knife, 2, persistence=Persistence.STABLE)
    b.relation(anna, "possesses", knife, 1, name="grabs", persistence=Persistence.MOMENTARY)
    b.relation(anna, "possesses", anna, 1)
    [r] = b.relations.values()
    assert r.scenes == [1, 2] and r.name == "grabs" and r.persistence is Persistence.STABLE
