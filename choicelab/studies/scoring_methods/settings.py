"""The typed settings of the scoring-methods study: ``studies.scoring_methods`` of the config, after validation filled
the schema's defaults (schemas/config.schema.yaml is the one place defaults live)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Coder:
    """``studies.scoring_methods.coder``: ``kind`` "embedding" (rules + sentence similarity with an encoder) or
    "judge" (rules + an LLM judge); ``model`` the coder's model entry (kind embedding: coder.model, else
    ``embedder``; None: the scored model's own embeddings)."""

    kind: str
    model: str | None


@dataclass(frozen=True)
class Settings:
    enabled: bool
    models: tuple[str, ...]  # scored with every method on the pragmatics items
    embedder: str | None  # encoder that codes free generations (None: the scored model's own embeddings)
    coder: Coder  # what codes free generations
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


def _coder(s: Mapping[str, Any], models: Mapping[str, Any]) -> Coder:
    """``studies.scoring_methods.coder``, checked against ``models:``: a judge needs a causal model, an embedding
    coder an encoder (``coder.model``, else ``embedder``)."""
    from choicelab.config import ConfigError

    kind, model = s["coder"]["kind"], s["coder"]["model"]
    if kind == "judge" and model is None:
        raise ConfigError(
            "config key 'studies.scoring_methods.coder': coder.kind is 'judge' but coder.model is null: name a causal "
            "(instruct) model entry of `models:` as the judge, or set coder.kind to 'embedding'"
        )
    key = "coder.model" if model is not None else "embedder"
    resolved = model if model is not None else s["embedder"]
    if resolved is not None:
        need = "causal" if kind == "judge" else "encoder"
        if resolved not in models:
            raise ConfigError(
                f"config key 'studies.scoring_methods.{key}': unknown model {resolved!r}; add it under 'models:' or "
                f"use one of {sorted(n for n, m in models.items() if m.get('kind') == need)}"
            )
        if models[resolved].get("kind") != need:
            raise ConfigError(
                f"config key 'studies.scoring_methods.{key}': model {resolved!r} is a {models[resolved].get('kind')} "
                f"model, but a coder of kind {kind!r} needs a {need} model; choose one of "
                f"{sorted(n for n, m in models.items() if m.get('kind') == need)}"
            )
    return Coder(kind, resolved)


def from_config(config: Mapping[str, Any]) -> Settings:
    """The study's settings from a validated config (every key present: validation filled the defaults)."""
    s = config["studies"]["scoring_methods"]
    return Settings(
        enabled=bool(s["enabled"]),
        models=tuple(s["models"]),
        embedder=s["embedder"],
        coder=_coder(s, config.get("models", {})),
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
