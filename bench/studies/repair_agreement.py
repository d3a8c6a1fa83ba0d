"""Do our repair rules agree with the STAGE release's own repairs?

The release marks relations it swapped to satisfy the type constraints (`auto_fixed: true`,
stored after the swap). For each of them we undo the swap, run our schema repair, and check it
swaps back to exactly the stored relation. For every relation the schema already admits we check
the repair leaves it untouched.

Run: `python -m bench.studies.repair_agreement [--data ../shared/data]`.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field

from bench.paths import SHARED_DATA
from kgbuild.canonicalize.repairs import repair_relation_types
from kgbuild.graph import entity_id, relation_id
from kgbuild.model import Entity, KnowledgeGraph, MovieInfo, Relation
from kgbuild.schema import Schema, load_schema


class RepairAgreement(BaseModel):
    """Counts over all relations of the release files read."""

    model_config = ConfigDict(extra="forbid")

    auto_fixed: int = 0
    reproduced: int = 0
    valid: int = 0
    valid_changed: int = 0
    invalid_in_release: int = 0
    not_reproduced: Counter[str] = Field(default_factory=Counter)

    @property
    def agreement(self) -> float:
        return self.reproduced / self.auto_fixed if self.auto_fixed else 0.0


def _repair_one(subject: tuple[str, str], rtype: str, obj: tuple[str, str], schema: Schema) -> Relation | None:
    """Run the schema repair on a single relation; None when it is dropped."""
    entities = [Entity(id=entity_id(t, n), name=n, type=t) for n, t in (subject, obj)]
    s_id, o_id = entities[0].id, entities[1].id
    rel = Relation(id=relation_id(s_id, rtype, o_id), source=s_id, target=o_id, type=rtype)
    graph = KnowledgeGraph(movie=MovieInfo(title="x", language="en"), entities=entities, relations=[rel])
    out, _ = repair_relation_types(graph, schema=schema, strict=True)
    return out.relations[0] if out.relations else None


def measure(results_files: list[Path], schema: Schema | None = None) -> RepairAgreement:
    """Compare our repairs with the release's over the given extraction_results.json files."""
    schema = schema or load_schema()
    report = RepairAgreement()
    for path in results_files:
        for scene in json.loads(path.read_text(encoding="utf-8")).values():
            if not isinstance(scene, dict):
                continue
            types = {e.get("name"): e.get("type") for e in scene.get("entities") or []}
            for rel in scene.get("relations") or []:
                s, o, rtype = rel.get("subject"), rel.get("object"), rel.get("relation_type")
                if types.get(s) is None or types.get(o) is None or s == o:
                    continue
                subject, obj = (s, types[s]), (o, types[o])
                if rel.get("auto_fixed"):
                    report.auto_fixed += 1
                    fixed = _repair_one(obj, rtype, subject, schema)  # the relation before the swap
                    expected = (entity_id(types[s], s), schema.canonical_relation(rtype), entity_id(types[o], o))
                    if fixed is not None and (fixed.source, fixed.type, fixed.target) == expected:
                        report.reproduced += 1
                    else:
                        report.not_reproduced[f"{types[o]} -{rtype}-> {types[s]}"] += 1
                elif schema.is_admissible(rtype, types[s], types[o]):
                    report.valid += 1
                    fixed = _repair_one(subject, rtype, obj, schema)
                    canonical = schema.canonical_relation(rtype)
                    if fixed is None or (fixed.source, fixed.type, fixed.target) != (
                        entity_id(types[s], s), canonical, entity_id(types[o], o)
                    ):
                        report.valid_changed += 1
                else:
                    report.invalid_in_release += 1
    return report


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=SHARED_DATA,
              show_default=True, help="The shared data folder.")
def main(data: Path) -> None:
    """Print how often our repairs reproduce the release's auto_fixed swaps."""
    files = sorted(data.glob("stage/*/*/extraction_results.json"))
    r = measure(files)
    out = sys.stdout
    out.write(f"files: {len(files)}\n")
    out.write(f"auto_fixed swaps in the release: {r.auto_fixed}; reproduced by our repair: "
              f"{r.reproduced} ({r.agreement:.1%})\n")
    out.write(f"relations valid under the schema: {r.valid}; changed by our repair: {r.valid_changed}\n")
    out.write(f"relations the release left outside the schema: {r.invalid_in_release}\n")
    for pattern, n in r.not_reproduced.most_common(10):
        out.write(f"  not reproduced: {pattern} x{n}\n")


if __name__ == "__main__":
    main()
