"""Whom each speech of a scene is addressed to.

A speech is addressed to someone only when the text settles who, and that someone is in the
room when it is said (`kgbuild.offline.comings`: not after they left, not before they came):

- `direction`: a parenthetical before the words says so, '(to Ben)', '（对静秋）'; one partway
  through turns the rest of the speech to its addressee ('Captain Picard... (to Data) You may
  scan me.'). A direction to several, to oneself or to the camera ('(to all)', '(to himself)',
  '(to the guards)') leaves the speech to no one in particular.
- `vocative`: the speaker calls characters of the scene by name at a sentence's edge ('Ben, sit
  down.', 'I won't let you down, Mr. Kendall.', after an interjection or a greeting: 'Oh, Janine,
  you're so beautiful.'), each of them; not when the name follows an
  introduction in its sentence ('This is our youngest, Ben.', '这是我家老二，常林': presenting
  someone calls no one; 'This is completely improper, Commander Chekov.' presents no one: an
  introduction names a person, 'this is' with a determiner, 'my wife', 'the man'). A title said
  alone ('Captain...', 'Yes, Doctor.') fits whoever holds the rank: it calls the character whose
  name holds it only when that title is their whole name or when they speak right before or
  after it (the talk settles that the rank is theirs: 'It's Dr. McCoy, Captain.' and Captain
  Terrell answers); otherwise it settles nothing, and the turns of the talk below may.
- `facing`: the action right before the speech turns the speaker to them ('Matt turns around and
  faces Macy.', 'Charlie leans over to Tina.', '对静秋'); not 'looks at' nor 'points to' (one
  looks at and points to whom one speaks of).
- `two_speakers`: the scene has exactly two speakers, the other in the room.
- `exchange`: the speech sits right between two speeches of the same other character.
- `answer`: it answers the question the speech right before it asked (not a question read or
  sung).
- `line`: on a phone or a radio, the turn right before or after it from the other end.

The last three are read from the turns of the conversation, so they hold only for turns that
follow each other (a voice of no one in particular, ALL or '一人应和', between them breaks the
turn), never for someone the action shows the speaker turned away from ('Henry takes her
hand.': not the man), never for one a kin word of address does not fit ('Pin him down,
mother!' is not said to a man: the script's own pronouns say who is a man), and an exchange or an
answer never when the speech it replies to was not said to the one replying: to the camera or
to oneself ('(TO CAMERA)', '(to himself)'), or with a kin word of address that does not fit them
(Chekov's answer, over the comm, to David's shout at his mother is no answer to David). A call
of someone else by name does not count so: the one who replies may still answer the speaker.
In a room of three or more, never when the speech names the would-be listener in the third
person ('Why is Lophakin back?' is about Lophakin, not to him; a name at a sentence's edge, set
off by commas or after a word of calling is a call) nor when it speaks to the room ('everyone',
'anyone in this room', 'ladies and gentlemen', '大家', '各位', '同志们'). 'You guys' and 'you
two' speak to a few that include the listener. A voice the cue puts elsewhere ('(V.O.)',
'(PHONE)', '(FILTERED)') on a two-way line (its cue or a direction names a phone, a radio, a
comm, an intercom: '(V.O.) (on the phone)') speaks to whom a direction names or it calls by
name, and by the turns of the talk only with the other end, where the words say who is on
which side (`line`): the turn right before or after it by a speaker in the scene talking into a
line ('RILEY (into radio) How's the food?' / 'GUERILLA (O.S. RADIO FILTER) Lousy.'); a narrator's
voice-over, a recording or a loudspeaker addresses no one in the scene, a broadcast on a screen
only those heard through the same one ('(T.V.)': the reporters and the mayor they question, read
by the rules above among their speeches alone), and words said to oneself no one ('(to
himself)', '(more to himself than to Ben)', '(trying to place the name)', '（自言自语）'). The
turns of the talk settle no listener for words said to no one in particular (`aside`): to
oneself, muttered, while ignoring the one who spoke ('(ignoring him)'), to a group by a verb of
speaking ('yapping at reporters') or in passing ('come barreling past them'), as a leading
direction or the action line right before the cue says ('男子哭着自言自语'); nor is a reply to
such words an exchange with or an answer to their speaker.
"""

from __future__ import annotations

