"""Graph identities and the graph.json file: stable ids, saving, a strict loader, and the one
policy by which records of the same fact merge (`merge_entity_records`, `merge_relation_records`)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder
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
    return BuildFolder(p).graph if p.is_dir() else p


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> Path:
    """Write graph.json atomically."""
    return write_text_atomic(path, graph.model_dump_json(indent=1))


def _format_version(tag: str) -> int | None:
    prefix, _, version = tag.partition("/")
    if prefix != GRAPH_FORMAT.partition("/")[0] or not version.isdigit():
        return None
    return int(version)


def migrate_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """A kgbuild.graph/1 document in format 2 (`migrate_format_2` takes it on to the current one).

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
    return {**data, "format": "kgbuild.graph/2", "relations": relations, "provenance": provenance}


def migrate_format_2(data: dict[str, Any]) -> dict[str, Any]:
    """A kgbuild.graph/2 document in the current format.

    Format 2 had no scene layer (time markers, who is in each scene): the migrated graph has
    none (`scenes` empty), and `provenance.migrated_from` says where it came from (an older
    origin, kgbuild.graph/1, is kept). Rebuilding the derived facts
    (`kgbuild build OUTDIR --from-stage merge`) makes the layer.

    Example:
        >>> migrate_format_2({"format": "kgbuild.graph/2", "movie": {}, "provenance": {}})["format"]
        'kgbuild.graph/3'
    """
    provenance = data.get("provenance")
    if isinstance(provenance, dict):
        provenance = {**provenance, "migrated_from": provenance.get("migrated_from") or "kgbuild.graph/2"}
    return {**data, "format": GRAPH_FORMAT, "scenes": [], "provenance": provenance}


