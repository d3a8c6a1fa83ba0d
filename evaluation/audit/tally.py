"""The verdict tally: supported share per type with Wilson intervals, and the weighted share.

Per type, share = supported / judged, where judged counts every verdict: `cant_tell` counts as
not supported (and is reported on its own), and a sampled fact that cites no evidence counts as
not supported without a verdict. The interval is the Wilson score interval at 95%.

Over all facts of a kind (relations, entities), the weighted share is
`W = sum_t w_t * p_t` with `w_t = N_t / N`: N_t the type's count in the whole graph and N the
count of all types that have verdicts (all types, unless the sample skipped some; `coverage`
says which share of the graph that is). Its 95% interval is `W ± z * sqrt(V)`, clipped to [0, 1],
with the stratified variance of sampling without replacement

    V = sum_t w_t² * (N_t - n_t) / (N_t - 1) * q_t (1 - q_t) / n_t,

n_t the type's judged facts and q_t = (s_t + z²/2) / (n_t + z²) its Wilson-centred share (s_t
supported), so a type whose judged facts all agree still adds its sampling uncertainty. A type
judged in full adds none (its finite population correction is 0).

Example:
    >>> report = tally(sample, read_verdicts(Path("verdicts.jsonl").read_text(), path="verdicts.jsonl"))
    >>> report.relations.share
    0.66
"""

from __future__ import annotations

import json
import math
from collections import Counter

from pydantic import ValidationError

from kgbuild.errors import InputError
from kgbuild.evaluation.audit.types import (
    NO_EVIDENCE_REASON,
    VERDICTS,
    AuditFact,
    AuditReport,
    AuditSample,
    FactKind,
    JudgedFact,
    TypeShare,
    Verdict,
    WeightedShare,
)

#: The 97.5% point of the standard normal distribution (two-sided 95% intervals).
Z95 = 1.959963984540054
_SHOWN_IDS = 5


