"""Adjudication: offline rules, the scripted LLM (merge, split, malformed), hard constraints."""

from __future__ import annotations

import asyncio
import json

from kgbuild.canonicalize.adjudicate import (
    NameContext,
    adjudicate_llm,
    adjudicate_offline,
    build_messages,
)
from kgbuild.canonicalize.constraints import Candidate, cannot_link, life_stage_link
from kgbuild.canonicalize.normalize import normalize_name
from kgbuild.llm.client import LLMClient
from kgbuild.llm.scripted import ScriptedBackend


def cand(name: str, etype: str = "Character", speaking: tuple[int, ...] = (), description: str = "") -> Candidate:
    return Candidate(id=f"{etype.lower()}:{name}", name=name, type=etype, description=description,
                     norm=normalize_name(name, person=etype == "Character"), speaking=speaking)


def offline(*cands: Candidate, context: list[Candidate] | None = None):
    return adjudicate_offline(list(cands), NameContext(list(context or cands)))


def groups(verdict) -> set[frozenset[str]]:
    return {frozenset(g.members) for g in verdict.groups}


def test_offline_merges_case_variants_titles_and_an_unambiguous_short_name():
    full, short, caps, titled = cand("Robert Moseley"), cand("Moseley"), cand("MOSELEY"), cand("Detective Moseley")
    verdict = offline(full, short, caps, titled)
    assert groups(verdict) == {frozenset({full.id, short.id, caps.id, titled.id})}
    assert verdict.groups[0].canonical_name == "Robert Moseley"
    assert verdict.groups[0].evidence


def test_offline_keeps_family_titles_and_role_words_apart():
    assert offline(cand("Mrs. Brumby"), cand("Cliff Brumby")).groups == []
    assert offline(cand("Mr. Newberry"), cand("Newberry")).groups == []
    assert offline(cand("Clerk"), cand("Woman Clerk")).groups == []
    assert offline(cand("经理"), cand("银行经理")).groups == []
    assert offline(cand("Professor"), cand("Woman behind Professor")).groups == []


def test_offline_chinese_given_name_meets_the_full_name_after_a_surname_only():
    assert len(offline(cand("小澍"), cand("程小澍")).groups) == 1
    assert offline(cand("前妻"), cand("程勇前妻")).groups == []


def test_offline_titles_of_rank_meet_the_bare_name_but_family_titles_do_not():
    assert len(offline(cand("Detective Kincaid"), cand("Kincaid")).groups) == 1
    assert offline(cand("Mr. Lundegaard"), cand("Lundegaard")).groups == []
    assert offline(cand("Detective Kincaid"), cand("Captain Kincaid")).groups == []


def test_offline_given_name_meets_its_pet_form_unless_both_speak_in_one_scene():
    assert len(offline(cand("Scott"), cand("Scotty")).groups) == 1
    assert len(offline(cand("Tom"), cand("Tommy")).groups) == 1
    assert len(offline(cand("Deb Newberry"), cand("Debi Newberry")).groups) == 1
    assert offline(cand("Carl"), cand("Carla")).groups == []
    assert offline(cand("Scott", speaking=(3,)), cand("Scotty", speaking=(3,))).groups == []
    assert offline(cand("Scott Lang"), cand("Scotty Smith")).groups == []


def test_offline_object_meets_its_only_longer_form_around_the_same_head():
    cane, full = cand("Cane", "Object"), cand("Cane With Four Tennis Balls", "Object")
    assert groups(offline(cane, full)) == {frozenset({cane.id, full.id})}
    bag, burn_bag = cand("red bag", "Object"), cand("Red Canvas Burn Bag", "Object")
    assert len(offline(bag, burn_bag).groups) == 1
    # two longer rings: 'ring' could be either
    ring, gold, nadia = cand("ring", "Object"), cand("Gold Ring", "Object"), cand("Silver Ring", "Object")
    assert offline(ring, gold, context=[ring, gold, nadia]).groups == []
    # someone's own object is not the generic one
    assert offline(cand("Grape Soda Pin", "Object"), cand("Ellie's Grape Soda Pin", "Object")).groups == []
    # people are not objects: first names follow the short-name rule only
    assert offline(cand("Bag", "Location"), cand("Red Canvas Bag", "Location")).groups == []


