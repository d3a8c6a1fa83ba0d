"""Judging `kgbuild knows`: sample answers, write a sheet a reader judges, tally the verdicts.

A sample draws (character, scene N, item) questions from a build, stratified by label (as many
future, past-absence and past-presence answers), seeded: the characters are the graph's six of
highest degree, the scene N one they are in, the item an event or entity with the wanted label
(events first drawn three times in five). The sheet shows, per answer, the question, the label,
why, the evidence and the text of the scenes it cites: the knowing scene, the item's first scene,
and for past-absence the item's scene at or before N. The reader gets the fixed instructions
`bench/studies/knows_judge.md` (the sheet's header) and writes, per answer, `right`, `wrong` or
`cant_tell` with a reason.

    python -m bench.studies.knows_sheet OUTDIR -o DIR            # DIR/knows_sheet.md, knows_answers.jsonl
    python -m bench.studies.knows_sheet OUTDIR -o DIR --verdicts V   # tally V (JSONL or the marked sheet)

Example:
    >>> answers = sample_answers(graph, n=30, seed=0)  # doctest: +SKIP
    >>> tally(answers, verdicts).right_share  # doctest: +SKIP
    0.93
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.atomic import write_text_atomic
from kgbuild.errors import InputError
from kgbuild.evaluation.audit.scenes import scene_text
from kgbuild.graph import graph_file, load_graph
from kgbuild.model import KnowledgeGraph, PresenceMode, Screenplay
from kgbuild.readers import load_screenplay
from kgbuild.schema import load_schema
from kgbuild.story.dossier import top_characters
from kgbuild.story.knows import ItemKnowledge, Label, knows
from kgbuild.story.order import Order

JUDGE_TEXT = Path(__file__).with_name("knows_judge.md")
VERDICTS = ("right", "wrong", "cant_tell")
_SHEET_VERDICT = re.compile(r"^## (K\d+)\b.*?^Verdict \(right / wrong / cant_tell\):[ \t]*(\S*)[ \t]*\n"
                            r"Reason:[ \t]*(.*?)$", re.MULTILINE | re.DOTALL)


class Answer(BaseModel):
    """One sampled answer of `kgbuild knows`."""

    model_config = ConfigDict(extra="forbid")

    id: str
    character: str
    scene: int
    order: Order
    item: ItemKnowledge


class Verdict(BaseModel):
    """A reader's verdict on one answer."""

    model_config = ConfigDict(extra="forbid")

    id: str
    verdict: str = Field(description="right, wrong or cant_tell.")
    reason: str = ""


class Tally(BaseModel):
    """Verdicts counted per label and in all."""

    model_config = ConfigDict(extra="forbid")

    judged: int
    right: int
    per_label: dict[str, tuple[int, int]] = Field(description="label -> (right, judged).")
    not_judged: list[str] = Field(default_factory=list)

    @property
    def right_share(self) -> float:
        """right / judged (cant_tell counts as not right)."""
        return self.right / self.judged if self.judged else 0.0


def sample_answers(graph: KnowledgeGraph, *, n: int = 30, seed: int = 0, order: Order | str = Order.SCREEN,
                   characters: int = 6) -> list[Answer]:
    """`n` answers stratified by label (see the module docstring), the same for the same graph and seed.

    Raises:
        InputError: the graph has no scene layer or no characters.
    """
    event = load_schema().type_for_role("event")  # the sheet samples STAGE builds
    rng = random.Random(f"knows:{seed}")
    people = top_characters(graph, characters)
    if not people:
        raise InputError("the graph has no characters to ask about")
    scenes_of = {p.id: [r.index for r in graph.scenes for x in r.presence
                        if x.character == p.id and x.mode is PresenceMode.PRESENT] for p in people}
    labels = [Label.FUTURE, Label.PAST_ABSENCE, Label.PAST_PRESENCE]
    wanted = [labels[i % 3] for i in range(n)]
    answers: list[Answer] = []
    seen: set[tuple[str, str]] = set()
    for label in wanted:
        for _ in range(200):
            person = rng.choice(people)
            if not scenes_of[person.id]:
                continue
            scene = rng.choice(scenes_of[person.id])
            items = [i for i in knows(graph, person.id, scene, order=order).items if i.label is label
                     and (person.id, i.id) not in seen]
            events = [i for i in items if i.type == event]
            pool = events if events and rng.random() < 0.6 else items
            if not pool:
                continue
            item = rng.choice(pool)
            seen.add((person.id, item.id))
            answers.append(Answer(id=f"K{len(answers) + 1:02d}", character=person.name, scene=scene,
                                  order=Order(order), item=item))
            break
    return answers


def _scene_block(screenplay: Screenplay, index: int, cited: list[tuple[int, int]], title: str) -> list[str]:
    scene = next((s for s in screenplay.scenes if s.index == index), None)
    if scene is None:
        return [f"(scene {index} is not in the screenplay)"]
    return [f"**{title}: scene {index}**", "", "```text", scene_text(scene, cited), "```", ""]


