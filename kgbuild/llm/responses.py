"""What the model must answer, per stage, as pydantic models (their JSON schemas are sent).

Every field is required and no object allows extra keys, so OpenAI's strict structured output
accepts the schemas unchanged. Types and relation names are plain strings here, not enums:
the schema lives in `kgbuild.schema`, and an answer that breaks it is not thrown away by
validation but caught by the deterministic checks (`kgbuild.llm.reflect`), which turn it into
concrete feedback for a re-extraction.

The field order of `ExtractionResponse` is the extraction order: a model writes the events
first, then the entities tied to them, then the relations between those.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.model import Persistence


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