def test_offline_place_meets_its_only_form_with_a_generic_tail_or_a_qualifier():
    ny, nyc = cand("New York", "Location"), cand("New York City", "Location")
    assert groups(offline(ny, nyc)) == {frozenset({ny.id, nyc.id})}
    grosse, michigan = cand("Grosse Pointe", "Location"), cand("Grosse Pointe, Michigan", "Location")
    assert len(offline(grosse, michigan).groups) == 1
    studios, lot, backlot = (cand(n, "Location") for n in ("Sunrise Studios", "Sunrise Studios Lot",
                                                            "Sunrise Studios Backlot"))
    assert offline(studios, lot, context=[studios, lot, backlot]).groups == []
    assert offline(cand("Stab", "Concept"), cand("Stab Movies", "Concept")).groups == []


def test_offline_keeps_an_ambiguous_short_name_apart():
    john, wick, smith = cand("John"), cand("John Wick"), cand("John Smith")
    verdict = offline(john, wick, context=[john, wick, smith])
    assert verdict.groups == [] and john.id in verdict.kept_apart


def test_formal_given_name_meets_its_familiar_form_only_with_the_same_surname():
    assert len(offline(cand("Nicholas Wilde"), cand("Nick Wilde")).groups) == 1
    assert len(offline(cand("PEGGY CARTER"), cand("Margaret Carter")).groups) == 1
    assert offline(cand("Nicholas Wilde"), cand("Nick Carter")).groups == []
    assert offline(cand("Robert"), cand("Bob")).groups == []  # no surname: who says they are one?
    henry, hank, junior = cand("Henry Pym"), cand("Hank Pym", speaking=(3,)), cand("Hank Pym Jr", speaking=(3,))
    assert groups(offline(henry, hank, junior)) == {frozenset({henry.id, hank.id})}


def test_descriptor_forms_of_a_name_neither_own_it_nor_merge_with_it():
    scott, lang, tiny, toddler = cand("SCOTT"), cand("Scott Lang"), cand("TINY SCOTT"), cand("A1 SCOTT")
    block = [scott, lang, tiny, toddler]
    without_vocabulary = adjudicate_offline(block, NameContext(block))
    assert without_vocabulary.groups == []  # 'Tiny Scott' could be another Scott: ambiguous
    verdict = adjudicate_offline(block, NameContext(block, common_words=frozenset({"tiny"})))
    assert groups(verdict) == {frozenset({scott.id, lang.id})}
    assert tiny.id in verdict.kept_apart and toddler.id in verdict.kept_apart


def test_offline_never_merges_surface_lookalikes_of_other_types_or_plurals():
    verdict = offline(cand("Kitchen", "Location"), cand("Kinnear's Kitchen", "Location"),
                      cand("Balloon", "Object"), cand("Balloons", "Object"))
    assert verdict.groups == []


def test_offline_merges_a_one_letter_misspelling_of_a_long_word():
    verdict = offline(cand("Gale Weathers"), cand("Gale Wathers"))
    assert len(verdict.groups) == 1
    assert offline(cand("Jerry Lundegaard"), cand("Jenny Lundegaard")).groups == []


def test_speakers_of_one_scene_are_never_merged():
    carl, full = cand("Carl", speaking=(3, 7)), cand("Carl Showalter", speaking=(7,))
    assert cannot_link(carl, full) == "both speak in scene 7"
    assert offline(carl, full).groups == []


