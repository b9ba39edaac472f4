"""The typed settings of the scoring-methods study: ``studies.scoring_methods`` of the config, after validation filled
the schema's defaults (schemas/config.schema.yaml is the one place defaults live)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Settings:
    enabled: bool
    models: tuple[str, ...]  # scored with every method on the pragmatics items
    embedder: str | None  # encoder that codes free generations (None: the scored model's own embeddings)
    items_per_condition: int | None  # seeded items per condition (None: all 169)
    methods: tuple[str, ...]
    label_seeds: tuple[int, ...]  # option-order seeds of label scoring
    label_sets: tuple[str, ...]
    scales: tuple[str, ...]  # rating scales
    temperatures: tuple[float, ...]  # free generation
    generation_seeds: tuple[int, ...]
    max_new_tokens: int
    seq2seq_scoring: str  # pll | pll_token | decoder: how FLAN-T5 scores strings, labels, ratings
    grid_models: tuple[str, ...]  # run the method x score grid on every benchmark of the workflow
    grid_benchmarks: tuple[str, ...] | None  # None: every multiple-choice benchmark the workflow builds
    grid_items: int | None  # seeded items per benchmark in the grid (None: all)
    grid_methods: tuple[str, ...]
    grid_label_seeds: tuple[int, ...]
    grid_scales: tuple[str, ...]


def _optional_tuple(value: Any) -> tuple | None:
    return None if value is None else tuple(value)


def from_config(config: Mapping[str, Any]) -> Settings:
    """The study's settings from a validated config (every key present: validation filled the defaults)."""
    s = config["studies"]["scoring_methods"]
    return Settings(
        enabled=bool(s["enabled"]),
        models=tuple(s["models"]),
        embedder=s["embedder"],
        items_per_condition=s["items_per_condition"],
        methods=tuple(s["methods"]),
        label_seeds=tuple(s["label_seeds"]),
        label_sets=tuple(s["label_sets"]),
        scales=tuple(s["scales"]),
        temperatures=tuple(s["temperatures"]),
        generation_seeds=tuple(s["generation_seeds"]),
        max_new_tokens=int(s["max_new_tokens"]),
        seq2seq_scoring=str(s["seq2seq_scoring"]),
        grid_models=tuple(s["grid_models"]),
        grid_benchmarks=_optional_tuple(s["grid_benchmarks"]),
        grid_items=s["grid_items"],
        grid_methods=tuple(s["grid_methods"]),
        grid_label_seeds=tuple(s["grid_label_seeds"]),
        grid_scales=tuple(s["grid_scales"]),
    )
