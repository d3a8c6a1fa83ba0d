"""From a model's answer for one chunk to graph pieces with stable ids, grounded in its scenes.

Names are normalized before ids are made (`entity_id(type, normalized name)`); an id is never
taken from the model. Relation endpoints are resolved by normalized name among the events and
entities of the same answer (names first, then aliases; when a name fits several items, the
one that makes the relation admissible wins); an event's links are oriented by the schema.
Scenes are always the chunk's: the model's scene ids are kept only when they belong to the
chunk; a relation's scenes follow from its ends. An event whose scene is not one of the chunk's
is left out with its links (an answer placing 'Vader destroys Alderaan' in scene 4242 of a
chunk of scenes 1-5 is not moved into scenes 1-5), and recorded in `ChunkGraph.dropped`; an
entity whose scenes are all outside the chunk is placed in the chunk's scenes, where grounding
must then find its name. The model's entities are story-level names (the
prompt asks for the fullest name), so they are global: entity merging compares them across
chunks ('John' and 'John Buckingham'); only the offline rules make scene-bound local mentions.

What cannot be placed in the graph is left out here (unknown entity types, unresolved or
self-referential relations); `kgbuild.extraction.llm.reflect.check_extraction` reports the same cases
as hard failures, so they are never dropped silently.

A chunk's graph carries no evidence yet: the model's quotes are kept beside the relations they
support (`ChunkGraph.quotes`), and `kgbuild.extraction.llm.grounding` locates them, with their source lines,
once the chunks are assembled.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.llm.context import ChunkContext
from kgbuild.extraction.llm.responses import EventLink, ExtractedRelation, ExtractionResponse, SchemaNotExtractableError
from kgbuild.graph import (
    canonical_key,
    entity_id,
    merge_entity_records,
    merge_relation_records,
    relation_id,
)
from kgbuild.model import Entity, Persistence, Relation, Scope
from kgbuild.names import display_name
from kgbuild.schema import Schema

_SPACE = re.compile(r"\s+")
_EDGE = "\"'“”‘’`*_.,;:!?- "
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">"}
_OPENING = {close: open_ for open_, close in _CLOSING.items()}


def _strip_edges(text: str) -> str:
    """Strip quotes and punctuation from both ends, and a bracket there only when its partner is
    not in the name or the pair wraps it whole ('(Nadia)' -> 'Nadia'; 'car (India)' is kept)."""
    while True:
        text = text.strip(_EDGE)
        first, last = text[:1], text[-1:]
        if first in _CLOSING and _CLOSING[first] not in text[1:]:
            text = text[1:]
        elif last in _OPENING and _OPENING[last] not in text[:-1]:
            text = text[:-1]
        elif first in _CLOSING and last == _CLOSING[first] and text.count(first) == 1:
            text = text[1:-1]
        else:
            return text


def normalize_name(name: str, *, person: bool = False) -> str:
    """The display form of a name: NFKC, single spaces, no wrapping quotes or trailing
    punctuation; a person's name in capitals ('BRICK BRADDOCK', cue style) in title case.

    Example:
        >>> normalize_name('  "BRICK   BRADDOCK." ', person=True)
        'Brick Braddock'
    """
    text = _strip_edges(_SPACE.sub(" ", unicodedata.normalize("NFKC", name)))
    return display_name(text) if person else text


def event_type(schema: Schema) -> str:
    """The schema's event type (the events list of an answer).

    Raises:
        SchemaNotExtractableError: the schema has none (LLM extraction needs one).
    """
    found = schema.type_for_role("event")
    if found is None:
        raise SchemaNotExtractableError(f"LLM extraction needs an entity type with the role 'event'; schema "
                                        f"{schema.label()} has none. Build offline (without --llm-model), or "
                                        "add one to the schema file")
    return found


class ChunkGraph(BaseModel):
    """The graph pieces one chunk contributed."""

    model_config = ConfigDict(extra="forbid")

    entities: list[Entity]
    relations: list[Relation]
    quotes: dict[str, list[str]] = Field(
        default_factory=dict, description="Relation id -> the quotes the model gave for it, as given "
        "(not yet located in the screenplay).")
    dropped: list[tuple[str, str]] = Field(
        default_factory=list, description="Events of the answer left out here (a scene outside the chunk): "
        "what, and why, for the report.")


@dataclass
class Inventory:
    """The items of one answer, addressable by normalized name."""

    items: dict[str, Entity] = field(default_factory=dict)  # id -> entity (events included)
    by_name: dict[str, list[str]] = field(default_factory=dict)  # canonical key -> ids
    by_alias: dict[str, list[str]] = field(default_factory=dict)

    def add(self, entity: Entity) -> None:
        """Add an item, merging it with an earlier one of the same id (`merge_entity_records`)."""
        old = self.items.get(entity.id)
        if old is not None:
            entity = merge_entity_records(old, entity)
        self.items[entity.id] = entity
        _index(self.by_name, entity.name, entity.id)
        for alias in entity.aliases:
            _index(self.by_alias, alias, entity.id)

    def candidates(self, name: str) -> list[str]:
        """Ids whose name (else alias) normalizes like `name`."""
        key = canonical_key(name)
        return self.by_name.get(key) or self.by_alias.get(key) or []


def _index(table: dict[str, list[str]], name: str, item_id: str) -> None:
    ids = table.setdefault(canonical_key(name), [])
    if item_id not in ids:
        ids.append(item_id)


def _scenes(wanted: list[int], context: ChunkContext) -> list[int]:
    allowed = set(context.scene_ids)
    kept = sorted({s for s in wanted if s in allowed})
    return kept or list(context.scene_ids)


def outside_chunk(scene: int, context: ChunkContext) -> str | None:
    """Why an event placed in `scene` cannot be one of this chunk's, or None when it can."""
    if scene in context.scene_ids:
        return None
    return f"scene {scene} is not one of its chunk's scenes ({', '.join(map(str, context.scene_ids))})"


