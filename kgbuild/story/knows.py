"""What a character can know at scene N: TimeChara's labels, from the graph alone.

A role-played character asked at a given moment must not know the future, nor what happened
where they were not (TimeChara, 2024). At scene N (the scene has played; its own events count
as past), every event and entity X of the graph gets one label:

- `future`: X first happens (events) or first appears (entities) after scene N;
- `past-presence`: by scene N the character took part in it, saw it or was told of it:
  - an event they perform or experience, or undergo while in its scene (on screen, off
    screen or as a voice: the one a call reaches); an event they `witnesses` (on screen when it
    happens); an event they are `told_about` (a later speech names it in their presence);
  - another character on screen or named in a scene where they are on screen (the scene layer;
    a voice off screen or from elsewhere is not enough); any other entity that shows up in a
    scene where they are on screen; or an entity a relation of the graph ties to them by N;
- `past-absence`: X is before scene N but none of the above holds.

"Before" and "after" follow the order asked for: screen order (scene numbers) or story order
(`kgbuild.story.order`); every answer says which. The graph's scene layer (format 3) is
needed: a graph without it is refused with what to do.

Example:
    >>> k = knows(graph, "Ben", 3)  # doctest: +SKIP
    >>> [(i.name, i.label) for i in k.items]  # doctest: +SKIP
    [('Anna burns the letter', 'past-presence'), ('Anna hides the key', 'future'), ...]
"""

from __future__ import annotations

from collections import defaultdict
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.errors import InputError
from kgbuild.extraction.presence import IN_SCENE
from kgbuild.model import Entity, Evidence, KnowledgeGraph, PresenceMode, Relation
from kgbuild.schema import Schema, load_schema
from kgbuild.story.names import find_entity
from kgbuild.story.order import Order, SceneOrder, scene_order

#: Event links that make the subject take part in the event.
TAKES_PART = ("performs", "experiences")
#: The undergoer's link: taking part only when in the event's scene (any mode but 'mentioned').
UNDERGOES = "undergoes"
WITNESSES = "witnesses"
TOLD_ABOUT = "told_about"
ON_SCREEN = frozenset({PresenceMode.PRESENT})
#: How another character must be in a scene for the one on screen there to know them: seen or named.
SEEN_OR_NAMED = frozenset({PresenceMode.PRESENT, PresenceMode.MENTIONED})


class Label(StrEnum):
    """TimeChara's labels."""

    FUTURE = "future"
    PAST_ABSENCE = "past-absence"
    PAST_PRESENCE = "past-presence"


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemKnowledge(_Out):
    """One event or entity, its label at scene N, and why."""

    id: str
    name: str
    type: str
    label: Label
    first_scene: int = Field(description="The scene where it first happens or appears (in the order used).")
    scene: int | None = Field(default=None, description="The scene that gives the label (the knowing, or the "
                              "absence).")
    how: str = Field(description="Why, in words: 'witnessed in scene 4', 'told in scene 3', ...")
    evidence: list[Evidence] = Field(default_factory=list, description="The lines that show it.")


class Knowledge(_Out):
    """What a character can know at a scene."""

    movie: str
    character: str = Field(description="The character's entity id.")
    character_name: str
    scene: int
    order: Order
    scene_basis: str = Field(description="Where the order puts scene N and why.")
    took_part: list[ItemKnowledge] = Field(default_factory=list, description="Events they took part in by N.")
    witnessed: list[ItemKnowledge] = Field(default_factory=list, description="Events they saw by N.")
    told: list[ItemKnowledge] = Field(default_factory=list, description="Events they were told of by N.")
    items: list[ItemKnowledge] = Field(default_factory=list, description="Every event and entity, labelled.")

    def counts(self) -> dict[str, int]:
        """How many items have each label."""
        out = {label.value: 0 for label in Label}
        for item in self.items:
            out[item.label.value] += 1
        return out


