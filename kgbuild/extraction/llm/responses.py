"""What the model must answer, per kind of request, as pydantic models (their JSON schemas are sent).

Every field is required and no object allows extra keys, so OpenAI's strict structured output
accepts the schemas unchanged. The classes below give the shape with types and relation names
as plain strings; the models a request sends and its answer is validated against come from
`response_models(schema)`, which narrows them to the schema's names (enums in the JSON schema):
an entity of an invented type or a relation of an invented type fails validation, and the
client asks the model to fix it, quoting the error. What the JSON schema cannot express (which
type pairs a relation admits, names that match nothing) is left to the deterministic checks
(`kgbuild.extraction.llm.reflect`), which turn it into concrete feedback for a re-extraction.

The field order of `ExtractionResponse` is the extraction order: a model writes the events
first, then the entities tied to them, then the relations between those.

Example:
    >>> models = response_models(load_schema())
    >>> models.extraction.model_json_schema()["$defs"]["ExtractedEntity"]["properties"]["type"]["enum"][:2]
    ['Character', 'Location']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from kgbuild.errors import InputError
from kgbuild.model import Persistence
from kgbuild.schema import Schema


def _compact_schema(schema: dict[str, Any]) -> None:
    """Drop titles and descriptions from the JSON schema sent with each request: the prompt
    explains the fields, and every schema token is paid for on every request."""
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        prop.pop("description", None)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_compact_schema)


class EventLink(_Model):
    """A relation between an event and one entity, written inside the event.

    The direction comes from the schema: `performs` links the entity to the event, `occurs_at`
    the event to the entity. Written this way an event's roles, place and time cost a few tokens
    each instead of a full relation repeating the event's title.
    """

    relation: str = Field(description="A relation type admitting (entity type, Event) or (Event, entity type).")
    entity: str = Field(description="The name of an entity of this answer.")


class ExtractedEvent(_Model):
    """A narratively salient action, dialogue act or change of state in one scene."""

    name: str = Field(description="Short, specific title: who does what, e.g. 'Steel toasts to retirement'.")
    description: str = Field(description="One sentence on what happens.")
    scene: int = Field(description="The scene id it happens in (one of the chunk's scenes).")
    links: list[EventLink] = Field(description="Who performs, undergoes, experiences it; where, when.")


class ExtractedEntity(_Model):
    """A character, location, time point, object, concept or occasion tied to the events."""

    name: str = Field(description="The fullest name the text gives.")
    type: str = Field(description="An entity type of the schema (not Event).")
    description: str = Field(description="A few words on who or what it is.")
    aliases: list[str] = Field(description="Other names used in the text (e.g. the cue name).")
    scenes: list[int] = Field(description="Scene ids of this chunk it appears in.")


class ExtractedRelation(_Model):
    """A typed relation between two extracted items (events or entities), named as extracted.

    It carries no scene ids: they follow from its ends (an event's scene, else the scenes both
    ends share), which saves output tokens on the most numerous item.
    """

    source: str = Field(description="Subject: an event or entity name from this answer.")
    type: str = Field(description="A relation type of the schema admitting (subject type, object type).")
    target: str = Field(description="Object: an event or entity name from this answer.")
    verb: str = Field(description="The verb as the text puts it, e.g. 'dials'.")
    persistence: Persistence = Field(description="momentary, phase (a stretch of the story) or stable.")
    evidence: str = Field(description="A short quote supporting it ('' if none).")


class ExtractionResponse(_Model):
    """One chunk's extraction: events first, then the entities, then the relations."""

    events: list[ExtractedEvent]
    entities: list[ExtractedEntity]
    relations: list[ExtractedRelation]


class ReflectionResponse(_Model):
    """A judgement of one chunk's extraction, 0-10 per axis and overall, with concrete feedback."""

    accuracy: int = Field(ge=0, le=10, description="Valid triples, schema kept, nothing malformed.")
    consistency: int = Field(ge=0, le=10, description="Stable names and types, no near-duplicates.")
    redundancy: int = Field(ge=0, le=10, description="10 = nothing low-value or repeated.")
    score: int = Field(ge=0, le=10, description="Overall quality.")
    feedback: list[str] = Field(description="Concrete problems to fix, one per item ([] if none).")


@dataclass(frozen=True)
class ResponseModels:
    """The extraction models of one schema: subclasses of the classes above whose type fields
    are enums of the schema's names (`response_models`)."""

    extraction: type[ExtractionResponse]
    entity: type[ExtractedEntity]
    relation: type[ExtractedRelation]
    event: type[ExtractedEvent]
    link: type[EventLink]


class SchemaNotExtractableError(InputError):
    """The schema lacks what LLM extraction needs (an event type and types to link to it)."""


def _enum(names: list[str]) -> Any:
    return Literal[tuple(names)]  # one Literal of every name: an enum in the JSON schema


def _as_enum(schema: dict[str, Any]) -> None:
    """A one-name Literal as an enum too (pydantic writes `const`), one form for every schema."""
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]


def _names_field(names: list[str]) -> tuple[Any, Any]:
    return _enum(names), Field(json_schema_extra=_as_enum)


def response_models(schema: Schema) -> ResponseModels:
    """The response models of LLM extraction under `schema` (cached per schema).

    `ExtractedEntity.type` is an enum of the schema's entity types but the event type (events
    are the events list), `EventLink.relation` of the relation types with the event type on one
    side, `ExtractedRelation.type` of those with another pair: exactly the lists the prompt gives
    (derived types, written by later stages, and the synonyms the prompt never names are left
    out). Field order, required fields and the compact JSON schema are the classes' own.

    Raises:
        SchemaNotExtractableError: the schema has no entity type with the role 'event', no
            relation type linking it to another type, or no other entity type.
    """
    return _response_models(schema.model_dump_json())


@lru_cache(maxsize=8)
def _response_models(schema_json: str) -> ResponseModels:
    schema = Schema.model_validate_json(schema_json)
    event = schema.type_for_role("event")
    entity_types = [name for name in schema.entity_type_names() if name != event]
    links = schema.extractable_relation_names(event_links=True)
    if event is None or not links or not entity_types:
        missing = "no event type" if event is None else "no relation type linking it" if not links else "no other type"
        raise SchemaNotExtractableError(
            f"LLM extraction needs an entity type with the role 'event', a relation type linking it to another "
            f"entity type, and other entity types; schema {schema.label()} has {missing}. Build offline "
            "(without --llm-model), or add them to the schema file")
    link = create_model("EventLink", __base__=EventLink, relation=_names_field(links))
    event_model = create_model("ExtractedEvent", __base__=ExtractedEvent, links=(list[link], ...))
    entity = create_model("ExtractedEntity", __base__=ExtractedEntity, type=_names_field(entity_types))
    relation = create_model("ExtractedRelation", __base__=ExtractedRelation, type=_names_field(
        schema.extractable_relation_names(event_links=False)))
    extraction = create_model(
        "ExtractionResponse", __base__=ExtractionResponse,
        events=(list[event_model], ...), entities=(list[entity], ...), relations=(list[relation], ...))
    return ResponseModels(extraction=extraction, entity=entity, relation=relation, event=event_model, link=link)