def build_inventory(answer: ExtractionResponse, context: ChunkContext, schema: Schema) -> Inventory:
    """Events and entities of an answer as schema entities with stable ids.

    Entities of a type the schema does not know, typed as the event type, or without a name are
    left out, and so are events whose scene is outside the chunk (`outside_chunk`).
    """
    inventory = Inventory()
    events, person = event_type(schema), schema.type_for_role("person")
    for event in answer.events:
        name = normalize_name(event.name)
        if name and outside_chunk(event.scene, context) is None:
            inventory.add(Entity(id=entity_id(events, name), name=name, type=events,
                                 description=event.description.strip(),
                                 scenes=_scenes([event.scene], context)))
    types = set(schema.entity_type_names()) - {events}
    for item in answer.entities:
        name = normalize_name(item.name, person=item.type == person)
        if not name or item.type not in types:
            continue
        aliases = [a for a in dict.fromkeys(normalize_name(x, person=item.type == person) for x in item.aliases)
                   if a and canonical_key(a) != canonical_key(name)]
        inventory.add(Entity(id=entity_id(item.type, name), name=name, type=item.type,
                             description=item.description.strip(), aliases=aliases,
                             scenes=_scenes(item.scenes, context), scope=Scope.GLOBAL))
    return inventory


def resolve_relation(relation: ExtractedRelation, inventory: Inventory,
                     schema: Schema) -> tuple[str | None, str | None]:
    """The (subject id, object id) a relation names, None for an end that names nothing.

    When a name fits items of several types, the pair the schema admits for the relation's
    type is preferred, then the first candidates.
    """
    sources, targets = inventory.candidates(relation.source), inventory.candidates(relation.target)
    if not sources or not targets:
        return (sources[0] if sources else None), (targets[0] if targets else None)
    rtype = schema.canonical_relation(relation.type)
    for s in sources:
        for t in targets:
            if s != t and schema.is_admissible(rtype, inventory.items[s].type, inventory.items[t].type):
                return s, t
    different = [(s, t) for s in sources for t in targets if s != t]
    return different[0] if different else (sources[0], targets[0])


