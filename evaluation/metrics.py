"""Precision, recall and F1 counts, and their micro and macro aggregation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, computed_field


class PRF(BaseModel):
    """True positives, false positives and false negatives, with the derived scores."""

    model_config = ConfigDict(extra="forbid")

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: PRF) -> PRF:
        return PRF(tp=self.tp + other.tp, fp=self.fp + other.fp, fn=self.fn + other.fn)


class Averaged(BaseModel):
    """Scores averaged over movies (macro)."""

    model_config = ConfigDict(extra="forbid")

    precision: float
    recall: float
    f1: float


def micro(items: list[PRF]) -> PRF:
    """Sum the counts, then score."""
    total = PRF()
    for item in items:
        total = total + item
    return total


def macro(items: list[PRF]) -> Averaged:
    """Score each, then average (an empty list averages to zeros)."""
    n = len(items) or 1
    return Averaged(
        precision=sum(i.precision for i in items) / n,
        recall=sum(i.recall for i in items) / n,
        f1=sum(i.f1 for i in items) / n,
    )
