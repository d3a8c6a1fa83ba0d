"""Speeches of a scene, and what their words say about the speaker's tie to the listener.

A speech is the words of one cue, with its parentheticals ('(to Ben)', '(reading)', '（对静秋）'),
its turn among the scene's cues (a voice of no one in particular, ALL or '一人应和', takes a turn),
and the action line right before it.
Whom it is addressed to is `kgbuild.offline.address`.

Attitude cues are read only from a speech with one listener, settled by the words or the talk
(not only by whom the speaker faces), and whose words are the speaker's own, not read, sung or
recited ('(reading)', '(sings)', 'Henry reads aloud:', '（念）'), nor quoted inside the speech
('I don't know. "Get well. I love you."' suggests words for a letter; a speech wholly in quotes is
the format's, and is read): thanks that show gratitude, 'I love you' and endearments (favorable:
one side's attitude), insults (unfavorable), threats to kill or hurt (hostility), each in the
second person ('You're a liar.', '你就是个骗子') and stated, not asked ('Are you a murderer?' is no
insult). Thanks show gratitude when they say what they are for ('thank you so much for your
support', '谢谢你为我做的一切') or state the feeling ('I'm grateful', "I can't thank you enough",
'感激不尽'); a weighted formula ('Thank you so much', '太谢谢了！') only when the action right
before it shows the listener giving the speaker something ('Reggie hands the cheque to Diane.'
then DIANE: 'Thank you so much.'; `given_to`): alone it is as often a brush-off or a polite
close. Thanks that turn to 'but' ('Thanks very much, but...', '谢谢，不过…') hedge or decline.
Warmth is a tie (affinity, symmetric) only when both of the two show it to the other
(`mutual_warmth`: 'darling' said by each, or 'I love you' answered by 'I love you too'); said by
one side it is that side's attitude. Trading lines alone is `speaks_to`, nothing more.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kgbuild.evidence import sentences
from kgbuild.model import Element, ElementKind, Scene
from kgbuild.offline.characters import Cast
from kgbuild.offline.facts import RelationFinding
from kgbuild.offline.media import extension_through, names_a_device, names_a_narrator, names_a_voice
from kgbuild.readers.cues import voice_is_away, voice_is_offscreen

_CJK = re.compile(r"[\u3400-\u9fff]")
# Read, sung or recited: the words are not the speaker's own ('(reading)', '(sings)', '（念）').
_PERFORMED = re.compile(r"\b(?:reading|reads?|reciting|recites?|singing|sings?|quoting|quotes?|"
                        r"rehearsing|rehearses?|performing|in character|dictating|dictates?)\b"
                        r"|^\W*(?:念|读|唱|朗读|朗诵|背诵|宣读|念道|读道|唱道)", re.IGNORECASE)
_PERFORMED_ACTION = re.compile(r"\b(?:reads?|recites?|sings?|quotes?|performs?|rehearses?|dictates?)\b"
                               r"(?:\s+(?:aloud|out|from))?|念道|读道|唱道|念起|读起|唱起|朗读|朗诵|背诵|宣读",
                               re.IGNORECASE)
@dataclass(frozen=True)
class Direction:
    """A parenthetical of a speech ('(to Ben)', '（对静秋）') and where it stands in it."""

    text: str
    line: int  # the index of the dialogue element it goes with
    leading: bool  # it comes before any of the speech's words: it holds for the whole speech
    at: int = 0  # where in that element's text it stands (a direction written inside the line)


@dataclass(frozen=True)
class Speech:
    """One speech: its speaker, its words and the elements they were read from."""

    speaker: str  # canonical name
    text: str
    cue: Element
    lines: tuple[Element, ...]  # dialogue elements
    away: bool  # voice-over, phone, recording, a narrator: not said in the scene's place
    offscreen: bool = False  # heard from out of frame (O.S., a cue named a voice): speaks in the scene, not shown
    directions: tuple[Direction, ...] = ()  # its parentheticals, '(to Ben)', '（对静秋）'
    turn: int = 0  # the position of its cue among the scene's cues, voices of no one included
    lead: str = ""  # the action line right before its cue ('Henry reads aloud:')

    @property
    def first_line(self) -> Element:
        """The element to quote: the first dialogue element, or the cue when it has none."""
        return self.lines[0] if self.lines else self.cue

    @property
    def performed(self) -> bool:
        """Whether the words are read, sung or recited, not the speaker's own: a parenthetical
        says so ('(reading)', '(sings)', '（念）'), or the action right before the cue does
        ('Henry reads aloud from the script:')."""
        if any(_PERFORMED.search(d.text) for d in self.directions):
            return True
        last = sentences(self.lead)[-1] if sentences(self.lead) else ""
        return bool(_PERFORMED_ACTION.search(last))


INLINE_DIRECTION = re.compile(r"[（(]([^（()）]{1,40})[）)]")


def scene_speeches(scene: Scene, cast: Cast) -> list[Speech]:
    """The speeches of a scene in order (a cue standing for several speakers gives one each)."""
    out: list[Speech] = []
    current: list[tuple[str, Element, list[Element]]] = []
    directions: list[Direction] = []
    turn = 0
    lead = ""

    def flush() -> None:
        for speaker, cue, lines in current:
            name = cue.speaker or ""
            away = voice_is_away(cue.extensions) or extension_through(cue.extensions) or names_a_narrator(name)
            offscreen = voice_is_offscreen(cue.extensions) or names_a_voice(name)
            inline = [Direction(m.group(1), k, k == 0 and not lines[0].text[:m.start()].strip(), m.start())
                      for k, el in enumerate(lines) for m in INLINE_DIRECTION.finditer(el.text)]
            out.append(Speech(speaker, " ".join(el.text for el in lines).strip(), cue, tuple(lines), away,
                              offscreen, (*directions, *inline), turn, lead))
        current.clear()
        directions.clear()

    previous: Element | None = None
    for el in scene.elements:
        if el.kind is ElementKind.CHARACTER and el.speaker:
            flush()
            turn += 1
            lead = previous.text if previous is not None and previous.kind is ElementKind.ACTION else ""
            current.extend((name, el, []) for name in cast.speakers(el.speaker))
        elif el.kind is ElementKind.DIALOGUE and current:
            for _, _, lines in current:
                lines.append(el)
        elif el.kind is ElementKind.PARENTHETICAL:
            if current:
                said = len(current[0][2])
                directions.append(Direction(el.text.strip(), said, said == 0))
        else:
            flush()
        previous = el
    flush()
    return out


def has_other_voices(scene: Scene, cast: Cast) -> bool:
    """Whether the scene has a speech, said in its place, by a cue that stands for no one
    character of the cast (ALL, CROWD, VOICES, '一人应和'); a device playing ('TELEVISION SET') is
    a broadcast, no voice of the room."""
    return any(el.kind is ElementKind.CHARACTER and el.speaker and not cast.speakers(el.speaker)
               and not voice_is_away(el.extensions) and not names_a_device(el.speaker) for el in scene.elements)


def aimed(speech: Speech, heard: list[tuple[str, str]]) -> bool:
    """Whether a speech's words are aimed at its one listener, so that an attitude they show is
    one toward the listener: it has one listener (`kgbuild.offline.address.listeners`: in the
    room, not one the speaker turns away from), settled by the words or the talk, not only by
    whom the speaker faces (one may recite to someone), and the words are the speaker's own,
    not read, sung or recited."""
    return len(heard) == 1 and heard[0][1] != "facing" and not speech.performed


@dataclass(frozen=True)
class Cue:
    """A kind of words that shows an attitude, and the relation type it supports."""

    rule: str
    relation: str
    pattern: re.Pattern[str]


_I = re.IGNORECASE
ATTITUDE_CUES = (
    # A bare 'thank you', and a weighted one that says nothing of what it is for ('Thank you so
    # much', said while reading a message), are as often manners or a dismissal as warmth: the
    # thanks says what for ('thank you so much for your support'; not 'thanks for nothing') or
    # states the feeling.
    Cue("thanks", "favorable_toward", re.compile(
        r"\b(?:thank you|thanks) (?:so|very) much,? for (?!nothing\b)(?=\w)|\bthank you for everything\b|"
        r"\bcan(?:'t|not) thank you enough\b|\bI(?:'m| am) (?:so |very |truly )?grateful\b", _I)),
    # The weighted formula alone: gratitude only for what the listener has just given the
    # speaker (`given_to`, `GIVEN_CUES`).
    Cue("thanks_given", "favorable_toward", re.compile(
        r"\b(?:thank you|thanks) (?:so|very) much\b(?!,? for\b)", _I)),
    # Love declared by one side is an attitude; a tie needs both (affinity).
    Cue("love", "favorable_toward", re.compile(r"\bI love you\b", _I)),
    # An endearment, too, is one side's attitude ('Don't wait up, sweetheart.' to one who rebukes
    # him); `mutual_warmth` makes a tie of warmth both ways.
    Cue("endearment", "favorable_toward", re.compile(
        r"^\W*(?:darling|sweetheart|my love|my dear)\b\s*[,!.]|,\s*(?:darling|sweetheart|my love|"
        r"my dear)\s*[.!?]", _I)),
    Cue("insult", "unfavorable_toward", re.compile(
        r"\byou(?:'re| are)?\s+(?:a\s+|an\s+)?(?:fucking\s+|stupid\s+|little\s+|goddamn\s+)?"
        r"(?:bastard|idiot|fool|moron|son of a bitch|liar|coward|traitor|scum|jerk|creep|prick|"
        r"asshole|bitch|cheat|fraud|murderer|thief)\b", _I)),
    Cue("threat", "hostility_with", re.compile(
        r"\bI(?:'ll| will|'m going to| am going to|'m gonna| am gonna)\s+(?:fucking\s+)?"
        r"(?:kill|hurt|destroy|ruin|murder|finish)\s+you\b", _I)),
    # As in English, a bare 谢谢 is manners ('收队，谢谢配合'), and so is a weighted one that says
    # nothing of what it is for ('太感谢了！', '真谢谢你呀！'): the thanks goes on to what it is for
    # ('非常感谢你们的帮助', '谢谢你为我做的一切'), or states the feeling ('感激不尽').
    Cue("thanks_zh", "favorable_toward", re.compile(
        r"(?:太|真|非常|十分|万分|实在|真是太?)(?:谢谢|感谢)(?!我)(?:你|您)?+们?+"
        r"(?=为|[^\s你您们了呀啊啦哈吧呢嘛哦喔哇！!。，,？?…~～、”\"'）)])|感激不尽|谢谢(?:你|您)(?:们)?为")),
    Cue("thanks_given_zh", "favorable_toward", re.compile(
        r"(?:太|真|非常|十分|万分|实在|真是太?)(?:谢谢|感谢)(?!我)(?:你|您)?+们?+"
        r"(?=$|[\s了呀啊啦哈吧呢嘛哦喔哇！!。，,？?…~～、”\"'）)])")),
    Cue("love_zh", "favorable_toward", re.compile(r"我爱你|我喜欢你")),
    # In the second person, as in English: '你就是个骗子', '你这个混蛋', '滚蛋！' (an order to the
    # listener); not '那个混蛋' nor '让他滚蛋', said of someone else.
    Cue("insult_zh", "unfavorable_toward", re.compile(
        r"你[^，。！？,.!?他她它我]{0,4}?(?:混蛋|王八蛋|畜生|骗子|废物)|(?:^|[，。！？,.!?]|你(?:给我)?)滚蛋")),
    # The listener, as in English ('kill you', not 'kill your mother'): 你 ends its clause or takes a
    # particle ('我杀了你！', '我弄死你呀'), it owns nothing ('我弄死你妈' is a curse).
    Cue("threat_zh", "hostility_with", re.compile(
        r"我(?:要|会)?(?:杀了|弄死|宰了)你(?=$|[\s，。！？!?,.…~～、”\"|]|[了吧啊呀呢哦喔嘛]|这)")),
)


# Cues that assert: asked, they are no insult or threat ('Are you a murderer?', 'You think I'm
# going to hurt you?').
_ASSERTED = frozenset({"insult", "threat", "insult_zh", "threat_zh"})
# Thanks that turn to 'but' decline or hedge ('Thanks very much for the offer, but no.').
_THANKS = frozenset({"thanks", "thanks_zh", "thanks_given", "thanks_given_zh"})
#: Cues that are an attitude only for what the listener has just given the speaker (`given_to`).
GIVEN_CUES = frozenset({"thanks_given", "thanks_given_zh"})
# Giving in an action line: 'hands it to Diane', 'gives Ben the map', '把药递给吕受益'.
_GIVES = re.compile(r"\b(?:hands|gives|passes|offers|slides|tosses|brings|pours)\b|递给|交给|塞给|送给|递到",
                    re.IGNORECASE)
_RECEIVER_PRONOUN = re.compile(r"\b(?:him|her)\b|[他她]")
_BUT_AFTER = re.compile(r"\bbut\b|但是|可是|不过", re.IGNORECASE)
_BUT_BEFORE = re.compile(r"^\W*but\b", re.IGNORECASE)


# Words a speech quotes: another's, or words for another to say or write.
_QUOTED = re.compile(r'"[^"]{1,400}"|“[^”]{1,400}”|「[^」]{1,400}」|『[^』]{1,400}』')


def own_words(text: str) -> str:
    """A speech's words without what it quotes ('I don't know. "Get well. I love you."' suggests
    the words of a letter); a speech wholly in quotes is the format's way of writing it, and kept.

    Example:
        >>> own_words('Write her. "I love you." Something like that.')
        'Write her.   Something like that.'
    """
    rest = _QUOTED.sub(" ", text)
    return rest if re.search(r"\w", rest) else text


def attitude_cues(text: str) -> list[tuple[Cue, str]]:
    """The attitude cues a speech holds in its own words (`own_words`), each with the matched
    words; an insult or a threat only where it is stated, not asked; thanks only where they do
    not turn to 'but'.

    Example:
        >>> [c.rule for c, _ in attitude_cues("Thank you so much for the lift.")]
        ['thanks']
        >>> [c.rule for c, _ in attitude_cues("Thank you so much.")]  # only for what was just given
        ['thanks_given']
        >>> attitude_cues("Thanks very much for asking, but no.")
        []
    """
    found = []
    text = own_words(text)
    for cue in ATTITUDE_CUES:
        for sentence in sentences(text) or [text]:
            m = cue.pattern.search(sentence)
            if m and not (cue.rule in _ASSERTED and _asked(sentence, m.start(), m.end())
                          or cue.rule in _THANKS and _hedged(sentence, m.start(), m.end())):
                found.append((cue, m.group(0)))
                break
    return found


#: The cues of warmth: one side's attitude, a tie when both sides show it.
WARM_RULES = frozenset({"love", "endearment", "love_zh"})


def mutual_warmth(findings: Sequence[RelationFinding]) -> list[RelationFinding]:
    """`affinity_with` (rule 'warmth_both_ways') for each two characters who each say warm
    words to the other (`WARM_RULES`: 'I love you', 'darling', '我爱你'), anywhere in the
    script; its evidence is the first such words of each side. One side's warmth stays that
    side's `favorable_toward`.

    Args:
        findings: The relation findings of the whole script.

    Returns:
        The affinity findings to add, one per side (the graph joins them: the type is symmetric).
    """
    warm: dict[tuple[tuple[str, str], tuple[str, str]], list[RelationFinding]] = defaultdict(list)
    for f in findings:
        if f.rule in WARM_RULES and f.type == "favorable_toward":
            warm[(f.subject, f.object)].append(f)
    out = []
    for (a, b), said in warm.items():
        if a < b and (b, a) in warm:
            for f in (said[0], warm[(b, a)][0]):
                evidence = tuple(e.model_copy(update={"producer": "rule:warmth_both_ways"}) for e in f.evidence)
                out.append(RelationFinding(f.subject, "affinity_with", f.object, f.scene, "warmth_both_ways",
                                           evidence))
    return out


def given_to(lead: str, giver: re.Pattern[str], receiver: re.Pattern[str]) -> bool:
    """Whether the action line right before a speech (`Speech.lead`) shows the listener giving
    the speaker something: a sentence that names the giver, then a verb of giving, then the
    receiver by name or as him or her ('Reggie snatches the cheque and hands it to Diane.',
    '程勇把药递给她').

    Args:
        lead: The action line before the speech's cue.
        giver: Finds the listener's name (`kgbuild.offline.characters.mention_patterns`).
        receiver: Finds the speaker's name.

    Example:
        >>> given_to("Reggie hands it to Diane.", re.compile("Reggie"), re.compile("Diane"))
        True
    """
    for sentence in sentences(lead) or [lead]:
        named = giver.search(sentence)
        gives = _GIVES.search(sentence, named.end()) if named else None
        if gives and (receiver.search(sentence, gives.start()) or _RECEIVER_PRONOUN.search(sentence, gives.end())):
            return True
    return False


def _hedged(sentence: str, start: int, end: int) -> bool:
    """Whether the thanks in sentence[start:end] turn to 'but' ('Thanks very much, but...',
    'But thank you so much for asking', '谢谢，不过…'): they decline or hedge."""
    return bool(_BUT_AFTER.search(sentence[end:]) or _BUT_BEFORE.match(sentence[:start]))


def _asked(sentence: str, start: int, end: int) -> bool:
    """Whether the clause of sentence[start:end] is a question ('Are you a murderer?'), not a
    statement with a question after it ('我发现你就是个骗子，干嘛？', "You're a liar, aren't you?")."""
    rest = re.split(r"[,;，；]", sentence[end:], maxsplit=1)
    return len(rest) == 1 and rest[0].rstrip(" \"'”’…").endswith(("?", "？"))


def quoted_line(speech: Speech, words: str) -> tuple[Element, str]:
    """The dialogue element of a speech holding `words`, and its sentence holding them."""
    for el in speech.lines:
        if words in el.text:
            return el, next((s for s in sentences(el.text) if words in s), el.text)
    return speech.first_line, speech.first_line.text
