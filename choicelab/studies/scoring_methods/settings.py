"""The typed settings of the scoring-methods study: ``studies.scoring_methods`` of the config, after validation filled
the schema's defaults (schemas/config.schema.yaml is the one place defaults live)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from choicelab.config import ConfigError
from choicelab.settings import read
from choicelab.studies.scoring_methods.trained_coder import CoderRecipe

SECTION = "scoring_methods"


@dataclass(frozen=True)
class Coder:
    """``studies.scoring_methods.coder``: ``kind`` "trained" (rules + an encoder fine-tuned on the authors' hand codes,
    :mod:`choicelab.studies.scoring_methods.trained_coder`, trained by the workflow with the recipe ``train``),
    "embedding" (rules + sentence similarity with an encoder) or "judge" (rules + an LLM judge); ``model`` the
    coder's model entry (kinds trained and embedding: coder.model, else ``embedder``; None: the scored model's own
    embeddings)."""

    kind: str
    model: str | None
    train: CoderRecipe


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


def _coder(s: Mapping[str, Any], models: Mapping[str, Any]) -> Coder:
    """``studies.scoring_methods.coder``, checked against ``models:``: a judge needs a causal model, an embedding
    coder an encoder (``coder.model``, else ``embedder``)."""
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
        fitting = sorted(n for n, m in models.items() if m.get("kind") == need)
        if resolved not in models:
            raise ConfigError(
                f"config key 'studies.scoring_methods.{key}': unknown model {resolved!r}; add it under 'models:' or "
                f"use one of {fitting}"
            )
        if models[resolved].get("kind") != need:
            raise ConfigError(
                f"config key 'studies.scoring_methods.{key}': model {resolved!r} is a {models[resolved].get('kind')} "
                f"model, but a coder of kind {kind!r} needs a {need} model; choose one of {fitting}"
            )
    if kind == "trained" and resolved is None and s["enabled"]:
        raise ConfigError(
            "config key 'studies.scoring_methods.coder': coder.kind is 'trained' but neither coder.model nor embedder "
            "names an encoder to fine-tune: name one (e.g. minilm-l6), or set coder.kind to 'embedding'"
        )
    return Coder(kind, resolved, read(CoderRecipe, s["coder"]["train"], f"studies.{SECTION}.coder.train"))


def resolve(settings: Settings, config: Mapping[str, Any]) -> Settings:
    """``settings`` with ``coder.model`` resolved and checked against ``models:`` (see :func:`_coder`); called by
    :func:`choicelab.studies.study_settings` after the generic reader."""
    section = config["studies"][SECTION]
    return dataclasses.replace(settings, coder=_coder(section, config.get("models", {})))
