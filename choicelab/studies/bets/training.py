"""The training record of the bets study: which data each checkpoint was trained on, with which recipe (learning rate
in full, seed, frozen parts, evaluation interval), its best dev accuracy with an exact interval beside its test
accuracy -- the default (SWAG) stage beside the paper's SWAG validation accuracy -- and how the recipe deviates from
the paper's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from choicelab.stats import exact_interval
from choicelab.studies.bets.stages import STAGE_DEFAULT, own_eval_set, split_checkpoint, split_seed

PAPER_SWAG_DEV_ACCURACY = {"BERT": 0.77, "RoBERTa": 0.79, "DeBERTa": 0.85, "BigBird": 0.81}  # Sec. 4.2.2
# The paper's recipes (docs/bets.md): run_swag for the default stage; the task stage "uniformly" at batch 32, lr 5e-5,
# everything trained, dev accuracy every epoch, until 0.90.
PAPER_RECIPE = {
    "default": {"learning_rate": 5e-5, "batch_size": 8, "max_epochs": 3.0, "freeze_word_embeddings": False,
                "frozen_layers": 0},
    "task": {"learning_rate": 5e-5, "batch_size": 32, "warmup_steps": 0, "freeze_word_embeddings": False,
             "frozen_layers": 0, "eval_every_steps": None, "target_dev_accuracy": 0.9},
}


def _frozen(params: Mapping[str, Any]) -> str:
    parts = []
    if params.get("frozen_layers"):
        parts.append(f"embeddings + bottom {params['frozen_layers']} layers")
    elif params.get("freeze_word_embeddings"):
        parts.append("word embeddings")
    return ", ".join(parts) or "none"


def _own_test_accuracy(evaluations: pd.DataFrame | None, checkpoint: str, stage: str) -> tuple[float, int]:
    """A task checkpoint's standard-method accuracy on the test questions of the set it was trained on."""
    if evaluations is None or evaluations.empty or stage == STAGE_DEFAULT:
        return float("nan"), 0
    own = own_eval_set(stage)
    sel = evaluations[(evaluations["checkpoint"] == checkpoint) & (evaluations["eval_set"] == own)
                      & (evaluations["split"] == "test") & (evaluations["ground_truth"] == "standard")]
    return (float(sel["accuracy"].iloc[0]), int(sel["n"].iloc[0])) if len(sel) else (float("nan"), 0)


def training_notes(
    model_meta: Mapping[str, Mapping[str, Any]], paper_labels: Mapping[str, str] | None = None,
    evaluations: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per checkpoint: data, recipe (learning rate printed in full, seed, frozen parts, evaluation interval),
    epochs and steps, best dev accuracy with its exact 95 % interval and the dev set's chance level, and beside it
    the test accuracy on the checkpoint's own question set (task stages); the default (SWAG) stage beside the paper's
    SWAG validation accuracy of the same model (BERT 77, RoBERTa 79, DeBERTa 85, BigBird 81; empty where our model is
    not one of the paper's); whether each task fine-tuning reached its target; and ``deviation``, how its recipe
    differs from the paper's (:data:`PAPER_RECIPE`)."""
    paper_labels = paper_labels or {}
    rows = []
    for name, meta in sorted(model_meta.items()):
        training = meta.get("training", {})
        params = training.get("params", {})
        seeded, stage = split_checkpoint(name)
        model, seed = split_seed(seeded)
        paper_model = paper_labels.get(model, "")
        best, dev_items = training.get("best_dev_accuracy"), training.get("dev_items") or 0
        low, high = exact_interval(round(best * dev_items), dev_items) if best is not None and dev_items else (
            np.nan, np.nan)
        test, test_n = _own_test_accuracy(evaluations, name, stage)
        every = params.get("eval_every_steps")
        rows.append(
            {
                "model": model,
                "seed": params.get("seed", seed),
                "stage": stage,
                "trained_on": training.get("data", ""),
                "train_items": training.get("train_items"),
                "dev_items": dev_items,
                "input_format": params.get("input_format", ""),
                "learning_rate": f"{params['learning_rate']:g}" if "learning_rate" in params else "",
                "batch_size": params.get("batch_size"),
                "warmup_steps": params.get("warmup_steps"),
                "max_length": params.get("max_length"),
                "frozen": _frozen(params),
                "evaluation": f"every {every} steps" if every else "every epoch",
                "epochs_run": training.get("epochs_run"),
                "steps": training.get("steps"),
                "best_dev_accuracy": best,
                "best_dev_ci95_low": low,
                "best_dev_ci95_high": high,
                "dev_chance": training.get("dev_chance", np.nan),
                "test_accuracy": test,
                "test_items": test_n,
                "paper_model": paper_model,
                "paper_swag_dev_accuracy": (
                    PAPER_SWAG_DEV_ACCURACY.get(paper_model, np.nan) if stage == STAGE_DEFAULT else np.nan
                ),
                "target_dev_accuracy": training.get("target_dev_accuracy"),
                "reached_target": training.get("reached_target"),
                "precision": training.get("precision", "fp32"),
                "deviation": deviation(params, stage),
            }
        )
    return pd.DataFrame(rows)


def deviation(params: Mapping[str, Any], stage: str) -> str:
    """How a checkpoint's recipe differs from the paper's (empty: the paper's recipe)."""
    paper = PAPER_RECIPE["default" if stage == STAGE_DEFAULT else "task"]
    parts = []
    for key, value in paper.items():
        ours = params.get(key, value)
        if key in ("frozen_layers",) and not ours:
            ours = 0
        if ours != value and not (isinstance(ours, float) and isinstance(value, float) and np.isclose(ours, value)):
            parts.append(f"{key} {_fmt(ours)} (paper {_fmt(value)})")
    return "; ".join(parts)


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def notes_markdown(notes: pd.DataFrame) -> str:
    """The training table's Markdown: the table, then the recipe deviations and the seeds as notes."""
    table = notes.drop(columns=["deviation"])
    # learning rates in full (a .3f format prints 2e-4 as 0.000): tabulate reads the string column as a number
    formats = ["g" if column == "learning_rate" else ".3f" for column in table.columns]
    body = table.to_markdown(index=False, floatfmt=formats) + "\n" if len(notes) else ""
    lines = []
    if len(notes):
        seeds = sorted({int(s) for s in notes["seed"].dropna()})
        lines.append(f"Seeds: {', '.join(map(str, seeds))} ({len(seeds)}); every stage is trained once per seed.")
        for (stage_kind, dev), _group in notes.groupby(
                [notes["stage"].eq(STAGE_DEFAULT).map({True: "default stage", False: "task stages"}),
                 notes["deviation"]], sort=True):
            lines.append(f"Deviation from the paper's recipe, {stage_kind}: {dev}." if dev else
                         f"{stage_kind.capitalize()}: the paper's recipe.")
        lines.append("best_dev_accuracy is the best of the evaluations during training (it selected the kept state); "
                     "test_accuracy, on unseen test questions of the same set, is the honest number.")
    return body + ("\n" + "\n\n".join(lines) + "\n" if lines else "")
