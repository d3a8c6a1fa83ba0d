"""The knowledge-graph schema as data: entity types, relation types, their groups and the
admissible (subject type, object type) pairs. One source of truth for prompts, response models,
extraction rules, repair, merging, stores and scoring.

Code never names an entity type. It asks the schema for the type of a *role* (`ROLES`: person,
place, time, event, occasion, thing, abstract), for the types that opt into a merge rule
(`MERGE_RULES`), and for the same-name voting order (`type_priority`); a schema without a role
simply has no facts of it. Any schema file that validates works end to end (`load_schema(path)`).

The default schema (`stage_kg.json` beside this file) is the one the public STAGE release uses,
plus the paper's inter-event relations. Importable as `kgbuild.schema`.

Example:
    >>> schema = load_schema()
    >>> schema.relation_types_for("Character", "Location")
    ['located_at']
    >>> schema.type_for_role("person")
    'Character'
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kgbuild.errors import InputError
from kgbuild.folders import graph_folder

_DEFAULT = Path(__file__).with_name("stage_kg.json")
#: Names of entity and relation types: they become Cypher labels, relationship types and tables.
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")

#: What code knows an entity type by. The offline rules, the prompts' layout checks, grounding
#: and merging ask the schema for the type of a role; a role the schema lacks is not extracted.
Role = Literal["person", "place", "time", "event", "occasion", "thing", "abstract"]
ROLES: tuple[Role, ...] = get_args(Role)
#: Name rules of merging an entity type can opt into (`kgbuild.canonicalize.adjudicate`):
#: head_noun ('Red Bag' / 'Red Canvas Burn Bag'), generic_tail ('New York' / 'New York City').
MergeRule = Literal["head_noun", "generic_tail"]
MERGE_RULES: tuple[MergeRule, ...] = get_args(MergeRule)


class SchemaError(InputError):
    """A schema file that cannot be used: missing, not JSON, or not a valid schema."""


class EntityTypeSpec(BaseModel):
    """One entity type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    event_centric: bool = Field(description="Excluded from STAGE-KG scoring (Event, Occasion).")
    role: Role | None = Field(
        default=None, description="What code knows this type by (one type per role); None: code treats it "
        "only as a name (extracted by an LLM, stored and scored like any type).")
    merge_rules: list[MergeRule] = Field(default_factory=list, description="Name rules of merging it opts into.")


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

    type_priority: list[str] = Field(
        default_factory=list,
        description="Same-name voting order: when the mentions of one name disagree on their type as often, "
        "the earlier type here wins; types not listed come after every listed one.")

    @model_validator(mode="after")
    def _consistent(self) -> Schema:
        entity_names, relation_names = self.entity_type_names(), self.relation_type_names()
        problems = [f"{what} {name!r} is defined twice" for what, names in
                    (("entity type", entity_names), ("relation type", relation_names))
                    for name, n in Counter(names).items() if n > 1]
        problems += [f"type name {name!r} cannot be a Cypher label or type; use letters, digits and '_', "
                     "starting with a letter" for name in [*entity_names, *relation_names]
                     if not IDENTIFIER.match(name)]
        roles = Counter(t.role for t in self.entity_types if t.role is not None)
        problems += [f"role {role!r} is given to several entity types "
                     f"({', '.join(t.name for t in self.entity_types if t.role == role)}); one type per role"
                     for role, n in roles.items() if n > 1]
        known = set(entity_names)
        for what, named in (("same_name_merges", {t for pair in self.same_name_merges for t in pair}),
                            ("type_priority", set(self.type_priority)),
                            *((f"relation {r.name}", {t for pair in r.pairs for t in pair})
                              for r in self.relation_types)):
            unknown = sorted(named - known)
            if unknown:
                problems.append(f"{what} names unknown entity types: {', '.join(unknown)}")
        problems += [f"type_priority lists {name!r} twice" for name, n in Counter(self.type_priority).items() if n > 1]
        problems += [f"synonym {alias!r} names the unknown relation type {name!r}"
                     for alias, name in self.synonyms.items() if name not in relation_names]
        if problems:
            raise ValueError("; ".join(problems))
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

    def type_for_role(self, role: Role) -> str | None:
        """The entity type that plays `role`, or None when the schema has none.

        Example:
            >>> load_schema().type_for_role("place")
            'Location'
        """
        return next((t.name for t in self.entity_types if t.role == role), None)

    def role_types(self) -> dict[Role, str]:
        """Role -> entity type, for every role the schema gives a type.

        Example:
            >>> load_schema().role_types()["time"]
            'TimePoint'
        """
        return {t.role: t.name for t in self.entity_types if t.role is not None}

    def role_of(self, type_name: str) -> Role | None:
        """The role of an entity type (None for a type without one, or an unknown type)."""
        return next((t.role for t in self.entity_types if t.name == type_name), None)

    def types_with_rule(self, rule: MergeRule) -> frozenset[str]:
        """The entity types that opt into a merge rule.

        Example:
            >>> sorted(load_schema().types_with_rule("head_noun"))
            ['Concept', 'Object']
        """
        return frozenset(t.name for t in self.entity_types if rule in t.merge_rules)

    def type_rank(self, type_name: str) -> int:
        """The same-name voting rank of a type (lower wins a tie): its place in `type_priority`,
        after every listed type when it is not listed."""
        order = self.type_priority
        return order.index(type_name) if type_name in order else len(order)

    def extractable_relation_names(self, *, event_links: bool | None = None) -> list[str]:
        """Relation types a model may write, in schema order: every type but the derived ones
        (written by later stages). With `event_links` True only those with an (entity, event) or
        (event, entity) pair, with False only those with another pair; without an event type no
        pair is an event link.

        Example:
            >>> load_schema().extractable_relation_names(event_links=True)[:3]
            ['performs', 'undergoes', 'experiences']
        """
        event = self.type_for_role("event")
        return [r.name for r in self.relation_types if not r.derived and (
            event_links is None or any(((s == event) != (o == event)) == event_links for s, o in r.pairs))]

    def label(self) -> str:
        """'name vN', as provenance and reports show the schema."""
        return f"{self.name} v{self.version}"


