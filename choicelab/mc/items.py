"""The one multiple-choice item contract every benchmark is instantiated into.

Each study builds its own richer items, then converts them to :class:`MCItem` so that every benchmark can be scored
by the shared engine, probed (probes study) and scored by every method (scoring-methods study).
Benchmarks are stored as Parquet with :data:`MC_ITEM_SCHEMA`; study-specific fields go into ``meta`` (JSON text).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from choicelab.io import write_parquet

MC_ITEM_SCHEMA = pa.schema(
    [
        pa.field("benchmark", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("choices", pa.list_(pa.string()), nullable=False),
        pa.field("label", pa.int32(), nullable=False),
        pa.field("meta", pa.string(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"mc_items/1"},
)


@dataclass(frozen=True)
class MCItem:
    """One multiple-choice question: ``choices[label]`` is the correct (or target) choice, 0-based."""

    benchmark: str
    split: str
    item_id: str
    prompt: str
    choices: tuple[str, ...]
    label: int
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.choices:
            raise ValueError(f"item {self.item_id!r} of {self.benchmark!r} has no choices")
        if not 0 <= self.label < len(self.choices):
            raise ValueError(
                f"item {self.item_id!r} of {self.benchmark!r}: label {self.label} outside 0..{len(self.choices) - 1}"
            )


def items_to_table(items: Iterable[MCItem]) -> pa.Table:
    rows = list(items)
    columns = {name: [getattr(it, name) for it in rows] for name in MC_ITEM_SCHEMA.names}
    columns["choices"] = [list(it.choices) for it in rows]
    columns["meta"] = [json.dumps(it.meta, sort_keys=True, ensure_ascii=False) for it in rows]
    return pa.table(columns, schema=MC_ITEM_SCHEMA)


def table_to_items(table: pa.Table) -> list[MCItem]:
    return [MCItem(**{**row, "choices": tuple(row["choices"]), "label": int(row["label"]),
                      "meta": json.loads(row["meta"])}) for row in table.to_pylist()]


def check_unique_ids(items: Sequence[MCItem]) -> None:
    seen: set[tuple[str, str, str]] = set()
    for it in items:
        key = (it.benchmark, it.split, it.item_id)
        if key in seen:
            raise ValueError(f"duplicate item id {key}")
        seen.add(key)


def write_items(path: str, items: Sequence[MCItem], provenance_json: str) -> None:
    """Write an instantiated benchmark (``results/<study>/benchmarks/<benchmark>.parquet``) atomically."""
    items = list(items)
    if not items:
        raise ValueError(f"refusing to write an empty item list to {path}: the benchmark generated no items")
    check_unique_ids(items)
    write_parquet(path, items_to_table(items), provenance=provenance_json)


def read_items(path: str) -> list[MCItem]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    if (table.schema.metadata or {}).get(b"choicelab.schema") != b"mc_items/1":
        raise ValueError(f"{path} is not a choicelab benchmark (schema mc_items/1)")
    return table_to_items(table)
