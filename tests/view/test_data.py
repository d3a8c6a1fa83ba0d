"""The page's data: first scenes, speeches, sizes, type styles from the schema, scene headings."""

from __future__ import annotations

import logging
from collections import Counter

from kgbuild.model import Element, Entity, Relation
from kgbuild.schema import load_schema
from kgbuild.view.data import (
    CHARACTER_SIZES,
    MAIN_CHARACTERS,
    MAIN_PLACES,
    OTHER_SIZES,
    first_scene,
    label_ranks,
    speeches_by_character,
    top_characters,
    view_data,
)
from kgbuild.view.style import ENTITY_PALETTE, LINE_STYLES, UNKNOWN_COLOUR, entity_colours, relation_looks


def test_every_entity_and_relation_is_a_node_or_an_edge_with_its_first_scene(story):
    graph, screenplay = story
    data = view_data(graph, screenplay)
    assert [n.id for n in data.nodes] == [e.id for e in graph.entities]
    assert [e.id for e in data.edges] == [r.id for r in graph.relations]
    assert {n.id: n.first for n in data.nodes} == {e.id: min(e.scenes) for e in graph.entities}
    assert {e.id: e.first for e in data.edges} == {"rel:1": 1, "rel:2": 1, "rel:3": 3, "rel:4": 4, "rel:5": 2}
    anna = data.nodes[0]
    assert (anna.aliases, anna.description, anna.evidence) == (["Annie"], "A cook.", graph.entities[0].evidence)
    assert data.last_scene == 4
    assert [(s.index, s.heading) for s in data.scenes][:2] == [(1, "INT. KITCHEN - NIGHT"), (2, "EXT. PIER - DAY")]
    assert view_data(graph, screenplay) == data  # same graph, same page data (layout included)
    assert graph.entities[0].scenes == [1, 2, 3]  # the input is untouched


def test_first_scene_is_none_for_a_fact_without_scenes():
    assert first_scene([4, 2, 9]) == 2
    assert first_scene([]) is None


def test_speeches_count_the_cues_of_a_characters_name_and_aliases_and_not_shared_names(story):
    graph, screenplay = story
    assert speeches_by_character(graph.entities, screenplay) == {"character:anna": 3, "character:ben": 1}
    twin = Entity(id="character:ben_2", name="Ben", type="Character")
    counts = speeches_by_character([*graph.entities, twin], screenplay)
    assert counts == {"character:anna": 3, "character:ben": 0, "character:ben_2": 0}


def test_characters_are_sized_by_speeches_and_others_by_relations(story):
    graph, screenplay = story
    data = view_data(graph, screenplay)
    size = {n.id: n.size for n in data.nodes}
    assert data.size_by == "speeches"
    assert size["character:anna"] == CHARACTER_SIZES[1]  # most speeches
    assert CHARACTER_SIZES[0] < size["character:ben"] < size["character:anna"]
    assert size["location:kitchen"] == size["object:knife"] == size["event:anna_hides_the_knife"] == OTHER_SIZES[1]
    assert {n.id: n.speeches for n in data.nodes if n.type == "Character"} == {"character:anna": 3, "character:ben": 1}
    assert {n.id: n.degree for n in data.nodes}["character:anna"] == 5
    assert top_characters(data) == ["Anna", "Ben"]


def test_without_a_screenplay_every_node_is_sized_by_degree(story):
    graph, _ = story
    data = view_data(graph)
    assert data.size_by == "degree" and data.scenes == []
    assert all(n.speeches is None for n in data.nodes)
    ben = next(n for n in data.nodes if n.id == "character:ben")
    anna = next(n for n in data.nodes if n.id == "character:anna")
    assert (anna.degree, ben.degree) == (5, 2) and anna.size > ben.size
    assert top_characters(data) == ["Anna", "Ben"]


