"""The competence gate of the bets checkpoints (:mod:`choicelab.mc.competence`), and its marks on every table and
figure built on them.

* A task stage (``value_<template>``, ``bet_<modality>``) is judged on its own question set's **test** questions
  (unseen: its best dev accuracy selected the kept state, so it is optimistic) with the standard method, against
  chance (the cell's 1/3 baseline) and against its untrained control: the same seed's default checkpoint (the
  state the task fine-tuning started from) on the same test questions.
* The default stage (SWAG or its HellaSwag stand-in) is judged on its dev accuracy (the kept state's, the only
  unseen items it is scored on), against the dev set's chance level; no control is scored for it.

A checkpoint whose exact 95 % interval covers chance is marked ``model not above chance: bets statistics not
interpretable`` in the ``model_competence`` column of every evaluation row scored with it (so every result table's
CSV, the paper comparison and the training table) and in the notes of the tables' Markdown and the figures'
captions; a mean over seeds says in how many seeds the gate failed. Nothing is dropped.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from choicelab.mc.competence import COLUMN, judge, not_above_chance, seeds_verdict
from choicelab.studies.bets.stages import (
    STAGE_DEFAULT,
    checkpoint_name,
    own_eval_set,
    seeded_model,
    split_checkpoint,
    split_seed,
)

SUBJECT = "bets statistics"
NOT_ABOVE_CHANCE = not_above_chance(SUBJECT)
GATE_COLUMNS = ["checkpoint", "gate_items", "gate_accuracy", "gate_ci95_low", "gate_ci95_high", "gate_chance",
                "control_accuracy", "control_items", "above_chance", "above_control", "gate_source", COLUMN]


def _standard_test(ev: pd.DataFrame, checkpoint: str, eval_set: str) -> pd.Series | None:
    sel = ev[(ev["checkpoint"] == checkpoint) & (ev["eval_set"] == eval_set) & (ev["split"] == "test")
             & (ev["ground_truth"] == "standard")]
    return sel.iloc[0] if len(sel) else None


def gate(notes: pd.DataFrame, ev: pd.DataFrame | None) -> pd.DataFrame:
    """One row per checkpoint of the training notes (:func:`.training.training_notes`): the items it is judged on,
    its accuracy with the exact 95 % interval, chance, its control, the source of the numbers and the verdict
    (:data:`GATE_COLUMNS`). A task checkpoint with no test evaluation of its own set is refused: the gate cannot
    judge it, and the evaluations job must score it (``stages.scoring_plan``)."""
    rows = []
    ev = ev if ev is not None else pd.DataFrame(columns=["checkpoint", "eval_set", "split", "ground_truth"])
    for note in notes.itertuples(index=False):
        seed = None if pd.isna(note.seed) else int(note.seed)
        seeded = seeded_model(note.model, seed) if seed is not None else note.model
        name = checkpoint_name(seeded, note.stage)
        if note.stage == STAGE_DEFAULT:
            n = int(note.dev_items or 0)
            best = float(note.best_dev_accuracy) if note.best_dev_accuracy is not None else math.nan
            correct, chance = (round(best * n) if n and not math.isnan(best) else 0), float(note.dev_chance)
            control_accuracy, control_items = math.nan, 0
            source = f"dev accuracy of the kept state ({n} questions of its own data; no control scored)"
        else:
            own_set = own_eval_set(note.stage)
            own = _standard_test(ev, name, own_set)
            if own is None:
                raise ValueError(
                    f"bets competence gate: checkpoint {name} has no standard-method test evaluation of its own set "
                    f"{own_set}; rebuild results/bets/metrics/evaluations.parquet (rule bets_evaluate)")
            n, correct, chance = int(own["n"]), int(own["hits"]), float(own["p0"])
            control = _standard_test(ev, checkpoint_name(seeded, STAGE_DEFAULT), own_set)
            control_accuracy, control_items = ((float(control["accuracy"]), int(control["n"])) if control is not None
                                               else (math.nan, 0))
            source = (f"own set's test questions ({n}, unseen); control: the same seed's default checkpoint on them"
                      if control is not None else f"own set's test questions ({n}, unseen); no control scored")
        if n == 0:
            raise ValueError(f"bets competence gate: checkpoint {name} records no dev items; rebuild it")
        g = judge(correct, n, chance, control_accuracy=control_accuracy, control_items=control_items,
                  subject=SUBJECT, control="untrained control (the default checkpoint it started from)")
        rows.append({"checkpoint": name, "gate_items": n, "gate_accuracy": g.accuracy, "gate_ci95_low": g.ci95_low,
                     "gate_ci95_high": g.ci95_high, "gate_chance": chance, "control_accuracy": control_accuracy,
                     "control_items": control_items, "above_chance": g.above_chance, "above_control": g.above_control,
                     "gate_source": source, COLUMN: g.verdict})
    return pd.DataFrame.from_records(rows, columns=GATE_COLUMNS)


def with_gate(notes: pd.DataFrame, gates: pd.DataFrame) -> pd.DataFrame:
    """The training notes with each checkpoint's gate columns beside its recipe and accuracies."""
    if notes.empty:
        return notes.assign(**{c: pd.Series(dtype=object) for c in GATE_COLUMNS})
    names = [checkpoint_name(seeded_model(m, int(s)) if not pd.isna(s) else m, st)
             for m, s, st in zip(notes["model"], notes["seed"], notes["stage"], strict=True)]
    return notes.assign(checkpoint=names).merge(gates, on="checkpoint", how="left")


