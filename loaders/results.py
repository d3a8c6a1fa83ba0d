"""A query's answer as plain Python values, the same shape from every store."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class QueryResult(BaseModel):
    """Column names and rows of plain values (nodes and relationships become dicts)."""

    model_config = ConfigDict(extra="forbid")

    columns: list[str]
    rows: list[list[Any]]

    def as_dicts(self) -> list[dict[str, Any]]:
        """One dict per row, keyed by column name."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def plain_value(value: Any) -> Any:
    """An embedded-store value as plain data: internal ids dropped, `_LABEL` kept as `label`."""
    if isinstance(value, dict):
        if "_NODES" in value and "_RELS" in value:
            return {"nodes": [plain_value(n) for n in value["_NODES"]],
                    "relationships": [plain_value(r) for r in value["_RELS"]]}
        out = {k: plain_value(v) for k, v in value.items() if not k.startswith("_")}
        if "_LABEL" in value:
            out = {"label": value["_LABEL"], **out}
        return out
    if isinstance(value, list):
        return [plain_value(v) for v in value]
    return value
