"""Noun phrases in English action lines, found without a tagger.

Screenplay action is written in the present tense with determiners before almost every thing
and place ('He drops the knife on the kitchen table'). A phrase starts after a determiner or a
possessive and runs over lowercase words until a function word, a verb form or punctuation.
Present-tense verbs right after a noun ('the door explodes') are told apart from nouns by the
script itself: a word that follows 'he', 'she', 'it' or a name somewhere in the script is a verb.
Right after a determiner a word that can be a verb is a noun ('his watch', 'the pocket'),
unless it is a past or -ing form ('the wounded').
A container or a part keeps its complement ('a stack of magazines', 'the edge of the roof').

Some phrases name no thing, by their grammar:
- an amount: 'every ounce of strength', 'each inch of the room' ('every' or 'each', a noun,
  then 'of') names a part or a measure of something, not a thing of its own;
- a phrase cut short inside a compound adjective: in 'his rust colored suit' the participle
  'colored' ends the run at 'rust', an adjective, while the noun ('suit') follows; a phrase
  whose run stops at a past participle followed by a noun is left out rather than named by
  its modifier (an -ing form takes an object: 'a box containing money' is a box);
- a dash glued to a word ('notebook--', a line broken at 'joke-') is punctuation, not part of
  the word, so 'his worn notebook--' is 'worn notebook', not 'worn'; but a word a line end
  broke at its hyphen ('his new sign- off', 'a wall- et': the readers join lines with a space)
  is read whole where the script writes it whole elsewhere ('sign-off', 'wallet';
  `rejoin_broken`), and left as it was where it does not (a dash, 'the notebook- he');
- an adverb of direction or manner without -ly ('instead', 'ahead', 'overhead') after a noun
  ends the phrase: 'He uses a peanut instead' names a peanut;
- a modifier cut from its noun by a coordination: in 'a thick and colorful towel' the run stops
  at 'and' after 'thick', and the determiner is shared with the noun that follows ('colorful
  towel'). Whether the one word before 'and' is a noun of its own ('a knife and fork', 'the
  bathroom and front room') or a modifier is read from the script (`join_modifiers`): a word
  the script never writes as the last word of a phrase of its own is no noun, and the phrase
  is the whole coordination ('thick and colorful towel'). So is a modifier cut by a comma from
  the noun it shares with others: 'the sharp, still smoking STEEL' is the steel ('sharp
  steel'), 'a long, thin knife' the knife (after the comma: adverbs and participles, left out
  of the name, then a noun the script capitalises as a prop; or a run of two words or more);
- a noun the script capitalises after lowercase modifiers is the head of their phrase, not the
  start of a name: 'his electric Menorah' is a menorah, not 'electric'; and a word in capitals
  with a particle in capitals after it is an action ('Bruce's car PEELS OUT'), not a noun of
  the phrase;
- what an owner has is read with its 'of' complement when its noun is no container or part:
  'his wave of nausea' is no wave he owns. The phrase keeps its head as its name and carries
  the complement for whoever decides what it names (`Phrase.typed`). Only owned phrases: the
  typer reads a lone complement poorly ('a swatch of carpet' reads as a place), while what
  follows an owner with 'of' is mostly a feeling, a view or a share ('his version of events');
- a verb stem after its determiner with a particle and the clause's end after it ('grabs the
  read out', 'hands the comb back') is a noun of a verb and particle ('read out') or a noun the
  verb's particle follows ('comb'); the script decides, as for coordinations: a word it writes
  as a phrase of its own elsewhere is that noun, another is written with its particle and
  names no thing the rules can tell (`join_modifiers`).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from functools import cache
from itertools import pairwise
from typing import Any

from kgbuild.offline.lexicon import BODY, COMPARATIVES
from kgbuild.offline.stoplists import in_class, word_set

DETERMINERS = word_set(
    "a an the his her their its my your our this that these those some another every each "
    "two three four several"
)
POSSESSIVE_PRONOUNS = {"his": "he", "her": "she", "their": "they", "its": "it"}
_FUNCTION_WORDS = word_set("""
    a an the and or but nor so yet for of in on at to from by with without into onto upon over
    under above below behind beside between through across along around about against toward
    towards near off out up down away back inside outside before after as than then while when
    where which who whom whose what that this these those there here is are was were be been being
    has have had do does did not no just only very too also still again now even ever all both
    each every some any his her their its my your our he she it they we you i him them us me
    himself herself themselves itself one ones another other others such same own more most less
    few many much s t can could will would shall should may might must if because though although
    until unless once like slowly quickly suddenly finally really quietly gently softly almost
    nearly already hard fast first last next
