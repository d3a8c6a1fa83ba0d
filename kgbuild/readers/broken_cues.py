"""Cues a PDF export broke: read each as the name the script uses elsewhere.

Text taken out of a PDF breaks names in two ways, and a reader of any format sees both:

- *letter spacing* cuts a name into pieces: 'TOB Y (CONT'D)', 'MAL COLM', 'C HOLO' (a first
  letter set apart, on the cue's line or on a line of its own just above it);
- a *clipped margin* takes the first letter off a line: 'ILEY' for RILEY, 'NNOUNCER' for
  ANNOUNCER, 'ILITARY WOMAN' for the Military Woman the action names, the letter lost or left on
  a line elsewhere.

Neither reading is a name, so a cue is read as the name the pieces make, and a clipped cue as the
name it is the rest of, when the script itself uses that name (`mend_broken_cues`):

- a cue of several pieces is the name its pieces of letters make once the spaces between them go
  ('TOB Y' is TOBY; 'MR. KELLY' is in words), or without a lone letter before them ('T OUISA'
  is OUISA, the letter a stray; not the article of 'A COP', nor what is left of a qualifier the
  script writes elsewhere: 'D REPORTER' beside FIRST REPORTER was 2ND REPORTER), when that name is
  another cue of the script or a name its text writes with a capital, used more often than the
  cue in pieces; the script never writes the cue as spaced in title case ('Van Dam');
- a cue is the name that is one letter longer at its start ('ILEY' is RILEY) when that name is
  the only such one among the script's cues (or, when none is a cue, among the names its text
  writes with a capital: MILITARY WOMAN), a rest of fewer than three letters ('VE' for EVE, 'ED'
  is no rest of TED) only when the script shows that letter set apart over it (a line ending in
  the lone 'E' right before the cue, or a cue 'E VE'), when the script uses that name at least twice as often
  as the clipped one (as a cue or written; as often will do when the clipped form is written
  nowhere but in its cues), and when nothing says they are two people: the clipped form is never
  written in title case ('Ana' is a name; a clipped 'Riley' is 'iley'), and the two never answer
  each other (one speaking between two speeches of the other, A B A, as two people talking do;
  one person goes on under both forms, 'RILEY' then 'ILEY', when a line lost its letter).

Only who speaks is mended (the speaker of the cue and of its speech); the text stays as printed.
A Chinese cue is left alone (its OCR misreadings are read by `kgbuild.offline.characters`).
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import product

from kgbuild.model import ElementKind, Scene

_LATIN_CUE = re.compile(r"^[A-Z][A-Z0-9.'’#\- ]*$")
_NAMED_KINDS = frozenset({ElementKind.ACTION, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
                          ElementKind.SHOT, ElementKind.LYRIC, ElementKind.CENTERED})
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: A clipped name keeps at least this many letters: 'ED' is not TED's rest, unless the script shows
#: the lost letter set apart from it ('E' over 'VE', or a cue 'E VE').
_MIN_REST = 3
#: How many times as often the whole name must be used as its clipped rest.
_DOMINANT = 2


class _Script:
    """How often the script uses a name: as a cue, and written in its other text."""

    def __init__(self, scenes: list[Scene]) -> None:
        self.cues: Counter[str] = Counter(
            e.speaker for s in scenes for e in s.elements if e.kind is ElementKind.CHARACTER and e.speaker)
        self.text = "\n".join(e.text for s in scenes for e in s.elements if e.kind in _NAMED_KINDS)
        self.talk = _talking_pairs(scenes)
        self.apart = _set_apart(scenes)
        self._words = frozenset(re.findall(r"[\w'’]+", self.text.upper()))
        self._found: dict[str, list[str]] = {}

    def _forms(self, name: str) -> list[str]:
        """Every place the text writes `name` as words of their own, as written there (never
        the rest of a name split by a lone letter before it: 'R ILEY')."""
        if not all(w in self._words for w in name.upper().split()):
            return []
        if name not in self._found:
            words = r"\s+".join(re.escape(w) for w in name.split())
            pattern = re.compile(rf"(?<![\w'’])(?<!(?-i:\b[A-Z])\s){words}(?![\w'’])", re.IGNORECASE)
            self._found[name] = [m.group() for m in pattern.finditer(self.text)]
        return self._found[name]

    def written(self, name: str, *, capital: bool = False, title: bool = False) -> int:
        """How often the text writes `name`: in any case, with a capital ('Toby', 'TOBY'), or
        in title case only ('Toby'; a lone letter is no word in title case)."""
        def fits(found: str) -> bool:
            words = found.split()
            if title:
                return all(len(w) > 1 and w[:1].isupper() and w[1:] == w[1:].lower() for w in words)
            return not capital or all(w[:1].isupper() for w in words)

        return sum(1 for found in self._forms(name) if fits(found))

    def uses(self, name: str) -> int:
        return self.cues[name] + self.written(name)

    def known(self, name: str, cue: str) -> bool:
        """Whether the script uses `name` (not the cue `cue` being read): as a cue, or written
        with a capital."""
        return name != cue and (self.cues[name] > 0 or self.written(name, capital=True) > 0)


def _talking_pairs(scenes: list[Scene]) -> set[frozenset[str]]:
    """Cue names that answer each other somewhere: one speaks between two speeches of the other
    (A, B, A). Two such cues are two people; a name and its clipped rest only follow each other
    where one person goes on speaking after some action ('RILEY' ... 'ILEY')."""
    pairs: set[frozenset[str]] = set()
    for scene in scenes:
        said = [e.speaker for e in scene.elements if e.kind is ElementKind.CHARACTER and e.speaker]
        pairs.update(frozenset({a, b}) for a, b, c in zip(said, said[1:], said[2:], strict=False) if a == c != b)
    return pairs


def _set_apart(scenes: list[Scene]) -> set[str]:
    """Names the script shows with their first letter set apart from the rest: a cue in pieces
    ('E VE') or a cue ('VE') right after a line that ends in that lone letter ('... arm. E')."""
    found: set[str] = set()
    for scene in scenes:
        before = ""
        for e in scene.elements:
            if e.kind is ElementKind.CHARACTER and e.speaker:
                pieces = e.speaker.split(" ", 1)
                if len(pieces) == 2 and re.fullmatch(r"[A-Z]", pieces[0]):
                    found.add(pieces[0] + pieces[1])
                if lone := re.search(r"(?:^|\s)([A-Z])$", before):
                    found.add(lone.group(1) + e.speaker)
            before = e.text.strip()
    return found


#: A piece of a name cut by letter spacing: letters only ('MR.' and 'KATE'' end words of their own).
_PIECE = re.compile(r"^[A-Z]+(?:-[A-Z]+)*$")


def _joined_forms(cue: str, qualified: bool) -> list[str]:
    """The names a cue's pieces make, fewest changes first: every way of closing the spaces
    between pieces of letters, and the pieces after a lone letter without it: not after the
    article A ('A COP'), nor when the script qualifies the rest (`qualified`: FIRST REPORTER,
    so 'D REPORTER' is what is left of 2ND REPORTER, and which one is not known)."""
    pieces = cue.split()
    if len(pieces) < 2 or len(pieces) > 5:
        return []
    forms: list[tuple[int, str]] = []
    for joins in product((False, True), repeat=len(pieces) - 1):
        closed = [n for n, j in enumerate(joins) if j]
        if not closed or not all(_PIECE.match(pieces[n]) and _PIECE.match(pieces[n + 1]) for n in closed):
            continue
        name = pieces[0] + "".join(("" if j else " ") + p for j, p in zip(joins, pieces[1:], strict=True))
        forms.append((len(closed), name))
    rest = " ".join(pieces[1:])
    if len(pieces[0]) == 1 and pieces[0] != "A" and _PIECE.match(pieces[0]) and not qualified \
            and len(re.sub(r"[^A-Z]", "", rest)) >= _MIN_REST:
        forms.append((len(pieces), rest))  # after every join: a letter is more often the name's than a stray
    return [name for _, name in sorted(forms)]


def _whole_of_pieces(cue: str, script: _Script) -> str | None:
    """The name a cue in pieces stands for ('TOB Y' -> TOBY), or None."""
    if script.written(cue, title=True):
        return None  # the script writes it so: a name of several words ('Van Dam')
    rest = cue.split(" ", 1)[1]
    qualified = any(other.endswith(" " + rest) and re.fullmatch(r"[A-Z0-9.'’\-]{2,}", other[: -len(rest)].strip())
                    for other in script.cues)
    known = [name for name in _joined_forms(cue, qualified)
             if script.known(name, cue) and script.uses(name) > script.uses(cue)]
    cued = [name for name in known if script.cues[name]]
    found = cued or known
    return found[0] if found else None


def _whole_of_rest(cue: str, script: _Script) -> str | None:
    """The name a cue is the clipped rest of ('ILEY' -> RILEY), or None."""
    short = len(re.sub(r"[^A-Z]", "", cue)) < _MIN_REST
    if short and not any(letter + cue in script.apart for letter in _LETTERS) or script.written(cue, title=True):
        return None
    longer = [letter + cue for letter in _LETTERS if not short or letter + cue in script.apart]
    cued = [name for name in longer if script.cues[name]]
    found = cued or [name for name in longer if script.written(name, capital=True)]
    if len(found) != 1:
        return None
    whole = found[0]
    if frozenset({cue, whole}) in script.talk:
        return None
    needed = script.uses(cue) if script.written(cue) == 0 else _DOMINANT * script.uses(cue)
    return whole if script.uses(whole) >= needed else None


def mended_names(scenes: list[Scene]) -> dict[str, str]:
    """The cue names of a script that a PDF export broke, each with the name it stands for.

    Example:
        >>> mended_names(scenes)  # doctest: +SKIP
        {'TOB Y': 'TOBY', 'ILEY': 'RILEY'}
    """
    script = _Script(scenes)
    out: dict[str, str] = {}
    for cue in script.cues:
        if not _LATIN_CUE.match(cue):
            continue
        whole = _whole_of_pieces(cue, script) if " " in cue else None
        whole = whole or _whole_of_rest(cue, script)
        if whole is not None:
            out[cue] = whole
    return {cue: _followed(whole, out) for cue, whole in out.items()}


def _followed(name: str, mended: dict[str, str]) -> str:
    """The end of a chain of mendings: 'R ILEY' -> 'ILEY' -> 'RILEY'."""
    seen = {name}
    while name in mended and mended[name] not in seen:
        name = mended[name]
        seen.add(name)
    return name


def mend_broken_cues(scenes: list[Scene]) -> list[Scene]:
    """The scenes with every broken cue read as the name it stands for (see the module
    docstring): the cue's speaker and its speech's, the text as printed.

    Args:
        scenes: A whole script's scenes, as a reader assembled them.

    Returns:
        New scenes; those without a broken cue are returned as they were.

    Example:
        >>> [e.speaker for e in mend_broken_cues(scenes)[0].elements]  # doctest: +SKIP
        [None, 'TOBY', 'TOBY']
    """
    names = mended_names(scenes)
    if not names:
        return scenes
    out = []
    for scene in scenes:
        if not any(e.speaker in names for e in scene.elements):
            out.append(scene)
            continue
        elements = [e.model_copy(update={"speaker": names[e.speaker]}) if e.speaker in names else e
                    for e in scene.elements]
        out.append(scene.model_copy(update={"elements": elements}))
    return out
