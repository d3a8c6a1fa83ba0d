import pytest
from pydantic import ValidationError

from kgbuild.schema import Schema, load_schema


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
