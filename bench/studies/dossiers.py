"""Dossiers against the STAGE release's own character data (ICRP) of the dev movies.

For every `ICRP/<character>/` of a STAGE movie, the dossier of that character in the offline build
(default options: every line) is compared with the release's files:

- lines: each line of `dialogues.csv` (whitespace-normalised) is held when some dossier line
  contains it, up to rapidfuzz's partial ratio >= 90;
- relations: each character `key_relations.json` names (through `rename_map.json`, repeats up
  to case and punctuation counted once) is held when the dossier relates the two by a relation of
  another type than speaks_to and interacts_with, with evidence. Reported twice: by the graph's
  relations alone, and counting the events the two share (one performs, the other undergoes;
  `shares_event`, which cites the event's line);
- verbatim: every dossier line must be dialogue text of its source lines (whitespace aside) and be
  spoken under a cue whose name is the character's name, an alias, or a word of them (a count of
  violations).

The ICRP character is found by its folder name (underscores as spaces) through the rename map,
as a name or alias of a graph character, or else as the only character with that word in its
names (of several, the only one whose name has no other word: 'Cliff Brumby' is 'Brumby', not
'Mrs Brumby'). Run `python -m bench.studies.dossiers` (`--builds DIR` reuses or writes the builds of
`python -m bench.studies.presence`); exit status 1 when a language misses a target
(lines >= 90%, relations >= 70%).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from bench.paths import SHARED_DATA
from kgbuild.errors import InputError
from kgbuild.evaluation.reference import resolve_rename
from kgbuild.graph import canonical_key
from kgbuild.model import Entity, KnowledgeGraph, Screenplay
from kgbuild.offline.characters import cue_names
from kgbuild.readers.cues import normalize_name
from kgbuild.schema import load_schema
from kgbuild.story.dossier import Dossier, build_dossier
from kgbuild.story.names import find_entity

TARGET_LINES = 0.90
TARGET_RELATIONS = 0.70
#: Relation types that do not count as a key relation held.
WEAK_TYPES = frozenset({"speaks_to", "interacts_with"})
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[\w'’-]{3,}")


class CharacterScore(BaseModel):
    """One ICRP character's dossier against the release's files."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    language: str
    character: str = Field(description="The ICRP folder name.")
    found_as: str | None = Field(description="The graph character it was found as; None when none.")
    lines: int = 0
    lines_held: int = 0
    relations: int = 0
    relations_held: int = 0
    relations_held_with_events: int = 0
    dossier_lines: int = 0
    not_verbatim: int = 0
    missed_lines: list[str] = Field(default_factory=list)
    missed_relations: list[str] = Field(default_factory=list)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _renames(movie_dir: Path) -> dict[str, str]:
    path = movie_dir / "rename_map.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {str(k): str(v) for k, v in data.items()}


def _words(forms: list[str]) -> set[str]:
    return {w.casefold() for f in forms for w in _WORD.findall(f)}


def _person() -> str:
    """The STAGE schema's character type (ICRP is about STAGE builds)."""
    return load_schema().type_for_role("person") or ""


def find_character(graph: KnowledgeGraph, folder_name: str, renames: dict[str, str]) -> Entity | None:
    """The graph character an ICRP folder names (see the module docstring), or None."""
    person = _person()
    wanted = [folder_name.replace("_", " "), resolve_rename(folder_name.replace("_", " "), renames)]
    for name in wanted:
        try:
            return find_entity(graph, name, types=(person,), what="character")
        except InputError:
            continue
    characters = [e for e in graph.entities if e.type == person]
    words = _words(wanted)
    hits = [e for e in characters if words & _words([e.name, *e.aliases])]
    within = [e for e in hits if _words([e.name]) <= words]
    if len(within) == 1:
        return within[0]
    return hits[0] if len(hits) == 1 else None


def _forms(entity_names: list[str]) -> set[str]:
    return {canonical_key(n) for n in entity_names if n}


def relation_held(dossier: Dossier, graph: KnowledgeGraph, name: str, *, with_events: bool) -> bool:
    """True when the dossier relates its character to `name` (a reference character's name) by
    a relation of another type than speaks_to and interacts_with, with evidence."""
    key = canonical_key(name)
    words = _words([name])
    by_name = {e.name: e for e in graph.entities if e.type == _person()}
    for item in dossier.relations:
        if item.kind in WEAK_TYPES or not item.evidence or (item.kind == "shares_event" and not with_events):
            continue
        other = by_name.get(item.other)
        forms = [item.other, *(other.aliases if other else [])]
        if key in _forms(forms) or (len(words) >= 1 and words <= _words(forms) and len(_words(forms)) > 0):
            return True
    return False


def verbatim_problems(dossier: Dossier, screenplay: Screenplay, character: Entity) -> int:
    """Dossier lines that are not verbatim dialogue of their source lines (whitespace aside), or
    spoken under a cue whose name is not the character's name, an alias or a word of them."""
    scenes = {s.index: s for s in screenplay.scenes}
    names = {normalize_name(f) for f in (character.name, *character.aliases)}
    words = {w for n in names for w in n.split()}
    problems = 0
    for line in dossier.lines:
        first, last = line.lines
        scene = scenes.get(line.scene)
        dialogue = " ".join(el.text for el in (scene.elements if scene else []) if el.kind.value == "dialogue"
                            and first <= el.line_start and el.line_end <= last)
        parts = {normalize_name(p) for p in cue_names(line.speaker)}
        if _norm(line.text) not in _norm(dialogue) or not any(p in names or p in words for p in parts):
            problems += 1
    return problems


