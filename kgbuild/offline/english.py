"""Rules over English action sentences: the things, places and times they name, and the
relations stated inside a sentence (see `kgbuild.offline.sentences`)."""

from __future__ import annotations

from kgbuild.offline.facts import Facts, Finds
from kgbuild.offline.phrases import words
from kgbuild.offline.scenes import ActionSentence
from kgbuild.offline.sentences import (
    learn_genders,
    preposition_before,
    sentence_relations,
)
from kgbuild.offline.social import add_comention
from kgbuild.offline.stoplists import (
    AMBIENCE,
    BODY_PARTS,
    GENERIC_PEOPLE,
    SPATIAL_PARTS,
)
from kgbuild.offline.times import text_times
from kgbuild.offline.typer import PhraseTyper

_STOP = {"Object": BODY_PARTS | SPATIAL_PARTS | AMBIENCE,
         "Location": SPATIAL_PARTS | BODY_PARTS | AMBIENCE, "Character": GENERIC_PEOPLE}


def phrase_types(read: dict[int, list[ActionSentence]], typer: PhraseTyper) -> dict[str, str]:
    """Type every noun phrase of the action lines once for the whole screenplay."""
    seen: dict[str, None] = {}
    for scene_sentences in read.values():
        for sent in scene_sentences:
            for phrase in sent.phrases:
                seen[phrase.text] = None
    typed = typer.classify(list(seen))
    return {p: t for p, t in typed.items() if p not in _STOP.get(t, ())}


def genders(read: dict[int, list[ActionSentence]]) -> dict[str, str]:
    """Each character's pronoun, as the action lines use it (see `learn_genders`)."""
    return learn_genders([
        [(s.text, s.named[0][1] if s.named else None) for s in scene_sentences]
        for scene_sentences in read.values()
    ])


def add_english_sentences(facts: Facts, index: int, beat: list[ActionSentence],
                          types: dict[str, str], pronouns: dict[str, str]) -> Finds:
    """Record the entities and in-sentence relations of one beat's action sentences.

    Args:
        facts: Where the findings go.
        index: The scene index.
        beat: The beat's action sentences, in order.
        types: phrase -> entity type (see `phrase_types`).
        pronouns: canonical name -> 'he' or 'she' (see `genders`).

    Returns:
        The places, things and times the sentences named.
    """
    previous: str | None = None
    finds = Finds()
    for sent in beat:
        typed, relations = sentence_relations(sent.text, sent.phrases, sent.named, types, previous,
                                              pronouns)
        tokens = words(sent.text)
        for phrase, etype in typed:
            ref = facts.mention(etype, phrase.text, index, f"phrase_{etype.lower()}")
            if etype == "Location":
                finds.locations.add(ref)
                if preposition_before(tokens, phrase):
                    finds.placed.add(ref)
            elif etype == "Object":
                finds.objects.add(ref)
        for when in text_times(sent.text):
            finds.times.add(facts.mention("TimePoint", when.lower(), index, "text_time"))
        for rel in relations:
            facts.relate(rel.subject, rel.type, rel.object, index, rel.rule, evidence=sent.text[:200])
        add_comention(facts, index, [n for _, n in sent.named])
        if sent.named:
            previous = sent.named[-1][1]
    return finds
