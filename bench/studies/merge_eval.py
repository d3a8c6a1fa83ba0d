"""Merge quality: pairwise precision, recall and F1 over mention pairs, against two golds.

(a) STAGE movies: the mentions are the distinct raw names of the per-scene reference entities
    (non-event types), plus the rename-map aliases those entities carry; the gold cluster of a
    mention is its name mapped through `rename_map.json`, compared by `canonical_key`
    (the identity the STAGE-KG reference loader uses).
(b) MovieCoref: the mentions are the distinct non-pronoun surface forms (whitespace collapsed)
    of each movie's human coreference labels; the gold cluster is the `entityLabel` the form
    carries most often. Each form carries the scenes of the movie's screenplay it occurs in, and
    the screenplay's speakers and lower-case words bind the merge as in a build.

A wrong merge costs more than a missed one, so precision and recall are always reported
together. Run `python -m bench.studies.merge_eval` (exit status 1 when a target is missed).
"""

from __future__ import annotations

import bisect
import csv
import functools
import json
import logging
import sys
from collections import Counter, defaultdict
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field

from bench.paths import SHARED_DATA
from kgbuild.canonicalize.constraints import SpeakerIndex
from kgbuild.canonicalize.merge import MergeOptions, plan_merges
from kgbuild.canonicalize.normalize import normalize_name
from kgbuild.embeddings import Embedder, default_embedder
from kgbuild.graph import canonical_key
from kgbuild.model import Entity, Scope, Screenplay
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema

logger = logging.getLogger(__name__)

#: Offline targets: (min precision, min F1) for the STAGE and MovieCoref evaluations.
TARGETS = {"stage": (0.90, 0.70), "moviecoref": (0.90, 0.75)}


class MentionSet(BaseModel):
    """Mentions to cluster and their gold cluster labels."""

    model_config = ConfigDict(extra="forbid")

    name: str
    mentions: list[Entity]
    gold: list[str] = Field(description="Gold cluster label of each mention.")
    script: str | None = Field(default=None, description="The screenplay, for the hard constraints.")


class PairScore(BaseModel):
    """Pairwise clustering scores of one mention set."""

    model_config = ConfigDict(extra="forbid")

    name: str
    mentions: int
    gold_pairs: int
    predicted_pairs: int
    correct_pairs: int

    @property
    def precision(self) -> float | None:
        """None when nothing was merged (precision undefined)."""
        return self.correct_pairs / self.predicted_pairs if self.predicted_pairs else None

    @property
    def recall(self) -> float:
        return self.correct_pairs / self.gold_pairs if self.gold_pairs else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p and p + r else 0.0


