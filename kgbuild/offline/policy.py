"""The default selection policies of the offline extractor: which rules are trusted, and from
how many scenes on.

Each threshold was read off the STAGE dev movies (8 English, 3 Chinese) with the STAGE-KG
scorer: a rule is kept from the support level at which its findings are right often enough to
raise F1 (precision above about half the F1 reached, ~0.08 for relations). Rules whose
findings were right less than 5% of the time at any support (objects placed in the heading's
place, characters present on the heading's time of day, part_of between places named in one
sentence) are not rules any more. `heading_part_of` is kept although the references rarely
share it: the heading hierarchy is what users of the graph expect.
"""

from __future__ import annotations

from kgbuild.offline.selection import SelectionPolicy

_ENTITIES = {"cast": 1, "heading_place": 1, "heading_outer": 1, "heading_time": 1, "text_time": 1,
             "dialogue_time": 1, "phrase_object": 1, "phrase_location": 1, "scene_event": 1}
_EVENTS = {"scene_event_role": 1, "scene_event_place": 1, "scene_event_time": 1}
_COMMON = {
    "heading_part_of": 1, "scene_place_actor": 1, "scene_place_outer": 4, "sentence_place": 1,
    "sentence_interacts": 1, "sentence_possesses": 1, "sentence_object_place": 1,
    "scene_text_time": 1, "dialogue_time_speaker": 1, "dialogue_time_listener": 1,
    "exchange_affinity_with": 1, "comention_affinity_with": 1, "kin_name": 1, "kin_vocative": 1,
}

ENGLISH_POLICY = SelectionPolicy(
    # Typed noun phrases naming people are right one time in six; only recurring ones count.
    mention_rules={**_ENTITIES, "phrase_character": 3},
    relation_rules={
        **_COMMON, **_EVENTS,
        "scene_place_speaker": 4,  # a voice on the phone is rarely where the scene is
        "scene_phrase_place_actor_prep": 1, "scene_phrase_place_actor": 2,
        "scene_phrase_place_speaker_prep": 3, "scene_phrase_place_speaker": 3,
        "exchange_hostility_with": 1, "comention_hostility_with": 1,
        "exchange_favorable_toward": 4, "exchange_unfavorable_toward": 3, "exchange_kinship_with": 3,
        "adjacent_cues": 3,
    },
)

CHINESE_POLICY = SelectionPolicy(
    mention_rules=dict(_ENTITIES),
    relation_rules={
        **_COMMON, **_EVENTS,
        "scene_place_speaker": 1, "scene_phrase_place_actor_prep": 1,
        "scene_phrase_place_speaker_prep": 1,
        "exchange_hostility_with": 2, "comention_hostility_with": 2,
        "exchange_favorable_toward": 4, "exchange_unfavorable_toward": 4,
    },
)

#: Every rule on from one scene: everything the rules find, for studying them.
PERMISSIVE_POLICY = SelectionPolicy(
    mention_rules={r: 1 for r in {*ENGLISH_POLICY.mention_rules, *CHINESE_POLICY.mention_rules}},
    relation_rules={r: 1 for r in {*ENGLISH_POLICY.relation_rules, *CHINESE_POLICY.relation_rules}},
)


def policy_for(language: str) -> SelectionPolicy:
    """The default policy for a screenplay language ('zh...' is Chinese, anything else English)."""
    return CHINESE_POLICY if language.startswith("zh") else ENGLISH_POLICY
