"""Whom each speech of a scene is addressed to.

A speech is addressed to someone only when the text settles who, and that someone is in the
room when it is said (`kgbuild.offline.comings`: not after they left, not before they came):

- `direction`: a parenthetical before the words says so, '(to Ben)', '（对静秋）'; one partway
  through turns the rest of the speech to its addressee ('Captain Picard... (to Data) You may
  scan me.'). A direction to several, to oneself or to the camera ('(to all)', '(to himself)',
  '(to the guards)') leaves the speech to no one in particular.
- `vocative`: the speaker calls characters of the scene by name at a sentence's edge ('Ben, sit
  down.', 'I won't let you down, Mr. Kendall.'), each of them; not when the name follows an
  introduction in its sentence ('This is our youngest, Ben.', '这是我家老二，常林': presenting
  someone calls no one).
- `facing`: the action right before the speech turns the speaker to them ('Matt turns around and
  faces Macy.', 'Charlie leans over to Tina.', '对静秋'); not 'looks at' nor 'points to' (one
  looks at and points to whom one speaks of).
- `two_speakers`: the scene has exactly two speakers, the other in the room.
- `exchange`: the speech sits right between two speeches of the same other character.
- `answer`: it answers the question the speech right before it asked (not a question read or
  sung).

The last three are read from the turns of the conversation, so they hold only for turns that
follow each other (a voice of no one in particular, ALL or '一人应和', between them breaks the
turn), never for someone the action shows the speaker turned away from ('Henry takes her
hand.': not the man), and, in a room of three or more, never when the speech names the
would-be listener in the third person ('Why is Lophakin back?' is about Lophakin, not to him; a
name at a sentence's edge, set off by commas or after a word of calling is a call) nor when it
speaks to the room ('everyone', 'anyone in this room', 'ladies and gentlemen', '大家', '各位',
'同志们'). 'You guys' and 'you two' speak to a few that include the listener. Voice-over
speeches address no one in the scene.
"""

from __future__ import annotations

import re

from kgbuild.evidence import sentences
from kgbuild.model import Element
from kgbuild.offline.dialogue import INLINE_DIRECTION, Speech
from kgbuild.offline.scenes import name_spans

_CJK = re.compile(r"[\u3400-\u9fff]")
# 'This is our youngest, Todd.', '这是我家老二，常林': a name after an introduction presents someone,
# it calls no one.
_INTRODUCES = re.compile(r"\b(?:this is|these are|meet|here is|here's|introduce|i'd like you to meet)\b"
                         r"|这(?:位|个)?(?:就)?是|那(?:位|个)?(?:就)?是|介绍(?:一下)?|认识一下", re.IGNORECASE)
# A parenthetical saying whom the speech is for: '(to Ben)', '(then, to the others)', '（对静秋）'.
_DIRECTED = re.compile(r"^\W*(?:(?:then|now|turning|turns|back)\W+)*(?:to|toward|towards)\s+(?P<en>.+?)\W*$"
                       r"|^\W*(?:对着?|冲着?|向)(?P<zh>[^，,。]+?)(?:说|道|喊|问)?\W*$", re.IGNORECASE)
# A direction to several or to oneself: '(to all, especially Worf)', '(to himself)', '（对众人）'.
# A plural noun phrase is several too ('(to the guards)', '(to his men)').
_GROUP_TARGET = re.compile(r"^(?:all|everyone|everybody|both|them|the others|others|the rest|no one|nobody|no-one|"
                           r"himself|herself|themselves|myself|itself|(?:the )?camera|the (?:crowd|group|room|"
                           r"audience|class|table|team))\b|^(?:the|his|her|their|our|my)\s+(?:\w+\s+)?"
                           r"(?:\w+[^s's]s|men|women|children|people)$|^(?:众人|大家|所有人|各位|自己|同学们?|大伙)",
                           re.IGNORECASE)
# A speech to the room: 'everyone', 'anyone in this room', 'ladies and gentlemen', '大家', '各位',
# '同志们'. 'You guys' and 'you two' speak to a few that include the listener: not the room.
_GROUP_EN = re.compile(
    r"\b(?:any|anyone|anybody|every|everyone|everybody|each|all)\s+(?:of you|in (?:this|the) room|here)\b|"
    r"\bladies and gentlemen\b|(?:^|[.!?]\s+)\W*(?:everyone|everybody|gentlemen|folks|people)\s*[,!.?]|"
    r",\s*(?:everyone|everybody|gentlemen|folks|people)\s*[.!?]", re.IGNORECASE)
_GROUP_ZH = re.compile(r"大家|各位|诸位|大伙|在座的|你们(?:大家|每个人|所有人)"
                       r"|(?:^|[。！？])[\u3400-\u9fff]{1,3}们[，,！!]")