def mark_evaluations(ev: pd.DataFrame, gates: pd.DataFrame) -> pd.DataFrame:
    """``ev`` with the :data:`COLUMN` verdict of the checkpoint each evaluation row was scored with (empty for a
    checkpoint the gate does not know)."""
    verdicts = dict(zip(gates["checkpoint"], gates[COLUMN], strict=True))
    return ev.assign(**{COLUMN: [verdicts.get(c, "") for c in ev["checkpoint"]]})


def seed_mean_verdict(verdicts: pd.Series) -> str:
    """The verdict of a mean over seed checkpoints (:func:`.seeds.with_seed_means`)."""
    return seeds_verdict([v == NOT_ABOVE_CHANCE for v in verdicts], SUBJECT)


def failing(gates: pd.DataFrame) -> list[str]:
    """The checkpoints not above chance (their names, for notes and captions)."""
    return sorted(gates.loc[gates[COLUMN] == NOT_ABOVE_CHANCE, "checkpoint"])


def note(gates: pd.DataFrame) -> str:
    """What a caption or a table's notes add: the checkpoints the gate marked, or that every one passed."""
    if gates.empty:
        return ""
    bad = failing(gates)
    if not bad:
        return f"Competence gate: all {len(gates)} checkpoints above chance."
    stages = sorted({split_checkpoint(c)[1] for c in bad})
    models = sorted({split_seed(split_checkpoint(c)[0])[0] for c in bad})
    return (f"Competence gate: {len(bad)} of {len(gates)} checkpoints {NOT_ABOVE_CHANCE} ({', '.join(bad)}; "
            f"stages {', '.join(stages)} of {', '.join(models)}); their rows carry the mark in model_competence.")


def summary(gates: pd.DataFrame) -> pd.DataFrame:
    """Per stage: how many seed checkpoints passed the gate (for docs and tests)."""
    if gates.empty:
        return pd.DataFrame(columns=["stage", "checkpoints", "not_above_chance"])
    stage = gates["checkpoint"].map(lambda c: split_checkpoint(c)[1])
    bad = gates[COLUMN].eq(NOT_ABOVE_CHANCE)
    out = pd.DataFrame({"stage": stage, "bad": bad}).groupby("stage", sort=True)["bad"].agg(["size", "sum"])
    return out.reset_index().rename(columns={"size": "checkpoints", "sum": "not_above_chance"}).astype(
        {"not_above_chance": np.int64})