def answer_section(answer: Answer, screenplay: Screenplay) -> str:
    """One answer of the sheet: question, label, reason, evidence, scene text, verdict lines."""
    item = answer.item
    order = "story order" if answer.order is Order.STORY else "screen order"
    verb = "happens" if item.type == load_schema().type_for_role("event") else "appears"
    out = [f"## {answer.id}", "",
           f"Question: at scene {answer.scene} ({order}), can **{answer.character}** know about "
           f"**{item.name}** ({item.type})?", "",
           f"Answer: **{item.label.value}**. Why: {item.how}. The item first "
           f"{verb} in scene {item.first_scene}.", "", "Evidence:"]
    out += [f"- scene {e.scene}, lines {e.lines[0] if e.lines else '?'}-{e.lines[1] if e.lines else '?'}: "
            f"\"{' '.join(e.quote.split())}\" ({e.producer})" for e in item.evidence]
    out.append("")
    shown: list[int] = []
    for index in [item.scene, item.first_scene, *(e.scene for e in item.evidence)]:
        if index is not None and index not in shown and len(shown) < 3:
            shown.append(index)
    for index in shown:
        cited = [e.lines for e in item.evidence if e.scene == index and e.lines is not None]
        title = "the item's first scene" if index == item.first_scene else "cited scene"
        out += _scene_block(screenplay, index, cited, title)
    out += ["Verdict (right / wrong / cant_tell): ", "Reason: ", ""]
    return "\n".join(out)


def write_sheet(answers: list[Answer], screenplay: Screenplay, folder: Path, *, movie: str) -> list[Path]:
    """Write `knows_sheet.md` (the judge text, then every answer) and `knows_answers.jsonl`."""
    header = JUDGE_TEXT.read_text(encoding="utf-8").rstrip()
    sheet = [header, "", "---", "", f"# Answers ({len(answers)}, movie `{movie}`)", ""]
    sheet += [answer_section(a, screenplay) for a in answers]
    paths = [write_text_atomic(folder / "knows_sheet.md", "\n".join(sheet)),
             write_text_atomic(folder / "knows_answers.jsonl",
                               "".join(a.model_dump_json() + "\n" for a in answers))]
    return paths


def read_verdicts(path: Path) -> list[Verdict]:
    """Verdicts from a JSONL file, a JSON list, or a marked sheet.

    Raises:
        InputError: an unknown verdict or a repeated answer id.
    """
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        found = [Verdict(id=m.group(1), verdict=m.group(2), reason=m.group(3).strip())
                 for m in _SHEET_VERDICT.finditer(text) if m.group(2)]
    elif text.lstrip().startswith("["):
        found = [Verdict.model_validate(v) for v in json.loads(text)]
    else:
        found = [Verdict.model_validate_json(line) for line in text.splitlines() if line.strip()]
    ids = Counter(v.id for v in found)
    bad = [v for v in found if v.verdict not in VERDICTS]
    if bad:
        raise InputError(f"{bad[0].id}: verdict {bad[0].verdict!r} is none of {', '.join(VERDICTS)}", path=str(path))
    twice = [i for i, c in ids.items() if c > 1]
    if twice:
        raise InputError(f"{twice[0]} has more than one verdict", path=str(path))
    return found


def tally(answers: list[Answer], verdicts: list[Verdict]) -> Tally:
    """Right answers per label and in all (cant_tell counts as not right).

    Raises:
        InputError: a verdict for an answer the sample does not hold.
    """
    by_id = {a.id: a for a in answers}
    unknown = [v.id for v in verdicts if v.id not in by_id]
    if unknown:
        raise InputError(f"verdicts for answers not in the sample: {', '.join(unknown[:5])}")
    per_label: dict[str, tuple[int, int]] = {}
    for v in verdicts:
        label = by_id[v.id].item.label.value
        right, judged = per_label.get(label, (0, 0))
        per_label[label] = (right + (v.verdict == "right"), judged + 1)
    given = {v.id for v in verdicts}
    return Tally(judged=len(verdicts), right=sum(v.verdict == "right" for v in verdicts), per_label=per_label,
                 not_judged=[a.id for a in answers if a.id not in given])


@click.command()
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="The folder of the sheet [default: OUTDIR/knows].")
@click.option("--n", "count", type=click.IntRange(min=3), default=30, show_default=True, help="Answers to sample.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--order", type=click.Choice([o.value for o in Order]), default=Order.SCREEN.value, show_default=True)
@click.option("--verdicts", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Tally these verdicts (JSONL, a JSON list, or the marked sheet) against the sample.")
def main(outdir: Path, output: Path | None, count: int, seed: int, order: str, verdicts: Path | None) -> None:
    """Sample `kgbuild knows` answers of the build OUTDIR into a judge sheet, or tally its verdicts."""
    folder = output or (outdir if outdir.is_dir() else outdir.parent) / "knows"
    graph = load_graph(graph_file(outdir))
    answers = sample_answers(graph, n=count, seed=seed, order=order)
    if verdicts is None:
        screenplay = load_screenplay((outdir if outdir.is_dir() else outdir.parent) / "screenplay.json")
        for path in write_sheet(answers, screenplay, folder, movie=graph.movie.key):
            sys.stdout.write(f"wrote {path}\n")
        return
    result = tally(answers, read_verdicts(verdicts))
    for label, (right, judged) in sorted(result.per_label.items()):
        sys.stdout.write(f"{label}: {right} of {judged} right\n")
    sys.stdout.write(f"all: {result.right} of {result.judged} right ({result.right_share:.1%}); "
                     f"not judged: {', '.join(result.not_judged) or 'none'}\n")


if __name__ == "__main__":
    main()
