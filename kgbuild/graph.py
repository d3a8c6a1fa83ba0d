"""Graph identities and the graph.json file: stable ids, saving, and a strict loader."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import unicodedata
from pathlib import Path

from pydantic import ValidationError

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.model import (
    GRAPH_FORMAT,
    Entity,
    Evidence,
    KnowledgeGraph,
    MovieInfo,
    Persistence,
    Provenance,
    Relation,
    Scope,
    Screenplay,
)

logger = logging.getLogger(__name__)

_NON_WORD = re.compile(r"[^\w]+")

#: The most evidence items one fact keeps; the earliest scenes and every distinct producer first.
MAX_EVIDENCE = 6


def canonical_key(name: str) -> str:
    """The comparable form of a name: NFKC, case-folded, punctuation runs as single '_'."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("’", "'")
    return _NON_WORD.sub("_", text).strip("_")


def entity_id(type_name: str, name: str) -> str:
    """Stable entity id from type and canonical name, never from model output alone.

    Example:
        >>> entity_id("Character", "Clarice Starling")
        'character:clarice_starling'
    """
    key = canonical_key(name)
    if not key:
        key = "h" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:12]
    return f"{type_name.casefold()}:{key}"


def relation_id(source: str, relation_type: str, target: str) -> str:
    """Stable relation id from its endpoints and type."""
    digest = hashlib.sha1(f"{source}\x1f{relation_type}\x1f{target}".encode()).hexdigest()
    return f"rel:{digest[:16]}"


def graph_file(path: str | os.PathLike[str]) -> Path:
    """The graph.json a command was pointed at: the file itself, or graph.json in a build folder."""
    p = Path(path)
    return p / "graph.json" if p.is_dir() else p


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> Path:
    """Write graph.json atomically."""
    return write_text_atomic(path, graph.model_dump_json(indent=1))


def _format_version(tag: str) -> int | None:
    prefix, _, version = tag.partition("/")
    if prefix != GRAPH_FORMAT.partition("/")[0] or not version.isdigit():
        return None
    return int(version)


def migrate_format_1(data: dict) -> dict:
    """A kgbuild.graph/1 document in the current format.

    Format 1 kept relation evidence as bare quotes: each becomes an `Evidence` in the relation's
    first scene, without line numbers, produced by 'migrated:kgbuild.graph/1'. Entities had none.
    """
    producer = "migrated:kgbuild.graph/1"
    relations = []
    for rel in data.get("relations", []):
        if isinstance(rel, dict) and isinstance(rel.get("evidence"), list):
            scene = (rel.get("scenes") or [0])[0]
            rel = {**rel, "evidence": [
                {"scene": scene, "lines": None, "quote": q, "producer": producer}
                for q in rel["evidence"] if isinstance(q, str) and q
            ]}
        relations.append(rel)
    provenance = data.get("provenance")
    if isinstance(provenance, dict):
        provenance = {**provenance, "migrated_from": "kgbuild.graph/1"}
    return {**data, "format": GRAPH_FORMAT, "relations": relations, "provenance": provenance}


def load_graph(path: str | os.PathLike[str]) -> KnowledgeGraph:
    """Read a graph.json, refusing malformed files and files written by a newer kgbuild.

    Files of an older format are migrated on reading (see `migrate_format_1`) and say so in
    `provenance.migrated_from`.

    Raises:
        InputError: missing file, invalid JSON, unknown or future format, invalid content.
    """
    file = Path(path)
    name = str(path)
    if not file.is_file():
        raise InputError("no such graph file", path=name)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        line = getattr(e, "lineno", None)
        raise InputError(
            f"not a valid graph.json ({e}); rebuild it with 'kgbuild build'", path=name, line=line
        ) from e
    if not isinstance(data, dict):
        raise InputError("not a graph.json: expected a JSON object", path=name)
    tag = data.get("format")
    version = _format_version(tag) if isinstance(tag, str) else None
    current = _format_version(GRAPH_FORMAT)
    if version is None:
        raise InputError(
            f"not a kgbuild graph (format tag {tag!r}, expected {GRAPH_FORMAT!r})", path=name
        )
    if version is not None and current is not None and version > current:
        raise InputError(
            f"written by a newer kgbuild (format {tag}, this one reads up to {GRAPH_FORMAT}); "
            "upgrade kgbuild",
            path=name,
        )
    if version == 1:
        data = migrate_format_1(data)
        logger.warning("%s is a kgbuild.graph/1 file: read with its quotes as evidence without line "
                       "numbers; rebuild it for full evidence", name)
    try:
        graph = KnowledgeGraph.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(
            f"invalid graph.json at {where}: {first['msg']} ({e.error_count()} problems)",
            path=name,
        ) from e
    return graph


