"""The audit sheet: the judge text, then every sampled fact with its evidence and cited scenes.

A fact's section is what a judge reads: the fact in words with its type's schema description,
its evidence items, and the text of the scenes it cites, with numbered lines: the first two in
full (cut around the cited lines when long), the next ones as short excerpts around their cited
lines, so no cited line is left out for a fact citing a handful of scenes.
The Markdown sheet adds a verdict line per fact for a person to fill in; the same section
without that line is the user message of the LLM judge's request. `read_sheet_verdicts` reads a
marked sheet back as verdicts.

Example:
    >>> text = render_sheet(sample, screenplay, load_schema())
    >>> verdicts = read_sheet_verdicts(marked_text, path="audit/sheet.md")
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from kgbuild.errors import InputError
from kgbuild.evaluation.audit.scenes import scene_text
from kgbuild.evaluation.audit.types import VERDICTS, AuditFact, AuditSample, Verdict
from kgbuild.model import Evidence, Screenplay
from kgbuild.schema import Schema

#: Cited scenes shown per fact with the text around their cited lines (the scene's text, cut when long).
MAX_SCENES = 2
#: Further cited scenes shown as excerpts: the heading and the cited lines with a little context.
MAX_EXCERPTS = 6
#: Rendered lines of such an excerpt, unless more lines are cited.
EXCERPT_LINES = 9
VERDICT_LABEL = "Verdict (" + " / ".join(VERDICTS) + "):"
REASON_LABEL = "Reason:"
_SECTION = re.compile(r"^### ([RE]\d+)\b")
_FENCE = re.compile(r"^(```|~~~)")


@cache
def judge_text() -> str:
    """The judge's instructions: the LLM judge's system message and the sheet's header.

    One fixed text in the package (`judge.md`), the same for every judge and every graph.
    """
    return resources.files("kgbuild.evaluation.audit").joinpath("judge.md").read_text(encoding="utf-8")


def _type_line(fact: AuditFact, schema: Schema) -> str:
    if fact.kind == "relation":
        spec = schema.relation(fact.type)
        if spec is None:
            return f"**Type:** {fact.type} (not a relation type of the schema)"
        direction = ("symmetric: the direction does not matter" if spec.symmetric
                     else "directed: from the first entity to the second")
        return f"**Type:** {fact.type} ({direction}): {spec.description}"
    entity_spec = next((t for t in schema.entity_types if t.name == fact.type), None)
    if entity_spec is None:
        return f"**Type:** {fact.type} (not an entity type of the schema)"
    return f"**Type:** {fact.type}: {entity_spec.description}"


def _evidence_line(item: Evidence) -> str:
    where = f"scene {item.scene}"
    if item.lines is not None:
        first, last = item.lines
        where += f", line {first}" if first == last else f", lines {first}–{last}"
    else:
        where += " (no line numbers)"
    return f'- {where}, {item.producer}: "{item.quote}"'


def _fenced(body: str) -> list[str]:
    fence = "~~~~" if "```" in body else "```"
    return [f"{fence}text", body, fence]


def _scene_blocks(fact: AuditFact, screenplay: Screenplay) -> list[str]:
    scenes = {s.index: s for s in screenplay.scenes}
    cited = fact.cited_scenes
    out: list[str] = []
    shown = MAX_SCENES + MAX_EXCERPTS
    for position, index in enumerate(cited[:shown]):
        scene = scenes.get(index)
        if scene is None:
            out += [f"**Scene {index}:** not in the screenplay (it has {len(screenplay.scenes)} scenes).", ""]
            continue
        spans = [e.lines for e in fact.evidence if e.scene == index and e.lines is not None]
        first, last = scene.line_span
        excerpt = position >= MAX_SCENES
        label = "excerpt around the cited lines" if excerpt else f"lines {first}–{last}"
        out += [f"**Scene {index}** ({label}): {scene.heading or '(no heading)'}", ""]
        text = scene_text(scene, spans, limit=EXCERPT_LINES) if excerpt else scene_text(scene, spans)
        out += [*_fenced(text), ""]
    if len(cited) > shown:
        rest = ", ".join(str(i) for i in cited[shown:])
        out += [f"The evidence also cites scene(s) {rest}, not shown (at most {shown} scenes are shown).", ""]
    return out


def fact_section(fact: AuditFact, screenplay: Screenplay, schema: Schema, *,
                 verdict_lines: bool = True) -> str:
    """One fact as the judge reads it (Markdown).

    Args:
        fact: The sampled fact.
        screenplay: The screenplay the graph was built from (scene text and line numbers).
        schema: The graph schema (type descriptions).
        verdict_lines: Add the lines a person fills in (the sheet); False for the LLM judge.

    Returns:
        The section, starting with `### R001 · type`.
    """
    out = [f"### {fact.id} · {fact.type}", "", f"**Fact:** {fact.statement}", "",
           _type_line(fact, schema), ""]
    if fact.notes:
        out += [*(f"- {note}" for note in fact.notes), ""]
    if not fact.evidence:
        out += ["**Evidence:** none. A fact that cites no scene is not supported; it needs no verdict.", ""]
        return "\n".join(out)
    out += ["**Evidence:**", *(_evidence_line(e) for e in fact.evidence), ""]
    out += _scene_blocks(fact, screenplay)
    if verdict_lines:
        out += [VERDICT_LABEL, REASON_LABEL, ""]
    return "\n".join(out)


def render_sheet(sample: AuditSample, screenplay: Screenplay, schema: Schema, *,
                 kinds: tuple[str, ...] = ("relation", "entity")) -> str:
    """The Markdown audit sheet: the whole judge text, how to mark it, then one section per fact
    of the given kinds ('relation', 'entity'; a part sheet holds one kind, for judges who split
    the work, and still carries every instruction)."""
    relations = sum(f.kind == "relation" for f in sample.facts)
    entities = len(sample.facts) - relations
    header = [
        judge_text().rstrip(), "", "---", "",
        f"# Audit sheet: {sample.title}", "",
        f"Sample: seed {sample.seed}, {relations} of {sum(sample.relation_counts.values())} relations "
        f"(--relations {sample.relations_requested}), {entities} of "
        f"{sum(sample.entity_counts.values())} entities (--entities {sample.entities_requested}).", "",
        f"Mark each fact: after `{VERDICT_LABEL}` write one of {', '.join(VERDICTS)}; after "
        f"`{REASON_LABEL}` one sentence. Then tally with `kgbuild audit GRAPH --verdicts sheet.md` "
        "and the same --seed, --relations and --entities.", "",
    ]
    parts = ["\n".join(header)]
    for kind, title in (("relation", "## Relations"), ("entity", "## Entities")):
        facts = [f for f in sample.facts if f.kind == kind and kind in kinds]
        if facts:
            parts.append(title + "\n")
            parts.extend(fact_section(f, screenplay, schema) for f in facts)
    return "\n".join(parts).rstrip() + "\n"


def facts_jsonl(sample: AuditSample) -> str:
    """The sampled facts, one JSON object per line (facts.jsonl)."""
    return "".join(f.model_dump_json() + "\n" for f in sample.facts)


def normalize_verdict(text: str) -> str:
    """A hand-written verdict in the file's spelling: 'Not supported' -> 'not_supported'."""
    word = text.strip().strip("*_`").strip().casefold().replace("'", "").replace("’", "")
    return re.sub(r"[\s-]+", "_", word)


