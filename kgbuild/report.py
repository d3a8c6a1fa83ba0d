"""The human-readable build report (Markdown): what was found, what was repaired, what to check.

Everything the report takes from the script, the model or the user (title, names, quotes,
warnings, reasons) is escaped (`kgbuild.mdescape.md_text`), so Markdown or HTML in it renders
as text.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from kgbuild.folders import BuildFolder
from kgbuild.mdescape import md_text
from kgbuild.pipeline import BuildResult
from kgbuild.scenes import recorded_selection
from kgbuild.schema import ROLES, is_default

if TYPE_CHECKING:
    from kgbuild.extraction.llm.run import LLMExtraction


def _built_scenes(state: BuildResult) -> list[int]:
    """The indices of the scenes the build covers: the `--scenes` ranges the graph records, or all."""
    selection = recorded_selection(state.graph)
    return [s.index for s in state.screenplay.scenes if selection is None or s.index in selection]


def scenes_without_entities(state: BuildResult) -> list[int]:
    """Scenes (of those built) that no entity other than a scene event is grounded in."""
    schema = state.options.graph_schema()
    grounded = {
        i for e in state.graph.entities if not schema.is_event_centric_entity(e.type) for i in e.scenes
    }
    return [i for i in _built_scenes(state) if i not in grounded]


def llm_section(llm: LLMExtraction) -> list[str]:
    """The LLM part of the report: usage per task, per 1,000 script words, and the review list."""
    from kgbuild.extraction.llm.extract import ChunkStatus

    rates = llm.rates
    run = llm.run
    lines = [
        "## LLM extraction",
        "",
        f"- Model: {md_text(llm.usage.model)} via {llm.usage.backend}"
        + ("" if llm.usage.priced else " (no price known: costs shown as 0)"),
        (f"- Chunks: {len(run.outcomes)}; accepted {run.count(ChunkStatus.ACCEPTED)}, below threshold "
        f"{run.count(ChunkStatus.BELOW_THRESHOLD)}, failed {run.count(ChunkStatus.FAILED)}"),
        (f"- Per 1,000 script words ({rates.words} words): {rates.requests:.2f} requests, "
        f"{rates.prompt_tokens:.0f} prompt + {rates.completion_tokens:.0f} completion tokens; before "
        f"reflection retries {rates.first_requests:.2f} requests, {rates.first_tokens:.0f} tokens"),
        f"- Response cache: {md_text(str(llm.cache_path))}",
        *below_threshold_lines(llm),
        *dropped_lines(llm),
        "",
        ("| task | calls | cached | requests | retries | repairs | failed | prompt tokens "
        "| completion tokens | cost (USD) |"),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, u in [*llm.usage.tasks.items(), ("total", llm.usage.total)]:
        lines.append(f"| {name} | {u.calls} | {u.cache_hits} | {u.requests} | {u.retries} | {u.repairs} "
                     f"| {u.failures} | {u.prompt_tokens} | {u.completion_tokens} | {u.cost_usd:.4f} |")
    review = run.review()
    lines += ["", f"## Chunks to review ({len(review)}, listed in {BuildFolder.REVIEW})", ""]
    for entry in review:
        scenes = ", ".join(map(str, entry.scenes))
        score = "no score" if entry.best_score is None else f"best score {entry.best_score}"
        reason = entry.reasons[0] if entry.reasons else "no reason given"
        lines.append(f"- {md_text(entry.chunk)} (scenes {scenes}): {entry.status.value}, {score}: {md_text(reason)}")
    if not review:
        lines.append("None.")
    return lines + [""]


def below_threshold_lines(llm: LLMExtraction) -> list[str]:
    """What became of the facts of the chunks below the review threshold: kept out of the graph
    (the default), or let in by --admit-below-threshold, chunk by chunk."""
    below = llm.below_threshold
    if not below:
        return []
    admitted = [b for b in below if b.in_graph]
    if admitted:
        head = (f"- Facts of chunks below the review threshold: let into the graph by --admit-below-threshold "
                f"({_chunks(len(admitted))})")
    else:
        head = (f"- Facts of chunks below the review threshold: kept out of the graph ({_chunks(len(below))}, "
                f"listed in {BuildFolder.REVIEW}; --admit-below-threshold lets them in)")
    lines = [head]
    for b in below:
        score = "no score" if b.best_score is None else f"best score {b.best_score}"
        fate = "let in" if b.in_graph else "kept out"
        lines.append(f"  - {md_text(b.chunk)} (scenes {', '.join(map(str, b.scenes))}): {b.status.value}, {score}; "
                     f"{b.entities} entities and {b.relations} relations {fate}")
    return lines


def _chunks(n: int) -> str:
    return f"{n} chunk" if n == 1 else f"{n} chunks"


def dropped_lines(llm: LLMExtraction) -> list[str]:
    """The facts of the answers left out of the graph: counts, the count per reason, examples."""
    dropped = llm.ungrounded
    if dropped is None:
        return []
    lines = [f"- Facts the text does not show (dropped): {dropped.entities} entities, {dropped.relations} "
             "relations" + (" (" + "; ".join(f"{why}: {n}" for why, n in dropped.reasons.items()) + ")"
                            if dropped.reasons else "")]
    lines += [f"  - {md_text(example)}" for example in dropped.examples]
    return lines


def merge_section(state: BuildResult, *, examples: int = 15) -> list[str]:
    """The entity-merging part of the report: counts, then the first merges."""
    if not state.options.merge:
        return ["Merging was off (--no-merge)."]
    count = Counter(e.action for e in state.merge_log)
    merges = [e for e in state.merge_log if e.action == "merge"]
    lines = [(f"- {count['merge']} merges ({sum(len(e.members) for e in merges)} entities), "
              f"{count['keep_apart']} candidate clusters kept apart, {count['link']} life-stage links, "
              f"{count['error']} failed adjudications; all of it in {BuildFolder.MERGE_LOG}")]
    for e in merges[:examples]:
        others = ", ".join(md_text(n) for n in e.names if n != e.canonical_name)
        lines.append(f"  - {e.type} '{md_text(e.canonical_name or '')}' <- {others} ({md_text(e.adjudicator)})")
    if len(merges) > examples:
        lines.append(f"  - ... and {len(merges) - examples} more")
    return lines


_OPPOSITES = (("affinity_with", "hostility_with"), ("favorable_toward", "unfavorable_toward"))


def opposite_pairs_section(graph) -> list[str]:
    """Pairs of characters that carry opposite social types, each with its own quote."""
    names = {e.id: e.name for e in graph.entities}
    by_pair: dict[tuple[frozenset[str], str], list] = {}
    for r in graph.relations:
        by_pair.setdefault((frozenset((r.source, r.target)), r.type), []).append(r)
    lines = ["## Pairs with opposite social types", ""]
    found = 0
    for good, bad in _OPPOSITES:
        for (pair, rtype), rels in sorted(by_pair.items(), key=lambda kv: sorted(kv[0][0])):
            if rtype != good or (pair, bad) not in by_pair:
                continue
            found += 1
            a, b = rels[0], by_pair[(pair, bad)][0]
            lines.append(f"- {md_text(names[a.source])} / {md_text(names[a.target])}: {good} "
                         f"\"{md_text(a.evidence[0].quote)}\" (scene {a.evidence[0].scene}); {bad} "
                         f"\"{md_text(b.evidence[0].quote)}\" "
                         f"(scene {b.evidence[0].scene})")
    if not found:
        lines.append("None.")
    return lines


def _scenes_line(state: BuildResult) -> str:
    selection = recorded_selection(state.graph)
    if selection is None:
        return f"- Scenes: {len(state.screenplay.scenes)}; chunks: {len(state.chunks)}"
    return (f"- Scenes: {len(_built_scenes(state))} of {len(state.screenplay.scenes)} (--scenes "
            f"{selection.describe()}); chunks: {len(state.chunks)}")


def schema_lines(state: BuildResult) -> list[str]:
    """The schema, when it is not the default: its name and the roles it has no type for (the
    offline rules extract nothing of those)."""
    schema = state.options.graph_schema()
    if is_default(schema):
        return []
    lacking = [role for role in ROLES if schema.type_for_role(role) is None]
    return [f"- Schema: {md_text(schema.label())} ({BuildFolder.SCHEMA}); roles without a type, not extracted: "
            + (", ".join(lacking) or "none")]


def build_report(state: BuildResult) -> str:
    """Render the report of a finished build."""
    sp, graph = state.screenplay, state.graph
    lines = [
        f"# kgbuild report: {md_text(sp.title)}",
        "",
        (f"- Source: {md_text(str(sp.source.path))} ({sp.source.format.value}, {sp.language}, "
        f"sha256 {sp.source.sha256[:12]})"),
        f"- Backend: {graph.provenance.backend if graph.provenance else 'unknown'}",
        *schema_lines(state),
        _scenes_line(state),
        f"- Entities: {len(graph.entities)}; relations: {len(graph.relations)}",
        (f"- Story view: [{BuildFolder.VIEW}]({BuildFolder.VIEW}), the graph scene by scene with the evidence of every "
         "fact; open it in a browser (it needs no network; `kgbuild view` rewrites it)"),
        "- Timings (s): " + ", ".join(f"{k} {v:.2f}" for k, v in state.timings.items()),
        "",
        "## Entities by type",
        "",
        "| type | count |",
        "|---|---|",
    ]
    for etype, n in sorted(Counter(e.type for e in graph.entities).items()):
        lines.append(f"| {etype} | {n} |")
    lines += ["", "## Relations by type", "", "| type | count |", "|---|---|"]
    for rtype, n in sorted(Counter(r.type for r in graph.relations).items()):
        lines.append(f"| {rtype} | {n} |")
    lines += ["", "## Facts per producer", "",
              "Each fact counts once per rule or model that gave evidence for it.", "",
              "| producer | entities | relations |", "|---|---|---|"]
    by_entity = Counter(p for e in graph.entities for p in {ev.producer for ev in e.evidence})
    by_relation = Counter(p for r in graph.relations for p in {ev.producer for ev in r.evidence})
    for producer in sorted({*by_entity, *by_relation}):
        lines.append(f"| {producer} | {by_entity[producer]} | {by_relation[producer]} |")
    lines += ["", *opposite_pairs_section(graph)]
    if state.llm is not None:
        lines += ["", *llm_section(state.llm)[:-1]]
    lines += ["", "## Repairs", ""]
    for count in state.repairs:
        changed = ", ".join(f"{k} {v}" for k, v in sorted(count.changed.items())) or "nothing"
        lines.append(f"- **{count.rule}**: {changed}")
        lines += [f"  - {md_text(example)}" for example in count.examples]
    lines += ["", "## Derived facts", ""]
    for count in state.derivations:
        added = ", ".join(f"{k} {v}" for k, v in sorted(count.changed.items())) or "nothing"
        lines.append(f"- **{count.rule}**: {added}")
        lines += [f"  - {md_text(example)}" for example in count.examples]
    lines += ["", "## Merges", "", *merge_section(state)]
    if state.corrected:
        applied = sum(r.applied for r in state.corrected)
        lines += ["", f"## Corrections ({applied} of {len(state.corrected)} applied)", ""]
        for r in state.corrected:
            what = r.correction.fact or r.correction.relation or r.correction.entities
            lines.append(f"- line {r.line}: {r.correction.action} {md_text(str(what))}: {md_text(r.note)}")
    missing = scenes_without_entities(state)
    lines += ["", "## Scenes without any entity", ""]
    lines.append(", ".join(map(str, missing)) if missing else "None.")
    lines += ["", f"## Warnings ({len(sp.warnings)})", ""]
    for w in sp.warnings[:50]:
        lines.append(f"- line {w.line}: {md_text(w.message)}" if w.line else f"- {md_text(w.message)}")
    if len(sp.warnings) > 50:
        lines.append(f"- ... and {len(sp.warnings) - 50} more (all are in {BuildFolder.SCREENPLAY})")
    if not sp.warnings:
        lines.append("None.")
    return "\n".join(lines) + "\n"
