from kgbuild.schema import load_schema


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
