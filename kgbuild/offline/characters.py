"""Who is in the story: characters from cues and from their introductions in action lines.

Screenwriters introduce a character in capitals the first time they appear: with an age or a
description (`CLARICE STARLING, mid-20's, ...`), with the actor who plays them in parentheses
(`JANE DOE (Mary Smith) exits the car`), or in a naming sentence (`Her name is KATE MACY.`,
`a clerk named BOB HALE`). The cue may use only part of that name (`STARLING`, `MACY`), so the
introduction gives the canonical full name and the cue becomes an alias.

A character's name comes from the script's own introduction of that character, never from
someone else's: the script itself says when two cues are two people, because they talk to each
other (`converse`: each speaks right after the other somewhere). So

- a surname shared by two such people (`MACY` and `ROSALYN`, who talk on a video call; the
  mother introduced as `ROSALYN MACY`, the daughter as `KATE MACY`) does not make the cue
  `MACY` an alias of the full name whose given name is the other cue: `MACY` is Kate Macy;
- where the cue's token is in several introduced names, the one introduced in the scene where
  the cue first speaks is its name; otherwise the cue keeps its own name;
- a cue of several names without a joining word (`CARL ROONEY`; `JOHNNA MATTIE FAE`, a
  dual-dialogue cue run into one line) stands for them all when it cuts wholly into cues the
  script uses on their own, longest first (`LITTLE CHARLES IVY` is LITTLE CHARLES and IVY), and
  those are different people: they talk to each other, or they speak in one scene under their
  own cues and each speaks alone more often than the joint cue does;
- a cue that is part of an introduced name, one word or several (`MATTIE FAE` of `MATTIE FAE
  AIKEN`), is that character.

Full names are never cut short: a title-case surname runs on through the capitalised words after
it (`Tom Van Allen`, not `Tom Van`), and a name opens after a joining word (`Liz AND BO, the
owner` introduces BO). A surname is written with a capital ('Kirk here.' names no Kirk Here).
An introduction of a group introduces no character: an age range (`LONGTIME FRIENDS, 40s to
70s, mingle`) or a plural head noun (`LATINO MEN, 20's`; a word in -S followed by a plural verb).
A name never runs over the end of a sentence (`a CANDLE. BARNES, 20-ish` introduces BARNES, and
`an H-K. AN EXPLOSION, the thing` no one), nor holds a possessive (`MARCUS' FACE, a thin
membrane` is Marcus's face). Capitals after an indefinite article are a description, not a
name (`Kyle gets a GREEN BARCODE, the engineer ...`): they introduce someone only with an age
(`a MIDDLE-AGED WOMAN, 60-something`, `a YOUNG BOY, 14`) or as a cue of the script (`An
ENGINEER, a nice-looking, well-built young man` describes the cue ENGINEER). Capitals right
after a subject pronoun are what it does (`As we SLOWLY CRANE AWAY, the credits`), no name.

A cue that names a device of the media (`TELEVISION SET`, `THE LOUDSPEAKERS`,
`kgbuild.offline.media.names_a_device`) is no one. A cue the script renames partway through
(`JANITOR/GOD`; `HAZ-MAT MAN` until 'It's JOHN CONNOR.', `kgbuild.offline.renamed`) is an alias of
the name it goes on with.

Chinese cues that came through OCR: a cue of one character that jieba does not read as a name
and that the script uses fewer than five times (`一`, `老`, `于`: the rest of a broken cue) speaks
for no one known; a cue used once or twice, no dictionary word, one character away from a cue
used often in the same scenes (`老痪` for 老汤, `涛三` for 老三, `人张牧之` for 张牧之) is that
speaker, when that cue is the only likely one (`_misread`): a character of a series apart
(`老六`, `胡千`) or a joining word before the name (`和老汤`) make another person.
A Latin cue of one word used once or twice, that the text never writes, one letter away from a
cue used often in the same scenes, is a typing slip of it (`JOHH` for JOHN, `_misspelt`).
A Chinese cue of a name the script uses as a cue alone and a reduplicated tail ('审讯官指指', he
points; '医生支支吾吾', stammering: `_glued_manner`) is that name's speaker.

A surname written in title case keeps its apostrophe (`Senator Tal'Aura` is not `Senator Tal`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Container
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from kgbuild.model import ElementKind, Screenplay
from kgbuild.names import display_name
from kgbuild.offline.media import names_a_device
from kgbuild.offline.phrases import VERB_FORMS
from kgbuild.offline.renamed import renamings
from kgbuild.offline.stoplists import GENERIC_PEOPLE, NOT_IN_NAMES
from kgbuild.offline.zh_words import cut, in_dictionary
from kgbuild.readers.cues import FUNCTION_WORDS, is_non_person_cue

_CJK = re.compile(r"[\u3400-\u9fff]")
# An introduction: 1-4 capitalised words, then a comma and an age or description ('MARGO
# VANCE, 40s,'), an age in parentheses, or the actor's name in parentheses ('JANE DOE (Mary
# Smith) exits the car'); opening a sentence, also a dash and a description ('PRAETOR HIREN --
# the head of ...'; inside a sentence a dash follows a loud verb: 'the ship ROCKS -- a blast').
# The name opens its run of capitals: 'A CROWD LETTING OUT OF A MOVIE THEATER, the' is no one.
# A name never runs over the end of a sentence: a word keeps a period after it only as an
# initial or a title ('J.R.', 'DR.'), so 'a CANDLE. BARNES, 20-ish' introduces BARNES.
_DESCRIBED = (r"(?:\d|mid|early|late|about|around|a |an |the |his |her |in h"
              r"|twent|thirt|fort|fift|sixt|sevent|eight|ninet|young|old|elderly|teen)")
_ABBREVIATION = (r"(?:(?:[A-Z]\.)+|(?:MR|MRS|MS|DR|ST|JR|SR|LT|SGT|COL|GEN|CPT|CAPT|PROF|REV|DET|MAJ|CPL|PVT"
                 r"|GOV|SEN|AGT|OFC)\.)")
_CAPS_WORD = rf"(?:{_ABBREVIATION}|[A-Z][A-Z'’\-]+(?:\.[A-Z][A-Z'’\-]+)*)"
_CAPS_NAME = rf"({_CAPS_WORD}(?:\s+{_CAPS_WORD}){{0,3}})"
# An age after an introduction ('MIDDLE-AGED WOMAN, 60-something', 'YOUNG BOY (14)').
_AGED = re.compile(r"\s*(?:\(\s*\d|,\s*(?:about\s+|around\s+|in\s+h(?:is|er)\s+)?"
                   r"(?:\d|mid|early|late|twent|thirt|fort|fift|sixt|sevent|eight|ninet|teen))", re.IGNORECASE)
# An indefinite article right before a run of capitals, or opening it.
_ARTICLE_BEFORE = re.compile(r"(?:^|\W)(?:a|an|A|An|AN)\s+$")
_ARTICLES = frozenset({"A", "AN"})
_INTRO = re.compile(
    rf"(?<![A-Z]\s)(?<![\w'’.])(?<!\w-){_CAPS_NAME}"
    r"(?=\s*(?:\(\s*\d|\(\s*[A-Z][a-z'’\-]+(?:\s+(?:[A-Z]\.|[A-Z][a-z'’\-]+)){1,3}\s*[),]"
    rf"|,\s*{_DESCRIBED}))"
)
_DASH_INTRO = re.compile(rf"(?:^|(?<=[.!?]\s)){_CAPS_NAME}(?=\s*(?:--|—|–)\s*{_DESCRIBED})", re.MULTILINE)
# A naming sentence: 'Her name is KATE MACY.', 'a clerk named BOB HALE' (the name in capitals).
_NAMED = re.compile(
    r"\b(?:[Nn]ame\s+is|[Nn]amed)\s+((?:[A-Z][A-Z'’\-]+)(?:\s+(?:[A-Z][A-Z'’\-]+|[A-Z]\.)){0,3})"
    r"(?![\w'’])"
)
_NOT_NAMES = {
    "INT", "EXT", "CONTINUED", "CUT", "FADE", "DAY", "NIGHT", "LATER", "POV", "ANGLE", "CLOSE",
    "WIDE", "BACK", "SUPER", "TITLE", "THE", "END", "V.O.", "O.S.", "O.C.", "CONT'D",
}


def plausible_name(name: str) -> bool:
    """False for cues and capitalised phrases that cannot be a character's name: a possessive is
    an owner's, and what follows it the owner's ("MARCUS' FACE" is Marcus's face, no one)."""
    if _CJK.search(name):
        return 1 <= len(name) <= 8
    tokens = name.replace("’", "'").upper().split()
    return (
        1 <= len(tokens) <= 3
        and len(name) >= 2
        and not any(t in NOT_IN_NAMES or t.endswith(("'S", "S'")) for t in tokens)
    )


@dataclass
class Cast:
    """The characters of a screenplay: canonical names, their aliases, and where they appear."""

    canonical: dict[str, str] = field(default_factory=dict)  # surface (upper) -> canonical display
    speeches: Counter[str] = field(default_factory=Counter)  # canonical -> number of speeches
    scenes: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    aliases: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    introductions: dict[str, str] = field(default_factory=dict)  # canonical -> intro sentence
    joined: dict[str, list[str]] = field(default_factory=dict)  # 'DEWEY/GALE' -> both canonicals

    def resolve(self, surface: str) -> str | None:
        """The canonical name for a cue or a name as written, if it is a known character."""
        return self.canonical.get(surface.upper()) or self.canonical.get(surface)

    def speakers(self, cue: str) -> list[str]:
        """Every character a cue stands for (several for 'DEWEY/GALE')."""
        if cue in self.joined:
            return self.joined[cue]
        name = self.resolve(cue)
        return [name] if name else []


# What follows an introduced name: its description (after a comma, or in parentheses), then
# the first word of what it does ('LONGTIME FRIENDS, 40s to 70s, mingle').
_DESCRIPTION = re.compile(r"\s*(?:\(([^()]*)\)|,([^,.;]*)[,.;]?|(?:--|—|–)([^,.;]*)[,.;]?)\s*([a-z]+)?")
# An age range: the ages of a group ('40s to 70s', "20's-30's", 'ages 8 to 12').
_AGE_RANGE = re.compile(r"\d+\s*'?s?\s*(?:to|-|–|—|and|or|through)\s*(?:early\s+|mid\s+|late\s+)?\d+", re.IGNORECASE)
# People nouns in the plural ('LATINO MEN'), and what a plural subject does ('are', 'were').
_PLURAL_PEOPLE = frozenset(w.upper() for w in GENERIC_PEOPLE if w.endswith(("s", "men", "ple", "ren")))
_PLURAL_VERBS = frozenset({"are", "were", "have", "do"})


def _a_group(name: str, after: str, before: str = "") -> bool:
    """Whether an introduction describes a group, not one character: its description gives an
    age range ('LONGTIME FRIENDS, 40s to 70s, mingle'), or its head noun is plural (a people
    noun in the plural, 'LATINO MEN'; or a word in -S that a plural verb follows, 'GUARDS, 30s,
    are', unless the name ends a list that the verb agrees with: 'EDITH and DAVE WALTERS, a
    middle-aged couple, carry')."""
    m = _DESCRIPTION.match(after)
    if m is None:
        return False
    description = next((g for g in m.groups()[:3] if g is not None), "")
    if _AGE_RANGE.search(description):
        return True
    head = name.split()[-1]
    if head in _PLURAL_PEOPLE:
        return True
    verb = m.group(4) or ""
    listed = re.search(r"(?:,|\band|&)\s*$", before) is not None
    return not listed and head.endswith("S") and not head.endswith(("SS", "'S")) and (
        verb in _PLURAL_VERBS or verb in VERB_FORMS and not verb.endswith("s"))


# A subject pronoun right before a run of capitals: the run is what it does ('As we SLOWLY CRANE AWAY').
_SUBJECT_PRONOUN = re.compile(r"\b(?:we|he|she|they|it|you|i)\s+$", re.IGNORECASE)


def _introductions(screenplay: Screenplay) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    cues = {e.speaker for s in screenplay.scenes for e in s.elements if e.kind is ElementKind.CHARACTER and e.speaker}
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is not ElementKind.ACTION:
                continue
            for m in [*_INTRO.finditer(el.text), *_DASH_INTRO.finditer(el.text), *_NAMED.finditer(el.text)]:
                if _SUBJECT_PRONOUN.search(el.text[:m.start()]):
                    continue  # 'As we SLOWLY CRANE AWAY, the credits': what the pronoun does
                tokens = m.group(1).replace("’", "'").split()
                while tokens and tokens[0] in FUNCTION_WORDS:  # 'Liz AND BO, the owner' is BO
                    tokens = tokens[1:]
                described = bool(_ARTICLE_BEFORE.search(el.text[:m.start()])) or bool(tokens) and tokens[0] in _ARTICLES
                tokens = tokens[1:] if tokens and tokens[0] in _ARTICLES else tokens
                name = " ".join(tokens).strip(".-'")
                tokens = name.split()
                if not plausible_name(name) or any(t in _NOT_NAMES for t in tokens) \
                        or _a_group(name, el.text[m.end():], el.text[:m.start()]) \
                        or described and m.re is not _NAMED and name not in cues and not _AGED.match(el.text[m.end():]):
                    continue
                sentence_end = el.text.find(".", m.end())
                context = el.text[m.start(): sentence_end + 1 if sentence_end > 0 else None]
                found.setdefault(name, (scene.index, context[:300]))
    return found


_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?![\w'’-])")
_JOINED = re.compile(r"\s*(?:/|&|\bAND\b|\+)\s*")
# Prefixes that say how a cue is heard, not who speaks ('OC HOLDEN', 'THE CASHIER').
_CUE_PREFIX = re.compile(r"^(?:THE|O\.?C\.?|O\.?S\.?|V\.?O\.?)\s+(?=\S)")
# Cues a parser takes from shots and inserts: an article, or a lone body part or place word.
_NOT_A_SPEAKER = re.compile(r"^(?:A|AN)\s|^(?:HANDS?|FEET|EYES|FACE|FLOOR|STREET|ROOM|DOOR|WINDOW|SCREEN|"
                            r"INSERT|BACK TO SCENE|ON SCREEN|ANGLE|CLOSE|WIDE|POV)$")


def cue_names(cue: str) -> list[str]:
    """The speaker names one cue stands for: 'DEWEY/GALE' -> both, 'THE CASHIER' -> 'CASHIER'.

    Example:
        >>> cue_names("FELIX AND CARL")
        ['FELIX', 'CARL']
    """
    if _CJK.search(cue):
        return [cue]
    names = []
    for part in _JOINED.split(cue):
        part = _CUE_PREFIX.sub("", part.strip())
        if part and not _NOT_A_SPEAKER.search(part):
            names.append(part)
    return names


# 'Neil Perry': a given name and a surname in title case; a surname keeps its apostrophe or
# hyphen ('Tal'Aura', 'Smith-Jones'); a possessive ('Perry's', "Howard Johnson's": the
# restaurant, not the cue HOWARD) or a word cut at a hyphen ('Norm
# Son-of-a-gun') is not a name. Title-case words right after it continue the surname ('Tom Van
# Allen', 'Khan Noonian Singh'): the name is the whole run, never its first two words.
_SURNAME = r"[A-Z][a-z]+(?:['’](?!s(?![A-Za-z]))[A-Za-z]+|-[A-Z][a-z]+)*(?![\w'’]|-\w)"
_FULL_NAME = re.compile(rf"\b([A-Z][a-z]+)((?:\s+{_SURNAME}){{1,3}})")
# 'I'm Neil Perry.', 'Hi, this is Neil Perry': the speaker's own introduction (the name in title
# case: 'Kirk here.' is no surname).
_SELF_INTRO = re.compile(r"^(?i:(?:(?:hi|hello|oh)[,.]?\s+)?(?:I'm|I am|my name is|this is)?)\s*"
                         r"([A-Z][a-z]+)((?:\s+[A-Z][a-z]{2,}){1,3})[.!]?$")


def _full_names(screenplay: Screenplay, cues: Counter[str], intros: dict[str, tuple[int, str]]) -> dict[str, str]:
    """Single-word cues the script also writes with one surname: 'NEIL' -> 'NEIL PERRY'.

    A form counts when the script writes 'Neil Perry' (title case; capitals are also used for
    sounds and actions) twice, or once as the speaker's own introduction ('I'm Neil Perry.'), and
    no other surname comes close (half as often). The surname is every title-case word after
    the given name ('Tom Van Allen'); written in the action or another's speech, none of its
    words may be a cue of its own, a word of a heading or a verb.
    """
    single = {c for c in cues if len(c.split()) == 1 and not _CJK.search(c)}
    heading_words = {w for scene in screenplay.scenes for part in scene.location for w in part.upper().split()}

    def surname(words: str) -> str | None:
        last = " ".join(words.upper().replace("’", "'").split())
        if len(last) < 3 or any(w in cues or w in NOT_IN_NAMES or w in heading_words or w.lower() in VERB_FORMS
                                or w in _NOT_NAMES for w in last.split()):
            return None
        return last

    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind not in (ElementKind.ACTION, ElementKind.DIALOGUE):
                continue
            for m in _FULL_NAME.finditer(el.text):
                first = m.group(1).upper()
                if first in single and (last := surname(m.group(2))):
                    counts[first][last] += 1
            if el.kind is ElementKind.DIALOGUE and el.speaker and el.speaker.upper() in single:
                intro = _SELF_INTRO.match(el.text.strip())
                if intro and intro.group(1).upper() == el.speaker.upper():  # the speaker's own word
                    counts[el.speaker.upper()][" ".join(intro.group(2).upper().split())] += 2
    out = {}
    for first, surnames in counts.items():
        (best, n), *rest = surnames.most_common()
        if n >= 2 and (not rest or n >= 2 * rest[0][1]) and f"{first} {best}" not in intros:
            out[first] = f"{first} {best}"
    return out


def converse(screenplay: Screenplay) -> set[frozenset[str]]:
    """Pairs of cue names that talk to each other: somewhere A speaks right after B, and
    somewhere B right after A (in one scene). Two such cues are two people.

    Example:
        >>> frozenset({"MACY", "ROSALYN"}) in converse(screenplay)  # doctest: +SKIP
        True
    """
    after: set[tuple[str, str]] = set()
    for scene in screenplay.scenes:
        previous: list[str] = []
        for el in scene.elements:
            if el.kind is not ElementKind.CHARACTER or not el.speaker:
                continue
            names = cue_names(el.speaker)
            after.update((b, a) for a in previous for b in names if a != b)
            previous = names
    return {frozenset(pair) for pair in after if (pair[1], pair[0]) in after}


def _claimed(cue: str, full: str, cues: Counter[str], talk: set[frozenset[str]]) -> bool:
    """Whether `full` is another speaker's name: its given name is a cue of its own that talks
    with `cue` ('ROSALYN MACY' is Rosalyn's, not MACY's, when ROSALYN and MACY converse)."""
    given = full.split()[0]
    return given != cue and given in cues and frozenset({cue, given}) in talk


def _owner(cue: str, owners: set[str], intros: dict[str, tuple[int, str]], first_scene: int) -> str | None:
    """The one introduced full name a cue token belongs to: the only one, or else the one
    introduced in the scene where the cue first speaks."""
    if len(owners) == 1:
        return next(iter(owners))
    here = [name for name in owners if intros[name][0] == first_scene]
    return here[0] if len(here) == 1 else None


def _parts(words: list[str], cues: Container[str], whole: str) -> list[str] | None:
    """`words` cut wholly into cues the script uses on their own, the longest first at each
    step ('CHARLIE LITTLE CHARLES' -> CHARLIE, LITTLE CHARLES); None when no cut fits."""
    if not words:
        return []
    for size in range(len(words), 0, -1):
        head = " ".join(words[:size])
        if head != whole and head in cues and (rest := _parts(words[size:], cues, whole)) is not None:
            return [head, *rest]
    return None


def _joint(cue: str, cues: Counter[str], intros: dict[str, tuple[int, str]],
           talk: set[frozenset[str]], scenes: dict[str, set[int]]) -> list[str] | None:
    """The speakers of a cue of several names without a joining word, speaking at once
    ('CARL ROONEY'; 'JOHNNA MATTIE FAE' is JOHNNA and MATTIE FAE, a dual-dialogue cue run into
    one line): the cue cut wholly into cues the script uses on their own, longest first, each
    two of them two people. They are when they talk to each other, or when both speak in one
    scene under their own cues and each speaks more often alone than the joint cue does (a
    joint cue is a moment; a character of that name would speak as often as its parts). Else
    None: an introduced name ('MATTIE FAE') is one person."""
    words = cue.split()
    if len(words) < 2 or cue in intros or _CJK.search(cue):
        return None
    parts = _parts(words, cues, cue)
    if not parts or len(set(parts)) < len(parts):
        return None
    pairs = [frozenset({a, b}) for i, a in enumerate(parts) for b in parts[i + 1:]]
    if all(pair in talk for pair in pairs):
        return parts
    apart = all(cues[p] > cues[cue] for p in parts)
    if apart and all(scenes[a] & scenes[b] for a, b in (tuple(pair) for pair in pairs)):
        return parts
    return None


#: Characters that make a series of names (老二, 老三; 胡千, 胡万; 百姓甲, 百姓乙; 大毛, 小毛): a
#: cue that differs from a name in one of them is another member of the series, not a misread.
_SERIES = frozenset("零一二三四五六七八九十廿百千万两甲乙丙丁戊己庚辛大小老阿第")
#: What before a name joins another speaker to it ('和老汤': someone and 老汤).
_JOINING = frozenset("和与跟及同、")
#: What after a name makes another person of it ('张三妻', '李四儿', '百姓们').
_KIN_AFTER = frozenset("的家们爸妈父母妻夫儿女哥姐弟妹爷奶叔婶舅姨侄孙嫂媳")
#: How often a name must be used, and how much more than any other near it, to be what a
#: rarely used cue one character away was misread from.
_OFTEN, _DOMINANT, _LOCAL = 5, 5, 4


def _one_apart(rare: str, name: str) -> bool:
    """Whether a Chinese cue is `name` with one character misread or one stray character at
    either end ('黄四即' for 黄四郎, '四张牧之' for 张牧之): not a series member of its own
    ('老六' is not 老四, but '涛三' may be 老三), no joining word before ('和老汤') and no kin
    word after ('张牧之妻' is his wife)."""
    if len(rare) == len(name):
        apart = [a for a, b in zip(rare, name, strict=True) if a != b]
        return len(apart) == 1 and apart[0] not in _SERIES
    if len(rare) == len(name) + 1:
        return (rare[1:] == name and rare[0] not in _SERIES | _JOINING
                or rare[:-1] == name and rare[-1] not in _SERIES | _KIN_AFTER)
    return False


def _misread(cues: Counter[str], scenes: dict[str, set[int]], talk: set[frozenset[str]],
            local: dict[int, Counter[str]]) -> dict[str, str]:
    """Chinese cues read wrong (text through OCR): a cue used once or twice, no word of jieba's
    dictionary ('老者' is a word), is a misreading of the cue one character away from it
    (`_one_apart`) that is used often: in the whole script `_DOMINANT` times as often as any
    other such cue, and in the scenes of the rare cue `_LOCAL` times as often as all the others
    together (else it is not known which: '老至' in a scene of 老汤, 老四 and 老七), and that
    it never talks with (two cues that talk to each other are two people)."""
    out = {}
    for rare, count in cues.items():
        if count > 2 or len(rare) < 2 or not _CJK.search(rare) or in_dictionary(rare):
            continue
        near = [name for name, n in cues.items() if n >= _OFTEN and _one_apart(rare, name)]
        if (meant := _meant(rare, near, cues, scenes, local, talk)) is not None:
            out[rare] = meant
    return out


def _meant(rare: str, near: list[str], cues: Counter[str], scenes: dict[str, set[int]],
           local: dict[int, Counter[str]], talk: set[frozenset[str]]) -> str | None:
    """The frequent cue a rare one near it (`near`) stands for: the one that dominates the
    script's cues among them and the rare cue's scenes, and never talks with it; None if none."""
    near = sorted(near, key=lambda name: -cues[name])
    if not near or len(near) > 1 and cues[near[0]] < _DOMINANT * cues[near[1]]:
        return None
    here = Counter({name: sum(local[i][name] for i in scenes[rare]) for name in near})
    if here[near[0]] and here[near[0]] >= _LOCAL * sum(here[name] for name in near[1:]) \
            and frozenset({rare, near[0]}) not in talk:
        return near[0]
    return None


def _misspelt(cues: Counter[str], scenes: dict[str, set[int]], talk: set[frozenset[str]],
              local: dict[int, Counter[str]], written: Container[str]) -> dict[str, str]:
    """Latin cues typed wrong: a cue of one word used once or twice that the script's text never
    writes ('JOHH'), one letter away (Levenshtein) from a cue used often, is that cue, on the same
    terms as `_misread` (dominant in the script and in the rare cue's scenes, never talking
    with it); a digit or '#' apart is another member of a series ('GUARD 2'), and a word the
    script writes ('MAN', 'Jon') is a name or word of its own."""
    out = {}
    for rare, count in cues.items():
        if count > 2 or len(rare) < 3 or not re.fullmatch(r"[A-Z][A-Z'’\-]+", rare) or rare in written:
            continue
        near = [name for name, n in cues.items() if n >= _OFTEN and not _CJK.search(name)
                and re.fullmatch(r"[A-Z][A-Z'’\-]+", name) and Levenshtein.distance(rare, name) == 1]
        if (meant := _meant(rare, near, cues, scenes, local, talk)) is not None:
            out[rare] = meant
    return out


#: A reduplicated tail: a verb done briefly or a manner ('指指' points, '点点头', '支支吾吾'
#: stammering, '摇摇晃晃'), a form of verbs and adjectives, glued after a name before the colon.
#: Kin words written doubled besides those of `_KIN_AFTER` ('伯伯', '婆婆', '公公').
_KIN_DOUBLED = frozenset("伯婆公")
_REDUPLICATED = re.compile(r"(?:(.)\1(.)\2|(.)(.)\3\4|(.)\5.?)$")


def _glued_manner(cues: Counter[str]) -> dict[str, str]:
    """Chinese cues of a name the script uses alone as a cue and a reduplicated tail ('审讯官指指'
    is 审讯官 pointing, '医生支支吾吾' 医生 stammering): the name's speaker. A tail that is a cue
    of its own ('护士' and '丽丽' both speak) makes the cue two people, not a manner, and a kin
    word doubled ('陈末妈妈', '小四妹妹') is another person."""
    out = {}
    for cue in cues:
        if not _CJK.search(cue) or (m := _REDUPLICATED.search(cue)) is None:
            continue
        head, tail = cue[: m.start()], m.group()
        if len(head) >= 2 and cues.get(head, 0) > 0 and tail not in cues and tail[0] not in _KIN_AFTER | _KIN_DOUBLED:
            out[cue] = head
    return out


def _fragment(cue: str, count: int) -> bool:
    """A Chinese cue of one character used fewer than `_OFTEN` times that jieba does not read as
    a name ('一', '老', '于': the rest of a cue or a line broken by OCR) speaks for no one known."""
    return len(cue) == 1 and bool(_CJK.search(cue)) and count < _OFTEN and not all(
        flag.startswith("nr") for _, flag in cut(cue))


def find_cast(screenplay: Screenplay) -> Cast:
    """Collect characters from cues and introductions, linking partial cues to full names.

    A cue that is one word of an introduced full name (STARLING in CLARICE STARLING) becomes an
    alias of that full name, unless the name's given name is another speaker it talks with; of
    several such names, the one introduced where the cue first speaks. A one-word cue the
    script writes with one surname (NEIL, 'I'm Neil Perry.') gets that full name; otherwise the
    cue is a character of its own.

    Example:
        >>> find_cast(read_screenplay("harbour.fountain")).resolve("VANCE")  # doctest: +SKIP
        'Margo Vance'
    """
    cast = Cast()
    intros = _introductions(screenplay)
    talk = converse(screenplay)
    cues: Counter[str] = Counter()
    cue_scenes: dict[str, set[int]] = defaultdict(set)
    local: dict[int, Counter[str]] = defaultdict(Counter)  # scene -> cue -> speeches there
    joined: dict[str, list[str]] = {}
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is ElementKind.CHARACTER and el.speaker:
                joined[el.speaker] = cue_names(el.speaker)
                for name in joined[el.speaker]:
                    cues[name] += 1
                    cue_scenes[name].add(scene.index)
                    local[scene.index][name] += 1
    alone, alone_scenes = Counter(cues), {name: set(found) for name, found in cue_scenes.items()}
    for cue, names in list(joined.items()):
        if len(names) == 1 and (both := _joint(names[0], alone, intros, talk, alone_scenes)):
            joined[cue] = both
            count, scenes = cues.pop(names[0], 0), cue_scenes.pop(names[0], set())
            for word in both:
                cues[word] += count
                cue_scenes[word] |= scenes
    full_by_token: dict[str, set[str]] = defaultdict(set)
    for name in intros:
        words = name.split()
        for size in range(1, len(words)):  # 'MATTIE FAE' of 'MATTIE FAE AIKEN' too
            for at in range(len(words) - size + 1):
                full_by_token[" ".join(words[at: at + size])].add(name)
    full_names = _full_names(screenplay, cues, intros)
    written = {w.upper() for scene in screenplay.scenes for el in scene.elements
               if el.kind in (ElementKind.ACTION, ElementKind.DIALOGUE) for w in re.findall(r"[\w'’]+", el.text)}
    misread = {**_misread(cues, cue_scenes, talk, local), **_misspelt(cues, cue_scenes, talk, local, written)}
    glued = _glued_manner(cues)
    renamed = renamings(screenplay, talk)
    for cue, count in cues.items():
        if (is_non_person_cue(cue) or names_a_device(cue) or not plausible_name(cue) or cue in misread
                or cue in renamed or cue in glued or _fragment(cue, count)):
            continue
        owners = {f for f in full_by_token.get(cue, set()) if not _claimed(cue, f, cues, talk)} \
            if cue not in intros else set()
        full = _owner(cue, owners, intros, min(cue_scenes[cue])) or full_names.get(cue, cue)
        canonical = display_name(full)
        cast.canonical[cue] = canonical
        cast.canonical[full] = canonical
        cast.speeches[canonical] += count
        cast.scenes[canonical] |= cue_scenes[cue]
        if cue != full:
            cast.aliases[canonical].add(display_name(cue))
        if full in intros:
            cast.introductions[canonical] = intros[full][1]
    for cue, name in [*misread.items(), *renamed.items()]:
        if (target := cast.canonical.get(name)) is not None:
            cast.canonical[cue] = target
            cast.speeches[target] += cues[cue]
            cast.scenes[target] |= cue_scenes[cue]
            cast.aliases[target].add(display_name(cue))
    for cue, name in glued.items():  # '审讯官指指' is 审讯官 pointing: no alias of his
        if (target := cast.canonical.get(name)) is not None:
            cast.canonical[cue] = target
            cast.speeches[target] += cues[cue]
            cast.scenes[target] |= cue_scenes[cue]
    for cue, names in joined.items():
        known = list(dict.fromkeys(cast.canonical[n] for n in names if n in cast.canonical))
        if known:
            cast.canonical.setdefault(cue, known[0])
            cast.joined[cue] = known
    for name, (scene_index, context) in intros.items():
        if name in cast.canonical or len(name.split()) < 2:
            continue
        # Introduced with a full name but never speaking: still a character.
        canonical = display_name(name)
        cast.canonical[name] = canonical
        cast.scenes[canonical].add(scene_index)
        cast.introductions[canonical] = context
    return cast


def common_words(screenplay: Screenplay) -> frozenset[str]:
    """Words the screenplay uses otherwise than as a name: written in lower case in action or
    dialogue ('second', 'bearded'), or a whole place of its headings ('ENTERPRISE' of `INT.
    ENTERPRISE - BRIDGE`: the ship, not the cue `ENTERPRISE VOICE`), lower-cased."""
    found: set[str] = set()
    for scene in screenplay.scenes:
        found.update(part.lower() for part in scene.location if " " not in part.strip())
        for el in scene.elements:
            if el.kind in (ElementKind.ACTION, ElementKind.DIALOGUE):
                found.update(_LOWER_WORD.findall(el.text))
    return frozenset(found)


def mention_patterns(cast: Cast, common: frozenset[str] = frozenset()) -> dict[str, re.Pattern[str]]:
    """A regex per canonical character matching its name, aliases and distinctive name parts.

    A name part is distinctive when one character's name holds it and the script never writes
    it in lower case (`common`): 'Angier' alone finds Robert Angier, 'Second' does not find
    Second Angier. Descriptor names ('Asian Woman', 'Bearded Man') are found only whole.
    """
    forms: dict[str, set[str]] = defaultdict(set)
    token_owners: Counter[str] = Counter()
    for canonical in set(cast.canonical.values()):
        for token in canonical.split():
            token_owners[token.lower()] += 1
    for surface, canonical in cast.canonical.items():
        forms[canonical].add(display_name(surface))
        forms[canonical].add(canonical)
    for canonical, names in cast.aliases.items():
        forms[canonical] |= names
    patterns = {}
    for canonical, names in forms.items():
        parts = set(names)
        descriptor = canonical.split()[-1].lower() in GENERIC_PEOPLE  # 'Asian Woman', 'Bearded Man'
        if not _CJK.search(canonical) and not descriptor:
            for token in canonical.split():
                if len(token) >= 3 and token_owners[token.lower()] == 1 and token[0].isupper() \
                        and token.lower() not in common:
                    parts.add(token)
        if not _CJK.search(canonical):
            # Title case and capitals only: a case-blind 'Will' or 'Hope' would match words.
            parts |= {p.upper() for p in parts}
        alternatives = sorted((re.escape(p) for p in parts if p), key=len, reverse=True)
        if _CJK.search(canonical):
            patterns[canonical] = re.compile("|".join(alternatives))
        else:
            patterns[canonical] = re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")
    return patterns