# Forms of address before a name: 'Mr. Kendall', 'Commander Worf', 'Dr. Jones'.
_TITLES = (r"(?i:(?:mr|mrs|ms|miss|mister|dr|doctor|professor|prof|sir|madam|ma'am|captain|commander|lieutenant|"
           r"sergeant|sarge|detective|agent|officer|inspector|chief|general|colonel|major|admiral|ensign|"
           r"coach|judge|senator|governor|mayor|president|reverend|father|sister|brother|nurse|"
           r"counselor|councillor|praetor)\.?\s+)")
# Words a name may follow without a comma and still be called ('Thank you Kate.', 'Hey Max!').
_CALLING = re.compile(r"(?:^|\W)(?:you|hey|hi|hello|oh|ok|okay|yes|yeah|no|well|thanks|morning|night|bye|goodbye|"
                      r"sorry|please|listen|look|c'mon|dear|嘿|喂|哎|谢谢)$", re.IGNORECASE)
_BREAKS = ",.!?;:—-…，。！？；：、"


def vocative_patterns(patterns: dict[str, re.Pattern[str]]) -> dict[str, re.Pattern[str]]:
    """Per character, a regex for being called by name in a sentence: 'Neil, ...', '..., Neil.',
    '..., Mr. Perry!', '尼尔，'."""
    out = {}
    for name, pattern in patterns.items():
        body = pattern.pattern
        if _CJK.search(name):
            out[name] = re.compile(rf"^(?:{body})[，,！!：:]|[，,](?:{body})[。！？!?]?$")
        else:
            out[name] = re.compile(rf"^\W*{_TITLES}?(?:{body})\s*(?:[,!?]|\.\.|…)"
                                   rf"|,\s*(?:[A-Z][\w'-]*\.?\s+){{0,2}}(?:{body})\s*[.!?…]+[\"'”’]?\s*$")
    return out


def _called(text: str, vocative: re.Pattern[str]) -> bool:
    """Whether some sentence of a speech calls the character (`vocative_patterns`)."""
    return any(vocative.search(s) for s in sentences(text) or [text])


def calling_line(speech: Speech, vocative: re.Pattern[str]) -> Element:
    """The dialogue element of a speech in which it calls a character by name, or its first."""
    return next((el for el in speech.lines if _called(el.text, vocative)), speech.first_line)


def _introduced(text: str, pattern: re.Pattern[str]) -> bool:
    """Whether every sentence naming the character presents them after an introduction ('This is
    our youngest, Ben.'), where 'Ben, this is Sarah.' calls Ben."""
    found = False
    for sentence in sentences(text) or [text]:
        for m in pattern.finditer(sentence):
            found = True
            intro = _INTRODUCES.search(sentence)
            if intro is None or intro.start() > m.start():
                return False
    return found


def _third_person(sentence: str, start: int, end: int) -> bool:
    """Whether a name at sentence[start:end] is spoken of, not to: other words of its clause
    come before it and after it ('Why is Lophakin back?', "Henry's car", '你问常林去'). A name
    opening its sentence (a call, or the subject of an action line glued to the speech), set
    off by commas, closing its sentence ('What do you think Henry?') or after a word of calling
    ('Thank you Kate') is not read as the third person."""
    before = re.sub(rf"{_TITLES}+$", "", sentence[:start])
    before = before.rstrip(" \"'“‘")
    after = sentence[end:]
    if not before or before[-1] in _BREAKS or _CALLING.search(before):
        return False
    if re.match(r"['’]s\b", after):
        return True
    after = after.lstrip(" \"'”’")
    return bool(after) and after[0] not in _BREAKS


def talked_about(text: str, name: str, patterns: dict[str, re.Pattern[str]]) -> bool:
    """Whether a speech names a character in the third person (`_third_person`) and never calls
    them: the words are about them, not to them."""
    pattern = patterns.get(name)
    if pattern is None:
        return False
    third = False
    for sentence in sentences(text) or [text]:
        for m in pattern.finditer(sentence):
            if not _third_person(sentence, m.start(), m.end()):
                return False
            third = True
    return third


def addresses_group(text: str) -> bool:
    """Whether a speech speaks to the room: 'everyone', 'anyone in this room', '大家', '各位',
    '同志们'."""
    return bool(_GROUP_ZH.search(text) if _CJK.search(text) else _GROUP_EN.search(text))