def merge_evidence(*lists: list[Evidence], limit: int = MAX_EVIDENCE) -> list[Evidence]:
    """The evidence of one fact found several times: deduplicated, in scene order, capped.

    Items are equal when scene, lines and quote are equal (the first producer is kept). Within
    the cap, every distinct producer keeps its earliest item, then the earliest scenes fill up.

    Example:
        >>> a = Evidence(scene=2, lines=(9, 9), quote="Anna hugs Ben.", producer="rule:embrace")
        >>> [e.scene for e in merge_evidence([a], [a.model_copy(update={"scene": 1})])]
        [1, 2]
    """
    unique: dict[tuple, Evidence] = {}
    for items in lists:
        for ev in items:
            unique.setdefault((ev.scene, ev.lines, ev.quote), ev)
    ordered = sorted(unique.values(), key=lambda e: (e.scene, e.lines or (0, 0)))
    if len(ordered) <= limit:
        return ordered
    chosen: dict[int, Evidence] = {}
    producers: set[str] = set()
    for i, ev in enumerate(ordered):
        if ev.producer not in producers:
            producers.add(ev.producer)
            chosen[i] = ev
    for i, ev in enumerate(ordered):
        if len(chosen) >= limit:
            break
        chosen.setdefault(i, ev)
    return [chosen[i] for i in sorted(chosen)][:limit]


class GraphBuilder:
    """Accumulates entities and relations, merging repeats: scenes unioned, first name kept.

    Example:
        >>> b = GraphBuilder()
        >>> anna = b.entity("Character", "Anna", 1)
        >>> kitchen = b.entity("Location", "Kitchen", 1)
        >>> b.relation(anna, "located_at", kitchen, 1)
    """

    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.relations: dict[str, Relation] = {}

    def entity(self, type_name: str, name: str, scene: int | None = None, *,
               description: str = "", aliases: list[str] | tuple[str, ...] = (),
               scope: Scope | None = None, evidence: list[Evidence] | tuple[Evidence, ...] = ()) -> str:
        """Add or extend an entity; returns its id."""
        eid = entity_id(type_name, name)
        old = self.entities.get(eid)
        scenes = set(old.scenes) if old else set()
        if scene is not None:
            scenes.add(scene)
        base = old.name if old else name
        merged_aliases = sorted({*(old.aliases if old else []), *aliases} - {base})
        self.entities[eid] = Entity(
            id=eid, name=base, type=type_name,
            description=(old.description if old and old.description else description),
            aliases=merged_aliases, scenes=sorted(scenes),
            scope=scope or (old.scope if old else Scope.LOCAL),
            evidence=merge_evidence(old.evidence if old else [], list(evidence)),
        )
        return eid

    def relation(self, source: str, type_name: str, target: str, scene: int | None = None, *,
                 name: str = "", evidence: list[Evidence] | tuple[Evidence, ...] = (),
                 persistence: Persistence = Persistence.MOMENTARY) -> None:
        """Add or extend a relation; self-relations are ignored."""
        if source == target:
            return
        rid = relation_id(source, type_name, target)
        old = self.relations.get(rid)
        scenes = set(old.scenes) if old else set()
        if scene is not None:
            scenes.add(scene)
        self.relations[rid] = Relation(
            id=rid, source=source, target=target, type=type_name,
            name=(old.name if old and old.name else name), scenes=sorted(scenes),
            evidence=merge_evidence(old.evidence if old else [], list(evidence)),
            persistence=old.persistence if old else persistence,
        )

    def to_graph(self, screenplay: Screenplay, *, backend: str, version: str) -> KnowledgeGraph:
        """The collected entities and relations as the graph of `screenplay`."""
        return KnowledgeGraph(
            movie=MovieInfo(id=screenplay.id, title=screenplay.title, language=screenplay.language,
                            source_sha256=screenplay.source.sha256, scenes=len(screenplay.scenes)),
            entities=list(self.entities.values()),
            relations=list(self.relations.values()),
            provenance=Provenance(kgbuild_version=version, backend=backend),
        )
