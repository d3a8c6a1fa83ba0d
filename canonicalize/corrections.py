"""Corrections a user makes once and every rebuild keeps: reject, merge, split, rename, retype.

A corrections file is JSON Lines beside the script (`SCRIPT_STEM.corrections.jsonl`, or the
file `--corrections` names), one correction per line; blank lines and lines starting with '#'
are skipped:

    {"action": "reject", "fact": "rel:3f2a9c0d1e2b4a5c", "why": "Keating is not Charlie's kin"}
    {"action": "reject", "relation": ["Keating", "kinship_with", "Charlie Dalton"]}
    {"action": "merge", "entities": ["character:neil", "character:neil_perry"], "name": "Neil Perry"}
    {"action": "split", "entities": ["character:scott", "character:scott_lang"]}
    {"action": "rename", "fact": "character:mr_perry", "name": "Thomas Perry"}
    {"action": "retype", "fact": "location:alley", "type": "Character"}

Facts are named by the ids graph.json shows (stable across rebuilds while names are), or a
relation by its ends' names and type. `split` keeps entities apart in the merge stage; every
other correction is applied after merging, in file order, and `report.md` lists what each did
(a correction that matches nothing is reported, not an error). The scene layer follows: a
merged, renamed or retyped character keeps its presences under its new id; a rejected one (or
one retyped to another type) leaves the scenes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kgbuild.canonicalize.repairs import dedupe_relations
from kgbuild.errors import InputError
from kgbuild.extraction.presence import MODE_RANK
from kgbuild.graph import entity_id, merge_entity_records, merge_evidence, rewire_relations
from kgbuild.model import Entity, KnowledgeGraph, Presence, Relation, SceneRecord
from kgbuild.schema import Schema, load_schema

#: The suffix of the corrections file beside a script.
CORRECTIONS_SUFFIX = ".corrections.jsonl"


class Correction(BaseModel):
    """One line of a corrections file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["reject", "merge", "split", "rename", "retype"]
    fact: str | None = Field(default=None, description="An entity or relation id (reject, rename, retype).")
    relation: tuple[str, str, str] | None = Field(
        default=None, description="[subject name, relation type, object name] (reject).")
    entities: list[str] | None = Field(default=None, description="Entity ids (merge, split).")
    name: str | None = Field(default=None, description="The new name (rename) or the merged name (merge).")
    type: str | None = Field(default=None, description="The new entity type (retype).")
    why: str = ""

    @model_validator(mode="after")
    def _fields_fit_the_action(self) -> Correction:
        needs = {
            "reject": self.fact is not None or self.relation is not None,
            "merge": bool(self.entities) and len(self.entities or []) >= 2,
            "split": bool(self.entities) and len(self.entities or []) >= 2,
            "rename": self.fact is not None and bool(self.name),
            "retype": self.fact is not None and bool(self.type),
        }
        if not needs[self.action]:
            raise ValueError(f"'{self.action}' needs " + {
                "reject": "'fact' (an id) or 'relation' ([subject, type, object])",
                "merge": "'entities' (two ids or more)", "split": "'entities' (two ids or more)",
                "rename": "'fact' and 'name'", "retype": "'fact' and 'type'"}[self.action])
        return self


class CorrectionResult(BaseModel):
    """What one correction did to a build."""

    model_config = ConfigDict(extra="forbid")

    correction: Correction
    line: int
    applied: bool
    note: str


def corrections_file(script: str | os.PathLike[str]) -> Path:
    """The corrections file beside a script: 'movie.fountain' -> 'movie.corrections.jsonl'."""
    path = Path(script)
    return path.with_name(path.stem + CORRECTIONS_SUFFIX)