def _directed_to(speech: Speech, text: str, patterns: dict[str, re.Pattern[str]]) -> tuple[str | None, bool]:
    """Whom one parenthetical directs a speech to (see `direction`); its parts are read in turn
    ('(shakes her head; to Ben)')."""
    for part in re.split(r"[;；]|,\s+(?=to\b)", text.strip("()（） ")):
        m = _DIRECTED.match(part.strip())
        if m is None:
            continue
        target = re.split(r"[,，]", (m.group("en") or m.group("zh") or "").strip())[0].strip()
        if _GROUP_TARGET.match(target):
            return None, True
        named = {n for n, p in patterns.items()
                 if p.search(target) or n.lower() == target.lower().removeprefix("the ")}
        named.discard(speech.speaker)
        if len(named) == 1:
            return named.pop(), True
        if len(named) > 1:
            return None, True
    return None, False


def direction(speech: Speech, patterns: dict[str, re.Pattern[str]]) -> tuple[str | None, bool]:
    """Whom the parentheticals before a speech's words direct it to: (name, True) for one
    character of the cast, (None, True) for several, oneself or someone the cast does not hold
    ('(to all)', '(to himself)', '(to the crowd)'), (None, False) when they say nothing of it
    ('(beat)', '(to him)')."""
    for d in speech.directions:
        if d.leading:
            found = _directed_to(speech, d.text, patterns)
            if found[1]:
                return found
    return None, False


def turned_to(speech: Speech, patterns: dict[str, re.Pattern[str]]) -> list[tuple[str, Element]]:
    """The characters a speech turns to partway ('Captain Picard... (to Data) You may scan me.'),
    each with the dialogue element said to them."""
    out = []
    for d in speech.directions:
        if not d.leading and d.line < len(speech.lines):
            name, said = _directed_to(speech, d.text, patterns)
            if name is not None:
                out.append((name, speech.lines[d.line]))
    return out


def _head(speech: Speech, patterns: dict[str, re.Pattern[str]]) -> str:
    """The words of a speech before it turns to someone partway ('Captain Picard... (to Data)
    You may scan me.'): what the speech's own listener hears, without the directions written
    inside its lines ('（掏出钱给静秋）')."""
    text = speech.text
    for d in speech.directions:
        if not d.leading and d.line < len(speech.lines) and _directed_to(speech, d.text, patterns)[1]:
            text = " ".join([*(el.text for el in speech.lines[:d.line]), speech.lines[d.line].text[:d.at]])
            break
    return INLINE_DIRECTION.sub(" ", text).strip()


