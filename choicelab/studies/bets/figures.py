"""Figures of the bets study, laid out like the paper's, from the evaluation table of
:mod:`choicelab.studies.bets.evaluation`.

* Fig. 1: value questions, threshold method: Normal / Weak Normal / Weak per template, default and fine-tuned.
* Fig. 2: RQ3 grid (fine-tune modality x test modality), standard method, train-item and test-item bars, one group
  per model.
* Fig. 3: the same grid with the threshold method's three ground truths (test items).
Dashed lines are the random baselines. Every bar carries its 95 % interval (:func:`.seeds.drawn_interval`: a seed
checkpoint's clustered by item pair, a mean over seeds' t over its seeds).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd

from choicelab.plotting import plt
from choicelab.studies.bets.competence import NOT_ABOVE_CHANCE, failing
from choicelab.studies.bets.ground_truths import BET_GROUND_TRUTHS, GROUND_TRUTH_NAMES, VALUE_GROUND_TRUTHS
from choicelab.studies.bets.seeds import drawn_interval

COLORS = {
    "train": "tab:blue",
    "test": "tab:orange",
    "normal": "tab:blue",
    "weak_normal": "tab:orange",
    "weak": "tab:green",
    "strict": "tab:blue",
    "positive_gain": "tab:orange",
    "non_negative_gain": "tab:green",
}


def _empty(title: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.text(0.5, 0.5, "no evaluations: the bets study has no models configured", ha="center", va="center", fontsize=8)
    ax.set_axis_off()
    ax.set_title(title, fontsize=9)
    return fig


INTERVAL = "bars: 95% intervals, clustered by item pair for a checkpoint, t over seeds for a mean"


def _grouped_bars(ax: plt.Axes, frame: pd.DataFrame, models: Sequence[str], series: Sequence[str], key: str) -> None:
    width = 0.8 / max(1, len(series))
    x = np.arange(len(models))
    low, high = drawn_interval(frame)
    for k, name in enumerate(series):
        values, below, above = [], [], []
        for model in models:
            row = frame[(frame["model"] == model) & (frame[key] == name)]
            value = 100 * row["accuracy"].iloc[0] if len(row) else np.nan
            values.append(value)
            below.append(value - 100 * low[row.index[0]] if len(row) else np.nan)
            above.append(100 * high[row.index[0]] - value if len(row) else np.nan)
        positions = x + (k - (len(series) - 1) / 2) * width
        ax.bar(
            positions,
            values,
            width,
            color=COLORS.get(name),
            yerr=np.nan_to_num([below, above]),
            capsize=2,
            label=GROUND_TRUTH_NAMES.get(name, name),
        )
        for position, value in zip(positions, values, strict=True):  # a zero bar is not a missing one
            if np.isnan(value) or value == 0:
                ax.text(position, 1, "n/a" if np.isnan(value) else "0", ha="center", va="bottom",
                        rotation=90, color="black" if value == 0 else "grey")
    ax.set_xticks(x, [model_label(m) for m in models])
    ax.set_ylim(0, 105)


MODEL_IN = 1.3  # inches of a panel per model: its label wrapped to LABEL_CHARS characters fits under its bars
LABEL_CHARS = 14


def model_label(model: str) -> str:
    """An encoder's tick label, wrapped (a long checkpoint name broken too) so that neighbours never touch."""
    return textwrap.fill(model, LABEL_CHARS, break_on_hyphens=False)


def _label_lines(models: Sequence[str]) -> int:
    return max((model_label(m).count("\n") + 1 for m in models), default=1)


def _baselines(ax: plt.Axes, frame: pd.DataFrame, series: Sequence[str], key: str) -> None:
    for name in series:
        p0 = frame[frame[key] == name]["p0"]
        if len(p0):
            ax.axhline(100 * p0.iloc[0], color=COLORS.get(name, "grey"), ls="--", lw=0.8)


def _models_title(fig: plt.Figure, title: str, models: Sequence[str]) -> str:
    """A figure title naming its encoders, wrapped to the figure's width (about 12 characters per inch at 9 pt)."""
    width = max(40, int(fig.get_figwidth() * 12))

    def wrap(text: str) -> str:
        return textwrap.fill(text, width, break_on_hyphens=False)

    return wrap(title) + "\n" + wrap("encoders: " + ", ".join(models))