def test_life_stages_and_numbered_instances_are_linked_or_kept_apart_never_merged():
    young, ellie = cand("YOUNG ELLIE"), cand("Ellie")
    assert life_stage_link(young, ellie)
    verdict = offline(young, ellie)
    assert verdict.groups == []
    assert [(link.source, link.target) for link in verdict.links] == [(young.id, ellie.id)]
    assert offline(cand("MAN #1"), cand("MAN #2")).groups == []
    assert offline(cand("THANOS-2014"), cand("THANOS")).groups == []


def ask_llm(cluster: list[Candidate], *replies: str):
    backend = ScriptedBackend(list(replies))
    client = LLMClient(backend, "test-model", max_repairs=1)
    return asyncio.run(adjudicate_llm(cluster, client)), backend


def reply(merges=(), unmerged=()) -> str:
    return json.dumps({"merges": [{"canonical_name": c, "aliases": a, "justification": "same person"}
                                  for c, a in merges],
                       "unmerged": [{"name": n, "justification": "different"} for n in unmerged]})


def test_llm_merge_with_its_canonical_name():
    marge, full, cop = cand("Marge"), cand("Marge Gunderson"), cand("Lou")
    verdict, backend = ask_llm([marge, full, cop], reply([("Marge Gunderson", ["Marge"])], ["Lou"]))
    assert verdict.adjudicator == "llm" and verdict.error is None
    assert groups(verdict) == {frozenset({marge.id, full.id})}
    assert verdict.groups[0].canonical_name == "Marge Gunderson"
    assert cop.id in verdict.kept_apart
    prompt = backend.requests[0].messages[1].content
    assert '"Marge Gunderson"' in prompt and "FACTS" in prompt


def test_llm_split_keeps_everyone_apart():
    a, b = cand("Ghost"), cand("Ghostface")
    verdict, _ = ask_llm([a, b], reply(unmerged=["Ghost", "Ghostface"]))
    assert verdict.groups == [] and set(verdict.kept_apart) == {a.id, b.id}


def test_malformed_llm_answers_keep_the_cluster_apart_and_say_why():
    a, b = cand("Marge"), cand("Marge Gunderson")
    verdict, backend = ask_llm([a, b], "not json at all", '{"merges": "yes"}')
    assert verdict.groups == [] and verdict.error and set(verdict.kept_apart) == {a.id, b.id}
    assert len(backend.requests) == 2  # the client asked for one repair, then gave up
    twice = reply([("Marge", ["Marge Gunderson"]), ("Marge Gunderson", ["Marge"])])
    verdict, _ = ask_llm([a, b], twice)
    assert verdict.groups == [] and "two merges" in verdict.error


def test_llm_merges_that_break_a_hard_constraint_are_split():
    carl, full, young = cand("Carl", speaking=(4,)), cand("Carl Showalter", speaking=(4,)), cand("YOUNG CARL")
    verdict, backend = ask_llm([carl, full, young],
                               reply([("Carl Showalter", ["Carl", "YOUNG CARL"])]))
    assert verdict.groups == []
    assert verdict.kept_apart[carl.id].startswith("hard constraint")
    assert "both speak in scene 4" in backend.requests[0].messages[1].content


def test_llm_ignores_unknown_names_and_accepts_a_new_canonical_name():
    a, b = cand("Kincaid"), cand("Detective Kincaid")
    verdict, _ = ask_llm([a, b], reply([("Mark Kincaid", ["Kincaid", "Detective Kincaid", "Nobody"])]))
    assert groups(verdict) == {frozenset({a.id, b.id})}
    assert verdict.groups[0].canonical_name == "Mark Kincaid"


def test_prompt_lists_descriptions_and_the_rules():
    messages = build_messages([cand("Ellie", description="Carl's wife"), cand("YOUNG ELLIE")])
    assert "disguises" in messages[0].content and "Carl's wife" in messages[1].content
    assert "different versions or instances" in messages[1].content


