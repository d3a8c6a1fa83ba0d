"""Small facts for tests: evidence, entities and relations, with the ids kgbuild gives them.

Many test files built these by hand, each with its own `ev`, `ent` and `rel`; these are those,
with the parts that differed between them as keyword arguments.

Example:
    >>> anna, kitchen = ent("Character", "Anna", scenes=[1]), ent("Location", "Kitchen", scenes=[1])
    >>> rel(anna, "located_at", kitchen, scenes=[1], evidence=[ev(1, "Anna cooks.")]).id == relation_id(
    ...     "character:anna", "located_at", "location:kitchen")
    True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgbuild.graph import entity_id, relation_id
from kgbuild.model import Entity, Evidence, Relation


def ev(scene: int, quote: str = "", *, lines: tuple[int, int] | None = None, producer: str = "rule:test") -> Evidence:
    """Evidence in `scene`.

    Args:
        scene: The scene's index.
        quote: The quote; default 'line SCENE'.
        lines: The lines it spans; default (scene, scene). (Evidence without lines: build `Evidence` itself.)
        producer: What found it.
    """
    return Evidence(scene=scene, lines=lines if lines is not None else (scene, scene), quote=quote or f"line {scene}",
                    producer=producer)


def ent(type_: str, name: str, *, scenes: Iterable[int] = (), aliases: Iterable[str] = (),
        evidence: Iterable[Evidence] = (), id_: str | None = None, **fields: Any) -> Entity:
    """An entity with the id kgbuild gives its type and name (`kgbuild.graph.entity_id`) unless `id_` is
    given; `fields` are Entity's other fields (description, scope, attributes)."""
    return Entity(id=id_ or entity_id(type_, name), name=name, type=type_, scenes=list(scenes),
                  aliases=list(aliases), evidence=list(evidence), **fields)


def rel(source: Entity, type_: str, target: Entity, *, scenes: Iterable[int] = (), evidence: Iterable[Evidence] = (),
        **fields: Any) -> Relation:
    """A relation between two entities with the id kgbuild gives it (`kgbuild.graph.relation_id`); `fields`
    are Relation's other fields (name, description, persistence, flags)."""
    return Relation(id=relation_id(source.id, type_, target.id), source=source.id, target=target.id, type=type_,
                    scenes=list(scenes), evidence=list(evidence), **fields)


def answered_entity(name: str, type_: str, scenes: list[int], aliases: Iterable[str] = ()) -> dict[str, Any]:
    """An entity as a model's extraction answer gives it (the JSON of `kgbuild.extraction.llm.responses`)."""
    return {"name": name, "type": type_, "description": "", "aliases": list(aliases), "scenes": scenes}


def answered_relation(source: str, type_: str, target: str, evidence: str = "") -> dict[str, Any]:
    """A relation as a model's extraction answer gives it, between names of the answer."""
    return {"source": source, "type": type_, "target": target, "verb": "", "persistence": "momentary",
            "evidence": evidence}