def resolve_link(event_id: str, link: EventLink, inventory: Inventory, schema: Schema) -> tuple[str, str] | None:
    """The (subject id, object id) of an event link, oriented by the schema; None when the
    entity names nothing but the event itself.

    The entity is looked up among the non-event items first. The direction is the one the
    schema admits for the entity's type (entity -> event for `performs`, event -> entity for
    `occurs_at`); when neither is admitted, the direction the relation type uses for other
    types is kept for the repair stage to judge.
    """
    events = event_type(schema)
    ids = [i for i in inventory.candidates(link.entity) if i != event_id]
    entities = [i for i in ids if inventory.items[i].type != events] or ids
    if not entities:
        return None
    rtype = schema.canonical_relation(link.relation.strip())
    for entity in entities:
        etype = inventory.items[entity].type
        if schema.is_admissible(rtype, etype, events):
            return entity, event_id
        if schema.is_admissible(rtype, events, etype):
            return event_id, entity
    spec = schema.relation(rtype)
    event_first = spec is not None and any(s == events for s, _ in spec.pairs)
    return (event_id, entities[0]) if event_first else (entities[0], event_id)


def _relation_scenes(ends: tuple[Entity, Entity], context: ChunkContext, events: str) -> list[int]:
    """An event's scene, else the scenes both ends appear in, else the chunk's."""
    found = [e for e in ends if e.type == events]
    if found:
        return list(found[0].scenes)
    shared = sorted(set(ends[0].scenes) & set(ends[1].scenes))
    return shared or list(context.scene_ids)


class _Relations:
    """Relations of one chunk by id; a repeat merges by `merge_relation_records` and adds its quote."""

    def __init__(self, inventory: Inventory, context: ChunkContext, events: str):
        self.inventory, self.context, self.events = inventory, context, events
        self.by_id: dict[str, Relation] = {}
        self.quotes: dict[str, list[str]] = {}

    def add(self, source: str, rtype: str, target: str, *, name: str = "",
            persistence: Persistence = Persistence.MOMENTARY, quote: str = "") -> None:
        rid = relation_id(source, rtype, target)
        ends = (self.inventory.items[source], self.inventory.items[target])
        scenes = _relation_scenes(ends, self.context, self.events)
        if quote and quote not in self.quotes.get(rid, []):
            self.quotes.setdefault(rid, []).append(quote)
        new = Relation(id=rid, source=source, target=target, type=rtype, name=name, scenes=scenes,
                       persistence=persistence)
        old = self.by_id.get(rid)
        self.by_id[rid] = merge_relation_records(old, new) if old is not None else new


def build_chunk_graph(answer: ExtractionResponse, context: ChunkContext, schema: Schema) -> ChunkGraph:
    """The entities and relations an answer contributes to the graph.

    Args:
        answer: The model's validated answer for the chunk.
        context: The chunk's facts (its scene ids bound every scene list).
        schema: The graph schema.

    Returns:
        Entities (events included) and relations with stable ids, without evidence, and the
        model's quotes per relation id. Event links become momentary relations in the event's
        scene. Relation types are mapped through the schema's synonyms and otherwise kept as
        given, for the repair stage to fix or drop.
    """
    inventory = build_inventory(answer, context, schema)
    events = event_type(schema)
    relations = _Relations(inventory, context, events)
    dropped: list[tuple[str, str]] = []
    for event in answer.events:
        name = normalize_name(event.name)
        if not name:
            continue
        event_id = entity_id(events, name)
        if event_id not in inventory.items:
            why = outside_chunk(event.scene, context)
            if why is not None:
                dropped.append((f"{events} '{name}' (chunk {context.chunk_id})",
                                f"{why}; left out with its {len(event.links)} links"))
            continue
        for link in event.links:
            ends = resolve_link(event_id, link, inventory, schema)
            if ends is not None:
                relations.add(ends[0], schema.canonical_relation(link.relation.strip()), ends[1])
    for item in answer.relations:
        source, target = resolve_relation(item, inventory, schema)
        if source is None or target is None or source == target:
            continue
        relations.add(source, schema.canonical_relation(item.type.strip()), target, name=item.verb.strip(),
                      persistence=item.persistence, quote=item.evidence.strip())
    return ChunkGraph(entities=list(inventory.items.values()), relations=list(relations.by_id.values()),
                      quotes=relations.quotes, dropped=dropped)
