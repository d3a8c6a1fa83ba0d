"""Who is in the story: characters from cues and from their introductions in action lines.

Screenwriters introduce a character in capitals the first time they appear
(`CLARICE STARLING, mid-20's, ...`). The cue may use only part of that name (`STARLING`), so the
introduction gives the canonical full name and the cue becomes an alias.
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
# An introduction: 1-4 capitalised words, then a comma/parenthesis and an age or description.
_INTRO = re.compile(
    r"\b((?:[A-Z][A-Z'’.\-]+)(?:\s+(?:[A-Z][A-Z'’.\-]+|[A-Z]\.)){0,3})"
    r"(?=\s*(?:\(\s*\d|,\s*(?:\d|mid|early|late|about|around|a |an |the |his |her |in h"
    r"|twent|thirt|fort|fift|sixt|sevent|eight|ninet|young|old|elderly|teen)))"
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
            for m in _INTRO.finditer(el.text):
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


_FULL_NAME = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]{2,})\b(?!['’]s)")
_SELF_INTRO = re.compile(r"^(?:(?:hi|hello|oh)[,.]?\s+)?(?:I'm|I am|my name is|(?:this is))?\s*"
                         r"([A-Z][a-z]+)\s+([A-Z][a-z]{2,})[.!]?$", re.IGNORECASE)


def _full_names(screenplay: Screenplay, cues: Counter[str], intros: dict[str, tuple[int, str]]) -> dict[str, str]:
    """Single-word cues the script also writes with one surname: 'NEIL' -> 'NEIL PERRY'.

    A form counts when the script writes 'Neil Perry' (title case; capitals are also used for
    sounds and actions) twice, or once as the
    speaker's own introduction ('I'm Neil Perry.'), and no other surname comes close (half as
    often). The surname may not be a cue of its own, a word of a heading or a verb.
    """
    single = {c for c in cues if len(c.split()) == 1 and not _CJK.search(c)}
    heading_words = {w for scene in screenplay.scenes for part in scene.location for w in part.upper().split()}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind not in (ElementKind.ACTION, ElementKind.DIALOGUE):
                continue
            for m in _FULL_NAME.finditer(el.text):
                first, last = m.group(1).upper(), m.group(2).upper()
                if first in single and last not in cues and last not in NOT_IN_NAMES \
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


def find_cast(screenplay: Screenplay) -> Cast:
    """Collect characters from cues and introductions, linking partial cues to full names.

    A cue that is one word of exactly one introduced full name (STARLING in CLARICE STARLING)
    becomes an alias of that full name, and so does a one-word cue the script writes with one
    surname (NEIL, 'I'm Neil Perry.'); otherwise the cue is a character of its own.
    """
    cast = Cast()
    intros = _introductions(screenplay)
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
    full_by_token: dict[str, set[str]] = defaultdict(set)
    for name in intros:
        if len(name.split()) > 1:
            for token in name.split():
                full_by_token[token].add(name)
    full_names = _full_names(screenplay, cues, intros)
    for cue, count in cues.items():
        if is_non_person_cue(cue) or not plausible_name(cue):
            continue
        owners = full_by_token.get(cue, set()) if cue not in intros else set()
        full = next(iter(owners)) if len(owners) == 1 else full_names.get(cue, cue)
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
