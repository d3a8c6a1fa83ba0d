"""CSV files for `neo4j-admin database import full`, and the exact command that loads them.

The files hold every layer a store holds: `nodes.csv` (entities) and `relationships.csv`
(relations), `scenes.csv` (the `Scene` nodes of the scene layer) and `in_scene.csv` (who is in
each scene). They use neo4j-admin's header syntax (`id:ID(Entity)`, `:LABEL`, `:START_ID(Entity)`,
`:END_ID(Scene)`, `:TYPE`, typed columns such as `scenes:int[]`); entities and scenes are two ID
spaces, so no entity id can clash with a scene's. Array elements are separated by U+001F, a
control character no name contains, so aliases with ';' survive. Evidence is four parallel array
columns (`evidence_scenes:int[]`, `evidence_lines:string[]`, `evidence_quotes:string[]`,
`evidence_producers:string[]`), as in every store. `constraints.cypher` holds the constraints
`kgbuild load` relies on, for after the import.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
from pathlib import Path

from kgbuild.atomic import write_text_atomic
from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.plan import plan_constraints
from kgbuild.loaders.records import (
    IN_SCENE,
    SCENE_LABEL,
    NodeRow,
    PresenceRow,
    Refusal,
    RelationRow,
    SceneRow,
    prepare_rows,
)
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema, load_schema

ARRAY_DELIMITER = "\x1f"
#: The file holding the import command, among the CSV files.
IMPORT_COMMAND_FILE = "neo4j-admin-import.txt"
_DATABASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*\Z")

EVIDENCE_HEADER = ["evidence_scenes:int[]", "evidence_lines:string[]", "evidence_quotes:string[]",
                   "evidence_producers:string[]"]
#: The ID spaces of entities and of scenes.
ENTITIES, SCENES = "Entity", "Scene"
NODE_HEADER = [f"id:ID({ENTITIES})", ":LABEL", "key", "name", "type", "description", "aliases:string[]",
               "scenes:int[]", "first_scene:int", "last_scene:int", "scope", "movie", *EVIDENCE_HEADER]
RELATION_HEADER = [f":START_ID({ENTITIES})", f":END_ID({ENTITIES})", ":TYPE", "key", "id", "name", "description",
                   "scenes:int[]", "first_scene:int", "last_scene:int", "persistence", "movie",
                   *EVIDENCE_HEADER]
#: A scene node: its store key is its ID (not stored twice) and its `key` property.
SCENE_HEADER = [f":ID({SCENES})", ":LABEL", "key", "movie", "scene:int", "number", "heading", "years:int[]",
                "marker_kinds:string[]", "marker_texts:string[]", "marker_sources:string[]", *EVIDENCE_HEADER]
PRESENCE_HEADER = [f":START_ID({ENTITIES})", f":END_ID({SCENES})", ":TYPE", "key", "movie", "scene:int", "mode",
                   *EVIDENCE_HEADER]


def _array(values: list[str] | list[int]) -> str:
    items = [str(v) for v in values]
    if any(ARRAY_DELIMITER in item for item in items):
        raise StoreError("a list value contains the control character U+001F, which the CSV export "
                         "uses between list items; remove it from the graph, or export as Cypher")
    return ARRAY_DELIMITER.join(items)


def _cell(value: int | None) -> str:
    return "" if value is None else str(value)


def _evidence_cells(row: NodeRow | RelationRow | SceneRow | PresenceRow) -> list[str]:
    return [_array(row.evidence_scenes), _array(row.evidence_lines), _array(row.evidence_quotes),
            _array(row.evidence_producers)]


def _csv(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def import_command(nodes: list[Path], relationships: list[Path], database: str) -> str:
    """The `neo4j-admin database import full` command for these files (the database named first:
    Neo4j 5.19 and later read a name after the file options as one more file)."""
    return " ".join([
        "neo4j-admin database import full", database, "--overwrite-destination=true",
        "--multiline-fields=true", "--array-delimiter=U+001F",
        *(f"--nodes={shlex.quote(str(p))}" for p in nodes),
        *(f"--relationships={shlex.quote(str(p))}" for p in relationships),
    ])


def export_neo4j_csv(graph: KnowledgeGraph, outdir: str | os.PathLike[str], *,
                     movie: str | None = None, database: str = "neo4j",
                     schema: Schema | None = None) -> tuple[list[Path], list[Refusal]]:
    """Write nodes.csv, relationships.csv, scenes.csv, in_scene.csv, constraints.cypher and
    neo4j-admin-import.txt.

    Args:
        graph: The graph; items the schema does not admit are left out and returned.
        outdir: The folder (created if missing).
        movie: The movie name on every row; the graph's title when None.
        database: The Neo4j database the command imports into.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        The files written and the refused items.

    Raises:
        StoreError: the database name is not valid, or a list value holds U+001F.
    """
    if not _DATABASE.match(database):
        raise StoreError(f"{database!r} is not a Neo4j database name (letters, digits, '.', '-')")
    schema = schema or load_schema()
    rows = prepare_rows(graph, movie=movie, schema=schema)
    folder = Path(outdir).resolve()
    node_rows = [
        [r.id, label, r.key, r.name, r.type, r.description, _array(r.aliases), _array(r.scenes),
         _cell(r.first_scene), _cell(r.last_scene), r.scope, r.movie, *_evidence_cells(r)]
        for label, group in rows.nodes.items() for r in group
    ]
    relation_rows = [
        [r.source, r.target, g.type, r.key, r.id, r.name, r.description, _array(r.scenes),
         _cell(r.first_scene), _cell(r.last_scene), r.persistence, r.movie, *_evidence_cells(r)]
        for g in rows.relations for r in g.rows
    ]
    scene_rows = [
        [r.key, SCENE_LABEL, r.key, r.movie, str(r.scene), r.number, r.heading, _array(r.years),
         _array(r.marker_kinds), _array(r.marker_texts), _array(r.marker_sources), *_evidence_cells(r)]
        for r in rows.scenes
    ]
    presence_rows = [
        [r.source, r.target_key, IN_SCENE, r.key, r.movie, str(r.scene), r.mode, *_evidence_cells(r)]
        for r in rows.presence
    ]
    nodes = write_text_atomic(folder / "nodes.csv", _csv(NODE_HEADER, node_rows))
    relationships = write_text_atomic(folder / "relationships.csv", _csv(RELATION_HEADER, relation_rows))
    scenes = write_text_atomic(folder / "scenes.csv", _csv(SCENE_HEADER, scene_rows))
    presence = write_text_atomic(folder / "in_scene.csv", _csv(PRESENCE_HEADER, presence_rows))
    constraints = write_text_atomic(
        folder / "constraints.cypher", "".join(s.cypher + ";\n" for s in plan_constraints(schema)))
    command = write_text_atomic(folder / IMPORT_COMMAND_FILE, "\n".join([
        (f"# Bulk import of {rows.node_count()} nodes and {rows.relation_count()} relationships "
         f"(movie {rows.movie!r}) into Neo4j 5."),
        f"# Run on the Neo4j host with the database stopped; it REPLACES database {database!r}.",
        import_command([nodes, scenes], [relationships, presence], database),
        "# Then start Neo4j and create the constraints 'kgbuild load' relies on:",
        (f'cypher-shell -u "$NEO4J_USERNAME" -p "$NEO4J_PASSWORD" -d {database} '
         f"-f {shlex.quote(str(constraints))}"),
        "",
    ]))
    return [nodes, relationships, scenes, presence, constraints, command], rows.refused