def listeners(speeches: list[Speech], i: int, present: set[str],
              vocatives: dict[str, re.Pattern[str]], *, other_voices: bool = False,
              here: set[str] | None = None, patterns: dict[str, re.Pattern[str]] | None = None,
              genders: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """Whom speech `i` is addressed to, and how each is known ('direction', 'vocative',
    'facing', 'two_speakers', 'exchange', 'answer': a reply right after another's question; see
    the module docstring); none when the text does not settle it, several when the speech calls
    several by name ('Khatoon, Norman!') or the speaker turns to several.

    Args:
        speeches: The scene's speeches in order.
        i: The speech.
        present: Characters present in the scene.
        vocatives: Per character, the regex of being called by name (`vocative_patterns`).
        other_voices: The scene also has speeches of no one character (ALL, CROWD, '一人应和'):
            then two named speakers are not the whole conversation.
        here: Characters in the room when the speech is said (`kgbuild.offline.comings`);
            `present` when None.
        patterns: Per character, the regex of its name (`mention_patterns`): directions and
            names in the third person are read with it; none are when None.
        genders: Per character, the pronoun the script calls them by: the action before the
            speech is read with it ('Henry takes her hand.', `faced`).

    Example:
        >>> listeners(speeches, 1, {"Anna", "Ben"}, vocatives)  # doctest: +SKIP
        [('Anna', 'two_speakers')]
    """
    speech = speeches[i]
    if speech.away:
        return []
    patterns = patterns or {}
    here = present if here is None else here
    directed, said = direction(speech, patterns)
    if said:
        return [(directed, "direction")] if directed is not None else []
    text = _head(speech, patterns)
    called = sorted(n for n in present if n != speech.speaker and n in vocatives and _called(text, vocatives[n])
                    and not (_introduced(text, patterns[n]) if n in patterns else _INTRODUCES.search(text)))
    if called:
        return [(n, "vocative") for n in called]
    if len(here) > 2 and addresses_group(text):
        return []

    named, by_pronoun = faced(speeches, i, here, patterns, genders or {})
    if named or len(by_pronoun) == 1:
        return [(n, "facing") for n in sorted(named or by_pronoun)]
    turned = by_pronoun

    def fits(other: str) -> bool:
        return other in here and (len(here) <= 2 or not talked_about(text, other, patterns)) \
            and (not turned or other in turned)

    in_scene = {s.speaker for s in speeches if not s.away}
    if len(in_scene) == 2 and speech.speaker in in_scene and not other_voices:
        other = next(n for n in in_scene if n != speech.speaker)
        return [(other, "two_speakers")] if fits(other) else []
    before_at = next((j for j in range(i - 1, -1, -1) if not speeches[j].away), None)
    after_at = next((j for j in range(i + 1, len(speeches)) if not speeches[j].away), None)
    before = speeches[before_at] if before_at is not None else None
    after = speeches[after_at] if after_at is not None else None
    # No voice of no one character (ALL, '一人应和') came between the speech and the one before.
    follows = before_at is not None and speech.turn - speeches[before_at].turn <= i - before_at
    if before and after and before.speaker == after.speaker != speech.speaker and follows:
        return [(before.speaker, "exchange")] if fits(before.speaker) else []
    if before_at == i - 1 and before is not None and before.speaker != speech.speaker and follows \
            and before.text.rstrip().endswith("?") and not text.rstrip().endswith("?") and not before.performed:
        return [(before.speaker, "answer")] if fits(before.speaker) else []
    return []


_OPENING = re.compile(r"\W*(?:then|now|and|still)?\W*", re.IGNORECASE)
# Words that turn the subject to someone right after them: 'turns to Sarah', 'barking to his
# Viceroy', 'faces Macy', 'takes her hand', '对静秋'. Not 'looks at', 'next to': one looks at
# what one speaks of, and stands next to whom one does not address.
_TOWARD = re.compile(r"\b(?:to|toward|towards|faces|facing|takes|holds|grabs|touches|kisses|hugs|"
                     r"embraces)\s+(?:(?:his|her|their|the)\s+)?$|(?:对着?|向着?|冲着?|朝着?|转向)$", re.IGNORECASE)
# ... unless the 'to' says where one points or stands: 'points to Henry', 'next to Norm'.
_NOT_TOWARD = re.compile(r"\b(?:points?|pointing|gestures?|gesturing|next|according|due)\s+to\s+(?:\w+\s+)?$",
                         re.IGNORECASE)
_INTENT = re.compile(r"\b(?:tries|trying|wants|about|starts|begins|fails) to\b|想|要|试图", re.IGNORECASE)


def _toward(clause: str, at: int) -> bool:
    """Whether the words before offset `at` turn the subject to what stands there."""
    return bool(_TOWARD.search(clause[:at])) and not _NOT_TOWARD.search(clause[:at])


def faced(speeches: list[Speech], i: int, here: set[str], patterns: dict[str, re.Pattern[str]],
          genders: dict[str, str]) -> tuple[set[str], set[str]]:
    """Whom the action right before speech `i` (since another character last spoke) shows the
    speaker turned to, by name ('Borden turns to Sarah.', 'Delta walks up to Reggie and Macy.',
    'Shinzon strides to his chair, barking to his Viceroy:', '静秋母亲突然停下来对静秋'), and by
    pronoun ('Henry takes her hand.': the women of the room, when the script calls the speaker
    'he'); both empty when it shows no one.

    Args:
        speeches: The scene's speeches in order.
        i: The speech.
        here: Characters in the room when it is said.
        patterns: Per character, the regex of its name.
        genders: Per character, the pronoun the script calls them by ('he', 'she').
    """
    speaker = speeches[i].speaker
    leads = []
    for j in range(i, -1, -1):
        if speeches[j].speaker != speaker:
            break
        leads.append(speeches[j].lead)
    other = {"he": "she", "she": "he"}.get(genders.get(speaker, ""))
    named: set[str] = set()
    by_pronoun: set[str] = set()
    for lead in leads:
        for sentence in sentences(lead):
            spans = name_spans(sentence, patterns)
            if not spans or spans[0][2] != speaker or not _OPENING.fullmatch(sentence[:spans[0][0]]) \
                    or re.match(r"['’]s\b|的", sentence[spans[0][1]:]) \
                    or len(spans) > 1 and spans[1][0] == spans[0][1] or _INTENT.search(sentence):
                continue  # the speaker is not the subject the sentence opens with
            clause = re.split(r"[，；。]", sentence)[0] if _CJK.search(sentence) else sentence
            turned = False
            for k, (s, e, n) in enumerate(spans[1:], 1):
                joined = turned and re.fullmatch(r"\s*(?:,|and|,\s*and|&|和|与)\s*", clause[spans[k - 1][1]:s])
                turned = s < len(clause) and bool(joined or _toward(clause, s)) \
                    and not re.match(r"['’]s\b|的", clause[e:])
                if turned and n in here and n != speaker:
                    named.add(n)
            pronoun = {"he": "him", "she": "her"}.get(other or "")
            if pronoun and any(_toward(clause, m.start()) for m in re.finditer(rf"\b{pronoun}\b", clause, re.I)):
                by_pronoun |= {n for n in here if genders.get(n) == other}
    return named, by_pronoun
