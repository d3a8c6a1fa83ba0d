"""Speeches of a scene, whom each is addressed to, and what its words say about the speaker's
tie to the listener.

A speech is addressed to someone only when the text settles who: the speaker calls a present
character by name ('Neil, sit down.'), the scene has exactly two speakers, the speech sits
between two speeches of the same other character (an exchange), or it answers the question
the speech right before it asked. Voice-over speeches address
no one in the scene. Attitude cues are read only from a speech with a known listener: warm
thanks and 'I love you' (favorable: one side's attitude), endearments (affinity), insults
(unfavorable), threats to kill or hurt (hostility). Trading lines alone is `speaks_to`, nothing more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgbuild.evidence import sentences
from kgbuild.model import Element, ElementKind, Scene
from kgbuild.offline.characters import Cast
from kgbuild.readers.cues import voice_is_away, voice_is_offscreen

_CJK = re.compile(r"[\u3400-\u9fff]")
# 'This is our youngest, Todd.': a name after an introduction presents someone, it calls no one.
_INTRODUCES = re.compile(r"\b(?:this is|these are|meet|here is|here's|introduce|i'd like you to meet)\b",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Speech:
    """One speech: its speaker, its words and the elements they were read from."""

    speaker: str  # canonical name
    text: str
    cue: Element
    lines: tuple[Element, ...]  # dialogue elements
    away: bool  # voice-over, phone, recording: not said in the scene's place
    offscreen: bool = False  # heard from out of frame: speaks in the scene, but is not shown in it

    @property
    def first_line(self) -> Element:
        """The element to quote: the first dialogue element, or the cue when it has none."""
        return self.lines[0] if self.lines else self.cue


def scene_speeches(scene: Scene, cast: Cast) -> list[Speech]:
    """The speeches of a scene in order (a cue standing for several speakers gives one each)."""
    out: list[Speech] = []
    current: list[tuple[str, Element, list[Element]]] = []

    def flush() -> None:
        for speaker, cue, lines in current:
            away = voice_is_away(cue.extensions)
            offscreen = voice_is_offscreen(cue.extensions)
            out.append(Speech(speaker, " ".join(el.text for el in lines).strip(), cue, tuple(lines), away,
                              offscreen))
        current.clear()

    for el in scene.elements:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            flush()
            current.extend((name, el, []) for name in cast.speakers(el.speaker))
        elif el.kind is ElementKind.DIALOGUE and current:
            for _, _, lines in current:
                lines.append(el)
        elif el.kind is not ElementKind.PARENTHETICAL:
            flush()
    flush()
    return out


def has_other_voices(scene: Scene, cast: Cast) -> bool:
    """Whether the scene has a speech, said in its place, by a cue that stands for no one
    character of the cast (ALL, CROWD, VOICES, '一人应和')."""
    return any(el.kind is ElementKind.CHARACTER and el.speaker and not cast.speakers(el.speaker)
               and not voice_is_away(el.extensions) for el in scene.elements)


def vocative_patterns(patterns: dict[str, re.Pattern[str]]) -> dict[str, re.Pattern[str]]:
    """Per character, a regex for being called by name: 'Neil, ...', '..., Neil.', '尼尔，'."""
    out = {}
    for name, pattern in patterns.items():
        body = pattern.pattern
        if _CJK.search(name):
            out[name] = re.compile(rf"^(?:{body})[，,！!：:]|[，,](?:{body})[。！？!?]?$")
        else:
            out[name] = re.compile(rf"^\W*(?:{body})\s*[,!?]|,\s*(?:{body})\s*[.!?]+[\"']?\s*$")
    return out


def listener(speeches: list[Speech], i: int, present: set[str],
             vocatives: dict[str, re.Pattern[str]], *, other_voices: bool = False) -> tuple[str, str] | None:
    """Whom speech `i` is addressed to, and how that is known ('vocative', 'two_speakers',
    'exchange', 'answer': a reply right after another's question), or None when the text does
    not settle it.

    Args:
        speeches: The scene's speeches in order.
        i: The speech.
        present: Characters present in the scene.
        vocatives: Per character, the regex of being called by name (`vocative_patterns`).
        other_voices: The scene also has speeches of no one character (ALL, CROWD, '一人应和'):
            then two named speakers are not the whole conversation.
    """
    speech = speeches[i]
    if speech.away:
        return None
    called = [n for n in present if n != speech.speaker and n in vocatives
              and vocatives[n].search(speech.text) and not _INTRODUCES.search(speech.text)]
    if len(called) == 1:
        return called[0], "vocative"
    in_scene = {s.speaker for s in speeches if not s.away}
    if len(in_scene) == 2 and speech.speaker in in_scene and not other_voices:
        return next(n for n in in_scene if n != speech.speaker), "two_speakers"
    before = next((s for s in reversed(speeches[:i]) if not s.away), None)
    after = next((s for s in speeches[i + 1:] if not s.away), None)
    if before and after and before.speaker == after.speaker != speech.speaker:
        return before.speaker, "exchange"
    if i > 0 and speeches[i - 1] is before and before is not None and before.speaker != speech.speaker \
            and before.text.rstrip().endswith("?") and not speech.text.rstrip().endswith("?"):
        return before.speaker, "answer"
    return None


@dataclass(frozen=True)
class Cue:
    """A kind of words that shows an attitude, and the relation type it supports."""

    rule: str
    relation: str
    pattern: re.Pattern[str]


_I = re.IGNORECASE
ATTITUDE_CUES = (
    # A bare 'thank you' is as often manners or a dismissal as a warm attitude.
    Cue("thanks", "favorable_toward", re.compile(
        r"\b(?:thank you|thanks) (?:so|very) much\b|\bthank you for everything\b|"
        r"\bcan(?:'t|not) thank you enough\b|\bI(?:'m| am) (?:so |very |truly )?grateful\b", _I)),
    # Love declared by one side is an attitude; a tie needs both (affinity).
    Cue("love", "favorable_toward", re.compile(r"\bI love you\b", _I)),
    Cue("endearment", "affinity_with", re.compile(
        r"^\W*(?:darling|sweetheart|my love|my dear)\b\s*[,!.]|,\s*(?:darling|sweetheart|my love|"
        r"my dear)\s*[.!?]", _I)),
    Cue("insult", "unfavorable_toward", re.compile(
        r"\byou(?:'re| are)?\s+(?:a\s+|an\s+)?(?:fucking\s+|stupid\s+|little\s+|goddamn\s+)?"
        r"(?:bastard|idiot|fool|moron|son of a bitch|liar|coward|traitor|scum|jerk|creep|prick|"
        r"asshole|bitch|cheat|fraud|murderer|thief)\b", _I)),
    Cue("threat", "hostility_with", re.compile(
        r"\bI(?:'ll| will|'m going to| am going to|'m gonna| am gonna)\s+(?:fucking\s+)?"
        r"(?:kill|hurt|destroy|ruin|murder|finish)\s+you\b", _I)),
    # As in English, a bare 谢谢 is manners ('收队，谢谢配合'); only thanks said with weight count.
    Cue("thanks_zh", "favorable_toward", re.compile(
        r"(?:太|真|非常|十分|万分|实在|真是太?)(?:谢谢|感谢)(?!我)|感激不尽|谢谢(?:你|您)(?:们)?为")),
    Cue("love_zh", "affinity_with", re.compile(r"我爱你|我喜欢你")),
    Cue("insult_zh", "unfavorable_toward", re.compile(r"混蛋|王八蛋|畜生|骗子|废物|滚蛋")),
    Cue("threat_zh", "hostility_with", re.compile(r"我(?:要|会)?(?:杀了|弄死|宰了)你")),
)


def attitude_cues(text: str) -> list[tuple[Cue, str]]:
    """The attitude cues a speech holds, each with the matched words."""
    found = []
    for cue in ATTITUDE_CUES:
        m = cue.pattern.search(text)
        if m:
            found.append((cue, m.group(0)))
    return found


def quoted_line(speech: Speech, words: str) -> tuple[Element, str]:
    """The dialogue element of a speech holding `words`, and its sentence holding them."""
    for el in speech.lines:
        if words in el.text:
            return el, next((s for s in sentences(el.text) if words in s), el.text)
    return speech.first_line, speech.first_line.text
