"""The typed data of the truth audit: sampled facts, verdicts, and the tally.

Every model rejects unknown fields, so a verdicts file with a misspelt key fails loudly.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.model import Evidence

FactKind = Literal["relation", "entity"]
VerdictValue = Literal["supported", "not_supported", "cant_tell"]
#: The verdicts a judge may give, in the order the sheet lists them.
VERDICTS: tuple[str, ...] = ("supported", "not_supported", "cant_tell")
#: The reason recorded for a fact that cites no evidence (it fails without a judge).
NO_EVIDENCE_REASON = "the fact cites no evidence"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AuditFact(_Model):
    """One sampled fact, as the judge sees it."""

    id: str = Field(description="Audit id: 'R001', ... for relations, 'E001', ... for entities.")
    kind: FactKind
    type: str = Field(description="The relation type or entity type.")
    ref: str = Field(description="The fact's id in graph.json.")
    statement: str = Field(
        description="The fact in words, e.g. 'Character \"Nora\" —speaks_to→ Character \"Owen\"'.")
    notes: list[str] = Field(
        default_factory=list,
        description="What the producer wrote about it: aliases, description, the relation's free verb.")
    evidence: list[Evidence] = Field(default_factory=list)

    @property
    def cited_scenes(self) -> list[int]:
        """The distinct scenes the evidence cites, in the order it cites them."""
        return list(dict.fromkeys(e.scene for e in self.evidence))


class AuditSample(_Model):
    """A seeded, stratified sample of a graph's facts, with the counts it was drawn from."""

    title: str
    seed: int
    relations_requested: int
    entities_requested: int
    relation_counts: dict[str, int] = Field(description="Relations per type in the whole graph.")
    entity_counts: dict[str, int] = Field(description="Entities per type in the whole graph.")
    facts: list[AuditFact]

    def counts(self, kind: FactKind) -> dict[str, int]:
        """Facts per type in the whole graph, for relations or entities."""
        return self.relation_counts if kind == "relation" else self.entity_counts


class Verdict(_Model):
    """One judged fact: a line of a verdicts JSONL file."""

    fact_id: str
    verdict: VerdictValue
    reason: str = ""


class JudgeAnswer(_Model):
    """What an LLM judge answers (the strict JSON schema of a judge request)."""

    verdict: VerdictValue = Field(description="supported, not_supported or cant_tell.")
    reason: str = Field(description="One sentence pointing at the scene text.")


class TypeShare(_Model):
    """The tally of one relation or entity type."""

    kind: FactKind
    type: str
    in_graph: int = Field(description="Facts of this type in the whole graph.")
    sampled: int
    judged: int
    supported: int
    not_supported: int = Field(description="Judged not supported, facts without evidence included.")
    cant_tell: int
    share: float | None = Field(description="supported / judged (cant_tell counts as not supported).")
    low: float | None = Field(description="Wilson 95% interval, lower end.")
    high: float | None = Field(description="Wilson 95% interval, upper end.")


class WeightedShare(_Model):
    """The supported share over all facts of a kind, each type weighted by its frequency."""

    kind: FactKind
    share: float | None = Field(description="sum over judged types of (type count / count) x type share.")
    low: float | None = Field(description="95% interval from the stratified variance, lower end.")
    high: float | None
    judged: int
    supported: int
    cant_tell: int
    coverage: float = Field(
        description="Share of the graph's facts of this kind whose type has verdicts (1.0 normally).")


class JudgedFact(_Model):
    """A sampled fact with its verdict, for the report."""

    fact_id: str
    kind: FactKind
    type: str
    statement: str
    verdict: VerdictValue
    reason: str


class AuditReport(_Model):
    """The tally of an audit: per-type shares, weighted shares, and every verdict."""

    title: str
    seed: int
    relations_requested: int
    entities_requested: int
    relation_types: list[TypeShare]
    entity_types: list[TypeShare]
    relations: WeightedShare
    entities: WeightedShare
    not_judged: list[str] = Field(default_factory=list, description="Sampled fact ids with no verdict.")
    facts: list[JudgedFact] = Field(default_factory=list)
