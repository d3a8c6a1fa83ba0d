"""The knowledge-graph schema as data: entity types, relation types, their groups and the
admissible (subject type, object type) pairs. One source of truth for prompts, validation,
repair, stores and scoring.

The default schema (`stage_kg.json` beside this file) is the one the public STAGE release uses,
plus the paper's inter-event relations. Importable as `kgbuild.schema`.

Example:
    >>> schema = load_schema()
    >>> schema.relation_types_for("Character", "Location")
    ['located_at']
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

_DEFAULT = Path(__file__).with_name("stage_kg.json")


class EntityTypeSpec(BaseModel):
    """One entity type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    event_centric: bool = Field(description="Excluded from STAGE-KG scoring (Event, Occasion).")


class RelationTypeSpec(BaseModel):
    """One relation type with the (subject type, object type) pairs it admits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    group: str
    description: str
    pairs: list[tuple[str, str]]
    event_centric: bool
    symmetric: bool = Field(default=False, description="A-r-B says the same as B-r-A.")
    derived: bool = Field(
        default=False,
        description="Written by a later kgbuild stage from other facts (the merge's life_stage_of), "
        "never read from the text; the STAGE references never hold it, so it is not for "
        "STAGE-KG scoring.",
    )


class Schema(BaseModel):
    """A graph schema, with the look-ups every stage needs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: int
    note: str = ""
    entity_types: list[EntityTypeSpec]
    relation_types: list[RelationTypeSpec]
    synonyms: dict[str, str] = Field(
        default_factory=dict, description="Other names of relation types -> canonical name."
    )
    same_name_merges: list[tuple[str, str]] = Field(
        default_factory=list,
        description="(winner type, loser type): entities of these two types sharing a name are one "
        "thing, kept under the winner's type. Every pair not listed stays two entities (a "
        "TimePoint 'night' and a Location 'night', a Character and a Location 'Alley').",
    )

    @model_validator(mode="after")
    def _known_merge_types(self) -> Schema:
        known = set(self.entity_type_names())
        unknown = sorted({t for pair in self.same_name_merges for t in pair} - known)
        if unknown:
            raise ValueError(f"same_name_merges names unknown entity types: {', '.join(unknown)}")
        return self

    def entity_type_names(self) -> list[str]:
        """Entity type names in schema order."""
        return [t.name for t in self.entity_types]

    def relation_type_names(self) -> list[str]:
        """Relation type names in schema order."""
        return [t.name for t in self.relation_types]

    def relation(self, name: str) -> RelationTypeSpec | None:
        """The relation type called `name` (or one of its synonyms), if any."""
        canonical = self.canonical_relation(name)
        return next((r for r in self.relation_types if r.name == canonical), None)

    def canonical_relation(self, name: str) -> str:
        """Map a relation synonym (affiliated_with) to the schema's name (member_of)."""
        return self.synonyms.get(name, name)

    def is_admissible(self, relation: str, subject_type: str, object_type: str) -> bool:
        """True when `relation` allows this (subject type, object type) pair."""
        spec = self.relation(relation)
        return spec is not None and (subject_type, object_type) in spec.pairs

    def relation_types_for(self, subject_type: str, object_type: str) -> list[str]:
        """Every relation type that admits this (subject type, object type) pair."""
        return [r.name for r in self.relation_types if (subject_type, object_type) in r.pairs]

    def same_name_winner(self, first: str, second: str) -> str | None:
        """The type two same-name entities of types `first` and `second` merge under, if they merge.

        Equal types always merge; other pairs only as `same_name_merges` lists them (the first
        listed pair that fits decides).

        Example:
            >>> load_schema().same_name_winner("Concept", "Character")
            'Character'
        """
        if first == second:
            return first
        for winner, loser in self.same_name_merges:
            if {winner, loser} == {first, second}:
                return winner
        return None

    def derived_relation_names(self) -> list[str]:
        """Relation types later stages derive (never extracted, never in the STAGE references).

        Example:
            >>> load_schema().derived_relation_names()
            ['witnesses', 'told_about', 'life_stage_of']
        """
        return [r.name for r in self.relation_types if r.derived]

    def is_event_centric_entity(self, type_name: str) -> bool:
        """True for entity types STAGE-KG leaves out of scoring."""
        return any(t.name == type_name and t.event_centric for t in self.entity_types)


@cache
def load_schema(path: str | None = None) -> Schema:
    """Load a schema file (JSON); the default is the STAGE-KG schema shipped with kgbuild."""
    source = Path(path) if path else _DEFAULT
    return Schema.model_validate(json.loads(source.read_text(encoding="utf-8")))