import re
from dataclasses import replace

from kgbuild.evidence import sentences
from kgbuild.model import Element
from kgbuild.offline.dialogue import INLINE_DIRECTION, Speech, own_words
from kgbuild.offline.media import SCREEN_MEDIA, extension_through
from kgbuild.offline.scenes import name_spans
from kgbuild.offline.stoplists import word_set

_CJK = re.compile(r"[\u3400-\u9fff]")
# 'This is our youngest, Todd.', '这是我家老二，常林': a name after an introduction presents someone,
# it calls no one.
_INTRODUCES = re.compile(r"\b(?:this is|these are|here is|here's)\s+(?:my|our|his|her|their|your|the|a|an)\b"
                         r"|\b(?:meet|introduce|i'd like you to meet)\b"
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
# Words said to oneself, wherever the direction says so: '(louder to himself)', '(more to himself
# than to Ben)', '(trying to place the name)', '（自言自语）'.
_TO_ONESELF = re.compile(r"\bto (?:himself|herself|themselves|myself|oneself)\b|\btrying to (?:place|remember|recall)\b"
                         r"|自言自语|喃喃自语|心想|心里(?:想|说|嘀咕)", re.IGNORECASE)
# Words said to no one in particular, wherever a direction or the action right before the cue
# says so: muttering ('(muttering)', 'mutters under his breath', '嘀咕'), ignoring the one who spoke
# ('(ignoring him)', '不理他'), talking to a group the cast holds no one of, by a verb of speaking
# ('yapping at reporters', 'calls out to the crowd'), or passing by ('come barreling past them'):
# the turns of the talk settle no listener then.
_SPEAKING = (r"(?:talk|speak|spoke|say|said|yap|yapp|shout|yell|call|cry|cri|announc|bark|holler|chatter|rant|"
             r"lectur|address|preach|scream|bellow)\w*")
_ASIDE = re.compile(
    r"\bmutter(?:s|ed|ing)?\b(?!\s+(?:to|at)\s+(?!(?:himself|herself|themselves|myself)\b))|"
    r"\bunder (?:his|her|their|my) breath\b|\bignor(?:es|ing|ed)\b|"
    rf"\b{_SPEAKING}\s+(?:out\s+)?(?:to|at)\s+(?:the\s+)?(?!(?:his|her|their|my|your|our)\b)"
    r"(?:(?:crowd|room|press|audience|class)\b|(?-i:(?:[a-z]+\s+)?[a-z]+[^s'\W]s)\b|(?:men|women|children|people)\b)|"
    r"\bpast\s+(?:him|her|them|us)\b|\b(?:go|goes|going|run|runs|running|rush|rushes|rushing|race|races|racing|"
    r"hurries|hurrying)\s+(?:right\s+)?by\b|"
    r"嘀咕|咕哝|嘟囔|不理|没理", re.IGNORECASE)
# Two-way lines: a voice on them talks with someone ('(OVER PHONE)', '(FILTERED)', '（电话里）').
_LINE = re.compile(r"\b(?:(?:tele|cell|mobile |speaker ?)?phones?|radios?|filtered|intercoms?|comms?|comlinks?|"
                   r"communicators?|walkie[- ]?talkies?|headsets?|earpieces?)\b|电话|对讲机|无线电", re.IGNORECASE)
_SCREEN = re.compile(rf"\b{SCREEN_MEDIA}(?!\w)", re.IGNORECASE)
# A direction to no one in the room: oneself or the camera.
_TO_NO_ONE = re.compile(r"\bto (?:(?:the )?camera|us|the audience)\b", re.IGNORECASE)
# A speech to the room: 'everyone', 'anyone in this room', 'ladies and gentlemen', '大家', '各位',
# '同志们'. 'You guys' and 'you two' speak to a few that include the listener: not the room.
_GROUP_EN = re.compile(
    r"\b(?:any|anyone|anybody|every|everyone|everybody|each|all)\s+(?:of you|in (?:this|the) room|here)\b|"
    r"\bladies and gentlemen\b|(?:^|[.!?]\s+)\W*(?:everyone|everybody|gentlemen|folks|people)\s*[,!.?]|"
    r",\s*(?:everyone|everybody|gentlemen|folks|people)\s*[.!?]", re.IGNORECASE)
_GROUP_ZH = re.compile(r"大家|各位|诸位|大伙|在座的|你们(?:大家|每个人|所有人)"
                       r"|(?:^|[。！？])[\u3400-\u9fff]{1,3}们[，,！!]")


# Forms of address before a name: 'Mr. Kendall', 'Commander Worf', 'Dr. Jones'. Said alone
# ('Captain...'), they fit whoever holds the rank.
TITLE_WORDS = word_set("""
    mr mrs ms miss mister dr doctor professor prof sir madam ma'am captain commander lieutenant sergeant sarge
    detective agent officer inspector chief general colonel major admiral ensign coach judge senator governor
    mayor president reverend father sister brother nurse counselor councillor praetor
""")
_TITLES = (r"(?i:(?:" + "|".join(sorted((re.escape(w) for w in TITLE_WORDS), key=len, reverse=True))
           + r")\.?\s+)")
# Kin words of address that say the listener's sex ('Mom, ...', '..., son.').
_ADDRESS_SEX = {
    "she": "mom|mum|mommy|mummy|mama|mamma|mother|ma|sister|sis|aunt|auntie|grandma|granny|grandmother|daughter",
    "he": "dad|daddy|papa|pa|pop|pops|father|brother|bro|uncle|grandpa|grandfather|son",
}
_ADDRESS_SEX_RE = {sex: re.compile(rf"^\W*(?:my\s+)?(?:{words})\s*(?:[,!?]|\.\.|…)"
                                   rf"|,\s*(?:my\s+)?(?:{words})\s*[.!?…]+[\"'”’]?\s*$", re.IGNORECASE)
                   for sex, words in _ADDRESS_SEX.items()}
# Words that open a sentence before a call ('Oh, Janine, you're so beautiful.', 'Hi, Noe, what's up?').
_INTERJECTIONS = (r"(?i:hey|hi|hello|oh|ah|ok|okay|yes|yeah|no|well|so|thanks|thank you|morning|good morning|"
                  r"evening|good evening|good night|bye|goodbye|sorry|please|listen|look|c'mon|come on|excuse me)")
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
            out[name] = re.compile(rf"^(?P<a>{body})[，,！!：:]|[，,](?P<b>{body})[。！？!?]?$")
        else:
            out[name] = re.compile(rf"^\W*(?:{_INTERJECTIONS}\W+){{0,2}}{_TITLES}?(?P<a>{body})\s*(?:[,!?]|\.\.|…)"
                                   rf"|,\s*(?:[A-Z][\w'-]*\.?\s+){{0,2}}(?P<b>{body})\s*[.!?…]+[\"'”’]?\s*$")
    return out


def bare_title(said: str, name: str) -> bool:
    """Whether the words a character was called by are only a title ('Captain' of Captain Clark
    Terrell), which fits whoever holds the rank; not when the title is the whole name."""
    words = re.findall(r"[\w']+", said.lower())
    return bool(words) and all(w in TITLE_WORDS for w in words) and " ".join(words) != name.lower()


def _called(text: str, vocative: re.Pattern[str], name: str = "", titled: bool = False) -> bool:
    """Whether some sentence of a speech calls the character (`vocative_patterns`): by more
    than a title (`bare_title`), or by the title alone when `titled` (the talk settles that
    the title is theirs)."""
    for sentence in sentences(text) or [text]:
        m = vocative.search(sentence)
        if m and (titled or not bare_title(next((g for g in m.groupdict().values() if g), m.group(0)), name)):
            return True
    return False


def _address_sexes(text: str) -> set[str]:
    """The sexes a speech's kin words of address say its listener is ('Mom, ...' -> {'she'})."""
    return {sex for sex, pattern in _ADDRESS_SEX_RE.items()
            if any(pattern.search(s) for s in sentences(text) or [text])}


def _misfits(text: str, other: str, genders: dict[str, str]) -> bool:
    """Whether a kin word of address in a speech says its listener is not `other` ('Pin him
    down, mother!' to a man), by the pronoun the script calls them by."""
    sexes = _address_sexes(own_words(text))
    return bool(sexes) and other in genders and genders[other] not in sexes


def calling_line(speech: Speech, vocative: re.Pattern[str], name: str = "") -> Element:
    """The dialogue element of a speech in which it calls a character by name (by a title alone
    when it does not call them by more), or its first."""
    return next((el for titled in (False, True) for el in speech.lines if _called(el.text, vocative, name, titled)),
                speech.first_line)


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
    if _TO_ONESELF.search(text):
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
    'facing', 'two_speakers', 'exchange', 'answer': a reply right after another's question;
    'line': the next turn from the other end of a phone or a radio; see the module docstring);
    none when the text does not settle it, several when the speech calls several by name
    ('Khatoon, Norman!') or the speaker turns to several. A speech heard through a broadcast
    ('(T.V.)', '(ON TV)') is addressed only within that broadcast, read by the same rules among
    the speeches heard through it.

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
    if speech.away and not on_a_line(speech):
        return _within_broadcast(speeches, i, vocatives, patterns, genders)
    found = _listeners(speeches, i, present, vocatives, other_voices=other_voices, here=here, patterns=patterns,
                       genders=genders)
    if found or direction(speech, patterns or {})[1] or not on_a_line(speech):
        return found
    return _line_turns(speeches, i)


