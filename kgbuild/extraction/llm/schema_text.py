"""The schema parts of the extraction prompt: entity types, relation types and their pairs.

They are rendered from the schema in effect, never written into the prompt files
(`kgbuild.llm.prompts`), so a custom schema is asked for as it is.

Example:
    >>> print(render_entity_types(load_schema(), exclude={"Event"}).splitlines()[0])  # doctest: +SKIP
    - Character: ...
"""

from __future__ import annotations

from collections.abc import Collection

from kgbuild.llm.prompts import short_description
from kgbuild.schema import Schema


def render_entity_types(schema: Schema, *, exclude: Collection[str] = ()) -> str:
    """One line per entity type: '- Character: description'."""
    return "\n".join(f"- {t.name}: {t.description}" for t in schema.entity_types if t.name not in exclude)


def is_event_link(pair: tuple[str, str], event_type: str) -> bool:
    """True for a (subject, object) type pair with the event type on exactly one side."""
    return (pair[0] == event_type) != (pair[1] == event_type)


def _pairs(pairs: list[tuple[str, str]]) -> str:
    by_object: dict[str, list[str]] = {}
    for subject, obj in pairs:
        by_object.setdefault(obj, []).append(subject)
    return "; ".join(f"{'|'.join(subjects)} -> {obj}" for obj, subjects in by_object.items())


def render_relation_types(schema: Schema, *, event_type: str, event_links: bool) -> str:
    """One line per relation type with its admissible pairs and the gist of its description, e.g.
    '- performs (Character|Object|Concept -> Event): An entity actively carries out ...'.

    Derived types (`life_stage_of`) are written by later stages and left out.

    Args:
        schema: The graph schema.
        event_type: The schema's event entity type.
        event_links: List only the pairs with the event type on exactly one side (what an
            event's links may use) when True; only the other pairs when False.
    """
    lines = []
    for r in schema.relation_types:
        pairs = [p for p in r.pairs if is_event_link(p, event_type) == event_links]
        if pairs and not r.derived:  # written by later stages (life_stage_of), never extracted
            symmetric = ", symmetric" if r.symmetric else ""
            lines.append(f"- {r.name} ({_pairs(pairs)}{symmetric}): {short_description(r.description)}")
    return "\n".join(lines)
