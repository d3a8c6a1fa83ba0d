"""STAGE-KG scoring on graphs whose right answers are known by construction."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from click.testing import CliRunner

from kgbuild.cli.score import score as score_command
from kgbuild.errors import InputError
from kgbuild.evaluation.reference import check_prediction, load_any
from kgbuild.evaluation.stage_kg import CrossTypeMatch, MissedRelations, NamedOtherwise, ScoreOptions, score_movie
from kgbuild.graph import entity_id, save_graph
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation
from kgbuild.readers.stage_json import stage_title
from tests.factories import ent, rel

LOCATIONS = ["Kitchen", "Harbour", "Lighthouse", "Train Station", "Police Department",
             "Cathedral", "Hospital Ward", "Football Stadium", "Bakery"]
RENAMED = {"Train Station": "Railway Station", "Football Stadium": "Soccer Stadium"}
DROPPED = {"Police Department", "Hospital Ward"}  # each touches one located_at + two part_of


def reference_graph():
    anna = ent("Character", "Anna Berg")
    locs = [ent("Location", n) for n in LOCATIONS]
    rels = [rel(anna, "located_at", loc) for loc in locs]
    rels += [rel(a, "part_of", b) for a, b in pairwise(locs)]
    return KnowledgeGraph(movie=MovieInfo(title="ref", language="en"),
                          entities=[anna, *locs], relations=rels)


def predicted_graph():
    """20% of the 10 entities renamed to near-synonyms, 20% dropped, 20% junk added."""
    anna = ent("Character", "Anna Berg")
    locs = [ent("Location", RENAMED.get(n, n)) for n in LOCATIONS]
    kept = {loc.id for loc, n in zip(locs, LOCATIONS, strict=True) if n not in DROPPED}
    rels = [rel(anna, "located_at", loc) for loc in locs if loc.id in kept]
    rels += [rel(a, "part_of", b) for a, b in pairwise(locs) if {a.id, b.id} <= kept]
    banana, elephant = ent("Location", "Quantum Banana"), ent("Object", "Purple Elephant")
    rels += [rel(anna, "located_at", banana), rel(anna, "possesses", elephant)]
    entities = [anna, *(loc for loc in locs if loc.id in kept), banana, elephant]
    return KnowledgeGraph(movie=MovieInfo(title="pred", language="en"),
                          entities=entities, relations=rels)


def test_reference_against_itself_is_perfect(embedder):
    ref = reference_graph()
    s = score_movie(ref, ref, embedder=embedder)
    assert (s.entities.f1, s.relations.f1) == (1.0, 1.0)
    assert s.scored_reference_entities == 10 and s.scored_reference_relations == 17


def test_renamed_dropped_and_junk_give_the_hand_computed_scores(embedder):
    s = score_movie(predicted_graph(), reference_graph(), embedder=embedder)
    # Entities: 8 found (2 of them through the embeddings), 2 junk, 2 missing.
    assert (s.entities.tp, s.entities.fp, s.entities.fn) == (8, 2, 2)
    assert s.entities.precision == pytest.approx(0.8) and s.entities.recall == pytest.approx(0.8)
    # Relations: 17 in the reference; the 2 dropped places took 2 located_at + 4 part_of with
    # them; the 2 junk relations are wrong.
    assert (s.relations.tp, s.relations.fp, s.relations.fn) == (11, 2, 6)
    assert s.relations.precision == pytest.approx(11 / 13)
    assert s.relations.recall == pytest.approx(11 / 17)
    assert sorted(s.unmatched_reference["Location"]) == sorted(DROPPED)
    assert s.false_positives == {"Location": ["Quantum Banana"], "Object": ["Purple Elephant"]}
    # Each missed relation touches a dropped place and a kept one.
    assert s.missed_relations == MissedRelations(both_ends_matched=0, one_end_matched=6, no_end_matched=0)
    assert s.named_otherwise == []


def test_threshold_above_the_synonyms_loses_them(embedder):
    s = score_movie(predicted_graph(), reference_graph(), embedder=embedder,
                    options=ScoreOptions(threshold=0.99))
    assert (s.entities.tp, s.entities.fp, s.entities.fn) == (6, 4, 4)
    assert {n.predicted for n in s.near_misses} <= set(RENAMED.values())


def test_rename_map_grounds_without_embeddings(embedder):
    ref = reference_graph()
    pred = ref.model_copy(update={"entities": [
        e.model_copy(update={"name": "Lamp House"}) if e.name == "Lighthouse" else e
        for e in ref.entities]})
    strict = ScoreOptions(threshold=1.0)
    without = score_movie(pred, ref, embedder=embedder, options=strict)
    with_map = score_movie(pred, ref, renames={"Lamp House": "Lighthouse"}, embedder=embedder,
                           options=strict)
    assert without.entities.fn == 1 and with_map.entities.f1 == 1.0


def test_event_entities_and_low_degree_are_not_scored(embedder):
    ref = reference_graph()
    lone = ent("Object", "Lonely Spoon")
    fire = ent("Event", "Fire breaks out")
    anna = ref.entities[0]
    ref = ref.model_copy(update={
        "entities": [*ref.entities, lone, fire],
        "relations": [*ref.relations, rel(anna, "possesses", lone), rel(anna, "performs", fire)]})
    pred = ref.model_copy()
    s = score_movie(pred, ref, embedder=embedder)
    assert s.scored_reference_entities == 10  # the spoon has degree 1, the fire is an event
    assert s.neutral_entities == 1 and s.neutral_relations == 1
    assert (s.entities.fp, s.relations.fp) == (0, 0)


def test_scores_are_deterministic(embedder):
    a = score_movie(predicted_graph(), reference_graph(), embedder=embedder)
    b = score_movie(predicted_graph(), reference_graph(), embedder=embedder)
    assert a.model_dump_json() == b.model_dump_json()


def test_unknown_types_and_dangling_endpoints_are_counted_not_fatal(embedder):
    pred = predicted_graph()
    weird = Entity(id="x:1", name="Blob", type="Spaceship")
    dangling = Relation(id="r1", source=pred.entities[0].id, target="nowhere", type="located_at")
    odd = Relation(id="r2", source=pred.entities[0].id, target=pred.entities[1].id, type="haunts")
    pred = pred.model_copy(update={"entities": [*pred.entities, weird],
                                   "relations": [*pred.relations, dangling, odd]})
    clean, report = check_prediction(pred, "pred")
    assert report.unknown_entity_types == {"Spaceship": 1}
    assert report.unknown_relation_types == {"haunts": 1}
    assert report.dangling_relations == 1
    s = score_movie(clean, reference_graph(), embedder=embedder)
    assert (s.entities.tp, s.relations.tp) == (8, 11)


def test_stage_movie_loader_applies_rename_map_and_majority_type(tmp_path):
    movie = tmp_path / "en_test"
    movie.mkdir()
    scenes = {
        "scene_1_part_1": {"ok": True, "entities": [
            {"type": "Character", "name": "Jo", "description": "a girl", "scope": "global"},
            {"type": "Location", "name": "Barn"},
            {"type": "Object", "name": "Barn"}, {"type": "Location", "name": "barn"}],
            "relations": [{"subject": "Jo", "object": "Barn", "relation_type": "located_at"},
                          {"subject": "Jo", "object": "Ghost", "relation_type": "located_at"}]},
        "scene_2_part_1": {"ok": False},
        "scene_3_part_1": {"ok": True, "entities": [
            {"type": "Character", "name": "Josephine March", "description": "the second sister"}],
            "relations": [{"subject": "Josephine March", "object": "Barn",
                           "relation_type": "located_at"}]},
    }
    (movie / "extraction_results.json").write_text(json.dumps(scenes))
    (movie / "rename_map.json").write_text(json.dumps({"Jo": "Josephine March"}))
    graph, report, renames = load_any(movie)
    by_name = {e.name: e for e in graph.entities}
    assert set(by_name) == {"Josephine March", "Barn"}
    assert by_name["Barn"].type == "Location"
    assert by_name["Josephine March"].scenes == [1, 3]
    assert "Jo" in by_name["Josephine March"].aliases
    assert len(graph.relations) == 1 and graph.relations[0].scenes == [1, 3]
    assert report.failed_scenes == 1 and report.dangling_relations == 1
    assert renames == {"Jo": "Josephine March"}


def counts(prf):
    return prf.tp, prf.fp, prf.fn


def test_equal_names_match_only_within_a_type(embedder):
    ref = reference_graph()
    anna = ref.entities[0]
    kitchen = ent("Object", "Kitchen")  # the reference's Kitchen is a Location
    pred = KnowledgeGraph(movie=MovieInfo(title="pred", language="en"), entities=[anna, kitchen],
                          relations=[rel(anna, "possesses", kitchen)])
    s = score_movie(pred, ref, embedder=embedder)
    assert counts(s.entity_types["Object"]) == (0, 1, 0)
    assert "Kitchen" in s.unmatched_reference["Location"]
    assert s.entity_types["Location"].tp == 0 and s.cross_type_matches == []
    assert s.named_otherwise == [NamedOtherwise(reference="Kitchen", reference_type="Location", predicted="Kitchen",
                                                predicted_type="Object", how="type")]


def test_a_cross_type_rename_match_counts_under_the_predicted_type(embedder):
    ref = reference_graph()
    anna = ref.entities[0]
    galley = ent("Object", "Galley")
    pred = KnowledgeGraph(movie=MovieInfo(title="pred", language="en"), entities=[anna, galley],
                          relations=[rel(anna, "located_at", galley)])
    s = score_movie(pred, ref, renames={"Galley": "Kitchen"}, embedder=embedder)
    assert counts(s.entity_types["Object"]) == (1, 0, 0)
    assert counts(s.entity_types["Location"]) == (0, 0, len(LOCATIONS) - 1)
    assert s.cross_type_matches == [CrossTypeMatch(
        predicted="Galley", predicted_type="Object", reference="Kitchen", reference_type="Location",
        counted=True)]
    assert s.relations.tp == 1  # relations follow the entity matches


def test_totals_are_the_sums_of_the_type_rows(embedder):
    ref = reference_graph()
    pred = predicted_graph()
    galley = ent("Object", "Galley")
    pred = pred.model_copy(update={"entities": [*pred.entities, galley],
                                   "relations": [*pred.relations, rel(pred.entities[0], "possesses", galley)]})
    s = score_movie(pred, ref, renames={"Galley": "Cathedral"}, embedder=embedder)
    for total, rows in ((s.entities, s.entity_types), (s.relations, s.relation_types)):
        assert counts(total) == tuple(sum(c) for c in zip(*(counts(r) for r in rows.values()), strict=True))


# --- the command line: explanations, titles, corpora with movies missing ---

def write_stage_movie(folder, graph, renames=None):
    """A STAGE release folder holding `graph` as one scene."""
    names = {e.id: e.name for e in graph.entities}
    folder.mkdir(parents=True)
    scene = {"ok": True,
             "entities": [{"type": e.type, "name": e.name} for e in graph.entities],
             "relations": [{"subject": names[r.source], "object": names[r.target],
                            "relation_type": r.type} for r in graph.relations]}
    (folder / "extraction_results.json").write_text(json.dumps({"scene_1_part_1": scene}))
    (folder / "rename_map.json").write_text(json.dumps(renames or {}))
    return folder


def run_score(*args):
    return CliRunner().invoke(score_command, [str(a) for a in args])


def test_explain_lists_a_cross_type_rename_match(tmp_path):
    ref = write_stage_movie(tmp_path / "en_one", reference_graph(), {"Galley": "Kitchen"})
    anna, galley = ent("Character", "Anna Berg"), ent("Object", "Galley")
    pred = KnowledgeGraph(movie=MovieInfo(title="pred", language="en"), entities=[anna, galley],
                          relations=[rel(anna, "located_at", galley)])
    save_graph(pred, tmp_path / "pred" / "graph.json")
    result = run_score(tmp_path / "pred", ref, "--explain", "--cache-dir", tmp_path / "cache")
    assert result.exit_code == 0, result.output
    assert "Object 'Galley' -> Location 'Kitchen'" in result.stdout
    assert "1 predictions grounded by the rename map" in result.stdout


@pytest.fixture
def corpus(tmp_path):
    """Two English movies with titles in english_movie_info.csv, a prediction for one only."""
    root = tmp_path / "stage"
    write_stage_movie(root / "English" / "en_aaa", reference_graph())
    write_stage_movie(root / "English" / "en_bbb", reference_graph())
    (root / "english_movie_info.csv").write_text(
        "movie_id,title,word_count\nen_aaa,Harbour Lights,100\nen_bbb,The Lighthouse Keeper,200\n")
    save_graph(predicted_graph(), tmp_path / "pred" / "en_aaa" / "graph.json")
    return tmp_path


def test_titles_come_from_the_movie_info_file(corpus):
    assert stage_title(corpus / "stage" / "English" / "en_bbb") == "The Lighthouse Keeper"
    assert stage_title(corpus / "pred" / "en_aaa") == ""


def test_corpus_names_the_movies_without_a_prediction(corpus):
    out = corpus / "scores.json"
    result = run_score("--corpus", corpus / "pred", corpus / "stage", "--json", out,
                       "--cache-dir", corpus / "cache")
    assert result.exit_code == 0, result.output
    assert "no prediction for 1 of 2 movies" in result.stderr
    assert "The Lighthouse Keeper (en_bbb)" in result.stderr
    row = next(line for line in result.stdout.splitlines() if "The Lighthouse Keeper" in line)
    assert "0.000" not in row and "-" in row
    assert "Harbour Lights" in result.stdout
    data = json.loads(out.read_text())
    assert data["missing_predictions"] == ["en_bbb"]
    assert [(m["movie"], m["title"]) for m in data["movies"]] == [
        ("en_aaa", "Harbour Lights"), ("en_bbb", "The Lighthouse Keeper")]


def test_corpus_without_any_matching_prediction_is_refused(corpus):
    (corpus / "pred" / "en_aaa").rename(corpus / "pred" / "Harbour Lights")
    result = run_score("--corpus", corpus / "pred", corpus / "stage", "--cache-dir", corpus / "cache")
    assert isinstance(result.exception, InputError)
    message = str(result.exception)
    assert "no prediction for any of the 2 reference movies" in message
    assert "Harbour Lights" in message and str(corpus / "pred" / "en_aaa" / "graph.json") in message


def chinese_graphs():
    """A reference of four places, and a prediction with one right, one a near form, two unrelated."""
    people = [ent("Character", "程勇"), ent("Character", "吕受益")]
    ref_places = [ent("Location", n) for n in ("医院", "警局", "澡堂子", "警局审讯室")]
    pred_places = [ent("Location", n) for n in ("医院", "警察局", "教堂", "养老院收银")]
    ref = KnowledgeGraph(movie=MovieInfo(title="ref", language="zh"), entities=[*people, *ref_places],
                         relations=[rel(w, "located_at", p) for w in people for p in ref_places])
    pred = KnowledgeGraph(movie=MovieInfo(title="pred", language="zh"), entities=[*people, *pred_places],
                          relations=[rel(w, "located_at", p) for w in people for p in pred_places])
    return pred, ref


def test_chinese_names_are_matched_by_their_characters_not_by_unknown_tokens(embedder):
    pred, ref = chinese_graphs()
    # MiniLM reads '养老院收银' and '警局审讯室' as five [UNK]s each: the same vector.
    unread = embedder.encode(["养老院收银", "警局审讯室"])
    assert float(unread[0] @ unread[1]) > 0.99
    s = score_movie(pred, ref, embedder=embedder)
    # The people and 医院 by name; 警察局 ~ 警局 by characters (ratio 0.8); 教堂 and 养老院收银
    # match nothing.
    assert (s.entities.tp, s.entities.fp, s.entities.fn) == (4, 2, 2)
    assert s.false_positives == {"Location": ["养老院收银", "教堂"]}
    assert (s.relations.tp, s.relations.fp, s.relations.fn) == (4, 4, 4)
    old = score_movie(pred, ref, embedder=embedder, options=ScoreOptions(cjk_similarity="embedding"))
    assert old.entities.tp == 6  # the earlier reading: every prediction 'matched'


def test_a_prediction_named_as_the_reference_entity_keeps_it_against_the_rename_map(embedder):
    son, father, shop = ent("Character", "程勇"), ent("Character", "程勇爸爸"), ent("Location", "神油店")
    ref = KnowledgeGraph(movie=MovieInfo(title="ref", language="zh"), entities=[son, shop],
                         relations=[rel(son, "located_at", shop), rel(son, "interacts_with", shop)])
    pred = KnowledgeGraph(movie=MovieInfo(title="pred", language="zh"), entities=[father, son, shop],
                          relations=[rel(son, "located_at", shop), rel(son, "interacts_with", shop),
                                     rel(father, "located_at", shop)])
    # The reference's map folds the father into the son (its own merge error).
    s = score_movie(pred, ref, renames={"程勇爸爸": "程勇"}, embedder=embedder)
    assert (s.entities.tp, s.entities.fp, s.entities.fn) == (2, 1, 0)
    assert s.false_positives == {"Character": ["程勇爸爸"]}
    assert (s.relations.tp, s.relations.fp, s.relations.fn) == (2, 1, 0)


def test_alias_identity_grounds_a_prediction_by_its_alias_only_when_asked(embedder):
    ref = reference_graph()
    pred = predicted_graph()
    dock = Entity(id=entity_id("Location", "Quantum Dock"), name="Quantum Dock", type="Location",
                  aliases=["harbour"])
    harbour = entity_id("Location", "Harbour")
    pred = pred.model_copy(update={
        "entities": [dock if e.id == harbour else e for e in pred.entities],
        "relations": [r.model_copy(update={"source": dock.id if r.source == harbour else r.source,
                                           "target": dock.id if r.target == harbour else r.target})
                      for r in pred.relations]})
    plain = score_movie(pred, ref, embedder=embedder)
    assert "Quantum Dock" in plain.false_positives["Location"]
    assert "Harbour" in plain.unmatched_reference["Location"]
    assert plain.named_otherwise == [NamedOtherwise(reference="Harbour", reference_type="Location",
                                                    predicted="Quantum Dock", predicted_type="Location", how="alias")]
    # Harbour's three relations join the six of the dropped places; Kitchen part_of Harbour has one end.
    assert plain.missed_relations.one_end_matched == 9
    with_aliases = score_movie(pred, ref, embedder=embedder, options=ScoreOptions(alias_identity=True))
    assert "Quantum Dock" not in with_aliases.false_positives["Location"]
    assert with_aliases.entities.tp == plain.entities.tp + 1
    # Harbour's located_at and its two part_of links are found again.
    assert with_aliases.relations.tp == plain.relations.tp + 3
    # Aliases count only inside name identity.
    off = score_movie(pred, ref, embedder=embedder, options=ScoreOptions(alias_identity=True, name_identity=False))
    assert off.entities.tp == plain.entities.tp


def test_the_protocol_line_names_the_alias_flag(tmp_path):
    path = tmp_path / "ref.json"
    save_graph(reference_graph(), path)
    result = run_score(path, path, "--alias-identity")
    assert result.exit_code == 0, result.output
    assert "Protocol: kgbuild with --alias-identity" in result.output
    assert "normalized-name identity on (predicted aliases too)" in result.output


def test_explain_counts_the_missed_relations_and_names_the_entities_named_otherwise(tmp_path):
    pred, ref = tmp_path / "pred.json", tmp_path / "ref.json"
    graph = predicted_graph()
    anna, place = graph.entities[0], entity_id("Location", "Kitchen")
    kitchen = ent("Object", "Kitchen")  # the reference's Kitchen is a Location
    save_graph(graph.model_copy(update={
        "entities": [*(e for e in graph.entities if e.id != place), kitchen],
        "relations": [*(r for r in graph.relations if place not in (r.source, r.target)),
                      rel(anna, "possesses", kitchen)]}), pred)
    save_graph(reference_graph(), ref)
    result = run_score(pred, ref, "--explain")
    assert result.exit_code == 0, result.output
    # The dropped places' 6 relations, and Kitchen's located_at and part_of: one end matched each.
    assert ("Reference relations not found (8): 0 with both entities matched, 8 with one, 0 with neither"
            in result.output)
    assert "Location 'Kitchen': named by Object 'Kitchen'" in result.output
