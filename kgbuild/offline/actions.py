"""Clauses of English action lines: who does what to whom or to what.

Screenplay action is written in the present tense, subject first: 'Neil hands Todd the
letter', 'Angier fires the pistol', 'Borden and Sarah embrace'. A clause here is a named
character (or two joined by 'and'), a verb in the present tense, then an optional particle or
preposition, then what the verb acts on: another named character or a noun phrase after a
determiner. A sentence that opens with He or She continues the subject of the sentence before
it when that sentence named one character only, of the matching pronoun. Nothing else is
guessed: 'his scarf' and 'her brother' are left alone.

Not every verb and noun of a clause is an action on a thing:
- a light verb and a noun the script, the rules or WordNet (an act, a signal: 'gives a signal')
  also use as a verb ('takes a sip', 'pulls a
  long drag', 'takes a bite': the script writes 'sips', 'drags', 'bites'), or a noun taken on
  something ('takes a heave on the booze'), is one action; what it names is not a thing
  (`action_noun`), unless the script also writes 'the sip';
- 'takes' and a picture that is someone's or a picture at all ('takes Elizabeth's picture',
  'takes a photo of the house') photographs: no picture is handled, unless it is taken from
  somewhere ('takes a photo from her purse');
- a character after 'with' goes along ('Lophakin enters with Dunyasha', 'sits with Picard'):
  a companion, not the one acted on;
- a posture or a state of mind ('stands', 'sits', 'knows', 'remembers') is no event.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass

from kgbuild.offline.lexicon import ACT_NOUNS
from kgbuild.offline.phrases import VERB_FORMS, Phrase, words
from kgbuild.offline.stoplists import word_set

_PARTICLES = word_set("up down out over away back off on in at to into onto toward towards with "
                      "through across around from against for by behind under near past inside")
_PRONOUN_SUBJECT = re.compile(r"^(He|She)\s")
_WORD_AFTER = re.compile(r"^\s*([A-Za-z][a-z'’\-]*)")
_AND_NAME = re.compile(r"^\s+and\s+")

#: Verbs of handling: a character who does this to a thing interacts with it.
HANDLING = word_set("""
    picks grabs takes holds opens closes reads writes throws drops puts pulls lifts carries hands
    gives fires loads aims lights pours drinks eats raises tosses catches uses hides removes
    examines inspects signs tears rips burns cuts fills empties unlocks locks plays pockets
    unwraps wraps unfolds folds clutches grips squeezes cocks draws sips smokes
    shuffles deals flips pushes drags hangs sets places lays offers shows snatches seizes collects
    retrieves produces fetches brandishes swings unscrews adjusts polishes wipes checks counts
    packs unpacks plugs switches starts rings
""")
#: Verbs of carrying or putting by hand, of HANDLING: what they move is a thing ('fetches his
#: guitar cases'); not the light ones ('takes a heave', 'checks her pulse', 'flips through').
CARRYING = word_set("""
    carries fetches lifts drops tosses catches puts places sets lays packs unpacks drags pockets
    hands grabs holds clutches
""")
#: Verbs with two objects: 'hands Todd the letter'.
GIVING = word_set("hands gives passes shows tosses throws offers slides sends brings")
#: Verbs of affection between people (affinity).
AFFECTION = word_set("hugs embraces kisses comforts consoles caresses cuddles")
#: Verbs of violence or attack between people (hostility).
VIOLENCE = word_set("""
    punches hits slaps strikes kicks shoots stabs attacks strangles chokes tackles beats assaults
    kills murders threatens headbutts bludgeons throttles
""")
#: Verbs of one-sided attitude: a glare says more than a look.
GLARES = word_set("glares scowls sneers")
THANKS = word_set("thanks")
#: Verbs that are perception or speech, not actions worth an event.
NOT_EVENTS = word_set("""
    looks watches stares glances sees eyes notices studies regards peers gazes observes hears
    listens says tells asks answers replies nods smiles laughs turns is are has seems appears
    waits follows faces continues keeps lets gets goes comes makes helps motions gestures spots
    signals beckons wants needs tries finds
    stands sits lies kneels remains stays sleeps
    knows thinks believes remembers forgets realizes understands recognizes wonders feels loves
    likes hates fears hopes wishes doubts suspects imagines expects prefers means owns deserves
    senses trusts