class _Index:
    """Look-ups over one graph for one character."""

    def __init__(self, graph: KnowledgeGraph, character: Entity, order: SceneOrder, event_type: str | None):
        self.graph, self.character, self.order, self.event_type = graph, character, order, event_type
        self.entities = {e.id: e for e in graph.entities}
        self.mine: dict[str, list[Relation]] = defaultdict(list)  # other end -> relations with the character
        for r in graph.relations:
            if r.source == character.id:
                self.mine[r.target].append(r)
            elif r.target == character.id:
                self.mine[r.source].append(r)
        self.presence: dict[int, tuple[PresenceMode, list[Evidence]]] = {}
        self.others: dict[str, dict[int, tuple[PresenceMode, list[Evidence]]]] = defaultdict(dict)
        for record in graph.scenes:
            for p in record.presence:
                if p.character == character.id:
                    self.presence[record.index] = (p.mode, p.evidence)
                else:
                    self.others[p.character][record.index] = (p.mode, p.evidence)

    def by(self, scene: int, n: int) -> bool:
        return self.order.at_or_before(scene, n)

    def there(self, scene: int, modes: frozenset[PresenceMode] = IN_SCENE) -> bool:
        found = self.presence.get(scene)
        return found is not None and found[0] in modes


def _scene_evidence(item: Entity, scene: int) -> list[Evidence]:
    return [e for e in item.evidence if e.scene == scene][:1] or item.evidence[:1]


def _relation_evidence(r: Relation, scene: int) -> list[Evidence]:
    return [e for e in r.evidence if e.scene == scene] or r.evidence[:2]


def _event_knowing(ix: _Index, item: Entity, n: int) -> tuple[str, int, str, list[Evidence]] | None:
    """(kind, scene, how, evidence) of the earliest way the character knows an event by scene n."""
    found: list[tuple[int, str, str, list[Evidence]]] = []
    for r in ix.mine.get(item.id, []):
        if r.source != ix.character.id:
            continue
        for scene in r.scenes:
            if not ix.by(scene, n):
                continue
            if r.type in TAKES_PART:
                found.append((scene, "took_part", f"{r.type} it in scene {scene}", _relation_evidence(r, scene)))
            elif r.type == UNDERGOES and ix.there(scene, IN_SCENE | {PresenceMode.AWAY}):
                evidence = [*_relation_evidence(r, scene), *ix.presence[scene][1][:1]]
                found.append((scene, "took_part", f"undergoes it in scene {scene}, where they are "
                              f"({ix.presence[scene][0].value})", evidence))
            elif r.type == WITNESSES:
                found.append((scene, "witnessed", f"witnessed in scene {scene}", _relation_evidence(r, scene)))
            elif r.type == TOLD_ABOUT:
                found.append((scene, "told", f"told in scene {scene}", _relation_evidence(r, scene)))
    if not found:
        return None
    scene, kind, how, evidence = min(found, key=lambda f: ix.order.position.get(f[0], f[0]))
    return kind, scene, how, evidence


def _entity_knowing(ix: _Index, item: Entity, n: int) -> tuple[int, str, list[Evidence]] | None:
    """(scene, how, evidence) of the earliest way the character knows an entity by scene n."""
    found: list[tuple[int, str, list[Evidence]]] = []
    for r in ix.mine.get(item.id, []):
        for scene in r.scenes:
            if ix.by(scene, n):
                found.append((scene, f"{r.type} (scene {scene})", _relation_evidence(r, scene)))
    if item.type == ix.character.type:
        for scene, (mode, shown) in ix.others.get(item.id, {}).items():
            if ix.by(scene, n) and mode in SEEN_OR_NAMED and ix.there(scene, ON_SCREEN):
                found.append((scene, f"on screen in scene {scene}, where {item.name} is {mode.value}",
                              [*shown[:1], *ix.presence[scene][1][:1]]))
    else:
        for scene in item.scenes:
            if ix.by(scene, n) and ix.there(scene, ON_SCREEN):
                found.append((scene, f"on screen in scene {scene}, where it appears",
                              [*_scene_evidence(item, scene), *ix.presence[scene][1][:1]]))
    if not found:
        return None
    return min(found, key=lambda f: ix.order.position.get(f[0], f[0]))


def _absence(ix: _Index, item: Entity, n: int) -> tuple[str, list[Evidence]]:
    before = [s for s in item.scenes if ix.by(s, n)]
    notes = []
    for scene in before[:4]:
        found = ix.presence.get(scene)
        if found is None:
            notes.append(f"scene {scene}: not in it")
        elif item.type == ix.event_type and found[0] is PresenceMode.PRESENT:
            notes.append(f"scene {scene}: present, not there when it happens")
        else:
            notes.append(f"scene {scene}: {found[0].value} only")
    more = f" (+{len(before) - 4} more)" if len(before) > 4 else ""
    return "; ".join(notes) + more + "; not told of it", _scene_evidence(item, before[0]) if before else []