def read_sheet_verdicts(text: str, *, path: str | None = None) -> list[Verdict]:
    """The verdicts written into a marked sheet; facts with an empty verdict line are skipped.

    Args:
        text: The sheet's Markdown.
        path: The sheet's file name, for error messages.

    Returns:
        One verdict per fact whose verdict line is filled in, in sheet order.

    Raises:
        InputError: a verdict line holds something other than supported, not_supported or
            cant_tell (spelling with spaces or capitals is accepted).
    """
    verdicts: list[Verdict] = []
    current: str | None = None
    verdict: str | None = None
    reason = ""

    def flush() -> None:
        if current and verdict:
            verdicts.append(Verdict(fact_id=current, verdict=verdict, reason=reason))

    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        section = _SECTION.match(line)
        if section:
            flush()
            current, verdict, reason = section.group(1), None, ""
        elif current and line.startswith(VERDICT_LABEL):
            value = line[len(VERDICT_LABEL):].strip()
            if value:
                verdict = normalize_verdict(value)
                if verdict not in VERDICTS:
                    raise InputError(f"{current}: unknown verdict {value!r}; write one of "
                                     f"{', '.join(VERDICTS)}", path=path, line=number)
        elif current and line.startswith(REASON_LABEL):
            reason = line[len(REASON_LABEL):].strip()
    flush()
    return verdicts
