"""Typed settings of the probes study: ``studies.probes`` of the config, after validation filled the schema's defaults
(schemas/config.schema.yaml is the only place defaults live; nothing here restates one)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finetune:
    """``studies.probes.finetune``: how each encoder is fine-tuned per benchmark (choicelab.mc.finetune)."""

    learning_rate: float
    batch_size: int
    max_epochs: int | float  # kept as written: checkpoints' model.json record it so (bets' reads as a float)
    max_length: int
    warmup_steps: int
    weight_decay: float
    grad_accumulation: int
    dropout: float | None
    patience: int | None
    eval_every_steps: int | None
    target_dev_accuracy: float | None
    frozen_layers: int
    batch_order: str  # shuffled | by_length (choicelab.lm.recipe.Recipe)


@dataclass(frozen=True)
class Settings:
    """``studies.probes``; lists become tuples, ``null`` stays None (its meaning is in the schema's description)."""

    enabled: bool
    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    causal_models: tuple[str, ...]
    causal_benchmarks: tuple[str, ...] | None
    causal_items: int | None
    embedder: str
    train_size: int | None
    dev_size: int | None
    train_data: str
    heldout_fraction: float
    control_models: tuple[str, ...] | None
    control_items: int | None
    seq2seq_control_items: int | None
    dev_train_fraction: float
    trials: int
    cp_n: tuple[int, ...]
    cp_instances: int
    cp_sampling: tuple[str, ...]
    seeds: tuple[int, ...]
    ensemble: bool
    gate_items: int | None
    premise_dev_accuracy: float | None
    finetune: Finetune
