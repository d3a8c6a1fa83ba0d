"""Normalization before merge: comparable names, kept-apart mentions, reconciled types."""

from __future__ import annotations

import pytest

from kgbuild.canonicalize.normalize import honorifics_compatible, normalize_entities, normalize_name
from kgbuild.model import Entity, Scope


def test_case_width_whitespace_and_hyphens_meet():
    forms = ["John Wick", "JOHN  WICK", "Ｊｏｈｎ　Ｗｉｃｋ", "john\n   wick", "John-Wick"]
    assert {normalize_name(f, person=True).key for f in forms} == {"john wick"}
    assert normalize_name("car-park").key == normalize_name("Car Park").key


def test_articles_and_titles_are_kept_apart_but_comparable():
    ghost = normalize_name("The Ghost")
    assert (ghost.key, ghost.article, ghost.generic) == ("ghost", "the", True)
    mr, mrs, bare = (normalize_name(n, person=True) for n in ("Mr. Smith", "Mrs. Smith", "Smith"))
    assert mr.key == mrs.key == bare.key == "smith"
    assert (mr.honorific, mrs.honorific, bare.honorific) == ("mr", "mrs", None)
    assert honorifics_compatible(mr, bare) and not honorifics_compatible(mr, mrs)
    assert normalize_name("Mr.Angier", person=True).honorific == "mr"
    sgt, sergeant = normalize_name("Sgt.Pola Negri", person=True), normalize_name("Sergeant Pola Negri", person=True)
    assert (sgt.honorific, sgt.key) == ("sergeant", "pola negri") and honorifics_compatible(sgt, sergeant)
    assert normalize_name("Maj. Hellstrom", person=True).honorific == "major"


def test_possessive_dropped_for_people_only():
    assert normalize_name("RUMLOW'S", person=True).key == "rumlow"
    assert normalize_name("Newberry's").key == "newberrys"


def test_apposition_cut_for_people_not_for_places():
    assert normalize_name("BYRON HADLEY, captain of the guard", person=True).key == "byron hadley"
    assert normalize_name("HARRY -60s, tall, lean", person=True).key == "harry"
    assert normalize_name("Middletown, N.J.").key != normalize_name("Middletown").key
    assert normalize_name("Woman (V.O.)", person=True).key == "woman"


@pytest.mark.parametrize(("name", "versions"), [
    ("YOUNG ELLIE", ("young",)), ("THANOS-2014", ("2014",)), ("MAN #3", ("3",)),
    ("second ghost", ("second",)), ("Henry VIII", ("viii",)), ("7-11", ()), ("Ellie", ()),
])
def test_versions_and_instances(name, versions):
    assert normalize_name(name, person=True).versions == versions


def test_life_stage_word_is_not_part_of_the_key():
    assert normalize_name("YOUNG ELLIE", person=True).key == normalize_name("Ellie", person=True).key


def test_chinese_names():
    young = normalize_name("年轻的程勇", person=True)
    assert (young.key, young.versions, young.cjk) == ("程勇", ("年轻的",), True)
    assert normalize_name("王先生", person=True).honorific == "先生"
    assert normalize_name("程小澍").key == "程小澍"
    # 老 opens words and familiar names ('老板娘' proprietress, '老姜'), not an older self; '老年' does.
    assert normalize_name("老板娘", person=True).versions == () and normalize_name("老姜", person=True).key == "老姜"
    assert normalize_name("老年叶问", person=True).versions == ("老年",)


@pytest.mark.parametrize(("name", "reason"), [
    ("he", "pronoun"), ("他们", "pronoun"), ("his wife", "relative reference"), ("", "empty"),
    ("the man who stood by the door at the end of the long road", "too long for a name"),
])
def test_names_that_cannot_be_normalized_are_not_comparable(name, reason):
    norm = normalize_name(name, person=True)
    assert not norm.comparable and norm.reason == reason


def test_types_and_scope_reconciled_across_mentions_with_one_key():
    entities = [
        Entity(id="a", name="Kitchen", type="Location", scope=Scope.GLOBAL),
        Entity(id="b", name="KITCHEN", type="Location"),
        Entity(id="c", name="kitchen", type="Object"),
        Entity(id="d", name="Young Kitchen", type="Object"),
    ]
    before = [e.model_copy() for e in entities]
    out = normalize_entities(entities)  # one Location, one Object: a tie; the schema ranks Location first
    assert [(n.type, n.scope) for n in out] == [
        ("Location", Scope.GLOBAL), ("Location", Scope.GLOBAL), ("Location", Scope.GLOBAL),
        ("Object", Scope.LOCAL)]
    assert entities == before