""")
_VERB_STEMS = word_set("""
    walk look open close turn stare grab pull push hold take put run stand sit sit lie step move
    watch see hear pick drop throw catch reach hand give get go come leave enter exit climb jump
    fall rise lift carry drag slam knock ring answer call shout scream yell whisper say speak talk
    nod shake smile laugh cry sob sigh glance peer gaze point wave kick hit punch shoot fire aim
    drive park stop start crash slow speed ride fly land pour drink eat sip chew swallow smoke light
    burn wipe wash clean dry dress wear touch kiss hug grip squeeze press tap type read write sign
    wait pause freeze hesitate continue follow chase lead pass cross approach arrive return head
    race rush hurry dash sprint crawl creep sneak hide search find lose notice study check examine
    stir fill empty spill break smash shatter tear cut stab slash slice fold pack unpack load
    unload shut lock unlock slide roll spin swing shove toss pocket place set lay hang switch flip
    show reveal cover uncover sit settle lean rest sleep wake blink breathe swallow shrug frown
    grin wink flinch wince tremble shiver collapse fade appear disappear emerge vanish flash glow
    shine flicker buzz beep honk bark growl rumble echo fill stretch bend kneel crouch duck dive
    swim float sink hit bang rattle creak thud scrape scratch rub pat stroke brush comb cough sneeze
    spit ignore begin end finish try want need seem keep let make become feel know think remember
    realize decide use help ask tell meet join sing dance play win count pay buy sell send receive
    bring draw paint build fix hang tie untie zip button load cock raise lower
""")
_IRREGULAR_VERBS = word_set("""
    is are was were has had does did goes went gone comes came sees saw seen takes took taken gives
    gave given gets got holds held stands stood sits sat lies lay runs ran falls fell rises rose
    throws threw thrown catches caught brings brought says said speaks spoke tells told knows knew
    thinks thought feels felt leaves left makes made finds found keeps kept lets puts sets hits cuts
    shuts begins began drinks drank drives drove rides rode flies flew hides hid bites bit tears tore
    wears wore breaks broke swings swung sinks sank shakes shook wakes woke
""")


def _verb_forms(stem: str) -> set[str]:
    forms = {stem, stem + "s", stem + "es", stem + "ed", stem + "ing", stem + "d"}
    if stem.endswith("e"):
        forms |= {stem[:-1] + "ing", stem + "d"}
    if stem.endswith("y"):
        forms |= {stem[:-1] + "ies", stem[:-1] + "ied"}
    if re.fullmatch(r".*[^aeiou][aeiou][bdgklmnprt]", stem):
        forms |= {stem + stem[-1] + "ed", stem + stem[-1] + "ing"}
    return forms


VERB_FORMS = frozenset(f for stem in _VERB_STEMS for f in _verb_forms(stem)) | _IRREGULAR_VERBS
# A hyphen joins two word characters ('flower-wand'); one at a word's end is a dash. So does an
# ampersand ('H&K', 'AT&T': one name).
_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9'’]|[-&](?=[A-Za-z0-9]))*|[^\sA-Za-z0-9]")
_NOUN_WORD = re.compile(r"[a-z][a-z\-&]*[a-z]$|[a-z]$")


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: its words, the determiner before it and where it sits in the sentence."""

    text: str
    determiner: str
    start: int  # word index of the first word in the sentence
    owner: str | None = None  # 'NAME' of "NAME's knife", or he/she/they for "his knife"
    # One word cut by 'and', 'or' or a comma before a noun run with no determiner of its own:
    # the words that complete it ('and colorful towel' after 'a thick'; 'steel' after 'the
    # sharp, still smoking'), and how many words written between are left out of it (2).
    coordinated: str = ""
    between: int = 0
    # How many words of the sentence the phrase covers after its determiner, when its name
    # leaves some out ('sharp, still smoking STEEL' named 'sharp steel': 4); 0: its text's.
    written: int = 0
    # 'of nausea' after an owned noun that is no container or part ('his wave'): part of what
    # is owned.
    complement: str = ""
    # The particle after a verb stem that ends its clause ('out' of 'grabs the read out'); kept
    # only where the script has no noun of that stem (`join_modifiers`): no thing to name.
    particle: str = ""
    # What a line end may have broken off the last word at its hyphen ('off' of 'sign- off').
    broken: str = ""

    @property
    def typed(self) -> str:
        """The words whose meaning says what the phrase names: its text, with its complement
        when it has one ('wave of nausea' for 'his wave of nausea')."""
        return f"{self.text} {self.complement}" if self.complement else self.text


