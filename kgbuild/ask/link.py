"""The entities a question names: names and aliases of the graph, found in the question's words.

A name or alias counts where it stands in the question as whole words (English, any case, a
possessive 's ignored) or as a run of characters (Chinese, two or more). Where two forms cover
the same words, the longer wins ('John Buckingham' over 'John'). A question word of five letters
or more that is one edit from a name (same first letter) counts too (a misspelt or inflected
name: 'Alyssas'), marked `fuzzy`. Events are not linked by name: their names are clauses.

Example:
    >>> [e.name for e in link_entities("Why does Nadia hide the ring?", index)]
    ['Nadia', 'Ring']
"""

from __future__ import annotations

import re

from rapidfuzz.distance import Levenshtein

from kgbuild.ask.story_index import StoryIndex
from kgbuild.ask.types import LinkedEntity

_POSSESSIVE = re.compile(r"['’]s?\b")
_WORD = re.compile(r"[A-Za-z0-9'’-]+")
#: Shortest question word a near spelling may link.
FUZZY_MIN = 5


def _forms(index: StoryIndex) -> list[tuple[str, str, str]]:
    """(form, entity id, 'name' or 'alias') for every non-event entity, longest forms first."""
    out = []
    for e in index.graph.entities:
        if e.type == "Event":
            continue
        out.append((e.name, e.id, "name"))
        out += [(a, e.id, "alias") for a in e.aliases]
    return sorted(((f.strip(), i, how) for f, i, how in out if len(f.strip()) >= 2),
                  key=lambda t: (-len(t[0]), t[0], t[1]))


def _spans(question: str, form: str, chinese: bool) -> list[tuple[int, int]]:
    if chinese:
        return [(m.start(), m.end()) for m in re.finditer(re.escape(form), question)]
    pattern = r"(?<![\w])" + re.escape(form.casefold()) + r"(?![\w])"
    text = _POSSESSIVE.sub("", question.casefold())
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


def link_entities(question: str, index: StoryIndex) -> list[LinkedEntity]:
    """The graph's entities the question names, in the order they are first named.

    Args:
        question: The question, as asked.
        index: The build's index.

    Returns:
        One LinkedEntity per entity (its first mention), each weighted by how few scenes hold it.
    """
    chinese = index.chinese
    taken: list[tuple[int, int]] = []
    found: dict[str, tuple[int, str, str]] = {}
    for form, entity_id, how in _forms(index):
        for start, end in _spans(question, form, chinese):
            inside = any(a <= start and end <= b and (b - a) > (end - start) for a, b in taken)
            if inside:
                continue
            taken.append((start, end))
            if entity_id not in found or start < found[entity_id][0]:
                found[entity_id] = (start, form, how)
    if not chinese:
        names = {f.casefold(): (i, f) for f, i, how in _forms(index) if " " not in f and len(f) >= FUZZY_MIN}
        for m in _WORD.finditer(_POSSESSIVE.sub("", question)):
            word = m.group(0).casefold()
            if len(word) < FUZZY_MIN or word in names:
                continue
            for name, (entity_id, _form) in names.items():
                if entity_id not in found and word[0] == name[0] and Levenshtein.distance(word, name) == 1:
                    found[entity_id] = (m.start(), m.group(0), "fuzzy")
    out = []
    for entity_id, (_start, mention, how) in sorted(found.items(), key=lambda kv: kv[1][0]):
        entity = index.entity(entity_id)
        if entity is None:
            continue
        out.append(LinkedEntity(id=entity_id, name=entity.name, type=entity.type, mention=mention, how=how,
                                weight=round(index.rarity(entity_id), 4)))
    return out
