"""The bets study across training seeds: every stage is fine-tuned once per seed (``studies.bets.seeds``), so each
evaluation exists once per seed. :func:`with_seed_means` adds, per encoder and evaluation cell, a row with the mean
over its seeds and their spread (SD and t 95 % interval over seeds); :func:`gap_over_seeds` judges RQ3's same- vs
cross-modality gap on that spread, not on the question-sampling SE of one checkpoint."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from choicelab.mc.competence import COLUMN
from choicelab.stats import t_interval
from choicelab.studies.bets.competence import seed_mean_verdict
from choicelab.studies.bets.stages import split_seed

MEAN_MARK = " mean of "
CELL = ["rq", "stage", "eval_set", "split", "ground_truth"]


def seed_mean_label(model: str, seeds: int) -> str:
    """The model name of an encoder's mean over its seed checkpoints (``minilm-l6 mean of 3 seeds``)."""
    return f"{model}{MEAN_MARK}{seeds} seeds"


def is_seed_mean(label: str) -> bool:
    return MEAN_MARK in label


def spread_over_seeds(values: Sequence[float] | np.ndarray) -> tuple[float, float, float, float]:
    """(mean, SD, low, high) over seeds, the interval t-based (:func:`choicelab.stats.t_interval`: few seeds); SD and
    interval NaN for one seed. NaN values (a seed without the cell) are left out."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    mean, low, high = t_interval(x)
    return mean, float(x.std(ddof=1)) if x.size > 1 else float("nan"), low, high


# The per-checkpoint intervals of an evaluation row (question sampling); a mean over seeds has the seeds' instead.
QUESTION_INTERVALS = ("ci95_low", "ci95_high", "clustered_low", "clustered_high", "n_clusters", "design_effect",
                      "min_detectable_difference")


def drawn_interval(ev: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The 95 % interval a figure draws for each evaluation row: a seed checkpoint's interval clustered by item pair,
    a mean over seeds' t interval over its seeds (the one kind of interval per quantity, docs/statistics.md). Rows
    not yet given their seed means (:func:`with_seed_means`) are all seed checkpoints."""
    if "ci95_low_seeds" not in ev:
        return ev["clustered_low"], ev["clustered_high"]
    mean = ev["model"].map(is_seed_mean)
    low = ev["ci95_low_seeds"].where(mean, ev["clustered_low"])
    high = ev["ci95_high_seeds"].where(mean, ev["clustered_high"])
    return low, high


def with_seed_means(ev: pd.DataFrame) -> pd.DataFrame:
    """The evaluations plus, per encoder with two or more seeds and per evaluation cell, a row named
    :func:`seed_mean_label`: accuracy and dev accuracy averaged over the seeds, ``se`` the SD over seeds (so every
    error bar and +- of that row is the seed spread), ``seeds``, ``sd_seeds`` and the t 95 % interval over seeds
    (``ci95_low_seeds``, ``ci95_high_seeds``); ``significant`` says whether that interval lies above the cell's
    random baseline (p-value NaN: no z-test of a mean over seeds; the per-checkpoint intervals
    :data:`QUESTION_INTERVALS` NaN); ``model_competence`` (where the rows carry the
    competence gate's verdicts) says in how many seeds the gate failed. Every seed's own row stays."""
    if ev.empty:
        return ev.assign(seeds=pd.Series(dtype=float), sd_seeds=pd.Series(dtype=float),
                         ci95_low_seeds=pd.Series(dtype=float), ci95_high_seeds=pd.Series(dtype=float))
    labels = ev["model"].map(split_seed)
    frame = ev.assign(_base=[b for b, _ in labels], _seed=[s for _, s in labels])
    frame = frame[frame["_seed"].notna()]
    rows = []
    for (base, *_), group in frame.groupby(["_base", *CELL, "tuned_on"], sort=False, dropna=False):
        k = group["_seed"].nunique()
        if k < 2:
            continue
        mean, sd, low, high = spread_over_seeds(group["accuracy"])
        first = group.iloc[0]
        rows.append({
            **{c: first[c] for c in ev.columns}, **dict.fromkeys(QUESTION_INTERVALS, float("nan")),
            "model": seed_mean_label(base, k), "checkpoint": f"{k} seed checkpoints",
            "accuracy": mean, "se": sd, "dev_accuracy": float(group["dev_accuracy"].mean()),
            "threshold": float(group["threshold"].mean()), "hits": int(group["hits"].sum()), "n": int(group["n"].sum()),
            "p_value": float("nan"), "significant": bool(low > first["p0"]) if not np.isnan(low) else False,
            "seeds": k, "sd_seeds": sd, "ci95_low_seeds": low, "ci95_high_seeds": high,
            **({COLUMN: seed_mean_verdict(group[COLUMN])} if COLUMN in group else {}),
        })
    out = ev.assign(seeds=1.0, sd_seeds=np.nan, ci95_low_seeds=np.nan, ci95_high_seeds=np.nan)
    return pd.concat([out, pd.DataFrame.from_records(rows)], ignore_index=True) if rows else out


def gap_over_seeds(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per encoder, RQ3's gap (diagonal minus off-diagonal mean, percentage points) over its seeds: ``gaps`` has one
    row per seeded model with ``model`` (a seeded label) and ``gap``. Returns the encoder, the number of seeds, the
    mean gap, its SD and t 95 % interval over seeds, and ``gap_appears``: the interval lies above zero (None with a
    single seed: one checkpoint cannot show a seed spread)."""
    labels = gaps["model"].map(split_seed)
    frame = gaps.assign(_base=[b for b, _ in labels], _seed=[s for _, s in labels])
    frame = frame[frame["_seed"].notna()]
    rows = []
    for base, group in frame.groupby("_base", sort=True):
        mean, sd, low, high = spread_over_seeds(group["gap"])
        k = int(group["_seed"].nunique())
        rows.append({"model": base, "seeds": k, "gap": mean, "sd_seeds": sd, "ci95_low_seeds": low,
                     "ci95_high_seeds": high, "gap_appears": bool(low > 0) if k >= 2 else None})
    return pd.DataFrame.from_records(rows, columns=["model", "seeds", "gap", "sd_seeds", "ci95_low_seeds",
                                                    "ci95_high_seeds", "gap_appears"])


def seeds_caption(ev: pd.DataFrame) -> str:
    """What a caption adds about seeds: how many, and what the mean-of-seeds rows' +- and error bars are."""
    labels = [split_seed(m) for m in ev["model"].unique()] if len(ev) else []
    count = len({seed for _, seed in labels if seed is not None})
    if count < 2:
        return f" ({count} training seed: no spread over seeds)" if count else ""
    return (f" ({count} training seeds: each seed's checkpoints, and '<encoder> mean of {count} seeds' whose +- is "
            "the SD over seeds and whose error bars are the t 95% interval over seeds)")
