"""Scoring a bets checkpoint: its raw multiple-choice logits, and their sigmoids, on the questions it is evaluated on
(the model-facing step that writes a logit dump). Torch is imported only when a checkpoint is scored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from choicelab.mc.finetune import require_input_format
from choicelab.mc.items import MCItem
from choicelab.mc.scoring import score_encoder
from choicelab.stats import seeded_subsample
from choicelab.studies.bets.metrics import sigmoid


def scored_questions(items: Sequence[MCItem], train_eval_size: int | None, seed: int) -> list[MCItem]:
    """The questions of one benchmark file a checkpoint is scored on: a train split is cut to a seeded
    ``train_eval_size`` (None = all; Fig. 2 and Table 20's train bars), dev and test splits are scored whole."""
    if train_eval_size is None or not items or items[0].split != "train":
        return list(items)
    return seeded_subsample(items, train_eval_size, seed)


def score_checkpoint(
    checkpoint_dir: str,
    benchmarks: Sequence[Sequence[MCItem]],
    *,
    name: str,
    configured_format: str,
    max_length: int,
    train_eval_size: int | None,
    seed: int,
    device: str = "auto",
    log: Any = print,
) -> list[Any]:
    """Dump rows (``mc_logit`` and ``mc_sigmoid``) of one checkpoint on each benchmark's scored questions.

    The checkpoint is scored in the input format it was trained in; a checkpoint trained in another format than
    ``configured_format`` is refused (see :func:`choicelab.mc.finetune.require_input_format`).
    """
    from choicelab.lm.loading import load_encoder_mc

    fmt = require_input_format(checkpoint_dir, configured_format, purpose="bets scoring")
    model, tokenizer, _ = load_encoder_mc(checkpoint_dir, seed=None, device=device)
    rows: list[Any] = []
    for items in benchmarks:
        scored = scored_questions(items, train_eval_size, seed)
        logits = score_encoder(
            model, tokenizer, scored, study="bets", model=name, input_format=fmt, max_length=max_length
        )
        rows += logits + sigmoid_rows(logits)
        if scored:
            log(f"{scored[0].benchmark} {scored[0].split}: {len(scored)} questions scored ({fmt} format)")
    return rows


def sigmoid_rows(rows: Sequence[Any]) -> list[Any]:
    """Method ``mc_sigmoid`` rows next to each ``mc_logit`` row: score = sigmoid(raw logit), prob = NaN."""
    return [
        replace(r, method="mc_sigmoid", score=float(sigmoid(np.array([r.score]))[0]), prob=float("nan"))
        for r in rows
        if r.method == "mc_logit"
    ]