def load_graph(path: str | os.PathLike[str]) -> KnowledgeGraph:
    """Read a graph.json, refusing malformed files and files written by a newer kgbuild.

    Files of an older format are migrated on reading (see `migrate_format_1`, `migrate_format_2`)
    and say so in `provenance.migrated_from`.

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
        version = 2
    if version == 2:
        data = migrate_format_2(data)
        logger.info("%s is a kgbuild.graph/2 file: read without the scene layer (who is in each scene, "
                    "time markers); 'kgbuild build OUTDIR --from-stage merge' adds it", name)
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
    unique: dict[tuple[object, ...], Evidence] = {}
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


def _aliases(kept_name: str, forms: list[str]) -> list[str]:
    """`forms` in order of first appearance, without repeats and without the kept name (up to
    case and punctuation)."""
    kept = canonical_key(kept_name)
    return [f for f in dict.fromkeys(forms) if f and canonical_key(f) != kept]


def merge_entity_records(first: Entity, *others: Entity) -> Entity:
    """One entity from several records of the same thing: the merge policy of every stage.

    The graph builder, the LLM assembly, the repairs, the merge stage, the corrections and the
    STAGE reference loader all merge entities here, by one policy:

    - id, name and type: the first record's (the caller decides which survives, and may pass
      a fresh record with the surviving identity first);
    - aliases: the first's aliases, then each other record's name and aliases, in order of
      first appearance, without repeats; a form equal to the kept name up to case and
      punctuation (`canonical_key`) is not an alias;
    - description: the longest (the earliest of equally long ones);
    - scenes: the union, ascending;
    - scope: global if any record is global;
    - attributes: the union; for a key several records set, the earliest record's value;
    - evidence: all of it with its producers, deduplicated, in scene order (`merge_evidence`).

    With no others the record comes back with that policy applied to itself (aliases and
    scenes deduplicated, evidence merged). No record is changed.

    Example:
        >>> a = Entity(id="character:anna", name="Anna", type="Character", scenes=[3])
        >>> b = Entity(id="character:anna_k", name="Anna K.", type="Character", scenes=[1],
        ...            description="A countess.")
        >>> m = merge_entity_records(a, b)
        >>> m.id, m.aliases, m.scenes, m.description
        ('character:anna', ['Anna K.'], [1, 3], 'A countess.')
    """
    records = (first, *others)
    attributes: dict[str, str] = {}
    for record in reversed(records):
        attributes.update(record.attributes)
    return first.model_copy(update={
        "aliases": _aliases(first.name, [*first.aliases, *(f for o in others for f in (o.name, *o.aliases))]),
        "description": max((r.description for r in records), key=len),
        "scenes": sorted({s for r in records for s in r.scenes}),
        "scope": Scope.GLOBAL if any(r.scope == Scope.GLOBAL for r in records) else Scope.LOCAL,
        "attributes": attributes,
        "evidence": merge_evidence(*(r.evidence for r in records)),
    })


def merge_relation_records(first: Relation, *others: Relation) -> Relation:
    """One relation from several records of the same fact: the merge policy of every stage.

    - id, source, target, type and persistence: the first record's (the caller decides);
    - name (the free verb): the first non-empty one;
    - description: the longest (the earliest of equally long ones);
    - scenes: the union, ascending;
    - flags: the union, sorted;
    - evidence: all of it with its producers, deduplicated, in scene order (`merge_evidence`).

    No record is changed.

    Example:
        >>> a = Relation(id="r", source="character:anna", target="object:knife", type="possesses",
        ...              scenes=[3], description="has it")
        >>> b = a.model_copy(update={"scenes": [1], "name": "keeps", "description": "keeps it in her boot"})
        >>> m = merge_relation_records(a, b)
        >>> m.scenes, m.name, m.description
        ([1, 3], 'keeps', 'keeps it in her boot')
    """
    records = (first, *others)
    return first.model_copy(update={
        "name": next((r.name for r in records if r.name), ""),
        "description": max((r.description for r in records), key=len),
        "scenes": sorted({s for r in records for s in r.scenes}),
        "flags": sorted({f for r in records for f in r.flags}),
        "evidence": merge_evidence(*(r.evidence for r in records)),
    })


def rewire_relations(relations: list[Relation], mapping: dict[str, str]) -> list[Relation]:
    """Relations with their ends moved through an entity id mapping (old id -> new id).

    A relation with a moved end gets the id of its new ends (`relation_id`); the others are
    returned as they are. Relations the move turns into self-relations or into repeats of one
    another are kept, in order: the caller drops or merges them (`validate_endpoints` and
    `dedupe_relations` of `kgbuild.canonicalize.repairs`, which count what they do).

    Example:
        >>> r = Relation(id="r", source="character:ann", target="location:pier", type="located_at")
        >>> rewire_relations([r], {"character:ann": "character:anna"})[0].source
        'character:anna'
    """
    out = []
    for rel in relations:
        source, target = mapping.get(rel.source, rel.source), mapping.get(rel.target, rel.target)
        if (source, target) != (rel.source, rel.target):
            rel = rel.model_copy(update={"source": source, "target": target,
                                         "id": relation_id(source, rel.type, target)})
        out.append(rel)
    return out


class GraphBuilder:
    """Accumulates entities and relations, merging repeats by id (`merge_entity_records`,
    `merge_relation_records`: the first name kept, scenes unioned, evidence merged).

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
        """Add or extend an entity; returns its id.

        A repeat of an id merges into the entity by `merge_entity_records` (a scope of None
        counts as local: an entity is global once any call says so).
        """
        eid = entity_id(type_name, name)
        new = Entity(id=eid, name=name, type=type_name, description=description, aliases=list(aliases),
                     scenes=[] if scene is None else [scene], scope=scope or Scope.LOCAL,
                     evidence=list(evidence))
        old = self.entities.get(eid)
        self.entities[eid] = merge_entity_records(old, new) if old else merge_entity_records(new)
        return eid

    def relation(self, source: str, type_name: str, target: str, scene: int | None = None, *,
                 name: str = "", evidence: list[Evidence] | tuple[Evidence, ...] = (),
                 persistence: Persistence = Persistence.MOMENTARY) -> None:
        """Add or extend a relation (a repeat merges by `merge_relation_records`); self-relations
        are ignored."""
        if source == target:
            return
        rid = relation_id(source, type_name, target)
        new = Relation(id=rid, source=source, target=target, type=type_name, name=name,
                       scenes=[] if scene is None else [scene], evidence=list(evidence),
                       persistence=persistence)
        old = self.relations.get(rid)
        self.relations[rid] = merge_relation_records(old, new) if old else merge_relation_records(new)

    def to_graph(self, screenplay: Screenplay, *, backend: str, version: str) -> KnowledgeGraph:
        """The collected entities and relations as the graph of `screenplay`."""
        return KnowledgeGraph(
            movie=MovieInfo(id=screenplay.id, title=screenplay.title, language=screenplay.language,
                            source_sha256=screenplay.source.sha256, scenes=len(screenplay.scenes)),
            entities=list(self.entities.values()),
            relations=list(self.relations.values()),
            provenance=Provenance(kgbuild_version=version, backend=backend),
        )
