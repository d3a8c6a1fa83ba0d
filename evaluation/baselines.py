"""Baselines a user can compare against, built by the same code paths as real graphs.

The *trivial* baseline is the floor: every character cue becomes a Character, every part of a
scene heading's location a Location (with part_of from inner to outer part), and each speaker is
located_at the innermost location of every scene they speak in. No text understanding at all.

The *reference* baseline (a reference scored against itself) needs no builder: run
`kgbuild score REF REF`, which gives 1.0 everywhere.
"""

from __future__ import annotations

from pathlib import Path

from kgbuild.graph import entity_id, relation_id
from kgbuild.model import ElementKind, Entity, KnowledgeGraph, MovieInfo, Provenance, Relation, Screenplay


def _display(name: str) -> str:
    return name.title() if name.isupper() else name


class _GraphBuilder:
    """Collects entities and relations, merging scenes of repeats."""

    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.relations: dict[str, Relation] = {}

    def entity(self, type_name: str, name: str, scene: int) -> str:
        eid = entity_id(type_name, name)
        old = self.entities.get(eid)
        scenes = sorted({*(old.scenes if old else []), scene})
        self.entities[eid] = Entity(id=eid, name=old.name if old else name, type=type_name,
                                    scenes=scenes)
        return eid

    def relation(self, source: str, type_name: str, target: str, scene: int) -> None:
        if source == target:
            return
        rid = relation_id(source, type_name, target)
        old = self.relations.get(rid)
        scenes = sorted({*(old.scenes if old else []), scene})
        self.relations[rid] = Relation(id=rid, source=source, target=target, type=type_name,
                                       scenes=scenes)


def trivial_graph(screenplay: Screenplay, *, version: str = "") -> KnowledgeGraph:
    """The trivial baseline graph of a screenplay (see the module docstring)."""
    builder = _GraphBuilder()
    for scene in screenplay.scenes:
        location_ids = [builder.entity("Location", _display(p), scene.index) for p in scene.location]
        for inner, outer in zip(location_ids[1:], location_ids):
            builder.relation(inner, "part_of", outer, scene.index)
        for el in scene.elements:
            if el.kind is ElementKind.CHARACTER and el.speaker:
                cid = builder.entity("Character", _display(el.speaker), scene.index)
                if location_ids:
                    builder.relation(cid, "located_at", location_ids[-1], scene.index)
    return KnowledgeGraph(
        movie=MovieInfo(title=screenplay.title, language=screenplay.language,
                        source_sha256=screenplay.source.sha256, scenes=len(screenplay.scenes)),
        entities=list(builder.entities.values()),
        relations=list(builder.relations.values()),
        provenance=Provenance(kgbuild_version=version, backend="baseline:trivial"),
    )


def stage_scripts(ref_dir: Path) -> dict[str, Path]:
    """Movie id -> script.json for every STAGE movie folder under ref_dir."""
    return {p.parent.name: p for p in sorted(ref_dir.rglob("script.json"))}