def test_types_take_colours_and_line_styles_from_the_schema_lists(story):
    graph, screenplay = story
    schema = load_schema()
    data = view_data(graph, screenplay)
    order = schema.entity_type_names()
    assert [t.name for t in data.entity_types] == [t for t in order if t in {e.type for e in graph.entities}]
    colours = entity_colours(schema)
    assert colours == {t: ENTITY_PALETTE[i % len(ENTITY_PALETTE)] for i, t in enumerate(order)}
    assert {t.name: t.colour for t in data.entity_types} == {t.name: colours[t.name] for t in data.entity_types}
    assert {t.name: t.count for t in data.entity_types}["Character"] == 2
    looks = relation_looks(schema)
    assert set(looks) == set(schema.relation_type_names())
    for spec in schema.relation_types:
        same_group = [r.name for r in schema.relation_types if r.group == spec.group]
        assert looks[spec.name].line == LINE_STYLES[same_group.index(spec.name) % len(LINE_STYLES)]
        assert looks[spec.name].colour == looks[same_group[0]].colour
        assert looks[spec.name].directed is not spec.symmetric
    kinship = next(t for t in data.relation_types if t.name == "kinship_with")
    assert (kinship.directed, kinship.group) == (False, "social")


def test_unknown_types_are_drawn_grey_and_dangling_relations_left_out(story, caplog):
    graph, screenplay = story
    odd = graph.model_copy(update={
        "entities": [*graph.entities, Entity(id="ghost:x", name="X", type="Ghost", scenes=[2])],
        "relations": [*graph.relations,
                      Relation(id="rel:odd", source="ghost:x", target="character:anna", type="haunts", scenes=[2]),
                      Relation(id="rel:gone", source="character:anna", target="object:gone", type="possesses")]})
    with caplog.at_level(logging.WARNING):
        data = view_data(odd, screenplay)
    assert "1 relations name an entity the graph does not hold" in caplog.text
    assert [e.id for e in data.edges][-1] == "rel:odd"
    assert {t.name: t.colour for t in data.entity_types}["Ghost"] == UNKNOWN_COLOUR
    haunts = next(t for t in data.relation_types if t.name == "haunts")
    assert (haunts.colour, haunts.group, haunts.description) == (UNKNOWN_COLOUR, "other", "not in the schema")


def test_a_cue_of_a_scene_counts_once_per_element(story):
    graph, screenplay = story
    extra = screenplay.scenes[3].model_copy(update={"elements": [
        Element(kind="character", text="BEN (V.O.)", line_start=41, line_end=41, speaker="BEN"),
        Element(kind="dialogue", text="Wait.", line_start=42, line_end=42, speaker="BEN")]})
    longer = screenplay.model_copy(update={"scenes": [*screenplay.scenes[:3], extra]})
    assert speeches_by_character(graph.entities, longer)["character:ben"] == 2


def test_main_characters_then_main_places_come_first_in_the_label_order(story):
    graph, screenplay = story
    data = view_data(graph, screenplay)
    ranks = {n.id: n.rank for n in data.nodes}
    assert sorted(ranks.values()) == list(range(len(data.nodes)))
    assert [n.id for n in sorted(data.nodes, key=lambda n: n.rank)][:3] == [
        "character:anna", "character:ben", "location:kitchen"]
    assert {n.id for n in data.nodes if n.main} == {"character:anna", "character:ben", "location:kitchen"}


def test_only_the_best_connected_characters_and_places_are_main():
    people = [Entity(id=f"c{i:02d}", name=f"C{i:02d}", type="Character") for i in range(MAIN_CHARACTERS + 3)]
    places = [Entity(id=f"p{i:02d}", name=f"P{i:02d}", type="Location") for i in range(MAIN_PLACES + 2)]
    hub = Entity(id="e", name="E", type="Event")
    degree = Counter({e.id: 100 - i for i, e in enumerate(people)} | {e.id: 50 - i for i, e in enumerate(places)})
    degree["e"] = 1000
    ranks, main = label_ranks([hub, *reversed(places), *reversed(people)], degree, {"c14": 10**6},
                              person="Character", place="Location")
    assert main == {e.id for e in people[:MAIN_CHARACTERS]} | {e.id for e in places[:MAIN_PLACES]}
    order = sorted(ranks, key=ranks.__getitem__)
    assert order == ([e.id for e in people[:MAIN_CHARACTERS]] + [e.id for e in places[:MAIN_PLACES]]
                     + ["c12", "c13", "c14", "p08", "p09", "e"])  # then by relations: c14's speeches only break ties
