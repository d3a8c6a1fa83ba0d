"""Who is in each scene: the offline build's scene layer against the STAGE references.

For every STAGE movie (its `script.json`, one scene per entry), the characters the build records
in scene N (any mode: present, offscreen, away, mentioned) are compared with the Character
entities of the reference's `scene_N` / `scene_N_part_M` extractions of that scene, names
mapped through `rename_map.json`. Only named characters count, on both sides: a description
('someone else', 'boys playing cricket', 'Branch Manager', '日本兵') is left out
(`kgbuild.extraction.descriptors.is_descriptor`). A predicted character matches a reference name when
one of its forms (name, aliases) equals the name or a rename-map alias of it up to case and
punctuation (`canonical_key`), or, failing that, when exactly one name of the scene shares a
word of three letters or more with it ('Carl' / 'Carl Showalter'); one-to-one within a scene.
Scores are micro over scenes: precision, recall and F1 per movie and per language.

Run `python -m bench.studies.presence` (`--builds DIR` reuses `DIR/<movie id>/graph.json`
and writes missing builds there; exit status 1 when a language's micro F1 is below 0.80).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections import defaultdict
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict

from bench.paths import SHARED_DATA
from kgbuild.atomic import write_text_atomic
from kgbuild.evaluation.metrics import PRF
from kgbuild.evaluation.reference import resolve_rename
from kgbuild.extraction.descriptors import is_descriptor
from kgbuild.graph import canonical_key, load_graph, save_graph
from kgbuild.model import KnowledgeGraph, Screenplay
from kgbuild.readers import load_screenplay

logger = logging.getLogger(__name__)

#: The target micro F1 per language.
TARGET_F1 = 0.80
_SCENE = re.compile(r"^scene_(\d+)(?:_part_\d+)?$")
_WORD = re.compile(r"[\w'’-]{3,}")


class MoviePresence(BaseModel):
    """One movie's per-scene comparison."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    language: str
    scenes: int
    counts: PRF
    missed: list[str] = []  # 'scene 3: Marge', a few
    extra: list[str] = []


def reference_scenes(movie_dir: Path) -> dict[int, dict[str, set[str]]]:
    """Scene index -> named reference characters of that scene -> their forms (canonical keys).

    Args:
        movie_dir: A STAGE movie folder (extraction_results.json, rename_map.json).

    Returns:
        Per scene, each named character (its name after the rename map) with the keys of its
        name and of every rename-map alias that leads to it.
    """
    results = json.loads((movie_dir / "extraction_results.json").read_text(encoding="utf-8"))
    renames_path = movie_dir / "rename_map.json"
    renames: dict[str, str] = json.loads(renames_path.read_text(encoding="utf-8")) if renames_path.is_file() else {}

    aliases: dict[str, set[str]] = defaultdict(set)
    for alias in renames:
        aliases[resolve_rename(alias, renames)].add(canonical_key(alias))
    out: dict[int, dict[str, set[str]]] = defaultdict(dict)
    for key, part in results.items():
        m = _SCENE.match(key)
        if not m or not isinstance(part, dict):
            continue
        for ent in part.get("entities") or []:
            if not isinstance(ent, dict) or ent.get("type") != "Character" or not isinstance(ent.get("name"), str):
                continue
            name = resolve_rename(ent["name"].strip(), renames)
            if name and not is_descriptor(name):
                out[int(m.group(1))][name] = {canonical_key(name), *aliases[name]}
    return out


def predicted_scenes(graph: KnowledgeGraph) -> dict[int, dict[str, set[str]]]:
    """Scene index -> named characters the scene layer records there (any mode) -> their forms."""
    entities = {e.id: e for e in graph.entities}
    out: dict[int, dict[str, set[str]]] = defaultdict(dict)
    for record in graph.scenes:
        for p in record.presence:
            e = entities.get(p.character)
            if e is not None and not is_descriptor(e.name):
                out[record.index][e.name] = {canonical_key(f) for f in (e.name, *e.aliases)}
    return out


def _words(forms: set[str]) -> set[str]:
    return {w for f in forms for w in _WORD.findall(f.replace("_", " "))}


def match_scene(predicted: dict[str, set[str]], reference: dict[str, set[str]]) -> tuple[list[tuple[str, str]],
                                                                                       list[str], list[str]]:
    """One scene's one-to-one matches (predicted, reference), and the unmatched of each side."""
    pairs: list[tuple[str, str]] = []
    left, right = dict(predicted), dict(reference)
    for p, forms in list(left.items()):
        hit = next((r for r, keys in right.items() if forms & keys), None)
        if hit is not None:
            pairs.append((p, hit))
            del left[p], right[hit]
    for p, forms in list(left.items()):
        words = _words(forms)
        hits = [r for r, keys in right.items() if words & _words(keys)]
        if len(hits) == 1 and sum(1 for q in left.values() if _words(q) & _words(right[hits[0]])) == 1:
            pairs.append((p, hits[0]))
            del left[p], right[hits[0]]
    return pairs, sorted(left), sorted(right)