def _pairs(counts: Counter) -> int:
    return sum(n * (n - 1) // 2 for n in counts.values())


def pair_score(name: str, predicted: list[int], gold: list[str]) -> PairScore:
    """Pairwise counts of a predicted clustering (label per mention) against gold labels."""
    return PairScore(name=name, mentions=len(gold), gold_pairs=_pairs(Counter(gold)),
                     predicted_pairs=_pairs(Counter(predicted)),
                     correct_pairs=_pairs(Counter(zip(predicted, gold, strict=True))))


def pooled(name: str, scores: list[PairScore]) -> PairScore:
    """All pairs of several sets counted together (micro)."""
    return PairScore(name=name, mentions=sum(s.mentions for s in scores),
                     gold_pairs=sum(s.gold_pairs for s in scores),
                     predicted_pairs=sum(s.predicted_pairs for s in scores),
                     correct_pairs=sum(s.correct_pairs for s in scores))


def macro(scores: list[PairScore]) -> tuple[float, float, float]:
    """Mean precision (over sets where it is defined), recall and F1."""
    ps = [s.precision for s in scores if s.precision is not None]
    n = len(scores) or 1
    return (sum(ps) / len(ps) if ps else 0.0, sum(s.recall for s in scores) / n,
            sum(s.f1 for s in scores) / n)


def _resolve(name: str, renames: dict[str, str]) -> str:
    """Follow the rename map; names are looked up by `canonical_key`, the identity of the gold."""
    seen = {canonical_key(name)}
    while canonical_key(name) in renames and canonical_key(renames[canonical_key(name)]) not in seen:
        name = renames[canonical_key(name)]
        seen.add(canonical_key(name))
    return name


def stage_mentions(movie_dir: Path) -> MentionSet:
    """The mentions and gold of one STAGE movie folder (see the module docstring)."""
    schema = load_schema()
    raw_renames = json.loads((movie_dir / "rename_map.json").read_text(encoding="utf-8"))
    renames = {canonical_key(k): v for k, v in raw_renames.items()}
    results = json.loads((movie_dir / "extraction_results.json").read_text(encoding="utf-8"))
    types: dict[str, Counter] = defaultdict(Counter)
    descriptions: dict[str, str] = {}
    scenes: dict[str, set[int]] = defaultdict(set)
    scopes: dict[str, set[str]] = defaultdict(set)
    carried: dict[str, Counter] = defaultdict(Counter)
    for key, scene in results.items():
        if not isinstance(scene, dict):
            continue
        index = int(key.rsplit("_", 1)[-1]) if key.rsplit("_", 1)[-1].isdigit() else 0
        for ent in scene.get("entities") or []:
            name, etype = ent.get("name"), ent.get("type")
            if not isinstance(name, str) or not name.strip() or etype not in schema.entity_type_names() \
                    or schema.is_event_centric_entity(etype):
                continue
            types[name][etype] += 1
            scenes[name].add(index)
            scopes[name].add(ent.get("scope") or "local")
            if len(ent.get("description") or "") > len(descriptions.get(name, "")):
                descriptions[name] = ent["description"]
            for alias in ent.get("aliases") or []:
                if isinstance(alias, str) and alias in raw_renames and alias not in types:
                    carried[alias][etype] += 1
                    scopes[alias].add(ent.get("scope") or "local")
    names = sorted(types) + sorted(a for a in carried if a not in types)
    mentions, gold = [], []
    for i, name in enumerate(names):
        counts = types.get(name) or carried[name]
        mentions.append(Entity(id=f"m{i}", name=name, type=counts.most_common(1)[0][0],
                               description=descriptions.get(name, ""), scenes=sorted(scenes.get(name, ())),
                               scope=Scope.GLOBAL if "global" in scopes[name] else Scope.LOCAL))
        gold.append(canonical_key(_resolve(name, renames)))
    script = movie_dir / "script.json"
    return MentionSet(name=movie_dir.name, mentions=mentions, gold=gold,
                      script=str(script) if script.is_file() else None)


def _is_pronoun(row: dict[str, str], surface: str) -> bool:
    flag = next((v for k, v in row.items() if k.upper() == "PRONOUN"), "false")
    return flag.strip().lower() == "true" or normalize_name(surface).reason == "pronoun"


@functools.cache
def _screenplay(path: str) -> Screenplay:
    """A screenplay parsed once per run: the scene mapping and the speaker constraints both need it."""
    return read_screenplay(path)


def _scene_of_offsets(screenplay_txt: Path, offsets: list[int]) -> list[int | None]:
    """The scene index holding each character offset of a screenplay text file (None before the first)."""
    text = screenplay_txt.read_text(encoding="utf-8")
    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    scenes = _screenplay(str(screenplay_txt)).scenes
    firsts = [scene.line_span[0] for scene in scenes]
    out: list[int | None] = []
    for offset in offsets:
        line = bisect.bisect_right(line_starts, offset)
        at = bisect.bisect_right(firsts, line) - 1
        out.append(scenes[at].index if at >= 0 else None)
    return out


def moviecoref_mentions(labels_csv: Path, screenplay_txt: Path | None = None) -> MentionSet:
    """The mentions and gold of one MovieCoref label file (see the module docstring); with its
    screenplay, each mention also carries the scenes its form occurs in and the speaker constraints."""
    labels: dict[str, Counter] = defaultdict(Counter)
    occurrences: list[tuple[str, int]] = []
    with labels_csv.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            surface = " ".join(row["surface"].split())
            if surface and not _is_pronoun(row, surface):
                labels[surface][" ".join(row["entityLabel"].split())] += 1
                occurrences.append((surface, int(row["begin"])))
    scenes: dict[str, set[int]] = defaultdict(set)
    if screenplay_txt is not None:
        offsets = [offset for _, offset in occurrences]
        for (surface, _), scene in zip(occurrences, _scene_of_offsets(screenplay_txt, offsets), strict=True):
            if scene is not None:
                scenes[surface].add(scene)
    names = sorted(labels)
    person = load_schema().type_for_role("person") or ""  # MovieCoref labels characters only
    mentions = [Entity(id=f"m{i}", name=name, type=person, scope=Scope.GLOBAL,
                       scenes=sorted(scenes.get(name, ()))) for i, name in enumerate(names)]
    gold = [labels[name].most_common(1)[0][0] for name in names]
    return MentionSet(name=labels_csv.stem, mentions=mentions, gold=gold,
                      script=str(screenplay_txt) if screenplay_txt is not None else None)


def predict(mention_set: MentionSet, embedder: Embedder, options: MergeOptions | None = None) -> list[int]:
    """Offline merge of a mention set; returns a cluster label per mention."""
    speakers = None
    if mention_set.script:
        speakers = SpeakerIndex.from_screenplay(_screenplay(mention_set.script))
    plan = plan_merges(mention_set.mentions, speakers=speakers, embedder=embedder, client=None,
                       options=options)
    label = {m.id: i for i, m in enumerate(mention_set.mentions)}
    for g, group in enumerate(plan.groups):
        for member in group.members:
            label[member] = len(mention_set.mentions) + g
    return [label[m.id] for m in mention_set.mentions]


def evaluate(sets: list[MentionSet], embedder: Embedder, options: MergeOptions | None = None) -> list[PairScore]:
    """Score the offline merge on every mention set."""
    return [pair_score(s.name, predict(s, embedder, options), s.gold) for s in sets]


def pair_errors(mention_set: MentionSet, predicted: list[int]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The wrongly merged (false positive) and the missed (false negative) name pairs of one set."""
    names = [m.name for m in mention_set.mentions]
    false_pos, false_neg = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            same_pred, same_gold = predicted[i] == predicted[j], mention_set.gold[i] == mention_set.gold[j]
            if same_pred and not same_gold:
                false_pos.append((names[i], names[j]))
            elif same_gold and not same_pred:
                false_neg.append((names[i], names[j]))
    return false_pos, false_neg


def format_errors(mention_set: MentionSet, predicted: list[int], limit: int) -> list[str]:
    """Up to `limit` false positive and false negative pairs of one set, as text lines."""
    false_pos, false_neg = pair_errors(mention_set, predicted)
    lines = [f"{mention_set.name}: {len(false_pos)} FP, {len(false_neg)} FN"]
    lines += [f"  FP {a!r} + {b!r}" for a, b in false_pos[:limit]]
    lines += [f"  FN {a!r} + {b!r}" for a, b in false_neg[:limit]]
    return lines


def stage_sets(data: Path) -> list[MentionSet]:
    """Every STAGE movie folder under data/stage/{English,Chinese}."""
    folders = sorted(p for lang in ("English", "Chinese") for p in (data / "stage" / lang).glob("*")
                     if (p / "extraction_results.json").is_file())
    return [stage_mentions(p) for p in folders]


def moviecoref_sets(data: Path) -> list[MentionSet]:
    """Every MovieCoref label file under data/external/moviecoref/labels."""
    root = data / "external" / "moviecoref"
    sets = []
    for labels in sorted((root / "labels").glob("*.csv")):
        script = root / "screenplay" / f"{labels.stem}.txt"
        sets.append(moviecoref_mentions(labels, script if script.is_file() else None))
    return sets


def format_scores(title: str, scores: list[PairScore]) -> list[str]:
    """A text table: per set, then pooled (micro) and macro."""
    lines = [title, f"{'set':<44} {'mentions':>8} {'gold':>6} {'pred':>6} {'ok':>6} {'P':>6} {'R':>6} {'F1':>6}"]
    for s in [*scores, pooled("pooled (micro)", scores)]:
        p = "n/a" if s.precision is None else f"{s.precision:.3f}"
        lines.append(f"{s.name[:44]:<44} {s.mentions:>8} {s.gold_pairs:>6} {s.predicted_pairs:>6} "
                     f"{s.correct_pairs:>6} {p:>6} {s.recall:>6.3f} {s.f1:>6.3f}")
    mp, mr, mf = macro(scores)
    lines.append(f"{'macro':<44} {'':>8} {'':>6} {'':>6} {'':>6} {mp:>6.3f} {mr:>6.3f} {mf:>6.3f}")
    return lines


def meets(scores: list[PairScore], target: tuple[float, float]) -> bool:
    """Pooled precision and F1 at or above the target."""
    total = pooled("all", scores)
    return (total.precision or 0.0) >= target[0] and total.f1 >= target[1]


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=SHARED_DATA,
              show_default=True, help="The shared data folder.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Embedding cache folder.")
@click.option("--only", type=click.Choice(("stage", "moviecoref")), multiple=True,
              help="Score only this gold set (repeatable).")
@click.option("--errors", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also list up to N wrongly merged and N missed pairs per set.")
def main(data: Path, cache_dir: Path | None, only: tuple[str, ...], errors: int) -> None:
    """Print merge pairwise precision, recall and F1 on (a) STAGE and (b) MovieCoref.

    Exit status 1 when a set misses its target.
    """
    embedder = default_embedder(cache_dir)
    ok = True
    for which in only or ("stage", "moviecoref"):
        sets = stage_sets(data) if which == "stage" else moviecoref_sets(data)
        predictions = [predict(s, embedder) for s in sets]
        scores = [pair_score(s.name, p, s.gold) for s, p in zip(sets, predictions, strict=True)]
        if errors:
            click.echo("\n".join(line for s, p in zip(sets, predictions, strict=True)
                                  for line in format_errors(s, p, errors)))
        target = TARGETS[which]
        passed = meets(scores, target)
        ok = ok and passed
        title = f"({'a' if which == 'stage' else 'b'}) {which}: target P >= {target[0]}, F1 >= {target[1]}"
        click.echo("\n".join([*format_scores(title, scores), f"target {'met' if passed else 'MISSED'} (pooled)", ""]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
