"""Prices and per-task usage."""

from __future__ import annotations

import pytest

from kgbuild.llm.costs import (
    LLMUsage,
    ModelPrice,
    PriceTable,
    TaskUsage,
    format_usage,
)
from kgbuild.llm.types import Usage


def test_dated_model_names_use_the_longest_known_prefix():
    table = PriceTable()
    assert table.price("gpt-4o-mini-2024-07-18") == table.price("gpt-4o-mini")
    assert table.price("gpt-4o-2024-08-06") == table.price("gpt-4o")
    assert table.price("gpt-4o-mini") != table.price("gpt-4o")
    assert table.price("llama3:8b") is None


def test_cost_and_batch_discount():
    table = PriceTable().with_overrides({"local": ModelPrice(input_per_mtok=1.0, output_per_mtok=3.0)})
    usage = Usage(prompt_tokens=2_000_000, completion_tokens=1_000_000)
    assert table.cost("local", usage) == pytest.approx(5.0)
    assert table.cost("local", usage, batch=True) == pytest.approx(2.5)
    assert table.cost("unknown", usage) == 0.0
    assert "local" not in PriceTable().prices  # overrides make a new table


def test_usage_totals_and_report_lines():
    usage = LLMUsage(backend="openai", model="m", priced=False, tasks={
        "events": TaskUsage(calls=3, requests=4, retries=1, prompt_tokens=100, completion_tokens=10),
        "relations": TaskUsage(calls=2, cache_hits=2, prompt_tokens=0),
    })
    assert usage.total == TaskUsage(calls=5, cache_hits=2, requests=4, retries=1,
                                     prompt_tokens=100, completion_tokens=10)
    lines = format_usage(usage)
    assert "price unknown" in lines[0]
    assert [line.split()[0] for line in lines[1:]] == ["events", "relations", "total"]
    assert LLMUsage.model_validate(usage.model_dump()) == usage