def _line_turns(speeches: list[Speech], i: int) -> list[tuple[str, str]]:
    """Who speech `i` talks with on a phone or a radio by the turns of the talk: the speech right
    before or right after it, by another speaker at the other end of the line (one of the two is
    in the scene speaking into it, '(into radio)', the other a voice from elsewhere on it, '(O.S.
    RADIO FILTER)')."""
    speech = speeches[i]
    out: list[tuple[str, str]] = []
    for j in (i - 1, i + 1):
        if not 0 <= j < len(speeches):
            continue
        other = speeches[j]
        if (other.speaker != speech.speaker and abs(other.turn - speech.turn) == 1 and other.away != speech.away
                and on_a_line(other) and all(n != other.speaker for n, _ in out)):
            out.append((other.speaker, "line"))
    return out


def _within_broadcast(speeches: list[Speech], i: int, vocatives: dict[str, re.Pattern[str]],
                      patterns: dict[str, re.Pattern[str]] | None,
                      genders: dict[str, str] | None) -> list[tuple[str, str]]:
    """Whom a speech heard through a broadcast addresses among the others heard through the same
    one (a reporter's question to the mayor, both '(T.V.)'): the rules of a room, over those
    speeches alone; no one for a voice-over or a recording of one."""
    mark = _broadcast(speeches[i])
    if not mark:
        return []
    at = [j for j, s in enumerate(speeches) if s.away and not on_a_line(s) and _broadcast(s) == mark]
    group = [replace(speeches[j], away=False) for j in at]
    found = _listeners(group, at.index(i), {s.speaker for s in group}, vocatives, patterns=patterns, genders=genders)
    return [(n, how) for n, how in found if n != speeches[i].speaker]


