"""The training notes of the bets study: which data each checkpoint was trained on, with which recipe, its best dev
accuracy and whether it reached its target -- the default (SWAG) stage beside the paper's SWAG validation accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from choicelab.studies.bets.stages import STAGE_DEFAULT, split_checkpoint

PAPER_SWAG_DEV_ACCURACY = {"BERT": 0.77, "RoBERTa": 0.79, "DeBERTa": 0.85, "BigBird": 0.81}  # Sec. 4.2.2


def training_notes(
    model_meta: Mapping[str, Mapping[str, Any]], paper_labels: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Which data each checkpoint was trained on, with which recipe, and its best dev accuracy -- for the default
    (SWAG) stage beside the paper's SWAG validation accuracy of the same model (BERT 77, RoBERTa 79, DeBERTa 85,
    BigBird 81; empty where our model is not one of the paper's) -- and whether each task fine-tuning reached its
    target."""
    paper_labels = paper_labels or {}
    rows = []
    for name, meta in sorted(model_meta.items()):
        training = meta.get("training", {})
        params = training.get("params", {})
        model, stage = split_checkpoint(name)
        paper_model = paper_labels.get(model, "")
        rows.append(
            {
                "model": model,
                "stage": stage,
                "trained_on": training.get("data", ""),
                "train_items": training.get("train_items"),
                "dev_items": training.get("dev_items"),
                "input_format": params.get("input_format", ""),
                "learning_rate": params.get("learning_rate"),
                "batch_size": params.get("batch_size"),
                "warmup_steps": params.get("warmup_steps"),
                "max_length": params.get("max_length"),
                "epochs_run": training.get("epochs_run"),
                "steps": training.get("steps"),
                "best_dev_accuracy": training.get("best_dev_accuracy"),
                "paper_model": paper_model,
                "paper_swag_dev_accuracy": (
                    PAPER_SWAG_DEV_ACCURACY.get(paper_model, np.nan) if stage == STAGE_DEFAULT else np.nan
                ),
                "target_dev_accuracy": training.get("target_dev_accuracy"),
                "reached_target": training.get("reached_target"),
            }
        )
    return pd.DataFrame(rows)
