"""What a scene offers the rules: its action sentences, speeches, beats and who is in it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgbuild.model import ElementKind, Scene, Screenplay
from kgbuild.offline.characters import Cast
from kgbuild.offline.phrases import Phrase, learn_verbs, noun_phrases

_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])|(?<=[。！？])")

#: Characters of screenplay text within which co-occurrence counts. STAGE extracted long scenes
#: in parts of about this size; pairing everyone in a long scene with everything in it is wrong.
BEAT_CHARS = 2500

Named = list[tuple[int, str]]  # (offset in the sentence, canonical character name)


@dataclass(frozen=True)
class ActionSentence:
    """One sentence of an action line, with the characters it names and its noun phrases."""

    element: int  # position of its action element in the scene
    text: str
    named: Named
    phrases: list[Phrase]


def sentences(text: str) -> list[str]:
    """Split action text into sentences (English and Chinese punctuation)."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def is_chinese(scene: Scene) -> bool:
    """True when the scene is written in Chinese."""
    return any(_CJK.search(el.text) for el in scene.elements[:6])


def beats(scene: Scene, size: int = BEAT_CHARS) -> list[tuple[int, int]]:
    """Consecutive element ranges (start, end) of at most about `size` characters each."""
    out, start, length = [], 0, 0
    for i, el in enumerate(scene.elements):
        if length and length + len(el.text) > size:
            out.append((start, i))
            start, length = i, 0
        length += len(el.text)
    out.append((start, len(scene.elements)))
    return out


def present_characters(scene: Scene, cast: Cast, patterns: dict[str, re.Pattern[str]],
                       start: int = 0, end: int | None = None) -> list[str]:
    """Characters who speak in or are named by the action of elements [start, end)."""
    present: dict[str, None] = {}
    for el in scene.elements[start:end]:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            for name in cast.speakers(el.speaker):
                present[name] = None
        elif el.kind is ElementKind.ACTION:
            for name, pattern in patterns.items():
                if pattern.search(el.text):
                    present[name] = None
    return list(present)


def speeches(scene: Scene, cast: Cast) -> list[tuple[str, str]]:
    """(canonical speaker, what they say) for each speech of the scene, in order."""
    out: list[tuple[str, str]] = []
    current: str | None = None
    for el in scene.elements:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            current = next(iter(cast.speakers(el.speaker)), None)
            if current:
                out.append((current, ""))
        elif el.kind is ElementKind.DIALOGUE and current and out:
            speaker, text = out[-1]
            out[-1] = (speaker, f"{text} {el.text}".strip())
        elif el.kind is not ElementKind.PARENTHETICAL:
            current = None
    return out


def scene_summary(scene: Scene) -> str:
    """The first two sentences of the scene's action (at most 300 characters)."""
    action = " ".join(el.text for el in scene.elements if el.kind is ElementKind.ACTION)
    return " ".join(sentences(action)[:2])[:300]


def _characters_in(sentence: str, patterns: dict[str, re.Pattern[str]]) -> Named:
    found = []
    for name, pattern in patterns.items():
        m = pattern.search(sentence)
        if m:
            found.append((m.start(), name))
    return sorted(found)


def _name_forms(cast: Cast) -> frozenset[str]:
    """Every way a character's name or a name part is written (capitals and title case)."""
    forms = set()
    for surface, canonical in cast.canonical.items():
        for name in (surface, canonical):
            for token in name.split():
                forms |= {token, token.upper(), token.title()}
    return frozenset(forms)


def read_sentences(screenplay: Screenplay, cast: Cast,
                   patterns: dict[str, re.Pattern[str]]) -> dict[int, list[ActionSentence]]:
    """Per scene index, its action sentences with the characters they name and their phrases."""
    texts = {
        scene.index: [(i, s) for i, el in enumerate(scene.elements) if el.kind is ElementKind.ACTION
                      for s in sentences(el.text)]
        for scene in screenplay.scenes
    }
    names = _name_forms(cast)
    verbs = learn_verbs([s for scene in texts.values() for _, s in scene], names)
    return {
        index: [ActionSentence(i, s, _characters_in(s, patterns),
                               noun_phrases(s, verbs=verbs, names=names)) for i, s in scene]
        for index, scene in texts.items()
    }