def test_prompt_shows_names_as_they_are_written_quote_marks_included():
    messages = build_messages([cand('Jimmy "The Fist" Doyle'), cand("Jimmy Doyle")])
    assert '1. «Jimmy "The Fist" Doyle»:' in messages[1].content
    assert '2. "Jimmy Doyle":' in messages[1].content and "\\" not in messages[1].content


def test_llm_normalizes_only_what_the_rules_cannot_settle():
    from kgbuild.canonicalize.llm_normalize import normalize_with_llm

    boss, hadley, moseley = cand("his boss"), cand("BYRON HADLEY, captain of the guard"), cand("Robert Moseley")
    answer = json.dumps({"items": [
        {"index": 1, "name": "", "type": "Character", "keep_apart": True, "reason": "relative reference"},
        {"index": 2, "name": "Byron Hadley", "type": "Character"}]})
    backend = ScriptedBackend(answer)
    out, failures = asyncio.run(normalize_with_llm([boss, hadley, moseley], LLMClient(backend, "m"),
                                                   ["Character", "Location"]))
    assert failures == [] and len(backend.requests) == 1
    sent = backend.requests[0].messages[1].content
    assert "his boss" in sent and "BYRON HADLEY" in sent and "Robert Moseley" not in sent
    assert not out[0].norm.comparable and out[0].norm.reason == "llm: relative reference"
    assert out[1].norm.key == "byron hadley" and out[1].id == hadley.id
    assert out[2] == moseley


def test_failed_llm_normalization_keeps_the_rules_and_is_reported():
    from kgbuild.canonicalize.llm_normalize import normalize_with_llm

    boss = cand("his boss")
    out, failures = asyncio.run(normalize_with_llm([boss], LLMClient(ScriptedBackend("garbage"), "m",
                                                                     max_repairs=0), ["Character"]))
    assert out == [boss]
    assert [(f.ids, f.type) for f in failures] == [([boss.id], "Character")] and failures[0].error


def test_offline_chinese_name_meets_its_unique_form_with_a_generic_head():
    city, city_full = cand("重庆", "Location"), cand("重庆市", "Location")
    shop, shop_full = cand("洞子火锅", "Location"), cand("洞子火锅店", "Location")
    assert groups(offline(city, city_full)) == {frozenset({city.id, city_full.id})}
    assert groups(offline(shop, shop_full)) == {frozenset({shop.id, shop_full.id})}
    # two generic extensions of one name: ambiguous, nothing merges
    tower = cand("重庆大楼", "Location")
    assert groups(offline(city, city_full, context=[city, city_full, tower])) == set()
    # a person is not a generic head away from anything ('程勇' / '程勇店' is no rule for characters)
    assert groups(offline(cand("程勇"), cand("程勇店"))) == set()


def test_offline_chinese_name_meets_its_form_qualified_by_a_story_location():
    short, full = cand("金楼", "Location"), cand("佛山金楼", "Location")
    other = cand("共和楼", "Location")
    block = [short, full, other, cand("佛山", "Location")]
    verdict = adjudicate_offline([short, full, other], NameContext(block, frozenset({"佛山"})))
    assert groups(verdict) == {frozenset({short.id, full.id})}
    assert verdict.groups[0].canonical_name == "佛山金楼"
    # without '佛山' among the story's locations the prefix is just more name
    assert groups(adjudicate_offline([short, full], NameContext([short, full]))) == set()


def test_offline_place_qualified_objects_stay_apart_and_groups_are_not_personal_names():
    drug, indian = cand("格列宁", "Object"), cand("印度格列宁", "Object")
    block = [drug, indian, cand("印度", "Location")]
    assert groups(adjudicate_offline([drug, indian], NameContext(block, frozenset({"印度"})))) == set()
    bird, group = cand("Bird"), cand("Bird Babies")
    assert groups(offline(bird, group)) == set()
    jack, full = cand("Jack"), cand("Jack Carter")
    assert groups(offline(jack, full)) == {frozenset({jack.id, full.id})}
