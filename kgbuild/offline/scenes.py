"""What a scene offers the rules: its action sentences, with the characters they name and their
noun phrases, and the characters the action shows."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgbuild.evidence import sentences
from kgbuild.model import Element, ElementKind, Scene, Screenplay
from kgbuild.offline.characters import Cast
from kgbuild.offline.phrases import Phrase, learn_verbs, noun_phrases
from kgbuild.offline.zh_words import inside_word

_CJK = re.compile(r"[\u3400-\u9fff]")
# Action that shows a picture, not the scene's place: 'INSERT CUT: ANGIER SCREAMING'.
_NOT_HERE = re.compile(r"^\s*(?:INSERT|FLASH|FLASHBACK|CUT TO|INTERCUT|MONTAGE|SERIES OF SHOTS|IMAGE|PHOTO|"
                       r"ON (?:THE )?(?:TV|SCREEN|MONITOR|NEWSREEL)|NEWSREEL|DREAM)\b")
# A name right after these words is talked about, not shown: 'a photo of Sarah'.
_NOT_SHOWN_BEFORE = re.compile(r"\b(?:of|about|for|like|than|to)\s+$", re.IGNORECASE)
# Chinese action that shows an insert, a flashback or another place ('插入画面：', '切换至许东家').
ZH_ELSEWHERE = re.compile(r"插入(?:画面|镜头|回忆|[：:])|闪回|回忆画面|画面切|镜头切|切换至|切换到")
# A name after these in a Chinese sentence is seen on a screen or in a picture ('监控画面中，沙僧...').
_ZH_SCREEN = re.compile(r"监控|屏幕|画面|电视|视频|录像|照片")
# A Chinese name followed by these is calling in or owning, not shown ('眼镜打给他', '孙悟空的面具').
_ZH_NOT_SHOWN_AFTER = re.compile(r"^(?:的|打来|打给|打电话|来电)")

Span = tuple[int, int, str]  # (start, end, canonical character name) in a sentence


@dataclass(frozen=True)
class ActionSentence:
    """One sentence of an action element, with the characters it names and its noun phrases."""

    element: Element
    text: str
    spans: list[Span]
    phrases: list[Phrase]

    def shown(self) -> list[str]:
        """Characters the sentence shows: named, but not only as an owner ('Neil's desk') nor
        after 'of', 'about', 'for' ('a photo of Sarah'), and not in an insert or flash cut."""
        out: dict[str, None] = {}
        if _NOT_HERE.match(self.element.text) or _NOT_HERE.match(self.text):
            return []
        if _CJK.search(self.text):
            return self._shown_chinese()
        for s, e, name in self.spans:
            if self.text[e:e + 2].lower() in ("'s", "’s") or _NOT_SHOWN_BEFORE.search(self.text[:s]):
                continue
            out[name] = None
        return list(out)

    def _shown_chinese(self) -> list[str]:
        """Chinese: not in an insert or flashback, nor on a screen ('监控画面中，沙僧...'), nor
        only as an owner or a caller ('孙悟空的面具', '眼镜打给他'), nor inside a longer word
        ('律师函')."""
        if ZH_ELSEWHERE.search(self.text[:6]):
            return []
        out: dict[str, None] = {}
        for s, e, name in self.spans:
            if (_ZH_NOT_SHOWN_AFTER.match(self.text[e:]) or _ZH_SCREEN.search(self.text[:s])
                    or inside_word(self.text, s, e)):
                continue
            out[name] = None
        return list(out)


def is_chinese(scene: Scene) -> bool:
    """True when the scene is written in Chinese."""
    return any(_CJK.search(el.text) for el in scene.elements[:6])


def name_spans(sentence: str, patterns: dict[str, re.Pattern[str]]) -> list[Span]:
    """Where each character is named in a text, by offset; the longer name wins an overlap."""
    found = []
    for name, pattern in patterns.items():
        for m in pattern.finditer(sentence):
            found.append((m.start(), m.end(), name))
    found.sort()
    kept: list[Span] = []
    for span in found:  # the longer name wins where two overlap
        if kept and span[0] < kept[-1][1]:
            if span[1] - span[0] > kept[-1][1] - kept[-1][0]:
                kept[-1] = span
            continue
        kept.append(span)
    return kept


def _name_forms(cast: Cast) -> frozenset[str]:
    """Every way a character's name or a name part is written (capitals and title case)."""
    forms = set()
    for surface, canonical in cast.canonical.items():
        for name in (surface, canonical):
            for token in name.split():
                forms |= {token, token.upper(), token.title()}
    return frozenset(forms)


@dataclass(frozen=True)
class ReadScript:
    """Every scene's action sentences, and the verbs the script uses."""

    sentences: dict[int, list[ActionSentence]]
    verbs: frozenset[str]


def read_sentences(screenplay: Screenplay, cast: Cast, patterns: dict[str, re.Pattern[str]]) -> ReadScript:
    """Per scene index, its action sentences with the characters they name and their phrases."""
    texts = {
        scene.index: [(el, s) for el in scene.elements if el.kind is ElementKind.ACTION
                      for s in sentences(el.text)]
        for scene in screenplay.scenes
    }
    names = _name_forms(cast)
    verbs = learn_verbs([s for scene in texts.values() for _, s in scene], names)
    read = {
        index: [ActionSentence(el, s, name_spans(s, patterns),
                               [] if _CJK.search(s) else noun_phrases(s, verbs=verbs, names=names))
                for el, s in scene]
        for index, scene in texts.items()
    }
    return ReadScript(read, verbs)
