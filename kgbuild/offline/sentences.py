"""Relations stated inside one English action sentence.

The subject of a sentence is the first character it names, or the scene's last-named character
when the sentence starts with a pronoun. From there:
- subject + a thing            -> interacts_with (Character -> Object)
- 'his knife', "ANNA's knife"  -> possesses (Character -> Object)
- subject + 'into the kitchen' -> located_at (Character -> Location)
- 'the knife on the table'     -> located_at (Object -> Location)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from kgbuild.offline.facts import Ref
from kgbuild.offline.phrases import Phrase, words
from kgbuild.offline.stoplists import word_set

PLACE_PREPOSITIONS = word_set(
    "in into inside at on onto through across to toward towards under behind near beside "
    "outside from along around over underneath beneath within"
)
_PRONOUN_START = re.compile(r"^(?:He|She|They|His|Her|Their)\b")


@dataclass(frozen=True)
class SentenceRelation:
    """A relation between two referenced entities, with the sentence as evidence."""

    subject: Ref
    type: str
    object: Ref
    rule: str


def preposition_before(tokens: list[str], phrase: Phrase) -> str | None:
    """The place preposition right before a phrase ('into' in 'walks into the kitchen'), if any."""
    index = phrase.start - 2
    if index >= 0 and tokens[index].lower() in PLACE_PREPOSITIONS:
        return tokens[index].lower()
    return None


def sentence_relations(
    sentence: str,
    phrases: list[Phrase],
    characters: list[tuple[int, str]],
    phrase_types: dict[str, str],
    previous_character: str | None,
    genders: dict[str, str] | None = None,
) -> tuple[list[tuple[Phrase, str]], list[SentenceRelation]]:
    """Typed phrases of a sentence and the relations the rules above find in it.

    Args:
        sentence: One action sentence.
        phrases: Its noun phrases (see `kgbuild.offline.phrases.noun_phrases`).
        characters: (character offset in the sentence, canonical name) of named characters.
        phrase_types: phrase text -> entity type, for the phrases worth keeping.
        previous_character: The last character named before this sentence in the scene.
        genders: canonical name -> 'he' or 'she', as learned from the text; 'his knife' goes to
            a character of the matching pronoun.

    Returns:
        The typed phrases and the relations.
    """
    tokens = words(sentence)
    typed = [(p, phrase_types[p.text]) for p in phrases if p.text in phrase_types]
    subject = characters[0][1] if characters else None
    if subject is None and previous_character and _PRONOUN_START.match(sentence):
        subject = previous_character
    relations: list[SentenceRelation] = []
    previous: tuple[Phrase, str] | None = None
    for phrase, etype in typed:
        ref = (etype, phrase.text)
        preposition = preposition_before(tokens, phrase)
        if etype == "Object":
            if subject:
                relations.append(SentenceRelation(("Character", subject), "interacts_with", ref,
                                                  "sentence_interacts"))
            owner = _owner(phrase, characters, previous_character, subject, genders or {})
            if owner:
                relations.append(SentenceRelation(("Character", owner), "possesses", ref,
                                                  "sentence_possesses"))
        elif etype == "Location" and preposition:
            if previous and previous[1] == "Object":
                relations.append(SentenceRelation((previous[1], previous[0].text), "located_at", ref,
                                                  "sentence_object_place"))
            elif subject:
                relations.append(SentenceRelation(("Character", subject), "located_at", ref,
                                                  "sentence_place"))
        previous = (phrase, etype)
    return typed, relations


def _owner(phrase: Phrase, characters: list[tuple[int, str]], previous: str | None,
           subject: str | None, genders: dict[str, str]) -> str | None:
    if phrase.owner is None:
        return None
    if phrase.determiner == "'s":
        owner = phrase.owner.upper()
        return next((name for _, name in characters if name.upper().startswith(owner)
                     or owner in name.upper().split()), None)
    if phrase.owner not in ("he", "she"):
        return None
    candidates = [subject, *(name for _, name in reversed(characters)), previous]
    for name in candidates:
        if name and genders.get(name, phrase.owner) == phrase.owner:
            return name
    return None


def learn_genders(scene_sentences: list[list[tuple[str, str | None]]]) -> dict[str, str]:
    """Guess each character's pronoun from sentences that open with He/She after naming them.

    Args:
        scene_sentences: Per scene, (sentence, its subject character or None) in order.

    Returns:
        canonical name -> 'he' or 'she', where the votes agree at least two to one.
    """
    votes: dict[str, dict[str, int]] = {}
    for sentences in scene_sentences:
        for (_, subject), (text, _) in pairwise(sentences):
            m = re.match(r"(He|She)\b", text)
            if subject and m:
                bucket = votes.setdefault(subject, {"he": 0, "she": 0})
                bucket[m.group(1).lower()] += 1
    out = {}
    for name, v in votes.items():
        if v["he"] >= 2 * v["she"] and v["he"]:
            out[name] = "he"
        elif v["she"] >= 2 * v["he"] and v["she"]:
            out[name] = "she"
    return out