def label_item(ix: _Index, item: Entity, n: int) -> tuple[ItemKnowledge, str | None]:
    """The label of one item at scene n, and for past-presence events the kind of knowing."""
    first = ix.order.first(item.scenes)
    assert first is not None
    base = {"id": item.id, "name": item.name, "type": item.type, "first_scene": first}
    if not ix.by(first, n):
        return ItemKnowledge(**base, label=Label.FUTURE, scene=first,
                             how=f"first {'happens' if item.type == ix.event_type else 'appears'} in scene {first}, "
                                 f"after scene {n}",
                             evidence=_scene_evidence(item, first)), None
    if item.type == ix.event_type:
        knowing = _event_knowing(ix, item, n)
        if knowing is not None:
            kind, scene, how, evidence = knowing
            return ItemKnowledge(**base, label=Label.PAST_PRESENCE, scene=scene, how=how, evidence=evidence), kind
    else:
        found = _entity_knowing(ix, item, n)
        if found is not None:
            scene, how, evidence = found
            return ItemKnowledge(**base, label=Label.PAST_PRESENCE, scene=scene, how=how, evidence=evidence), None
    how, evidence = _absence(ix, item, n)
    return ItemKnowledge(**base, label=Label.PAST_ABSENCE, scene=first, how=how, evidence=evidence), None


def _checked(graph: KnowledgeGraph, scene: int) -> None:
    if not graph.scenes:
        raise InputError("the graph has no scene layer (who is in each scene): it was built before kgbuild kept "
                         "one, or without a screenplay; run 'kgbuild build OUTDIR --from-stage merge' on its "
                         "build folder")
    indices = {s.index for s in graph.scenes}
    if scene not in indices:
        raise InputError(f"no scene {scene} in this graph; its scenes are {min(indices)} to {max(indices)}")


def knows(graph: KnowledgeGraph, character: str, scene: int, *, order: Order | str = Order.SCREEN,
          about: str | None = None, schema: Schema | None = None) -> Knowledge:
    """What a character can know at a scene (see the module docstring).

    Args:
        graph: A graph with a scene layer (format 3).
        character: The character's name or alias, any case.
        scene: The scene index N.
        order: 'screen' (scene numbers) or 'story' (time markers).
        about: Only this item (an entity's name or alias, any type): `items` holds it alone.
        schema: The graph's schema (its person and event types); the default when None.

    Returns:
        The events they took part in, saw and were told of by scene N, and every item labelled.

    Raises:
        InputError: no scene layer, no such scene, no such character or item (close names listed).

    Example:
        >>> knows(graph, "ben", 3, about="Anna burns the letter").items[0].label  # doctest: +SKIP
        <Label.PAST_PRESENCE: 'past-presence'>
    """
    _checked(graph, scene)
    schema = schema or load_schema()
    person = schema.type_for_role("person")
    who = find_entity(graph, character, types=(person,) if person else (), what="character")
    scenes = scene_order(graph.scenes, order)
    ix = _Index(graph, who, scenes, schema.type_for_role("event"))
    if about is not None:
        targets = [find_entity(graph, about, what="entity or event")]
    else:
        targets = [e for e in graph.entities if e.id != who.id and e.scenes]
    basis = f"position {scenes.position[scene] + 1} of {len(scenes.position)} ({scenes.basis[scene]})"
    result = Knowledge(movie=graph.movie.key, character=who.id, character_name=who.name, scene=scene,
                       order=scenes.order, scene_basis=basis)
    for item in targets:
        if not item.scenes:
            raise InputError(f"{item.name!r} has no scenes in the graph, so it has no place in time")
        if item.id == who.id:
            raise InputError(f"{item.name!r} is the character asked about; ask about another entity or event")
        labelled, kind = label_item(ix, item, scene)
        result.items.append(labelled)
        if kind == "took_part":
            result.took_part.append(labelled)
        elif kind == "witnessed":
            result.witnessed.append(labelled)
        elif kind == "told":
            result.told.append(labelled)
    position = scenes.position
    for group in (result.items, result.took_part, result.witnessed, result.told):
        group.sort(key=lambda i: (position.get(i.first_scene, i.first_scene), i.type, i.name))
    return result
