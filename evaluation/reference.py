"""Load graphs to score: a STAGE release movie folder, or a kgbuild graph.json.

A STAGE movie folder holds `extraction_results.json` (per-scene entities and relations) and
`rename_map.json` (alias -> canonical name). Its reference graph is the union over scenes, every
name mapped through the rename map, each entity named and typed by the majority of its mentions
and merged from them by the one merge policy (`kgbuild.graph.merge_entity_records`). Both
sources become the same `KnowledgeGraph`, plus a `LoadReport` of what could not be used.

Scenes: `extraction_results.json` is keyed per scene part (`scene_N_part_M`; `scene_N__2_part_M`
for a second scene printed with the number N). Each part's `document_metadata.order` is the
0-based position of its entry in `script.json`, so `order + 1` is the scene index kgbuild gives
that entry (`Scene.index`: the STAGE reader makes one scene per entry, in list order); N is the
scene number as printed, which is the same in 10 of the 11 dev movies and off by up to one
after a repeated number in the other. A part without `order` falls back to N. A reference can
be restricted to some scenes (`scenes=`): only the parts of those scenes are read.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder, graph_folder
from kgbuild.graph import (
    canonical_key,
    entity_id,
    load_graph,
    merge_entity_records,
    merge_relation_records,
    relation_id,
)
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation, Scope
from kgbuild.readers.stage_json import stage_title
from kgbuild.scenes import SceneSelection, restrict_graph
from kgbuild.schema import Schema, SchemaError, load_schema

_SCENE_KEY = re.compile(r"scene_(\d+)")


class LoadReport(BaseModel):
    """Items a loader skipped or could not resolve, counted instead of crashing."""

    model_config = ConfigDict(extra="forbid")

    source: str
    failed_scenes: int = 0
    unknown_entity_types: dict[str, int] = Field(default_factory=dict)
    unknown_relation_types: dict[str, int] = Field(default_factory=dict)
    dangling_relations: int = 0


def resolve_rename(name: str, renames: dict[str, str]) -> str:
    """`name` followed through a STAGE rename map (alias -> canonical name) to its end; a cycle
    stops at the last new name."""
    seen = {name}
    while name in renames and renames[name] not in seen:
        name = renames[name]
        seen.add(name)
    return name


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg}", path=str(path), line=e.lineno) from e


def _majority_type(types: Counter[str], schema: Schema) -> str:
    order = schema.entity_type_names()
    return max(types, key=lambda t: (types[t], -order.index(t) if t in order else -99))


def _mention(ent: dict, scene: int, renames: dict[str, str], known_types: set[str],
             report: LoadReport) -> Entity | None:
    """One entity mention of a scene as a record (its name through the rename map), or None for a
    mention without a name or of a type the schema does not know (counted in `report`)."""
    etype, raw = ent.get("type"), ent.get("name")
    if not raw or not isinstance(raw, str):
        return None
    if etype not in known_types:
        report.unknown_entity_types[str(etype)] = report.unknown_entity_types.get(str(etype), 0) + 1
        return None
    name = resolve_rename(raw, renames)
    description = ent.get("description")
    return Entity(id=entity_id(etype, name), name=name, type=etype,
                  description=description if isinstance(description, str) else "",
                  aliases=[raw, *(a for a in ent.get("aliases") or [] if isinstance(a, str))], scenes=[scene],
                  scope=Scope.GLOBAL if ent.get("scope") == Scope.GLOBAL else Scope.LOCAL)


def stage_scene_index(key: str, part: object) -> int:
    """The kgbuild scene index of one part of `extraction_results.json` (see the module docstring).

    Example:
        >>> stage_scene_index("scene_9__2_part_1", {"document_metadata": {"order": 9}})
        10
    """
    metadata = part.get("document_metadata") if isinstance(part, dict) else None
    order = metadata.get("order") if isinstance(metadata, dict) else None
    if isinstance(order, int) and not isinstance(order, bool) and order >= 0:
        return order + 1
    m = _SCENE_KEY.search(key)
    return int(m.group(1)) if m else 0


def load_stage_movie(
    movie_dir: str | Path, *, schema: Schema | None = None, scenes: SceneSelection | None = None
) -> tuple[KnowledgeGraph, LoadReport, dict[str, str]]:
    """Build the reference graph of one STAGE movie folder.

    Args:
        movie_dir: Folder with extraction_results.json and (optionally) rename_map.json.
        schema: The schema; the default STAGE-KG schema when None.
        scenes: Read only the parts of these scene indices (`stage_scene_index`); None: all.

    Returns:
        The graph, what was skipped, and the rename map (for matching predictions).

    Raises:
        InputError: the folder or its extraction_results.json is missing or malformed.
    """
    schema = schema or load_schema()
    folder = Path(movie_dir)
    results_path = folder / "extraction_results.json"
    if not folder.is_dir():
        raise InputError("no such reference folder", path=str(folder))
    if not results_path.is_file():
        raise InputError(
            "no extraction_results.json here; a STAGE reference folder holds "
            "extraction_results.json and rename_map.json",
            path=str(folder),
        )
    renames_path = folder / "rename_map.json"
    renames = _read_json(renames_path) if renames_path.is_file() else {}
    results = _read_json(results_path)
    if not isinstance(results, dict) or not isinstance(renames, dict):
        raise InputError("expected JSON objects keyed by scene", path=str(results_path))
    report = LoadReport(source=str(folder))
    known_types = set(schema.entity_type_names())
    # Keyed by the canonical form, so names differing only in case or punctuation are one entity.
    mentions: dict[str, list[Entity]] = defaultdict(list)
    raw_relations: list[tuple[str, str, str, int, dict]] = []
    for key, scene in results.items():
        index = stage_scene_index(key, scene)
        if scenes is not None and index not in scenes:
            continue
        if not isinstance(scene, dict) or scene.get("ok") is False:
            report.failed_scenes += 1
            continue
        for ent in scene.get("entities") or []:
            mention = _mention(ent, index, renames, known_types, report)
            if mention is not None:
                mentions[canonical_key(mention.name)].append(mention)
        for rel in scene.get("relations") or []:
            subject, obj, rtype = rel.get("subject"), rel.get("object"), rel.get("relation_type")
            if not (isinstance(subject, str) and isinstance(obj, str) and isinstance(rtype, str)):
                report.dangling_relations += 1
                continue
            raw_relations.append((
                canonical_key(resolve_rename(subject, renames)), rtype,
                canonical_key(resolve_rename(obj, renames)), index, rel,
            ))
    entities: dict[str, Entity] = {}
    for key, records in mentions.items():
        etype = _majority_type(Counter(r.type for r in records), schema)
        name = Counter(r.name for r in records).most_common(1)[0][0]
        entities[key] = merge_entity_records(Entity(id=entity_id(etype, name), name=name, type=etype), *records)
    relations: dict[tuple[str, str, str], Relation] = {}
    for subject, rtype, obj, index, raw in raw_relations:
        canonical = schema.canonical_relation(rtype)
        if schema.relation(canonical) is None:
            report.unknown_relation_types[rtype] = report.unknown_relation_types.get(rtype, 0) + 1
            continue
        if subject not in entities or obj not in entities or subject == obj:
            report.dangling_relations += 1
            continue
        s_id, o_id = entities[subject].id, entities[obj].id
        key = (s_id, canonical, o_id)
        record = Relation(
            id=relation_id(s_id, canonical, o_id), source=s_id, target=o_id, type=canonical,
            name=str(raw.get("relation_name") or ""), description=str(raw.get("description") or ""),
            scenes=[index],
        )
        relations[key] = merge_relation_records(relations[key], record) if key in relations else record
    movie = folder.resolve().name
    graph = KnowledgeGraph(
        movie=MovieInfo(id=movie, title=stage_title(folder) or movie, language="zh" if movie.startswith("ch") else "en",
                        scenes=len(results), scene_ranges=scenes.as_list() if scenes is not None else []),
        entities=list(entities.values()),
        relations=list(relations.values()),
    )
    return graph, report, renames


def check_prediction(
    graph: KnowledgeGraph, source: str, *, schema: Schema | None = None
) -> tuple[KnowledgeGraph, LoadReport]:
    """Keep only what can be scored from a predicted graph, counting the rest.

    Entities of unknown types, relations of unknown types and relations whose endpoints are not
    entities are removed and counted.
    """
    schema = schema or load_schema()
    report = LoadReport(source=source)
    known = set(schema.entity_type_names())
    entities = []
    for ent in graph.entities:
        if ent.type in known:
            entities.append(ent)
        else:
            report.unknown_entity_types[ent.type] = report.unknown_entity_types.get(ent.type, 0) + 1
    ids = {e.id for e in entities}
    relations = []
    for rel in graph.relations:
        canonical = schema.canonical_relation(rel.type)
        if schema.relation(canonical) is None:
            report.unknown_relation_types[rel.type] = report.unknown_relation_types.get(rel.type, 0) + 1
        elif rel.source not in ids or rel.target not in ids:
            report.dangling_relations += 1
        else:
            relations.append(rel if canonical == rel.type else rel.model_copy(update={"type": canonical}))
    return graph.model_copy(update={"entities": entities, "relations": relations}), report


def load_any(path: str | Path, *, schema: Schema | None = None,
             scenes: SceneSelection | None = None) -> tuple[KnowledgeGraph, LoadReport, dict[str, str]]:
    """Load a STAGE movie folder or a graph.json (a folder holding graph.json also works).

    Args:
        path: The folder or file.
        schema: The schema; the default STAGE-KG schema when None.
        scenes: Keep only these scenes: a STAGE folder reads only their parts, a graph keeps the
            facts grounded in them (`kgbuild.scenes.restrict_graph`). None: everything.

    Returns:
        The graph (unscorable items removed), the load report, and the rename map (empty for
        graph.json).
    """
    p = Path(path)
    if p.is_dir() and (p / "extraction_results.json").is_file():
        return load_stage_movie(p, schema=schema, scenes=scenes)
    if p.is_dir() and BuildFolder(p).has_graph():
        p = BuildFolder(p).graph
    if p.is_dir():
        raise InputError(
            "this folder holds neither extraction_results.json (a STAGE reference) nor "
            "graph.json (a kgbuild graph)",
            path=str(p),
        )
    graph, report = check_prediction(load_graph(p), str(p), schema=schema)
    if scenes is not None:
        graph = restrict_graph(graph, scenes)
    return graph, report, {}


def _schema_beside(path: str | os.PathLike[str] | None) -> Schema | None:
    if path is None:
        return None
    beside = graph_folder(path).schema
    return load_schema(beside) if beside.is_file() else None


def scoring_schema(pred: str | os.PathLike[str] | None, ref: str | os.PathLike[str] | None,
                   given: str | os.PathLike[str] | None = None) -> Schema:
    """The schema to score a prediction against a reference with: `given` (--schema), else the
    schema.json beside the reference graph, else the one beside the prediction, else the default.

    Raises:
        SchemaError: a schema file cannot be used, or prediction and reference carry different
            schema.json files and no schema is given.
    """
    if given is not None:
        return load_schema(given)
    ref_schema, pred_schema = _schema_beside(ref), _schema_beside(pred)
    if ref_schema is not None and pred_schema is not None and ref_schema != pred_schema:
        raise SchemaError(f"the prediction ({pred_schema.label()}) and the reference ({ref_schema.label()}) were "
                          "built with different schemas; pass --schema FILE to score both with one",
                          path=str(ref))
    return ref_schema or pred_schema or load_schema()


#: A title's trailing "(film)" or "(1996 film)", as the STAGE release writes some titles.
_FILM_SUFFIX = re.compile(r"\s*\((?:\d{4}\s+)?film\)\s*$")


def _movie_names(movie: MovieInfo) -> set[str]:
    """A movie's id and title, case, width, punctuation and a "(film)" suffix aside."""
    names = set()
    for text in (movie.id, movie.title):
        folded = _FILM_SUFFIX.sub("", unicodedata.normalize("NFKC", text).casefold())
        name = "".join(ch for ch in folded if ch.isalnum())
        if name:
            names.add(name)
    return names


def check_same_movie(predicted: MovieInfo, reference: MovieInfo) -> None:
    """Refuse to score a prediction against the reference of another movie.

    The two are the same movie when an id or title of one is an id or title of the other (case,
    punctuation and a "(film)" suffix aside): a build of a STAGE script.json carries the
    release's id; a build of another copy of the script carries its title page's title, which
    matches the release's title. A graph without a movie id (written before kgbuild stored ids,
    or by another tool) is not refused: nothing says which movie it is.

    Raises:
        InputError: one line naming both movies and what to do.

    Example:
        >>> check_same_movie(MovieInfo(id="FARGO", title="FARGO", language="en"),
        ...                  MovieInfo(id="en44fd740e98fd44c186677b99ad139c57", title="Fargo (film)", language="en"))
    """
    if not predicted.id or not reference.id:
        return
    if not _movie_names(predicted) & _movie_names(reference):
        def named(movie: MovieInfo) -> str:
            return f"{movie.title!r}" + (f" (id {movie.id})" if movie.id and movie.id != movie.title else "")

        raise InputError(f"the prediction is of {named(predicted)} and the reference of {named(reference)}: "
                         "another movie; give the reference of the same movie, or --force to score them anyway")
