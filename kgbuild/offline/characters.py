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
- a cue of two names without a joining word (`CARL ROONEY`, both speaking at once) stands for
  both when each word is the cue of a different speaker and the two talk to each other.

A surname written in title case keeps its apostrophe (`Senator Tal'Aura` is not `Senator Tal`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from kgbuild.model import ElementKind, Screenplay
from kgbuild.names import display_name
from kgbuild.offline.phrases import VERB_FORMS
from kgbuild.offline.stoplists import GENERIC_PEOPLE, NOT_IN_NAMES
from kgbuild.readers.cues import is_non_person_cue

_CJK = re.compile(r"[\u3400-\u9fff]")
# An introduction: 1-4 capitalised words, then a comma and an age or description ('MARGO
# VANCE, 40s,'), an age in parentheses, or the actor's name in parentheses ('JANE DOE (Mary
# Smith) exits the car'); opening a sentence, also a dash and a description ('PRAETOR HIREN --
# the head of ...'; inside a sentence a dash follows a loud verb: 'the ship ROCKS -- a blast').
# The name opens its run of capitals: 'A CROWD LETTING OUT OF A MOVIE THEATER, the' is no one.
_DESCRIBED = (r"(?:\d|mid|early|late|about|around|a |an |the |his |her |in h"
              r"|twent|thirt|fort|fift|sixt|sevent|eight|ninet|young|old|elderly|teen)")
_CAPS_NAME = r"((?:[A-Z][A-Z'’.\-]+)(?:\s+(?:[A-Z][A-Z'’.\-]+|[A-Z]\.)){0,3})"
_INTRO = re.compile(
    rf"(?<![A-Z]\s)\b{_CAPS_NAME}"
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
    """False for cues and capitalised phrases that cannot be a character's name."""
    if _CJK.search(name):
        return 1 <= len(name) <= 8
    tokens = name.replace("’", "'").upper().split()
    return (
        1 <= len(tokens) <= 3
        and len(name) >= 2
        and not any(t in NOT_IN_NAMES or t.endswith("'S") for t in tokens)
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


def _introductions(screenplay: Screenplay) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is not ElementKind.ACTION:
                continue
            for m in [*_INTRO.finditer(el.text), *_DASH_INTRO.finditer(el.text), *_NAMED.finditer(el.text)]:
                name = " ".join(m.group(1).replace("’", "'").split()).strip(".-'")
                tokens = name.split()
                if not plausible_name(name) or any(t in _NOT_NAMES for t in tokens):
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
# hyphen ('Tal'Aura', 'Smith-Jones'); a possessive ('Perry's') or a word cut at a hyphen ('Norm
# Son-of-a-gun') is not a name.
_FULL_NAME = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+(?:['’][A-Za-z]+|-[A-Z][a-z]+)*)(?![\w'’]|-\w)")
_SELF_INTRO = re.compile(r"^(?:(?:hi|hello|oh)[,.]?\s+)?(?:I'm|I am|my name is|(?:this is))?\s*"
                         r"([A-Z][a-z]+)\s+([A-Z][a-z]{2,})[.!]?$", re.IGNORECASE)


def _full_names(screenplay: Screenplay, cues: Counter[str], intros: dict[str, tuple[int, str]]) -> dict[str, str]:
    """Single-word cues the script also writes with one surname: 'NEIL' -> 'NEIL PERRY'.

    A form counts when the script writes 'Neil Perry' (title case; capitals are also used for
    sounds and actions) twice, or once as the speaker's own introduction ('I'm Neil Perry.'), and
    no other surname comes close (half as often). The surname may not be a cue of its own, a
    word of a heading or a verb.
    """
    single = {c for c in cues if len(c.split()) == 1 and not _CJK.search(c)}
    heading_words = {w for scene in screenplay.scenes for part in scene.location for w in part.upper().split()}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind not in (ElementKind.ACTION, ElementKind.DIALOGUE):
                continue
            for m in _FULL_NAME.finditer(el.text):
                first, last = m.group(1).upper(), m.group(2).upper().replace("’", "'")
                if first in single and len(last) >= 3 and last not in cues and last not in NOT_IN_NAMES \
                        and last not in heading_words and last.lower() not in VERB_FORMS \
                        and last not in _NOT_NAMES:
                    counts[first][last] += 1
            if el.kind is ElementKind.DIALOGUE and el.speaker and el.speaker.upper() in single:
                intro = _SELF_INTRO.match(el.text.strip())
                if intro and intro.group(1).upper() == el.speaker.upper():
                    counts[el.speaker.upper()][intro.group(2).upper()] += 2
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


def _joint(cue: str, cues: Counter[str], intros: dict[str, tuple[int, str]],
           talk: set[frozenset[str]]) -> list[str] | None:
    """The speakers of a cue of several names without a joining word ('CARL ROONEY', both at
    once): each word a cue of its own, every two of them talking to each other; else None."""
    words = cue.split()
    if len(words) < 2 or cue in intros or _CJK.search(cue) or len(set(words)) < len(words):
        return None
    if not all(w in cues for w in words):
        return None
    if all(frozenset({a, b}) in talk for i, a in enumerate(words) for b in words[i + 1:]):
        return words
    return None


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
    joined: dict[str, list[str]] = {}
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is ElementKind.CHARACTER and el.speaker:
                joined[el.speaker] = cue_names(el.speaker)
                for name in joined[el.speaker]:
                    cues[name] += 1
                    cue_scenes[name].add(scene.index)
    for cue, names in list(joined.items()):
        if len(names) == 1 and (both := _joint(names[0], cues, intros, talk)):
            joined[cue] = both
            count, scenes = cues.pop(names[0], 0), cue_scenes.pop(names[0], set())
            for word in both:
                cues[word] += count
                cue_scenes[word] |= scenes
    full_by_token: dict[str, set[str]] = defaultdict(set)
    for name in intros:
        if len(name.split()) > 1:
            for token in name.split():
                full_by_token[token].add(name)
    full_names = _full_names(screenplay, cues, intros)
    for cue, count in cues.items():
        if is_non_person_cue(cue) or not plausible_name(cue):
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
    for cue, names in joined.items():
        known = [cast.canonical[n] for n in names if n in cast.canonical]
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
    """Words the screenplay writes in lower case in action or dialogue ('second', 'bearded')."""
    found: set[str] = set()
    for scene in screenplay.scenes:
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
