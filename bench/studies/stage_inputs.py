"""How well the parsed STAGE `script.json` inputs cover the movies' characters.

For each STAGE movie folder: parse `script.json`, collect the cue inventory (who speaks), and
compare it with the reference Character entities of `extraction_results.json`, every name
mapped through `rename_map.json`. Two numbers per movie:

- cue precision: the share of speeches whose cue names a reference character;
- speaker recall: the share of reference characters that speak in the text (their name or alias
  is a cue) among those whose name occurs in the text at all, weighted by nothing.

Run: `python -m bench.studies.stage_inputs [--data ../shared/data]`.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict

from bench.paths import SHARED_DATA
from kgbuild.model import ElementKind
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema

_CJK = re.compile(r"[\u3400-\u9fff]")
_TITLES = {"MR", "MRS", "MS", "DR", "MISS", "SIR", "THE", "OLD", "YOUNG", "LITTLE", "AGENT"}


class MovieCoverage(BaseModel):
    """Cue coverage for one STAGE movie."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    scenes: int
    entries: int
    speeches: int
    cue_names: int
    cue_precision: float
    speaker_recall: float
    unmatched_cues: list[str]
    silent_characters: list[str]


def _norm(name: str) -> str:
    name = name.upper().replace("’", "'")
    name = re.sub(r"'S\b", "", name)
    return " ".join(re.sub(r"[^\w\s]", " ", name).split())


def reference_characters(movie_dir: Path) -> dict[str, set[str]]:
    """Reference character names (after rename_map) with every surface form seen for each."""
    renames = json.loads((movie_dir / "rename_map.json").read_text(encoding="utf-8"))
    results = json.loads((movie_dir / "extraction_results.json").read_text(encoding="utf-8"))
    person = load_schema().type_for_role("person")  # the STAGE release is in the default schema
    forms: dict[str, set[str]] = {}
    for scene in results.values():
        for ent in scene.get("entities", []):
            if ent.get("type") != person:
                continue
            canonical = renames.get(ent["name"], ent["name"])
            bucket = forms.setdefault(canonical, {canonical})
            bucket.add(ent["name"])
            bucket.update(a for a in ent.get("aliases") or [] if a)
    return forms


def _matches(cue: str, forms: set[str]) -> bool:
    cue_n = _norm(cue)
    for form in forms:
        form_n = _norm(form)
        if not form_n:
            continue
        if cue_n == form_n:
            return True
        if _CJK.search(form_n):
            if len(cue_n) >= 2 and (cue_n in form_n or form_n in cue_n):
                return True
            continue
        tokens = [t for t in form_n.split() if t not in _TITLES and len(t) >= 3]
        cue_tokens = [t for t in cue_n.split() if t not in _TITLES]
        if cue_tokens and (set(cue_tokens) <= set(tokens) or (tokens and set(tokens) <= set(cue_tokens))):
            return True
    return False


def movie_coverage(movie_dir: Path) -> MovieCoverage:
    """Parse one STAGE movie's script.json and measure its cue coverage."""
    screenplay = read_screenplay(movie_dir / "script.json")
    entries = len(json.loads((movie_dir / "script.json").read_text(encoding="utf-8")))
    speeches = Counter(
        e.speaker for s in screenplay.scenes for e in s.elements
        if e.kind is ElementKind.CHARACTER and e.speaker
    )
    reference = reference_characters(movie_dir)
    text = _norm(" ".join(e.text for s in screenplay.scenes for e in s.elements))
    matched_cues = {c for c in speeches if any(_matches(c, f) for f in reference.values())}
    in_text = {
        name: forms for name, forms in reference.items()
        if any(_norm(f) and _norm(f) in text for f in forms)
    }
    speaking = {name for name, forms in in_text.items() if any(_matches(c, forms) for c in speeches)}
    total = sum(speeches.values())
    return MovieCoverage(
        movie=movie_dir.name,
        scenes=len(screenplay.scenes),
        entries=entries,
        speeches=total,
        cue_names=len(speeches),
        cue_precision=sum(speeches[c] for c in matched_cues) / total if total else 0.0,
        speaker_recall=len(speaking) / len(in_text) if in_text else 0.0,
        unmatched_cues=sorted(set(speeches) - matched_cues, key=lambda c: -speeches[c])[:15],
        silent_characters=sorted(set(in_text) - speaking)[:15],
    )


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=SHARED_DATA,
              show_default=True, help="The shared data folder.")
@click.option("--details", is_flag=True, help="List unmatched cues and silent characters.")
def main(data: Path, details: bool) -> None:
    """Report scene counts and cue coverage for every STAGE movie under DATA/stage."""
    out = sys.stdout
    for movie_dir in sorted(p.parent for p in data.glob("stage/*/*/script.json")):
        cov = movie_coverage(movie_dir)
        out.write(
            f"{movie_dir.parent.name[:2]} {cov.movie[:12]}  entries {cov.entries:4d}  scenes "
            f"{cov.scenes:4d}  speeches {cov.speeches:5d}  cues {cov.cue_names:4d}  "
            f"cue precision {cov.cue_precision:.3f}  speaker recall {cov.speaker_recall:.3f}\n"
        )
        if details:
            out.write(f"    unmatched cues: {cov.unmatched_cues}\n")
            out.write(f"    silent characters: {cov.silent_characters}\n")


if __name__ == "__main__":
    main()