def _broadcast(speech: Speech) -> frozenset[str]:
    """The cue extensions that put a voice on a screen ('T.V.', 'ON TV', 'ON MONITOR'), empty for none;
    a loudspeaker or a public address carries announcements, no talk among those heard through it."""
    return frozenset(" ".join(x.upper().split()) for x in speech.cue.extensions
                     if extension_through([x]) and _SCREEN.search(x))


def _listeners(speeches: list[Speech], i: int, present: set[str],
               vocatives: dict[str, re.Pattern[str]], *, other_voices: bool = False,
               here: set[str] | None = None, patterns: dict[str, re.Pattern[str]] | None = None,
               genders: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """`listeners` for a speech said in the room, or on a line (then only whom it calls)."""
    speech = speeches[i]
    patterns = patterns or {}
    here = present if here is None else here
    directed, said = direction(speech, patterns)
    if said:
        return [(directed, "direction")] if directed is not None else []
    text = _head(speech, patterns)
    near = {speeches[j].speaker for j in (i - 1, i + 1) if 0 <= j < len(speeches) and not speeches[j].away}
    called = _calls(text, speech.speaker, present, vocatives, patterns, near)
    if called or speech.away:
        return [(n, "vocative") for n in called]
    if len(here) > 2 and addresses_group(text):
        return []

    genders = genders or {}
    named, by_pronoun = faced(speeches, i, here, patterns, genders)
    if named or len(by_pronoun) == 1:
        return [(n, "facing") for n in sorted(named or by_pronoun)]
    turned = by_pronoun
    if aside(speech, patterns):
        return []  # to oneself, muttering, ignoring, to a group or in passing: no turn settles a listener

    def fits(other: str) -> bool:
        return other in here and (len(here) <= 2 or not talked_about(text, other, patterns)) \
            and (not turned or other in turned) and not _misfits(text, other, genders)

    in_scene = {s.speaker for s in speeches if not s.away}
    if len(in_scene) == 2 and speech.speaker in in_scene and not other_voices:
        other = next(n for n in in_scene if n != speech.speaker)
        return [(other, "two_speakers")] if fits(other) else []
    before_at = next((j for j in range(i - 1, -1, -1) if not speeches[j].away), None)
    after_at = next((j for j in range(i + 1, len(speeches)) if not speeches[j].away), None)
    before = speeches[before_at] if before_at is not None else None
    after = speeches[after_at] if after_at is not None else None
    # No voice of no one character (ALL, '一人应和') came between the speech and the one before,
    # and that one was not said to someone else.
    follows = before_at is not None and before is not None and speech.turn - before.turn <= i - before_at \
        and not _aimed_elsewhere(before, speech.speaker, patterns, genders)
    if before and after and before.speaker == after.speaker != speech.speaker and follows:
        return [(before.speaker, "exchange")] if fits(before.speaker) else []
    if before_at == i - 1 and before is not None and before.speaker != speech.speaker and follows \
            and before.text.rstrip().endswith("?") and not text.rstrip().endswith("?") and not before.performed:
        return [(before.speaker, "answer")] if fits(before.speaker) else []
    return []


def on_a_line(speech: Speech) -> bool:
    """Whether a voice from elsewhere talks on a two-way line, a phone, a radio, a comm or an
    intercom ('(OVER PHONE)', '(FILTERED)', '（电话里）'): it speaks to whom it calls there, where a
    narrator's voice-over, a broadcast or a recording speaks to no one in the scene."""
    notes = [*speech.cue.extensions, *(d.text for d in speech.directions if d.leading)]
    return any(_LINE.search(n) for n in notes)


def _calls(text: str, speaker: str, present: set[str], vocatives: dict[str, re.Pattern[str]],
           patterns: dict[str, re.Pattern[str]], near: set[str]) -> list[str]:
    """The characters of `present` a speech's words call by name (`vocative`), in name order; by
    a title alone only one of `near`, who speaks right before or after it ('It's Dr. McCoy,
    Captain.' and Captain Terrell answers)."""
    return sorted(n for n in present if n != speaker and n in vocatives and _called(text, vocatives[n], n, n in near)
                  and not (_introduced(text, patterns[n]) if n in patterns else _INTRODUCES.search(text)))


def aside(speech: Speech, patterns: dict[str, re.Pattern[str]]) -> bool:
    """Whether a speech is said to no one in particular by what its direction or the action right
    before its cue says: to oneself ('(to himself)', '男子哭着自言自语'), muttering, ignoring the
    one who spoke ('(ignoring him)'), to a group by a verb of speaking ('yapping at reporters') or
    in passing ('come barreling past them'). The action line counts in its last sentence when it
    names the speaker, or no one (the cue's own direction: '一直在后面自言自语')."""
    if any(d.leading and (_TO_ONESELF.search(d.text) or _ASIDE.search(d.text)) for d in speech.directions):
        return True
    said = sentences(speech.lead)
    if not said:
        return False
    last = said[-1]
    named = [n for n, p in patterns.items() if p.search(last)]
    if named and speech.speaker not in named:
        return False
    return bool(_TO_ONESELF.search(last) or _ASIDE.search(last))


def _aimed_elsewhere(speech: Speech, other: str, patterns: dict[str, re.Pattern[str]],
                     genders: dict[str, str]) -> bool:
    """Whether a speech's own words say it is not for `other`: a direction before it says it is
    to oneself or to the camera ('(to himself)', '(TO CAMERA)'), or a kin word of address does
    not fit `other` ('Pin him down, mother!' and a man). A call of someone else by name is not
    read so: the one who replies may still answer the speaker."""
    if any(d.leading and _TO_NO_ONE.search(d.text) for d in speech.directions) or aside(speech, patterns):
        return True
    return _misfits(_head(speech, patterns), other, genders)


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
