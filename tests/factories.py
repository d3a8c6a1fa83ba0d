"""Small facts for tests: evidence, entities and relations, with the ids kgbuild gives them.

Many test files built these by hand, each with its own `ev`, `ent` and `rel`; these are those,
with the parts that differed between them as keyword arguments. `story_graph` makes up a whole
graph of any size, for tests at scale.

Example:
    >>> anna, kitchen = ent("Character", "Anna", scenes=[1]), ent("Location", "Kitchen", scenes=[1])
    >>> rel(anna, "located_at", kitchen, scenes=[1], evidence=[ev(1, "Anna cooks.")]).id == relation_id(
    ...     "character:anna", "located_at", "location:kitchen")
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from kgbuild.graph import entity_id, relation_id
from kgbuild.model import Entity, Evidence, KnowledgeGraph, MovieInfo, Relation


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


_SYLLABLES = ("ka", "ro", "lin", "ve", "mar", "to", "sa", "del", "bri", "no", "ju", "han", "el", "pa", "gor", "mi",
              "ta", "ren", "os", "lu", "bek", "an", "fi", "zo")
_PLACE_WORDS = (("North", "Old", "Red", "Upper", "Little", "Grand", "Back", "Silver", "East", "Quiet"),
                ("Mill", "Harbour", "Station", "Kitchen", "Garage", "Chapel", "Market", "Bridge", "Office", "Motel"))


def story_graph(entities: int = 2000, *, seed: int = 7, scenes: int = 300) -> KnowledgeGraph:
    """A made-up story graph of about `entities` entities, shaped like a built one: 10% characters,
    15% places, 40% events, 35% objects; a few characters and places take part in most relations
    (chosen with Zipf-like weights), events have a performer and a place, objects an owner; about two
    relations per entity. The same arguments give the same graph.

    Example:
        >>> graph = story_graph(200)
        >>> len(graph.entities), 300 < len(graph.relations) < 600
        (200, True)
    """
    rng = random.Random(seed)

    def name(words: int) -> str:
        return " ".join("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
                        for _ in range(words))

    def distinct(make: Callable[[], str], count: int) -> list[str]:
        names: dict[str, None] = {}
        while len(names) < count:
            names.setdefault(make())
        return list(names)

    counts = {"Character": entities // 10, "Location": entities * 15 // 100, "Event": entities * 40 // 100}
    counts["Object"] = entities - sum(counts.values())
    firsts = {kind: sorted(rng.randint(1, scenes) for _ in range(n)) for kind, n in counts.items()}
    people = [ent("Character", n, scenes=[s]) for n, s in
              zip(distinct(lambda: name(2), counts["Character"]), firsts["Character"], strict=True)]
    places = [ent("Location", n, scenes=[s]) for n, s in
              zip(distinct(lambda: f"{rng.choice(_PLACE_WORDS[0])} {rng.choice(_PLACE_WORDS[1])} {name(1)}",
                           counts["Location"]), firsts["Location"], strict=True)]
    weights = {id(group): [1 / (i + 1) ** 0.9 for i in range(len(group))] for group in (people, places)}

    def pick(group: list[Entity]) -> Entity:
        return rng.choices(group, weights=weights[id(group)])[0]

    relations: dict[str, Relation] = {}

    def link(source: Entity, type_: str, target: Entity) -> None:
        if source.id != target.id:
            first = max(source.scenes[0], target.scenes[0])
            fact = rel(source, type_, target, scenes=sorted({first, min(scenes, first + rng.randint(0, 20))}))
            relations.setdefault(fact.id, fact)

    events = [ent("Event", f"{pick(people).name.split()[0]} {rng.choice(('meets', 'follows', 'calls'))} "
                           f"{name(1)} {i}", scenes=[s]) for i, s in enumerate(firsts["Event"])]
    objects = [ent("Object", f"{rng.choice(_PLACE_WORDS[0]).lower()} {name(1).lower()} {i}", scenes=[s])
               for i, s in enumerate(firsts["Object"])]
    for event in events:
        link(pick(people), "performs", event)
        link(event, "occurs_at", pick(places))
        if rng.random() < 0.5:
            link(pick(people), "undergoes", event)
        if rng.random() < 0.3:
            link(pick(people), "witnesses", event)
    for thing in objects:
        link(pick(people), "possesses", thing)
        if rng.random() < 0.3:
            link(pick(people), "interacts_with", thing)
    for person in people:
        for _ in range(rng.randint(1, 3)):
            link(person, "located_at", pick(places))
            link(person, "speaks_to", pick(people))
    return KnowledgeGraph(movie=MovieInfo(id="generated", title=f"Generated story ({entities} entities)",
                                          language="en", scenes=scenes),
                          entities=[*people, *places, *events, *objects], relations=list(relations.values()))