def wilson(supported: int, judged: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of `supported` out of `judged`, or None when nothing was judged.

    Example:
        >>> [round(x, 4) for x in wilson(5, 6)]
        [0.4365, 0.9699]
    """
    if judged <= 0:
        return None
    p = supported / judged
    z2 = z * z
    centre = (p + z2 / (2 * judged)) / (1 + z2 / judged)
    half = z / (1 + z2 / judged) * math.sqrt(p * (1 - p) / judged + z2 / (4 * judged * judged))
    return max(0.0, centre - half), min(1.0, centre + half)


def read_verdicts(text: str, *, path: str | None = None) -> list[Verdict]:
    """Parse a verdicts JSONL file: one `{"fact_id", "verdict", "reason"}` object per line.

    Raises:
        InputError: a line is not JSON, has an unknown verdict, or misses or misspells a key.
    """
    verdicts: list[Verdict] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"not JSON ({e.msg} at column {e.colno}); each line is one verdict object",
                             path=path, line=number) from e
        try:
            verdicts.append(Verdict.model_validate(record))
        except ValidationError as e:
            first = e.errors()[0]
            if first["loc"] == ("verdict",) and isinstance(record, dict) and "verdict" in record:
                message = (f"unknown verdict {record['verdict']!r} for {record.get('fact_id')!r}; "
                           f"use one of {', '.join(VERDICTS)}")
            else:
                where = ".".join(str(p) for p in first["loc"]) or "line"
                message = (f"{where}: {first['msg']}; a verdict line is "
                           '{"fact_id": "R001", "verdict": "supported", "reason": "..."}')
            raise InputError(message, path=path, line=number) from e
    return verdicts


def _checked(sample: AuditSample, verdicts: list[Verdict], path: str | None) -> dict[str, Verdict]:
    """Verdicts by fact id, with the automatic verdicts of facts that cite no evidence."""
    facts = {f.id: f for f in sample.facts}
    repeated = [i for i, n in Counter(v.fact_id for v in verdicts).items() if n > 1]
    if repeated:
        raise InputError(f"more than one verdict for {', '.join(repeated[:_SHOWN_IDS])}; keep one per fact",
                         path=path)
    unknown = [v.fact_id for v in verdicts if v.fact_id not in facts]
    if unknown:
        raise InputError(
            f"{len(unknown)} verdicts for facts not in this sample ({', '.join(unknown[:_SHOWN_IDS])}"
            f"{', ...' if len(unknown) > _SHOWN_IDS else ''}); the sample has "
            f"{sum(f.kind == 'relation' for f in sample.facts)} relations and "
            f"{sum(f.kind == 'entity' for f in sample.facts)} entities: tally with the graph, --seed, "
            "--relations and --entities the sheet was made with", path=path)
    by_id = {v.fact_id: v for v in verdicts}
    for fact in sample.facts:
        if fact.evidence:
            continue
        given = by_id.get(fact.id)
        if given is not None and given.verdict != "not_supported":
            raise InputError(f"{fact.id} cites no evidence, so it cannot be {given.verdict}; "
                             "remove its verdict or make it not_supported", path=path)
        by_id[fact.id] = Verdict(fact_id=fact.id, verdict="not_supported", reason=NO_EVIDENCE_REASON)
    return by_id


def _type_share(kind: FactKind, type_name: str, in_graph: int, facts: list[AuditFact],
                verdicts: dict[str, Verdict]) -> TypeShare:
    given = Counter(verdicts[f.id].verdict for f in facts if f.id in verdicts)
    judged = sum(given.values())
    interval = wilson(given["supported"], judged)
    return TypeShare(kind=kind, type=type_name, in_graph=in_graph, sampled=len(facts), judged=judged,
                     supported=given["supported"], not_supported=given["not_supported"],
                     cant_tell=given["cant_tell"],
                     share=given["supported"] / judged if judged else None,
                     low=interval[0] if interval else None, high=interval[1] if interval else None)


def weighted_share(kind: FactKind, types: list[TypeShare], z: float = Z95) -> WeightedShare:
    """The supported share over all facts of a kind, weighted by type frequency in the graph.

    Args:
        kind: 'relation' or 'entity'.
        types: The per-type tallies of that kind (with their counts in the whole graph).
        z: Normal quantile of the interval.

    Returns:
        The weighted share and its interval (see the module docstring), None when nothing was judged.
    """
    judged = [t for t in types if t.judged]
    everything = sum(t.in_graph for t in types)
    covered = sum(t.in_graph for t in judged)
    base = WeightedShare(kind=kind, share=None, low=None, high=None,
                         judged=sum(t.judged for t in types), supported=sum(t.supported for t in types),
                         cant_tell=sum(t.cant_tell for t in types),
                         coverage=covered / everything if everything else 0.0)
    if not judged or not covered:
        return base
    share = variance = 0.0
    for t in judged:
        weight = t.in_graph / covered
        share += weight * t.supported / t.judged
        fpc = (t.in_graph - t.judged) / (t.in_graph - 1) if t.in_graph > 1 else 0.0
        q = (t.supported + z * z / 2) / (t.judged + z * z)
        variance += weight * weight * fpc * q * (1 - q) / t.judged
    half = z * math.sqrt(variance)
    return base.model_copy(update={"share": share, "low": max(0.0, share - half),
                                   "high": min(1.0, share + half)})


def tally(sample: AuditSample, verdicts: list[Verdict], *, path: str | None = None) -> AuditReport:
    """Tally verdicts on a sample: per-type shares and intervals, and the weighted shares.

    Args:
        sample: The sample the verdicts judge (same graph, seed and sizes as the sheet).
        verdicts: One verdict per judged fact; facts without a verdict are listed as not judged.
        path: The verdicts file, for error messages.

    Returns:
        The report, with every judged fact and its verdict.

    Raises:
        InputError: a verdict names a fact id the sample does not have, a fact has two
            verdicts, or a fact citing no evidence is given a verdict other than not_supported.
    """
    by_id = _checked(sample, verdicts, path)
    shares: dict[str, list[TypeShare]] = {}
    for kind in ("relation", "entity"):
        facts = [f for f in sample.facts if f.kind == kind]
        shares[kind] = [_type_share(kind, t, n, [f for f in facts if f.type == t], by_id)
                        for t, n in sample.counts(kind).items()]
    judged = [JudgedFact(fact_id=f.id, kind=f.kind, type=f.type, statement=f.statement,
                         verdict=by_id[f.id].verdict, reason=by_id[f.id].reason)
              for f in sample.facts if f.id in by_id]
    return AuditReport(
        title=sample.title, seed=sample.seed, relations_requested=sample.relations_requested,
        entities_requested=sample.entities_requested, relation_types=shares["relation"],
        entity_types=shares["entity"], relations=weighted_share("relation", shares["relation"]),
        entities=weighted_share("entity", shares["entity"]),
        not_judged=[f.id for f in sample.facts if f.id not in by_id], facts=judged)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{100 * low:.1f}–{100 * high:.1f}%"


def report_markdown(report: AuditReport) -> str:
    """audit.md: the per-type tables, the weighted shares, and the facts judged not supported."""
    out = [f"# Truth audit: {report.title}", "",
           f"Seed {report.seed}, --relations {report.relations_requested}, "
           f"--entities {report.entities_requested}. Share = supported / judged; cant_tell and facts "
           "citing no evidence count as not supported. Intervals are 95% (Wilson per type; "
           "stratified variance for the weighted share).", ""]
    for label, types, overall in (("Relations", report.relation_types, report.relations),
                                  ("Entities", report.entity_types, report.entities)):
        out += [f"## {label}", "",
                f"Weighted share: **{_pct(overall.share)}** (95% {_interval(overall.low, overall.high)}), "
                f"{overall.supported} of {overall.judged} judged supported, {overall.cant_tell} cant_tell"
                + (f"; types with verdicts cover {_pct(overall.coverage)} of the graph" if overall.coverage < 1
                   else "") + ".", "",
                "| type | in graph | sampled | judged | supported | not supported | cant tell | share | 95% interval |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {t.type} | {t.in_graph} | {t.sampled} | {t.judged} | {t.supported} | {t.not_supported} "
                f"| {t.cant_tell} | {_pct(t.share)} | {_interval(t.low, t.high)} |" for t in types]
        out.append("")
    failed = [f for f in report.facts if f.verdict != "supported"]
    if failed:
        out += ["## Not supported and cant_tell", ""]
        out += [f"- {f.fact_id} ({f.verdict}) {f.statement}: {f.reason}" for f in failed]
        out.append("")
    if report.not_judged:
        out += [f"Not judged ({len(report.not_judged)}): {', '.join(report.not_judged)}", ""]
    return "\n".join(out)
