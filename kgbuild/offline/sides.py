"""Which place of a heading that names two places the scene's text puts each character at.

A heading may name two places, each with its own INT./EXT. (`kgbuild.readers.headings.Heading.sides`:
'INT. JUDY'S FLAT/INT. WASHINGTON AIRPORT'), the two sides of an intercut, most often a phone
call. Everyone in the scene is at one of them, and only the text says which:

- an action sentence that names the place of one side (a word of four letters or more that no
  other side's place has: 'Judy in bed at her flat' for JUDY'S FLAT; the characters' own names
  do not count, so 'Paul' names no PAUL MICHAELSON'S GARDEN) and no other side's puts the
  characters it shows in person there;
- a line in capitals inside the scene that names one side alone (a slug line: 'AT THE AIRPORT')
  puts those shown or heard in person after it there, until the next such line.

A character the text puts on no side is at neither as far as the graph knows (no `located_at`);
one it puts on both (who walks from one to the other) is at both.

Example:
    >>> placed_sides(scene, [["JUDY'S FLAT"], ["WASHINGTON AIRPORT"]], sents, speeches)  # doctest: +SKIP
    {'Judy Molloy': {0: (Element(...), 'Intercut with Judy in bed at her flat.')}}
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from kgbuild.model import Element, ElementKind, Scene
from kgbuild.offline.dialogue import Speech
from kgbuild.offline.scenes import ActionSentence

_WORD = re.compile(r"[A-Za-z]{4,}")
_LOWER = re.compile(r"[a-z]")


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def side_words(sides: Sequence[Sequence[str]]) -> list[frozenset[str]]:
    """The words of four letters or more of each side's places that no other side's places have.

    Example:
        >>> side_words([["JUDY'S FLAT"], ["WASHINGTON AIRPORT"]])
        [frozenset({'judy', 'flat'}), frozenset({'washington', 'airport'})]
    """
    own = [_words(" ".join(side)) for side in sides]
    return [frozenset(words - set().union(*(other for j, other in enumerate(own) if j != i)))
            for i, words in enumerate(own)]


def _named_side(text: str, words: list[frozenset[str]]) -> int | None:
    """The one side whose place a text names, or None (none, or more than one)."""
    found = _words(text)
    named = [i for i, side in enumerate(words) if side & found]
    return named[0] if len(named) == 1 else None


def _unnamed(sent: ActionSentence) -> str:
    """The sentence without the characters' names: a name is no place."""
    text = sent.text
    for s, e, _ in sent.spans:
        text = text[:s] + " " * (e - s) + text[e:]
    return text


def _slugs(scene: Scene, words: list[frozenset[str]]) -> list[tuple[int, int]]:
    """(line, side) of each line in capitals inside the scene that names one side alone."""
    out = []
    for el in scene.elements:
        if el.kind in (ElementKind.SHOT, ElementKind.ACTION) and not _LOWER.search(el.text) \
                and len(el.text.split()) <= 8 and (side := _named_side(el.text, words)) is not None:
            out.append((el.line_start, side))
    return out


def placed_sides(scene: Scene, sides: Sequence[Sequence[str]], sents: Sequence[ActionSentence],
                 speeches: Sequence[Speech]) -> dict[str, dict[int, tuple[Element, str]]]:
    """For each character the scene's text puts at a side of its heading, those sides (indices in
    `sides`) with the first element and words that put them there (see the module docstring).

    Args:
        scene: The scene.
        sides: The places of each side of its heading (`kgbuild.offline.headings.HeadingPlaces.sides`).
        sents: The scene's action sentences.
        speeches: The scene's speeches.

    Returns:
        Character (canonical name) -> side -> (element, quote); who is on no side is absent.
    """
    words = side_words(sides)
    slugs = _slugs(scene, words)
    slug_lines = {at for at, _ in slugs}

    def after_slug(line: int) -> int | None:
        return next((side for at, side in reversed(slugs) if at < line), None)

    out: dict[str, dict[int, tuple[Element, str]]] = defaultdict(dict)
    for sent in sents:
        side = _named_side(_unnamed(sent), words)
        if side is None and sent.element.line_start not in slug_lines:
            side = after_slug(sent.element.line_start)
        if side is not None:
            for name in sent.shown():
                out[name].setdefault(side, (sent.element, sent.text))
    for speech in speeches:
        if not speech.away and not speech.offscreen and (side := after_slug(speech.cue.line_start)) is not None:
            out[speech.speaker].setdefault(side, (speech.first_line, speech.first_line.text))
    return dict(out)
