"""One character under two cues: the script renames a speaker partway through.

A script shows some characters first under what they look like or what they do, and then under
who they are. Two shapes say so, and both are read from the order of the cues, never from names:

- a cue of two names joined by a slash, at the point where one gives way to the other
  (`JANITOR/GOD`: JANITOR speaks only before it, GOD only after it, and both speak in the
  scene of that cue): one person, from then on under the second name. A slash between two
  who both speak before it and after it (`DEWEY/GALE`) is two people speaking at once;
- a descriptor cue (its head a person noun: `HAZ-MAT MAN`, `SILHOUETTED MAN`) that speaks in one
  scene only, where after its last speech the action says who it is ('It's JOHN CONNOR.', '...
  he is PAUL KAUFMAN.') and that name's cue then speaks, the descriptor never again: the
  descriptor was that character, unrecognised.

The renamed cue becomes an alias of the name the script goes on with (`find_cast`), so its speeches
and its sightings are that character's: the Haz-Mat Man who unzips his mask is John Connor, and
does not look on at what Connor does.

Example:
    >>> renamings(screenplay, talk)  # doctest: +SKIP
    {'JANITOR': 'GOD', 'HAZ-MAT MAN': 'CONNOR'}
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from kgbuild.model import ElementKind, Screenplay
from kgbuild.offline.stoplists import GENERIC_PEOPLE

# What says who a figure is, right before the name in capitals: 'It's JOHN CONNOR', 'he is PAUL KAUFMAN'.
_REVEAL = re.compile(r"\b(?:it|he|she|this|that)\s*(?:['’]s|\s+is|\s+was)\s+"
                     r"(?:none other than\s+|really\s+|actually\s+)?"
                     r"(?P<name>(?-i:[A-Z][A-Z'’.\-]+(?:\s+[A-Z][A-Z'’.\-]+){0,3}))(?![\w'’])", re.IGNORECASE)


@dataclass(frozen=True)
class _Cue:
    scene: int
    line: int
    name: str


def _cues(screenplay: Screenplay) -> list[_Cue]:
    return [_Cue(scene.index, el.line_start, " ".join(el.speaker.split()))
            for scene in screenplay.scenes for el in scene.elements
            if el.kind is ElementKind.CHARACTER and el.speaker]


def _slash_renamings(cues: list[_Cue]) -> dict[str, str]:
    """A -> B for each cue 'A/B' where A speaks alone only before it and B only after it, both in
    its scene (the last A and the first B)."""
    out: dict[str, str] = {}
    at: dict[str, list[_Cue]] = defaultdict(list)
    for cue in cues:
        at[cue.name].append(cue)
    for joint, uses in at.items():
        parts = [p.strip() for p in joint.split("/")]
        if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
            continue
        old, new = parts
        before, after = at.get(old, []), at.get(new, [])
        if not before or not after:
            continue
        first, last = uses[0], uses[-1]
        if (before[-1].line < first.line and after[0].line > last.line
                and before[-1].scene == first.scene and after[0].scene == last.scene):
            out[old] = new
    return out


def _descriptor(name: str) -> bool:
    return not re.search(r"[#\d]", name) and name.split()[-1].lower() in GENERIC_PEOPLE


def _revealed_renamings(screenplay: Screenplay, cues: list[_Cue], talk: Collection[frozenset[str]]) -> dict[str, str]:
    """D -> N for a descriptor cue D speaking in one scene, after whose last speech the action says
    'It's N ...' or 'he is N' before N first speaks there (N not having spoken there before D's
    last speech, nor ever talked with D)."""
    at: dict[str, list[_Cue]] = defaultdict(list)
    for cue in cues:
        at[cue.name].append(cue)
    scenes = {scene.index: scene for scene in screenplay.scenes}
    out: dict[str, str] = {}
    for old, uses in at.items():
        if not _descriptor(old) or len({u.scene for u in uses}) != 1:
            continue
        scene, last = scenes[uses[0].scene], uses[-1].line
        here = [c for c in cues if c.scene == scene.index and c.name != old]
        for el in scene.elements:
            if el.kind is not ElementKind.ACTION or el.line_start < last or old in out:
                continue
            for m in _REVEAL.finditer(el.text):
                words = [w.strip(".") for w in m.group("name").split()]
                for new in dict.fromkeys(c.name for c in here if _holds(words, c.name.split())):
                    said = [c.line for c in here if c.name == new]
                    if said and min(said) > el.line_start and frozenset({old, new}) not in talk:
                        out[old] = new
                        break
                if old in out:
                    break
    return out


def _holds(words: list[str], name: list[str]) -> bool:
    """Whether a run of words holds a name's words in a row ('PAUL KAUFMAN' holds 'KAUFMAN')."""
    return any(words[i:i + len(name)] == name for i in range(len(words) - len(name) + 1))


def renamings(screenplay: Screenplay, talk: Collection[frozenset[str]] = ()) -> dict[str, str]:
    """Cues the script renames: each old cue name -> the cue name it goes on with (see the module
    docstring).

    Args:
        screenplay: The screenplay.
        talk: Pairs of cue names that talk to each other (`kgbuild.offline.characters.converse`):
            two such are two people.

    Returns:
        Old cue name -> new cue name.
    """
    cues = _cues(screenplay)
    out = _revealed_renamings(screenplay, cues, talk)
    for old, new in _slash_renamings(cues).items():
        if frozenset({old, new}) not in talk:
            out.setdefault(old, new)
    return out