""")
#: Light verbs: with a noun that is also a verb they say that verb ('takes a sip' sips).
LIGHT_VERBS = word_set("takes has pulls draws heaves gives lets")
#: Pictures of someone or something: 'takes a picture' photographs.
PICTURES = word_set("picture photo photograph snapshot polaroid pic selfie portrait headshot")
_PICTURE_OWNERS = word_set("a an another one 's his her their my your our")
# What follows a picture taken from somewhere: it is handled ('takes a photo from her purse').
_TAKEN_FROM = re.compile(r"^\s*(?:from|out|off|back|down|away|up|into|to)\b", re.IGNORECASE)
_INDEFINITE = word_set("a an another one")
# A name that starts a clause: at the sentence start or after a comma or a conjunction, with
# at most a title before it ('Officer Lang grabs'), never 'the footage of Lang plays'.
_CLAUSE_START = re.compile(r"(?:^|[,;:—–]\s*|\s-\s*|\b(?:and|then|while|as|when|but|so|before|after|until|"
                           r"because|once|now)\s+)(?:[A-Z][a-z]+\.?\s+)?$")
# 'shoots Markus a look': the thing given is a look, not a shot.
_GIVEN_LOOK = re.compile(r"^\s+(?:a|an|one|another)\s+(?:\w+\s+)?(?:glance|look|smile|grin|glare|nod|wink|"
                         r"stare|frown|kiss|hug|wave|thumbs)\b", re.IGNORECASE)
# A friendly slap or hit: 'slaps him on the back'.
_FRIENDLY = re.compile(r"^\s+(?:on|across)\s+the\s+(?:back|shoulder|shoulders|arm)\b", re.IGNORECASE)


def _with_plurals(verbs: frozenset[str]) -> frozenset[str]:
    """Third-person verb forms and the plain forms two subjects take ('hugs' and 'hug')."""
    plain = set()
    for verb in verbs:
        if verb.endswith(("shes", "ches", "xes", "sses", "zzes")):
            plain.add(verb[:-2])
        elif verb.endswith("ies"):
            plain.add(verb[:-3] + "y")
        elif verb.endswith("s"):
            plain.add(verb[:-1])
    return verbs | frozenset(plain)


HANDLING, CARRYING, AFFECTION, VIOLENCE, GLARES, THANKS, NOT_EVENTS, GIVING, LIGHT_VERBS = (
    _with_plurals(v) for v in (HANDLING, CARRYING, AFFECTION, VIOLENCE, GLARES, THANKS, NOT_EVENTS, GIVING,
                               LIGHT_VERBS))


_KNOWN_VERBS = HANDLING | AFFECTION | VIOLENCE | GLARES | THANKS | GIVING
#: Every verb the action rules know, in its third-person and plain forms.
ACTION_VERBS = _KNOWN_VERBS | LIGHT_VERBS | NOT_EVENTS
# What a light verb's noun acts on: 'takes a heave on the booze', 'takes a drag on his cigarette';
# a thing is taken from or off something, not on it ('pulls a gun on him' is no 'takes').
_ACTED_ON = re.compile(r"^\s+on\s+(?:the|a|an|his|her|their|its|my|your|our|this|that|some)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """One subject-verb-object clause of an action sentence."""

    subjects: tuple[str, ...]  # canonical character names
    verb: str
    particle: str
    target_character: str | None
    target_phrase: Phrase | None
    text: str  # the clause as written, from subject to object
    friendly: bool = False
    rest: str = ""  # what follows the clause in its sentence

    def event_name(self) -> str:
        """'Neil Perry hugs Todd Anderson', 'Angier fires the pistol'."""
        who = " and ".join(self.subjects)
        parts = [who, self.verb]
        if self.particle:
            parts.append(self.particle)
        if self.target_character:
            parts.append(self.target_character)
        if self.target_phrase:
            det = self.target_phrase.determiner
            parts += ([det] if det in ("a", "an", "the") else ["the"]) + [self.target_phrase.text]
        return " ".join(parts)


def action_noun(clause: Clause, verbs: frozenset[str], definite: Container[str] = frozenset()) -> bool:
    """Whether the clause's phrase names its action, not a thing: a light verb, no particle (or
    'lets out'), a/an, and a noun the script or the rules also use as a verb ('takes a tiny sip',
    'pulls a long drag', 'takes a heave': 'heaves' is a verb) or one WordNet knows as a verb and,
    by its first sense, as no physical thing ('gives a signal', 'gives Dicky a boost';
    `kgbuild.offline.lexicon.ACT_NOUNS`; not 'gives a knife'), or one noun taken *on* something
    ('takes a heave on the booze': a thing is taken from it), which the script never writes
    with 'the' ('the sip').

    Args:
        clause: The clause.
        verbs: Words this script uses as verbs (`kgbuild.offline.phrases.learn_verbs`).
        definite: Phrases the script writes after 'the', 'this' or 'that' somewhere.

    Example:
        >>> from kgbuild.offline.phrases import noun_phrases
        >>> s = "Henry takes a sip."
        >>> action_noun(clauses(s, [(0, 5, "Henry")], noun_phrases(s), frozenset())[0], frozenset())
        True
    """
    phrase = clause.target_phrase
    if photographs(clause):
        return True
    if phrase is None or clause.verb.lower() not in LIGHT_VERBS or phrase.determiner not in _INDEFINITE:
        return False
    if clause.particle and not (clause.verb.lower().startswith("let") and clause.particle == "out"):
        return False
    if phrase.text in definite:
        return False
    if clause.verb.lower() in ("takes", "take") and " " not in phrase.text and _ACTED_ON.match(clause.rest):
        return True
    head = phrase.text.split(" of ")[0].split()[-1].rsplit("-", 1)[-1]
    if head in ACT_NOUNS and not _TAKEN_FROM.match(clause.rest):
        return True  # 'gives a signal'; not 'takes a note from his pocket'
    return any(form in VERB_FORMS or form in verbs or form in ACTION_VERBS for form in (head, f"{head}s", f"{head}es"))


def photographs(clause: Clause) -> bool:
    """Whether the clause photographs: 'takes a picture', 'takes Elizabeth's picture', 'takes a
    photo of the house'; not a picture taken out, off or from somewhere, nor 'takes the picture'.

    Example:
        >>> from kgbuild.offline.phrases import noun_phrases
        >>> s = "Anna takes Ben's picture."
        >>> photographs(clauses(s, [(0, 4, "Anna")], noun_phrases(s), frozenset())[0])
        True
    """
    phrase = clause.target_phrase
    if phrase is None:
        return False
    head = phrase.text.split(" of ")[0].split()[-1]
    singular = head[:-1] if head.endswith("s") else head
    return (clause.verb.lower() in ("takes", "take") and not clause.particle and singular in PICTURES
            and phrase.determiner in _PICTURE_OWNERS and not _TAKEN_FROM.match(clause.rest))


# What thanks are for: 'thanks Ben for the ride'; not 'for nothing', nor thanks turning to 'but'.
_THANKED_FOR = re.compile(r"^\s*(?:[a-z]+ly\s+)?for\s+(?!nothing\b)\w", re.IGNORECASE)
_BUT = re.compile(r"\bbut\b", re.IGNORECASE)


def thanks_for(clause: Clause) -> bool:
    """Whether a clause of thanks says what they are for ('Anna thanks Ben for the ride'), and
    so shows gratitude: 'She thanks him and moves off' is manners, as a bare 'thank you' is, and
    thanks that turn to 'but' ('thanks him for the offer but declines') decline.

    Example:
        >>> s = "Anna thanks Ben for the ride."
        >>> thanks_for(clauses(s, [(0, 4, "Anna"), (12, 15, "Ben")], [], frozenset())[0])
        True
    """
    return bool(_THANKED_FOR.match(clause.rest)) and not _BUT.search(clause.rest)


def _is_verb(word: str, verbs: frozenset[str]) -> bool:
    lower = word.lower()
    if not word.islower():
        return False
    return lower in VERB_FORMS or lower in verbs or lower in _KNOWN_VERBS


def _verb_after(text: str, start: int, verbs: frozenset[str], plural: bool) -> tuple[str, int] | None:
    """The verb right after a subject (an -ly adverb may come between), and where it ends."""
    rest = text[start:]
    m = _WORD_AFTER.match(rest)
    if m and m.group(1).endswith("ly") and len(m.group(1)) > 4:
        start += m.end()
        rest = text[start:]
        m = _WORD_AFTER.match(rest)
    if not m or not _is_verb(m.group(1), verbs):
        return None
    verb = m.group(1)
    if not plural and not verb.endswith("s"):
        return None
    return verb, start + m.end()


def _name_at(text: str, start: int, spans: list[tuple[int, int, str]]) -> tuple[str, int] | None:
    """The character named right at `start` (after spaces), and where the name ends."""
    offset = len(text[start:]) - len(text[start:].lstrip())
    for s, e, name in spans:
        if s == start + offset and text[e:e + 2].lower() not in ("'s", "’s"):
            return name, e
    return None


def _phrase_at(phrases: list[Phrase], tokens_before: int) -> Phrase | None:
    return next((p for p in phrases if p.start == tokens_before + 1), None)


def clauses(sentence: str, spans: list[tuple[int, int, str]], phrases: list[Phrase],
            verbs: frozenset[str], previous_subject: str | None = None) -> list[Clause]:
    """The subject-verb-object clauses of one English action sentence.

    Args:
        sentence: The sentence.
        spans: (start, end, canonical name) of every character named in it, by offset.
        phrases: Its noun phrases (`kgbuild.offline.phrases.noun_phrases`).
        verbs: Words this script uses as verbs (`kgbuild.offline.phrases.learn_verbs`).
        previous_subject: The character a sentence opening with He or She continues, if any.

    Example:
        >>> from kgbuild.offline.phrases import noun_phrases
        >>> s = "Neil hands Todd the letter."
        >>> [c.event_name() for c in clauses(s, [(0, 4, "Neil"), (11, 15, "Todd")], noun_phrases(s), frozenset())]
        ['Neil hands Todd the letter']
    """
    found: list[Clause] = []
    heads: list[tuple[tuple[str, ...], int, int]] = []  # subjects, clause start, subject end
    for s, e, name in spans:
        if sentence[e:e + 2].lower() in ("'s", "’s") or not _CLAUSE_START.search(sentence[:s]):
            continue
        subjects: tuple[str, ...] = (name,)
        end = e
        joined = _AND_NAME.match(sentence[e:])
        if joined:
            other = _name_at(sentence, e + joined.end(), spans)
            if other:
                subjects, end = (name, other[0]), other[1]
        heads.append((subjects, s, end))
    pronoun = _PRONOUN_SUBJECT.match(sentence)
    if pronoun and previous_subject and not any(s == 0 for _, s, _ in heads):
        heads.append(((previous_subject,), 0, pronoun.end(1)))
    for subjects, start, end in heads:
        verb_end = _verb_after(sentence, end, verbs, plural=len(subjects) > 1)
        if verb_end is None:
            continue
        verb, at = verb_end
        particle = ""
        m = _WORD_AFTER.match(sentence[at:])
        if m and m.group(1).lower() in _PARTICLES:
            particle, at = m.group(1).lower(), at + m.end()
        target = _name_at(sentence, at, spans)
        if target and (target[0] in subjects or _GIVEN_LOOK.match(sentence[target[1]:])):
            continue
        phrase = None
        end_at = at
        if target:
            end_at = target[1]
            given = _phrase_at(phrases, len(words(sentence[:end_at]))) if verb.lower() in GIVING else None
            if given is not None:
                phrase, at = given, end_at
        if phrase is None and not target:
            phrase = _phrase_at(phrases, len(words(sentence[:at])))
        if phrase is not None:
            tail = re.match(rf"^\s*\S+(?:\s+\S+){{{phrase.written or len(phrase.text.split())}}}", sentence[at:])
            end_at = at + (tail.end() if tail else 0)
        if not target and phrase is None:
            continue
        friendly = bool(_FRIENDLY.match(sentence[end_at:]))
        found.append(Clause(subjects=subjects, verb=verb, particle=particle,
                            target_character=target[0] if target else None, target_phrase=phrase,
                            text=sentence[start:end_at].strip(), friendly=friendly, rest=sentence[end_at:]))
    return found