def load_schema(path: str | os.PathLike[str] | None = None) -> Schema:
    """Load a schema file (JSON); the default is the STAGE-KG schema shipped with kgbuild.

    A file is read again when it changed since it was last loaded (same path, new contents).

    Raises:
        SchemaError: the file is missing, is not JSON, or is not a valid schema (the message
            names the file and every problem: unknown types, a role given twice, ...).

    Example:
        >>> load_schema().label()
        'stage-kg v2'
    """
    source = Path(path) if path else _DEFAULT
    try:
        stat = source.stat()
    except FileNotFoundError as e:
        raise SchemaError("no such schema file", path=str(source)) from e
    except OSError as e:
        raise SchemaError(f"cannot read the schema file ({e})", path=str(source)) from e
    return _load(str(source.resolve()), stat.st_mtime_ns, stat.st_size)


@cache
def _load(source: str, mtime_ns: int, size: int) -> Schema:
    try:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise SchemaError(f"cannot read the schema file ({e})", path=source) from e
    except json.JSONDecodeError as e:
        raise SchemaError(f"not valid JSON: {e.msg}", path=source, line=e.lineno) from e
    try:
        return Schema.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'schema'}: {err['msg']}"
                             for err in e.errors())
        raise SchemaError(f"not a valid kgbuild schema: {problems}", path=source) from e


def is_default(schema: Schema) -> bool:
    """True for the STAGE-KG schema kgbuild ships (builds with it write no schema.json)."""
    return schema == load_schema()


def schema_for_graph(graph_path: str | os.PathLike[str] | None, given: str | os.PathLike[str] | None = None
                     ) -> Schema:
    """The schema to read a graph with: the file `given` (a --schema option), else the schema.json
    beside the graph (a build made with another schema writes one), else the default.

    Args:
        graph_path: A graph.json or a build folder (None: no graph to look beside).
        given: A schema file that overrides the one beside the graph.

    Raises:
        SchemaError: the schema file cannot be used.
    """
    if given is not None:
        return load_schema(given)
    if graph_path is not None:
        beside = graph_folder(graph_path).schema
        if beside.is_file():
            return load_schema(beside)
    return load_schema()