def words(sentence: str) -> list[str]:
    """Split a sentence into words and punctuation marks."""
    return _WORD.findall(sentence)


# Words that end a thing's name when they follow it: 'holds the newspaper open'.
_NEVER_IN_NOUNS = word_set("open shut apart together aside tight loose alone")
# Adverbs of direction and manner without -ly: after a participle they end the phrase ('the gun
# pointed straight at him'), they are not the noun of a compound adjective ('rust colored suit').
_DIRECTIONS = word_set("""
    straight ahead forward forwards backward backwards sideways upward upwards downward downwards
    home wide halfway instead overhead underneath nearby everywhere somewhere anywhere
""")
# After a noun they end its phrase too ('a peanut instead', 'the lights overhead'); not 'home',
# which ends compounds ('the funeral home').
_ADVERBS_AFTER_NOUNS = _DIRECTIONS - {"home"}
#: Determiners that, with 'of' after the noun, name an amount or a part ('every ounce of').
AMOUNT_DETERMINERS = word_set("every each")
#: Nouns whose complement belongs to the name of the thing or place ('bottle of vodka').
PARTITIVES = word_set("""
    stack pile bottle glass cup can box pack packet bag bunch pair piece sheet set row handful pot
    jar bowl plate fleet bundle roll carton case basket slice bar tube crate heap jug mug flask
    vial wad photo photograph picture copy map list file bucket tray sack pouch loaf stick
    edge side back front top bottom end middle corner foot head rest center centre far
""")
#: -ing words that are nouns, not verb forms after a noun ('the bathroom ceiling').
ING_NOUNS = word_set("""
    ceiling building clothing railing painting landing wedding morning evening ring king wing
    thing string spring swing sibling stocking pudding bedding lighting parking dining living
    sitting waiting booking filling icing frosting lining ending opening offering recording
    drawing heading crossing clearing shooting meeting hearing screening
""")
_SUBJECTS = word_set("he she it they who which")
#: Particles a verb takes ('puts the cup down'), which also make nouns of verbs ('a read out').
PARTICLES = word_set("out off up down over back in on away")
# Adverbs that modify the modifier of a noun ('the sharp, still smoking STEEL').
_DEGREE_ADVERBS = word_set("still very so too just almost nearly barely already half")


# Suffixes that make nouns of acts and states from verbs ('appearance', 'movement', 'refusal' is
# left out: '-al' ends too many things, 'pedal', 'terminal').
_ACT_SUFFIXES = ("ance", "ence", "ment", "tion", "sion")


@cache
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _verb_stems(verbs: frozenset[str]) -> frozenset[str]:
    return frozenset(_stemmer().stemWords(sorted(verbs)))


def made_from_verb(noun: str, verbs: frozenset[str]) -> bool:
    """Whether a noun is made from one of `verbs` by a suffix of acts and states: it names the
    act or the state, not a thing ('his appearance' from 'appear'). The Snowball stemmer takes
    the suffix off; a word it leaves whole ('statement', 'station') or one with less than three
    letters before the suffix ('fence') is no such noun.

    Example:
        >>> made_from_verb("appearance", frozenset({"appear"})), made_from_verb("fence", frozenset({"fence"}))
        (True, False)
    """
    suffix = next((x for x in _ACT_SUFFIXES if noun.endswith(x)), None)
    if suffix is None or len(noun) < len(suffix) + 3 or noun in verbs:
        return False
    stem = _stemmer().stemWord(noun)
    return stem != noun and stem in _verb_stems(verbs)


