"""Truth audit: does the screenplay text a graph's facts cite actually support them?

A seeded sample of facts, stratified by relation type and entity type (`sample_facts`), is shown
to a judge who did not produce them: a person marks the Markdown sheet (`render_sheet`), or an
LLM answers one request per fact (`request_lines` for a Batch API, `judge_live` through the
LLM client and its response cache). Both read the same fixed instructions (`judge_text`, the
package's judge.md). A fact is judged on the scenes it cites only: a true fact cited to the
wrong scenes is not supported. `tally` turns verdicts into the supported share per type (Wilson
95% intervals) and the share over all facts weighted by type frequency (stratified interval).

Importable as `kgbuild.evaluation.audit`; the command is `kgbuild audit`.

Example:
    >>> from kgbuild.evaluation.audit import sample_facts, render_sheet, tally, read_verdicts
    >>> sample = sample_facts(load_graph("out/graph.json"), relations=150, entities=50, seed=0)
    >>> Path("sheet.md").write_text(render_sheet(sample, screenplay, load_schema()))
    >>> report = tally(sample, read_verdicts(Path("verdicts.jsonl").read_text()))
    >>> report.relations.share, report.relations.low, report.relations.high
"""

from kgbuild.evaluation.audit.live import JudgeFailure, JudgeRun, judge_live
from kgbuild.evaluation.audit.requests import (
    DEFAULT_JUDGE_MODEL,
    BatchVerdicts,
    judge_request,
    request_lines,
    verdicts_from_batch,
)
from kgbuild.evaluation.audit.sample import DEFAULT_ENTITIES, DEFAULT_RELATIONS, allocate, sample_facts
from kgbuild.evaluation.audit.sheet import fact_section, judge_text, read_sheet_verdicts, render_sheet
from kgbuild.evaluation.audit.tally import read_verdicts, report_markdown, tally, weighted_share, wilson
from kgbuild.evaluation.audit.types import (
    VERDICTS,
    AuditFact,
    AuditReport,
    AuditSample,
    JudgeAnswer,
    TypeShare,
    Verdict,
    WeightedShare,
)

__all__ = [
    "DEFAULT_ENTITIES",
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_RELATIONS",
    "VERDICTS",
    "AuditFact",
    "AuditReport",
    "AuditSample",
    "BatchVerdicts",
    "JudgeAnswer",
    "JudgeFailure",
    "JudgeRun",
    "TypeShare",
    "Verdict",
    "WeightedShare",
    "allocate",
    "fact_section",
    "judge_live",
    "judge_request",
    "judge_text",
    "read_sheet_verdicts",
    "read_verdicts",
    "render_sheet",
    "report_markdown",
    "request_lines",
    "sample_facts",
    "tally",
    "verdicts_from_batch",
    "weighted_share",
    "wilson",
]