def compare_movie(graph: KnowledgeGraph, movie_dir: Path, *, examples: int = 8) -> MoviePresence:
    """The per-scene comparison of one movie's graph with its STAGE reference."""
    reference = reference_scenes(movie_dir)
    predicted = predicted_scenes(graph)
    counts = PRF()
    missed: list[str] = []
    extra: list[str] = []
    for scene in sorted({s.index for s in graph.scenes} | set(reference)):
        pairs, fp, fn = match_scene(predicted.get(scene, {}), reference.get(scene, {}))
        counts = counts + PRF(tp=len(pairs), fp=len(fp), fn=len(fn))
        missed += [f"scene {scene}: {n}" for n in fn]
        extra += [f"scene {scene}: {n}" for n in fp]
    return MoviePresence(movie=movie_dir.name, language=movie_dir.parent.name, scenes=len(graph.scenes),
                         counts=counts, missed=missed[:examples], extra=extra[:examples])


def build_for(movie_dir: Path, builds: Path | None) -> tuple[KnowledgeGraph, Screenplay]:
    """The offline build of a STAGE movie's script.json: read from `builds/<movie id>/` when it is
    there (with a scene layer), else built now (and written there when `builds` is given)."""
    folder = builds / movie_dir.name if builds is not None else None
    if folder is not None and (folder / "graph.json").is_file() and (folder / "screenplay.json").is_file():
        graph = load_graph(folder / "graph.json")
        if graph.scenes:
            return graph, load_screenplay(folder / "screenplay.json")
    from kgbuild.pipeline import run_build

    result = run_build(movie_dir / "script.json")
    if folder is not None:
        write_text_atomic(folder / "screenplay.json", result.screenplay.model_dump_json())
        save_graph(result.graph, folder / "graph.json")
    return result.graph, result.screenplay


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=SHARED_DATA, show_default=True,
              help="The shared data folder (STAGE movies under DATA/stage/<language>/<movie>).")
@click.option("--builds", type=click.Path(file_okay=False, path_type=Path),
              help="Reuse DIR/<movie id>/graph.json (offline builds); write the missing ones there.")
@click.option("--errors", type=click.IntRange(min=0), default=0, help="List this many misses and extras per movie.")
@click.option("--json", "as_json", type=click.Path(dir_okay=False, path_type=Path), help="Write the numbers here.")
def main(data: Path, builds: Path | None, errors: int, as_json: Path | None) -> None:
    """Per-scene characters of the offline builds against the STAGE references, micro F1 per language."""
    from kgbuild.readers.stage_json import stage_title

    if builds is not None:
        builds.mkdir(parents=True, exist_ok=True)
    rows: list[MoviePresence] = []
    out = sys.stdout
    for movie_dir in sorted(p.parent for p in data.glob("stage/*/*/extraction_results.json")):
        row = compare_movie(build_for(movie_dir, builds)[0], movie_dir, examples=errors)
        rows.append(row)
        c = row.counts
        out.write(f"{row.language:8s} {stage_title(movie_dir)[:28]:28s} {row.movie[:10]}  scenes {row.scenes:4d}  "
                  f"P {c.precision:.3f}  R {c.recall:.3f}  F1 {c.f1:.3f}  (tp {c.tp}, fp {c.fp}, fn {c.fn})\n")
        if errors:
            out.write(f"    missed: {row.missed}\n    extra: {row.extra}\n")
    failed = False
    totals: dict[str, PRF] = {}
    for language in sorted({r.language for r in rows}):
        total = PRF()
        for r in rows:
            if r.language == language:
                total = total + r.counts
        totals[language] = total
        failed |= total.f1 < TARGET_F1
        out.write(f"{language}: micro P {total.precision:.3f}  R {total.recall:.3f}  F1 {total.f1:.3f}  "
                  f"(target F1 >= {TARGET_F1:.2f})\n")
    if as_json is not None:
        as_json.write_text(json.dumps({"movies": [r.model_dump() for r in rows],
                                       "languages": {k: {**v.model_dump(), "precision": v.precision,
                                                         "recall": v.recall, "f1": v.f1}
                                                     for k, v in totals.items()}}, indent=1, ensure_ascii=False),
                           encoding="utf-8")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
