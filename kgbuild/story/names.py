"""Find a graph's entity by what a user types: its name or an alias, in any case.

An unknown name is an error that lists the close ones (never an empty answer), as the store's
example queries do (`kgbuild.loaders.examples.check_character`).

Example:
    >>> find_entity(graph, "angier", types=("Character",)).name  # doctest: +SKIP
    'Robert Angier'
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import fuzz, process, utils

from kgbuild.errors import InputError
from kgbuild.model import Entity, KnowledgeGraph


def _close(value: str, entities: list[Entity], limit: int) -> str:
    shown: dict[str, str] = {}
    for e in entities:
        shown.setdefault(e.name, e.name)
        for alias in e.aliases:
            shown.setdefault(alias, f"{alias} ({e.name})")
    close = process.extract(value, list(shown), scorer=fuzz.WRatio, processor=utils.default_process,
                            limit=limit, score_cutoff=60)
    if close:
        return "close: " + ", ".join(shown[text] for text, _, _ in close)
    names = sorted({e.name for e in entities}, key=str.casefold)
    return f"the graph has {len(names)}, e.g. " + ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")


def find_entity(graph: KnowledgeGraph, value: str, *, types: Iterable[str] | None = None,
                what: str = "entity", limit: int = 5) -> Entity:
    """The entity named or called `value` (case-insensitive); the name wins over an alias.

    Args:
        graph: The graph.
        value: A name or an alias as the user typed it.
        types: Only entities of these types (all when None).
        what: How to call the entity in messages ('character').
        limit: How many close names an error lists.

    Returns:
        The entity. When several share the name (different types), the first in graph order;
        when several have it as an alias and none as a name, the one with the most scenes.

    Raises:
        InputError: no entity of these types is named or called `value` (the message lists the
            close ones), or the graph has none at all.
    """
    wanted = value.strip().casefold()
    allowed = set(types) if types is not None else None
    entities = [e for e in graph.entities if allowed is None or e.type in allowed]
    if not entities:
        raise InputError(f"the graph has no {what}; build it first ('kgbuild build SCRIPT -o OUTDIR')")
    named = [e for e in entities if e.name.casefold() == wanted or e.id.casefold() == wanted]
    if named:
        return named[0]
    called = [e for e in entities if any(a.casefold() == wanted for a in e.aliases)]
    if called:
        return max(called, key=lambda e: len(e.scenes))
    raise InputError(f"no {what} is named or called {value!r}; {_close(value, entities, limit)}")
