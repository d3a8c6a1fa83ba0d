"""Baselines a user can compare against, built by the same code paths as real graphs.

The *trivial* baseline is the floor: every character cue becomes a Character, every part of a
scene heading's location a Location (with part_of from inner to outer part), and each speaker is
located_at the innermost location of every scene they speak in. No text understanding at all.

The *reference* baseline (a reference scored against itself) needs no builder: run
`kgbuild score REF REF`, which gives 1.0 everywhere.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from kgbuild.graph import GraphBuilder
from kgbuild.model import ElementKind, KnowledgeGraph, Screenplay
from kgbuild.schema import Schema, load_schema


def _display(name: str) -> str:
    return name.title() if name.isupper() else name


def trivial_graph(screenplay: Screenplay, *, version: str = "", schema: Schema | None = None) -> KnowledgeGraph:
    """The trivial baseline graph of a screenplay (see the module docstring), in the types of the
    schema's roles 'person' and 'place' (the default STAGE-KG schema when None; a role it lacks
    gives nothing)."""
    schema = schema or load_schema()
    person, place = schema.type_for_role("person"), schema.type_for_role("place")
    builder = GraphBuilder()
    for scene in screenplay.scenes:
        location_ids = [builder.entity(place, _display(p), scene.index) for p in scene.location] if place else []
        for outer, inner in pairwise(location_ids):
            builder.relation(inner, "part_of", outer, scene.index)
        for el in scene.elements:
            if person and el.kind is ElementKind.CHARACTER and el.speaker:
                cid = builder.entity(person, _display(el.speaker), scene.index)
                if location_ids:
                    builder.relation(cid, "located_at", location_ids[-1], scene.index)
    return builder.to_graph(screenplay, backend="baseline:trivial", version=version)


def stage_scripts(ref_dir: Path) -> dict[str, Path]:
    """Movie id -> script.json for every STAGE movie folder under ref_dir."""
    return {p.parent.name: p for p in sorted(ref_dir.rglob("script.json"))}