def load_corrections(path: str | os.PathLike[str]) -> list[tuple[int, Correction]]:
    """Read a corrections file: (line number, correction) per line.

    Raises:
        InputError: a line is not JSON or not a valid correction (the line says which).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read the corrections file ({e.strerror})", path=str(file)) from e
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append((number, Correction.model_validate(json.loads(line))))
        except (json.JSONDecodeError, ValidationError) as e:
            detail = e.errors()[0]["msg"].removeprefix("Value error, ") if isinstance(e, ValidationError) else str(e)
            raise InputError(f"not a correction: {detail}; see 'kgbuild build --help' for the format",
                             path=str(file), line=number) from e
    return out


def append_corrections(path: str | os.PathLike[str], corrections: list[Correction]) -> int:
    """Add corrections to a file (created if missing), skipping those it already holds.

    Returns:
        How many were added.
    """
    file = Path(path)
    have = {c for _, c in load_corrections(file)} if file.exists() else set()
    new = [c for c in corrections if c not in have]
    if new:
        with file.open("a", encoding="utf-8") as f:
            for c in new:
                f.write(c.model_dump_json(exclude_none=True, exclude_defaults=False) + "\n")
    return len(new)


def keep_apart(corrections: list[tuple[int, Correction]]) -> list[frozenset[str]]:
    """The entity id sets the merge stage must not join (from 'split' corrections)."""
    return [frozenset(c.entities or ()) for _, c in corrections if c.action == "split"]


def _rewire(graph: KnowledgeGraph, mapping: dict[str, str]) -> list[Relation]:
    """The graph's relations with their ends moved through `mapping`: those that become
    self-relations dropped, those that become one merged (`kgbuild.graph.merge_relation_records`)."""
    moved = [r for r in rewire_relations(graph.relations, mapping) if r.source != r.target]
    return dedupe_relations(graph.model_copy(update={"relations": moved}))[0].relations


def _scene_layer(graph: KnowledgeGraph, mapping: dict[str, str], person: str | None) -> list[SceneRecord]:
    """The scene layer with its characters moved through `mapping` (the strongest mode of those
    merged into one kept, evidence joined) and characters no longer in the graph dropped."""
    characters = {e.id for e in graph.entities if e.type == person}
    records = []
    for record in graph.scenes:
        kept: dict[str, Presence] = {}
        for p in record.presence:
            cid = mapping.get(p.character, p.character)
            if cid not in characters:
                continue
            old = kept.get(cid)
            if old is None:
                kept[cid] = p.model_copy(update={"character": cid})
                continue
            first, second = sorted((old, p), key=lambda x: MODE_RANK[x.mode])
            kept[cid] = first.model_copy(update={"character": cid, "evidence": merge_evidence(first.evidence,
                                                                                             second.evidence)})
        records.append(record.model_copy(update={"presence": list(kept.values())}))
    return records


def _with_scenes(graph: KnowledgeGraph, mapping: dict[str, str], schema: Schema) -> KnowledgeGraph:
    if not graph.scenes:
        return graph
    return graph.model_copy(update={"scenes": _scene_layer(graph, mapping, schema.type_for_role("person"))})


def _reject(graph: KnowledgeGraph, c: Correction, schema: Schema) -> tuple[KnowledgeGraph, str | None]:
    if c.relation is not None:
        names: dict[str, set[str]] = {}
        for e in graph.entities:
            names.setdefault(e.name.casefold(), set()).add(e.id)
        subject, rtype, obj = c.relation
        hits = {r.id for r in graph.relations if r.type == rtype
                and r.source in names.get(subject.casefold(), ()) and r.target in names.get(obj.casefold(), ())}
    else:
        known = {r.id for r in graph.relations} | {e.id for e in graph.entities}
        hits = {c.fact} & known if c.fact is not None else set()
    if not hits:
        return graph, None
    entities = [e for e in graph.entities if e.id not in hits]
    gone = {e.id for e in graph.entities} - {e.id for e in entities}
    relations = [r for r in graph.relations if r.id not in hits and r.source not in gone and r.target not in gone]
    dropped = len(graph.relations) - len(relations)
    return _with_scenes(graph.model_copy(update={"entities": entities, "relations": relations}), {}, schema), (
        f"removed {len(gone)} entities and {dropped} relations")


def _apply_merge(graph: KnowledgeGraph, c: Correction, schema: Schema) -> tuple[KnowledgeGraph, str | None]:
    ids = [i for i in c.entities or () if any(e.id == i for e in graph.entities)]
    members = [e for e in graph.entities if e.id in ids]
    if len(members) < 2:
        return graph, None
    if len({e.type for e in members}) > 1:
        return graph, None
    keep = members[0]
    name = c.name or keep.name
    new_id = entity_id(keep.type, name)
    merged = merge_entity_records(Entity(id=new_id, name=name, type=keep.type), *members)
    others = [e for e in graph.entities if e.id not in ids and e.id != new_id]
    mapping = {e.id: new_id for e in members}
    return _with_scenes(graph.model_copy(update={"entities": [*others, merged],
                                                 "relations": _rewire(graph, mapping)}), mapping, schema), (
        f"merged {len(members)} entities into '{name}'")


def _rename_or_retype(graph: KnowledgeGraph, c: Correction, schema: Schema) -> tuple[KnowledgeGraph, str | None]:
    entity = next((e for e in graph.entities if e.id == c.fact), None)
    if entity is None:
        return graph, None
    if c.action == "retype" and c.type not in schema.entity_type_names():
        return graph, f"not applied: type '{c.type}' is not in the schema"
    changed: Entity = entity.model_copy(update={"name": c.name} if c.action == "rename" else {"type": c.type})
    if c.action == "rename":
        changed = changed.model_copy(update={"aliases": [a for a in dict.fromkeys([entity.name, *entity.aliases])
                                                         if a != c.name]})
    new_id = entity_id(changed.type, changed.name)
    if new_id != entity.id and any(e.id == new_id for e in graph.entities):
        return graph, f"not applied: an entity '{new_id}' exists already (merge them instead)"
    changed = changed.model_copy(update={"id": new_id})
    entities = [changed if e.id == entity.id else e for e in graph.entities]
    relations = _rewire(graph, {entity.id: new_id})
    types = {e.id: e.type for e in entities}
    admitted = [r for r in relations if schema.is_admissible(r.type, types[r.source], types[r.target])]
    note = f"{entity.id} -> {new_id}"
    if len(admitted) < len(relations):
        note += f"; {len(relations) - len(admitted)} relations the schema no longer admits removed"
    return _with_scenes(graph.model_copy(update={"entities": entities, "relations": admitted}),
                        {entity.id: new_id}, schema), note


def apply_corrections(graph: KnowledgeGraph, corrections: list[tuple[int, Correction]], *,
                      schema: Schema | None = None) -> tuple[KnowledgeGraph, list[CorrectionResult]]:
    """Apply the corrections (all but 'split', which binds the merge stage) in file order.

    Args:
        graph: The merged graph (not changed).
        corrections: (line, correction) pairs from `load_corrections`.
        schema: The schema for retypes; the default schema when None.

    Returns:
        The corrected graph and what each correction did.
    """
    schema = schema or load_schema()
    results = []
    for line, c in corrections:
        if c.action == "split":
            results.append(CorrectionResult(correction=c, line=line, applied=True,
                                            note="kept apart in the merge stage"))
            continue
        if c.action == "reject":
            graph, note = _reject(graph, c, schema)
        elif c.action == "merge":
            graph, note = _apply_merge(graph, c, schema)
        else:
            graph, note = _rename_or_retype(graph, c, schema)
        applied = note is not None and not note.startswith("not applied")
        results.append(CorrectionResult(correction=c, line=line, applied=applied,
                                        note=note or "matches nothing in this build"))
    return graph, results