def learn_verbs(sentences: list[str], names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Words used as verbs in this script: those that follow he/she/it/they or a name.

    Args:
        sentences: Action sentences of the script.
        names: Character names and name parts as written.

    Returns:
        Lower-case words seen in verb position.
    """
    found = set()
    for sentence in sentences:
        tokens = words(sentence)
        for prev, word in pairwise(tokens):
            subject = prev.lower() in _SUBJECTS or prev in names
            if subject and word.islower() and len(word) > 2 and word not in _FUNCTION_WORDS:
                found.add(word)
    return frozenset(found)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not word.isupper() and word[1:].islower()


def _stops(word: str, position: int, verbs: frozenset[str], names: frozenset[str],
           previous: str = "") -> bool:
    """Whether `word` ends the run of a noun phrase; `previous` is the run's last word as
    written."""
    lower = word.lower()
    # A bare verb stem after a singular noun makes a compound ('pocket watch', 'USB drive'); after
    # a plural it is the verb ('his eyes move').
    compound = lower in _VERB_STEMS and not _plural(previous.lower())
    # A capitalised noun after lowercase modifiers is their head ('his electric Menorah').
    head = position > 0 and _capitalised(word) and (previous.islower() or _capitalised(previous))
    if position > 0 and (
        (lower in verbs or lower in VERB_FORMS) and not compound
        or lower in _NEVER_IN_NOUNS
        or lower in _ADVERBS_AFTER_NOUNS  # 'a peanut instead'
        or lower in COMPARATIVES  # 'her coat tighter around her'
        or lower.endswith("ing") and len(lower) > 5 and lower not in ING_NOUNS
        or lower.endswith("ed") and len(lower) > 4 and not lower.endswith("eed")
    ):
        return True
    return (
        not (word.islower() or word.isupper() or head)  # Title Case is a name, not part of a thing
        or word in names
        or lower in _FUNCTION_WORDS
        or lower in VERB_FORMS and (lower.endswith("ed") or lower.endswith("ing") and len(lower) > 5
                                    or lower in _IRREGULAR_VERBS)
        or not _NOUN_WORD.match(lower)
        or lower.endswith("ly") and len(lower) > 4
    )


# Nouns in -s that are singular ('the news report', 'a lens cap').
_S_SINGULARS = word_set("""
    news series species means lens physics mathematics economics politics athletics gymnastics
    measles billiards headquarters crossroads barracks gallows
""")


def _plural(word: str) -> bool:
    """Whether a lowercase word reads as a plural noun: an -s that is no -ss, -us or -is, nor a
    singular in -s ('boots'; not 'glass', 'bus', 'axis', 'news')."""
    return (word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 2
            and word not in _S_SINGULARS)


def _run(tokens: list[str], start: int, max_words: int, verbs: frozenset[str],
         names: frozenset[str]) -> list[str]:
    run: list[str] = []
    previous = ""
    for k, word in enumerate(tokens[start: start + max_words], start):
        if (_stops(word, len(run), verbs, names, previous) or run and _capital_action(tokens, k)
                or run and _capitalised(word) and _name_goes_on(tokens, k)):
            break
        run.append(word.lower())
        previous = word
    return run


def _name_goes_on(tokens: list[str], at: int) -> bool:
    """Whether the capitalised word at `at` starts a name that goes on after it ('aims his rifle
    Fat Cholo's forehead'), so it is no head of the phrase before it."""
    nxt = tokens[at + 1] if at + 1 < len(tokens) else ""
    return nxt[:1].isupper()


def _capital_action(tokens: list[str], at: int) -> bool:
    """Whether the word at `at` is an action the script writes in capitals with its particle
    ('Bruce's car PEELS OUT'): a verb, not the head of the phrase before it."""
    word = tokens[at]
    nxt = tokens[at + 1] if at + 1 < len(tokens) else ""
    return word.isupper() and len(word) > 1 and nxt.isupper() and nxt.lower() in PARTICLES


def _before_body_part(tokens: list[str], stop: int) -> bool:
    """Whether the run ending before `stop` modifies a body part in capitals written there, one
    the script also uses as a verb ("North's bleary EYES pop open", 'He eyes her'): the script
    capitalises what the camera shows, and the run is its modifier, not a thing."""
    if stop >= len(tokens) or stop < 1 or not tokens[stop - 1].islower():
        return False
    word = tokens[stop]
    return word.isupper() and len(word) > 2 and in_class(word.lower(), BODY)


def _cut_in_compound(tokens: list[str], stop: int, verbs: frozenset[str]) -> bool:
    """Whether the run ending before `stop` was cut inside a compound adjective: the word at
    `stop` is a past participle ('colored', 'soaked') and a noun follows it ('rust colored
    suit'). An -ing form takes an object instead ('a box containing money')."""
    if stop + 1 >= len(tokens):
        return False
    participle, noun = tokens[stop].lower(), tokens[stop + 1]
    if not (participle.endswith("ed") and len(participle) > 4 and not participle.endswith("eed")):
        return False
    lower = noun.lower()
    return not (not noun.islower() or lower in _FUNCTION_WORDS or lower in _NEVER_IN_NOUNS
                or lower in _DIRECTIONS or lower in verbs or lower in VERB_FORMS
                or not _NOUN_WORD.match(lower) or lower.endswith(("ly", "ed", "ing")))


def _complement(tokens: list[str], end: int, max_words: int, verbs: frozenset[str],
                names: frozenset[str]) -> list[str]:
    """'of the roof' after a partitive: the words of the complement, or nothing."""
    if end >= len(tokens) or tokens[end].lower() != "of":
        return []
    start = end + 1
    if start < len(tokens) and tokens[start].lower() in DETERMINERS:
        start += 1
    run = _run(tokens, start, max_words, verbs, names)
    if not run:
        return []
    return ["of", *(w.lower() for w in tokens[end + 1: start]), *run]


def noun_phrases(sentence: str, *, max_words: int = 4, verbs: frozenset[str] = frozenset(),
                 names: frozenset[str] = frozenset()) -> list[Phrase]:
    """Noun phrases after determiners and possessives in one sentence.

    Args:
        sentence: One action sentence.
        max_words: The longest phrase (before an 'of' complement).
        verbs: Words this script uses as verbs (see `learn_verbs`); they end a phrase.
        names: Character names as written; they end a phrase.

    Example:
        >>> [p.text for p in noun_phrases("She drops the kitchen knife on his desk.")]
        ['kitchen knife', 'desk']
    """
    found = list(_WORD.finditer(sentence))
    tokens = [m.group() for m in found]
    out = []
    for i, token in enumerate(tokens):
        lower = token.lower()
        owner = None
        if lower in DETERMINERS:
            determiner = lower
            owner = POSSESSIVE_PRONOUNS.get(lower)
        elif token.lower().endswith(("'s", "’s")) and token[:1].isupper() and len(token) > 3:
            determiner, owner = "'s", token[:-2]
        else:
            continue
        run = _run(tokens, i + 1, max_words, verbs, names)
        if not run:
            continue
        after = i + 1 + len(run)
        if lower in AMOUNT_DETERMINERS and after < len(tokens) and tokens[after].lower() == "of":
            continue  # 'every ounce of strength': an amount, not a thing
        if _cut_in_compound(tokens, after, verbs):
            continue  # 'his rust colored suit': the run stopped at the modifier
        if _before_body_part(tokens, after):
            continue  # "North's bleary EYES pop open": the run stopped at the body part it modifies
        coordinated, between = _coordinated(tokens, after, max_words, verbs, names) if len(run) == 1 else ("", 0)
        complement = ""
        if run[-1] in PARTITIVES:
            run += _complement(tokens, after, max_words, verbs, names)
        elif owner is not None:
            complement = " ".join(_complement(tokens, after, max_words, verbs, names))
        out.append(Phrase(text=" ".join(run), determiner=determiner, start=i + 1, owner=owner,
                          coordinated=coordinated, between=between, complement=complement,
                          particle=_particle(tokens, after) if run == [tokens[i + 1].lower()] else "",
                          broken=_broken(found, after)))
    return out


def _broken(found: list[re.Match[str]], at: int) -> str:
    """The lowercase word after a hyphen glued to the word before `at` and a space or a line
    end ('sign- off', 'wall-' / 'et'): what a line end may have broken off that word; ''
    otherwise ('runs--', 'the gun - then')."""
    if not 0 < at < len(found) - 1 or found[at].group() != "-":
        return ""
    hyphen, word = found[at], found[at + 1]
    glued = found[at - 1].end() == hyphen.start() and hyphen.end() < word.start()
    return word.group() if glued and word.group()[:1].islower() and word.group().isalpha() else ""


def rejoin_broken(phrase: Phrase, written: Container[str]) -> Phrase:
    """The phrase with the word a line end broke at its hyphen made whole again where the
    script writes it whole elsewhere: with its hyphen ('new sign- off' where the script writes
    'sign-off') or without ('a wall- et' where it writes 'wallet'); as it was otherwise (a
    dash, 'the notebook- he', or a word the script never writes whole).

    Args:
        phrase: A phrase of one sentence (`noun_phrases`).
        written: Every word the script writes, lowercased (`words`).

    Example:
        >>> rejoin_broken(noun_phrases("He finds a wall- et.")[0], {"wallet"}).text
        'wallet'
    """
    if not phrase.broken:
        return phrase
    cut = phrase.text.split()[-1]
    whole = next((w for w in (f"{cut}-{phrase.broken}", f"{cut}{phrase.broken}") if w in written), None)
    if whole is None:
        return replace(phrase, broken="")
    text = phrase.text[: -len(cut)] + whole
    return replace(phrase, text=text, broken="", written=len(text.split()) + 1)


def _particle(tokens: list[str], at: int) -> str:
    """The particle at `at` when the word before it is a bare verb stem and the clause ends
    after it ('grabs the read out.', 'hands the comb back,'); '' otherwise."""
    stem = tokens[at - 1].lower()
    if stem not in _VERB_STEMS or at >= len(tokens) or tokens[at].lower() not in PARTICLES:
        return ""
    ends = at + 1 >= len(tokens) or not tokens[at + 1][:1].isalnum()
    return tokens[at].lower() if ends else ""


def _coordinated(tokens: list[str], at: int, max_words: int, verbs: frozenset[str],
                 names: frozenset[str]) -> tuple[str, int]:
    """The words that complete a one-word run cut from its noun at `at`, and how many words
    between are left out of them: after a conjunction, a run of two or more words with no
    determiner of its own ('and colorful towel', 0); after a comma, adverbs and participles
    (left out) then a noun the script capitalises ('steel', 2, after 'the sharp, still
    smoking'), or a run of two or more words ('thin knife', 0, after 'a long,'). ('', 0)
    otherwise ('a knife and fork', 'a bottle and two glasses', 'the gun, then')."""
    if at + 1 >= len(tokens) or tokens[at + 1].lower() in DETERMINERS:
        return "", 0
    if tokens[at].lower() in ("and", "or"):
        run = _run(tokens, at + 1, max_words, verbs, names)
        return (" ".join([tokens[at].lower(), *run]), 0) if len(run) >= 2 else ("", 0)
    if tokens[at] != "," or not tokens[at - 1].islower():
        return "", 0
    j = at + 1
    while j < len(tokens) and tokens[j].islower() and (
            tokens[j] in _DEGREE_ADVERBS or tokens[j].endswith("ly") and len(tokens[j]) > 4
            or tokens[j].endswith(("ing", "ed")) and len(tokens[j]) > 4 and tokens[j] not in ING_NOUNS):
        j += 1
    run = _run(tokens, j, max_words - 1, verbs, names)
    if not run:
        return "", 0
    last = tokens[j + len(run) - 1]
    prop = not last.islower() and len(last) > 1
    return (" ".join(run), j - at - 1) if prop or len(run) >= 2 and j == at + 1 else ("", 0)


def join_modifiers(sentences: Iterable[list[Phrase]]) -> dict[str, str]:
    """The phrases of a script that are cut from the noun they belong to, each with what it
    names: one word the script only ever writes before 'and', 'or' or a comma and a longer run
    ('a thick and colorful towel', 'the sharp, still smoking STEEL'), never as the last word of
    a phrase of its own ('the bathroom.', 'an old bathroom'), names the whole; a verb stem the
    script only ever writes before a particle that ends the clause ('grabs the read out') is
    written with it ('read out'): a noun of a verb and a particle, or a noun that takes the
    verb's particle, which the rules cannot tell apart (`Phrase.particle` stays set on it).

    Args:
        sentences: The noun phrases of each action sentence of the script.

    Returns:
        phrase -> what it names, for each occurrence cut so; a word that is a noun of its own
        somewhere in the script is not in it.

    Example:
        >>> join_modifiers([noun_phrases("She wraps a thick and colorful towel around her.")])
        {'thick': 'thick and colorful towel'}
    """
    heads: set[str] = set()
    cut: dict[str, str] = {}
    for phrases in sentences:
        for p in phrases:
            if p.coordinated:
                cut.setdefault(p.text, f"{p.text} {p.coordinated}")
            elif p.particle:
                cut.setdefault(p.text, f"{p.text} {p.particle}")
            else:
                heads.add(p.text.split(" of ")[0].split()[-1])
    return {word: joined for word, joined in cut.items() if word not in heads}
