import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from kgbuild.folders import BuildFolder
from kgbuild.schema import ROLES, Schema, SchemaError, is_default, load_schema, schema_for_graph


def test_release_types_present():
    schema = load_schema()
    assert schema.entity_type_names() == [
        "Character", "Event", "Location", "TimePoint", "Object", "Concept", "Occasion"]
    names = set(schema.relation_type_names())
    release = {"occurs_at", "performs", "located_at", "undergoes", "interacts_with", "occurs_on",
               "part_of", "present_on", "occurs_during", "affinity_with", "experiences",
               "possesses", "participates_in", "member_of", "hostility_with", "kinship_with",
               "is_a", "favorable_toward", "unfavorable_toward", "speaks_to", "initiates",
               "allied_with"}
    assert release <= names
    assert {"precedes", "causes", "contrasts_with", "references"} <= names


def test_admissible_pairs_and_synonyms():
    schema = load_schema()
    assert schema.is_admissible("located_at", "Character", "Location")
    assert not schema.is_admissible("located_at", "Location", "Character")
    assert schema.is_admissible("affiliated_with", "Character", "Concept")
    assert schema.canonical_relation("affiliated_with") == "member_of"
    assert schema.relation_types_for("Event", "TimePoint") == ["occurs_on"]
    assert schema.is_event_centric_entity("Occasion")
    assert not schema.is_event_centric_entity("Character")


def test_same_name_merges_are_data_listing_winner_then_loser():
    schema = load_schema()
    assert {("Object", "Concept"), ("Occasion", "Event"), ("Character", "Concept")} <= set(schema.same_name_merges)
    assert schema.same_name_winner("Concept", "Character") == "Character"
    assert schema.same_name_winner("Concept", "Object") == "Object"
    assert schema.same_name_winner("Event", "Occasion") == "Occasion"
    assert schema.same_name_winner("Location", "Location") == "Location"
    for pair in [("TimePoint", "Location"), ("Character", "Location"), ("Character", "Object"),
                 ("Event", "Object"), ("TimePoint", "Concept")]:
        assert schema.same_name_winner(*pair) is None, pair


def test_same_name_merges_must_name_known_types():
    data = load_schema().model_dump()
    with pytest.raises(ValidationError, match="unknown entity types: Spaceship"):
        Schema.model_validate({**data, "same_name_merges": [["Spaceship", "Object"]]})
    assert Schema.model_validate({**data, "same_name_merges": []}).same_name_winner("Object", "Concept") is None


def test_life_stage_of_is_a_derived_character_relation():
    schema = load_schema()
    spec = schema.relation("life_stage_of")
    assert spec is not None and spec.pairs == [("Character", "Character")]
    assert not spec.event_centric and not spec.symmetric and spec.derived
    assert "YOUNG EDWARD -> EDWARD" in spec.description
    assert schema.derived_relation_names() == ["witnesses", "told_about", "life_stage_of"]
    assert not schema.relation("kinship_with").derived


def test_code_asks_the_schema_for_roles_rule_groups_and_priority():
    schema = load_schema()
    assert schema.role_types() == {"person": "Character", "event": "Event", "place": "Location", "time": "TimePoint",
                                   "thing": "Object", "abstract": "Concept", "occasion": "Occasion"}
    assert set(schema.role_types()) == set(ROLES)
    assert schema.type_for_role("person") == "Character" and schema.role_of("TimePoint") == "time"
    assert schema.role_of("Spaceship") is None
    assert schema.types_with_rule("head_noun") == {"Object", "Concept"}
    assert schema.types_with_rule("generic_tail") == {"Location", "Concept"}
    order = ["Character", "Location", "Object", "Concept", "TimePoint", "Occasion", "Event"]
    assert sorted(schema.entity_type_names(), key=schema.type_rank) == order
    assert schema.type_rank("Spaceship") == len(order)


def test_a_schema_without_a_role_has_no_type_for_it(fixtures):
    small = load_schema(fixtures / "schema" / "people_places.json")
    assert small.role_types() == {"person": "Person", "place": "Place"}
    assert small.type_for_role("event") is None and small.type_for_role("thing") is None
    assert small.extractable_relation_names(event_links=True) == []
    assert not is_default(small) and is_default(load_schema())


def _invalid(**changes) -> str:
    data = {**load_schema().model_dump(), **changes}
    with pytest.raises(ValidationError) as caught:
        Schema.model_validate(data)
    return str(caught.value)


def test_invalid_schemas_say_what_is_wrong():
    types = load_schema().model_dump()["entity_types"]
    assert "role 'person' is given to several entity types (Character, Location)" in _invalid(
        entity_types=[types[0], {**types[2], "role": "person"}, *types[3:]])
    assert "Input should be 'person', 'place', 'time', 'event', 'occasion', 'thing' or 'abstract'" in _invalid(
        entity_types=[{**types[0], "role": "hero"}, *types[1:]])
    assert "Input should be 'head_noun' or 'generic_tail'" in _invalid(
        entity_types=[{**types[0], "merge_rules": ["nickname"]}, *types[1:]])
    assert "type_priority names unknown entity types: Spaceship" in _invalid(type_priority=["Spaceship"])
    assert "type_priority lists 'Character' twice" in _invalid(type_priority=["Character", "Character"])
    assert "entity type 'Character' is defined twice" in _invalid(entity_types=[types[0], *types])
    assert "type name 'Time Point' cannot be a Cypher label" in _invalid(
        entity_types=[*types[:3], {**types[3], "name": "Time Point"}, *types[4:]])
    assert "synonym 'knows' names the unknown relation type 'acquainted_with'" in _invalid(
        synonyms={"knows": "acquainted_with"})
    relations = [{**r, "pairs": [["Character", "Plcae"]]} if r["name"] == "located_at" else r
                 for r in load_schema().model_dump()["relation_types"]]
    assert "relation located_at names unknown entity types: Plcae" in _invalid(relation_types=relations)


def test_a_schema_file_that_cannot_be_used_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(SchemaError, match=r"missing\.json: no such schema file"):
        load_schema(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x",\n "version": }')
    with pytest.raises(SchemaError, match=r"broken\.json:2: not valid JSON"):
        load_schema(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**load_schema().model_dump(), "type_priority": ["Robot"]}))
    with pytest.raises(SchemaError, match=r"wrong\.json: not a valid kgbuild schema: schema: Value error, "
                                          "type_priority names unknown entity types: Robot"):
        load_schema(wrong)


def test_a_changed_schema_file_is_read_again(tmp_path, fixtures):
    path = tmp_path / "schema.json"
    data = json.loads((fixtures / "schema" / "people_places.json").read_text())
    path.write_text(json.dumps(data))
    assert load_schema(path).version == 1
    path.write_text(json.dumps({**data, "version": 2, "note": "changed"}))
    assert load_schema(path).version == 2


def test_schema_for_graph_prefers_the_option_then_the_file_beside_the_graph(tmp_path, fixtures):
    people = fixtures / "schema" / "people_places.json"
    assert is_default(schema_for_graph(tmp_path))
    (tmp_path / BuildFolder.SCHEMA).write_text(people.read_text())
    assert schema_for_graph(tmp_path).name == "people-places"
    assert schema_for_graph(tmp_path / "graph.json").name == "people-places"
    stage = Path(__file__).resolve().parents[2] / "schema" / "stage_kg.json"
    assert is_default(schema_for_graph(tmp_path, stage))