def score_character(graph: KnowledgeGraph, screenplay: Screenplay, movie_dir: Path, folder: Path,
                    *, examples: int = 0) -> CharacterScore:
    """One ICRP character's scores (see the module docstring)."""
    renames = _renames(movie_dir)
    score = CharacterScore(movie=movie_dir.name, language=movie_dir.parent.name, character=folder.name,
                           found_as=None)
    with (folder / "dialogues.csv").open(encoding="utf-8-sig", newline="") as f:
        wanted_lines = [_norm(row.get("text") or "") for row in csv.DictReader(f)]
    wanted_lines = [t for t in wanted_lines if t]
    relations = json.loads((folder / "key_relations.json").read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for rel in relations:
        name = resolve_rename(str(rel.get("character") or "").strip(), renames)
        if name:
            names.setdefault(canonical_key(name), name)
    score.lines, score.relations = len(wanted_lines), len(names)
    character = find_character(graph, folder.name, renames)
    if character is None:
        score.missed_lines = wanted_lines[:examples]
        score.missed_relations = list(names.values())[:examples]
        return score
    dossier = build_dossier(graph, screenplay, character.id)
    score.found_as, score.dossier_lines = character.name, len(dossier.lines)
    spoken = [_norm(line.text) for line in dossier.lines]
    for text in wanted_lines:
        best = process.extractOne(text, spoken, scorer=fuzz.partial_ratio, score_cutoff=90) if spoken else None
        if best is not None:
            score.lines_held += 1
        elif len(score.missed_lines) < examples:
            score.missed_lines.append(text)
    for name in names.values():
        if relation_held(dossier, graph, name, with_events=False):
            score.relations_held += 1
        if relation_held(dossier, graph, name, with_events=True):
            score.relations_held_with_events += 1
        elif len(score.missed_relations) < examples:
            score.missed_relations.append(name)
    score.not_verbatim = verbatim_problems(dossier, screenplay, character)
    return score


def _share(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.3f}" if b else "-"


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=SHARED_DATA, show_default=True,
              help="The shared data folder (STAGE movies under DATA/stage/<language>/<movie>).")
@click.option("--builds", type=click.Path(file_okay=False, path_type=Path),
              help="Reuse DIR/<movie id>/graph.json and screenplay.json; write the missing builds there.")
@click.option("--errors", type=click.IntRange(min=0), default=0, help="List this many missed lines and relations.")
@click.option("--json", "as_json", type=click.Path(dir_okay=False, path_type=Path), help="Write the scores here.")
def main(data: Path, builds: Path | None, errors: int, as_json: Path | None) -> None:
    """Dossiers of the ICRP characters of the STAGE dev movies against the release's lines and key relations."""
    from bench.studies.presence import build_for

    rows: list[CharacterScore] = []
    out = sys.stdout
    for movie_dir in sorted(p.parent for p in data.glob("stage/*/*/ICRP")):
        graph, screenplay = build_for(movie_dir, builds)
        for folder in sorted(p for p in (movie_dir / "ICRP").iterdir() if (p / "dialogues.csv").is_file()):
            s = score_character(graph, screenplay, movie_dir, folder, examples=errors)
            rows.append(s)
            out.write(f"{s.language:8s} {s.movie[:10]} {s.character[:18]:18s} as {str(s.found_as)[:20]:20s} "
                      f"lines {_share(s.lines_held, s.lines):18s} relations {_share(s.relations_held, s.relations):16s}"
                      f" with events {_share(s.relations_held_with_events, s.relations):16s} "
                      f"not verbatim {s.not_verbatim}/{s.dossier_lines}\n")
            if errors:
                out.write(f"    missed lines: {s.missed_lines}\n    missed relations: {s.missed_relations}\n")
    failed = False
    for language in sorted({r.language for r in rows}):
        group = [r for r in rows if r.language == language]
        lines = sum(r.lines_held for r in group), sum(r.lines for r in group)
        rel = sum(r.relations_held for r in group), sum(r.relations for r in group)
        rel_events = sum(r.relations_held_with_events for r in group)
        bad = sum(r.not_verbatim for r in group), sum(r.dossier_lines for r in group)
        out.write(f"{language}: lines {_share(*lines)} (target {TARGET_LINES:.2f}); relations {_share(*rel)}, "
                  f"with shared events {_share(rel_events, rel[1])} (target {TARGET_RELATIONS:.2f}); "
                  f"dossier lines not verbatim {bad[0]} of {bad[1]}\n")
        failed |= (lines[0] < TARGET_LINES * lines[1]) or (rel_events < TARGET_RELATIONS * rel[1]) or bad[0] > 0
    if as_json is not None:
        as_json.write_text(json.dumps([r.model_dump() for r in rows], indent=1, ensure_ascii=False), encoding="utf-8")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
