"""How many completion tokens an extraction answer takes per token of its request, measured on STAGE.

`kgbuild build --dry-run` must guess the size of answers it has not seen. The STAGE release's
per-scene `extraction_results.json` are a real model's answers to the same task (events, then
entities, then relations, per scene part); recast into kgbuild's answer format
(`kgbuild.extraction.llm.responses.ExtractionResponse`: each event with its links, the other entities,
the relations between them) and written as compact JSON, their estimated tokens
(`kgbuild.tokens`) divided by the estimated tokens of the user message kgbuild would send for
the same scene (its layout facts and its text, `kgbuild.extraction.llm.extract.extraction_messages`) give
the completion tokens per user-message token. The same answers rendered for the reviewer
(`kgbuild.extraction.llm.reflect.render_extraction`) give the reviewer's share of it.

The STAGE model read scene parts of up to 600 tokens; kgbuild's chunks are larger (2,500
tokens), and a model asked about a longer passage tends to answer more densely, so the ratio
leans high: an estimate to plan a budget with, not a measurement of any one model.

Run: `python -m bench.studies.completion_density [--data ../shared/data]`.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel, ConfigDict

from bench.paths import SHARED_DATA
from kgbuild.chunking import chunk_screenplay
from kgbuild.model import Screenplay
from kgbuild.readers import read_screenplay
from kgbuild.schema import load_schema
from kgbuild.tokens import estimate_tokens

_SCENE_KEY = re.compile(r"scene_(\d+)")
#: The event type of the STAGE release's answers (they are in the default schema).
_EVENT_TYPES = {load_schema().type_for_role("event")}


class Density(BaseModel):
    """Completion tokens per passage token, for one group of movies."""

    model_config = ConfigDict(extra="forbid")

    group: str
    movies: int
    scenes: int
    user_tokens: int
    completion_tokens: int
    rendered_tokens: int

    @property
    def completion_per_user_token(self) -> float:
        """Completion tokens of an answer per token of the request's user message."""
        return self.completion_tokens / max(self.user_tokens, 1)

    @property
    def rendered_per_completion(self) -> float:
        """Tokens of the answer as the reviewer reads it, per completion token."""
        return self.rendered_tokens / max(self.completion_tokens, 1)


def recast(items: list[dict[str, Any]], scene: int) -> dict[str, Any]:
    """One scene's STAGE answer (entity and relation mentions) in kgbuild's answer format."""
    entities = [e for e in items if e.get("kind") == "entity"]
    relations = [r for r in items if r.get("kind") == "relation"]
    events = {e["name"]: {"name": e["name"], "description": e.get("description") or "", "scene": scene,
                          "links": []}
              for e in entities if e.get("type") in _EVENT_TYPES}
    others = [{"name": e["name"], "type": e.get("type") or "", "description": e.get("description") or "",
               "aliases": [a for a in e.get("aliases") or [] if isinstance(a, str)], "scenes": [scene]}
              for e in entities if e.get("type") not in _EVENT_TYPES]
    plain = []
    for r in relations:
        subject, obj, rtype = r.get("subject"), r.get("object"), r.get("relation_type")
        if subject in events or obj in events:
            event, other = (subject, obj) if subject in events else (obj, subject)
            events[event]["links"].append({"relation": rtype, "entity": other})
            continue
        plain.append({"source": subject, "type": rtype, "target": obj, "verb": r.get("relation_name") or "",
                      "persistence": r.get("persistence") or "momentary", "evidence": ""})
    return {"events": list(events.values()), "entities": others, "relations": plain}


def _scene_answers(results: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    by_scene: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for key, part in results.items():
        if not isinstance(part, dict) or part.get("ok") is False:
            continue
        order = (part.get("document_metadata") or {}).get("order")
        m = _SCENE_KEY.search(key)
        scene = order + 1 if isinstance(order, int) else int(m.group(1)) if m else 0
        by_scene[scene] += [{**e, "kind": "entity"} for e in part.get("entities") or [] if e.get("name")]
        by_scene[scene] += [{**r, "kind": "relation"} for r in part.get("relations") or []]
    return by_scene


def _rendered(answer: dict[str, Any]) -> int:
    from kgbuild.extraction.llm.reflect import render_extraction
    from kgbuild.extraction.llm.responses import ExtractionResponse

    return estimate_tokens(render_extraction(ExtractionResponse.model_validate(answer)))


def _user_messages(screenplay: Screenplay) -> dict[int, str]:
    """Scene index -> the user message of an extraction request for that scene alone."""
    from kgbuild.extraction.llm.context import chunk_contexts
    from kgbuild.extraction.llm.extract import extraction_messages

    schema = load_schema()
    chunks = chunk_screenplay(screenplay, token_budget=10**9, pack_scenes=False)
    return {ctx.scene_ids[0]: extraction_messages(ctx, schema)[1].content
            for ctx in chunk_contexts(screenplay, chunks)}


def measure(stage_dir: Path) -> list[Density]:
    """Completion tokens per user-message token over every STAGE movie below `stage_dir`, per
    language folder and in all."""
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for results_path in sorted(stage_dir.rglob("extraction_results.json")):
        folder = results_path.parent
        texts = _user_messages(read_screenplay(folder / "script.json"))
        answers = _scene_answers(json.loads(results_path.read_text(encoding="utf-8")))
        for name in (folder.parent.name, "all"):
            counts = groups[name]
            counts[0] += 1
            for scene, items in answers.items():
                if scene not in texts:
                    continue
                answer = recast(items, scene)
                counts[1] += 1
                counts[2] += estimate_tokens(texts[scene])
                counts[3] += estimate_tokens(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))
                counts[4] += _rendered(answer)
    return [Density(group=name, movies=c[0], scenes=c[1], user_tokens=c[2], completion_tokens=c[3],
                    rendered_tokens=c[4]) for name, c in sorted(groups.items())]


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=SHARED_DATA, show_default=True)
def main(data: Path) -> None:
    """Print completion tokens per user-message token of STAGE's answers, per language."""
    rows = measure(data / "stage")
    if not rows:
        click.echo(f"no extraction_results.json below {data / 'stage'}", err=True)
        sys.exit(2)
    for row in rows:
        click.echo(f"{row.group:<8} {row.movies:>3} movies {row.scenes:>5} scenes: user messages "
                   f"{row.user_tokens:>8}, answers {row.completion_tokens:>8} tokens -> "
                   f"{row.completion_per_user_token:.2f} completion tokens per user-message token; rendered "
                   f"for review {row.rendered_per_completion:.2f} of it")


if __name__ == "__main__":
    main()