def fig1_value_threshold(ev: pd.DataFrame) -> plt.Figure:
    title = f"Fig. 1: value questions, threshold method ({INTERVAL}; dashed: random baselines)"
    sel = ev[(ev["rq"] == "rq1") & ev["ground_truth"].isin(VALUE_GROUND_TRUTHS)]
    if sel.empty:
        return _empty(title)
    templates = sorted(sel["eval_set"].unique())
    models = sorted(sel["model"].unique())
    stages = ["default", "fine-tuned"]
    fig, axes = plt.subplots(
        len(stages), len(templates), figsize=(max(2.8, MODEL_IN * len(models)) * len(templates),
                                              5.2 + 0.3 * _label_lines(models)), squeeze=False, sharey=True
    )
    for i, stage in enumerate(stages):
        for j, template in enumerate(templates):
            ax = axes[i][j]
            cell = sel[(sel["stage"] == stage) & (sel["eval_set"] == template)]
            _grouped_bars(ax, cell, models, VALUE_GROUND_TRUTHS, "ground_truth")
            _baselines(ax, cell, VALUE_GROUND_TRUTHS, "ground_truth")
            ax.set_title(f"{template.removeprefix('bets_value_').upper()} ({stage})", fontsize=8)
        axes[i][0].set_ylabel("accuracy (%)")
    axes[0][-1].legend()
    fig.suptitle(_models_title(fig, title, models), fontsize=9)
    fig.tight_layout()
    return fig


def _rq3_grid(
    ev: pd.DataFrame, ground_truths: Sequence[str], series_key: str, series: Sequence[str], title: str
) -> plt.Figure:
    sel = ev[(ev["rq"] == "rq3") & ev["ground_truth"].isin(ground_truths)]
    if series_key == "ground_truth":
        sel = sel[sel["split"] == "test"]
    if sel.empty:
        return _empty(title)
    sources = sorted({s.removeprefix("fine-tuned:") for s in sel["stage"]})
    targets = sorted({e.removeprefix("bets_bet_") for e in sel["eval_set"]})
    models = sorted(sel["model"].unique())
    fig, axes = plt.subplots(
        len(sources), len(targets), figsize=(max(3.0, MODEL_IN * len(models)) * len(targets),
                                             (2.6 + 0.15 * _label_lines(models)) * len(sources)),
        squeeze=False, sharey=True
    )
    for i, source in enumerate(sources):
        for j, target in enumerate(targets):
            ax = axes[i][j]
            cell = sel[(sel["stage"] == f"fine-tuned:{source}") & (sel["eval_set"] == f"bets_bet_{target}")]
            _grouped_bars(ax, cell, models, series, series_key)
            _baselines(ax, cell, series, series_key) if series_key == "ground_truth" else ax.axhline(
                100 / 3, color="grey", ls="--", lw=0.8
            )
            if i == len(sources) - 1:
                ax.set_xlabel(f"test on {target}", fontsize=8)
            if j == 0:
                ax.set_ylabel(f"fine-tuned on {source}\naccuracy (%)", fontsize=8)
    axes[0][-1].legend()
    fig.suptitle(_models_title(fig, title, models), fontsize=9)
    fig.tight_layout()
    return fig


def fig2_rq3_standard(ev: pd.DataFrame) -> plt.Figure:
    return _rq3_grid(
        ev,
        ["standard"],
        "split",
        ["train", "test"],
        f"Fig. 2: bet questions after bet fine-tuning, standard method ({INTERVAL}; dashed: 1/3)",
    )


def fig3_rq3_threshold(ev: pd.DataFrame) -> plt.Figure:
    return _rq3_grid(
        ev,
        BET_GROUND_TRUTHS,
        "ground_truth",
        list(BET_GROUND_TRUTHS),
        f"Fig. 3: bet questions after bet fine-tuning, threshold method, test items ({INTERVAL}; dashed: "
        "baselines)",
    )


FIGURES = {"fig1": fig1_value_threshold, "fig2": fig2_rq3_standard, "fig3": fig3_rq3_threshold}


def mark_gate(fig: plt.Figure, gates: pd.DataFrame) -> plt.Figure:
    """``fig`` with the competence gate's mark written on it (below the axes) when a checkpoint is not above chance:
    which checkpoints, so the bars built on them are not read as findings (the caption says the same)."""

    bad = failing(gates)
    if not bad:
        return fig
    shown = ", ".join(bad[:6]) + (f" and {len(bad) - 6} more" if len(bad) > 6 else "")
    width = max(60, int(fig.get_figwidth() * 13))  # about 13 characters per inch at 8 pt
    text = textwrap.fill(f"{NOT_ABOVE_CHANCE}: {shown}", width, break_on_hyphens=False)
    # under everything drawn (tick labels included): the file is cut to the tight box of its artists
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes) / fig.bbox.height
    fig.text(0.01, bottom - 0.01, text, color="tab:red", ha="left", va="top")
    return fig
