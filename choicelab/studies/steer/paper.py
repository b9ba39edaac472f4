"""STEER: the paper's numbers beside ours, said plainly and drawn.

:func:`with_notes` adds to every row of the ``compare_paper`` table whether it is like for like and why not (the
paper ran 13 models we mostly do not run, on its own benchmark; ours is generated here);
:func:`plot_paper_beside_ours` draws the paper's Table 3 and Cognitive Bias SRC beside the run's models on the same
scale, the paper's points as black diamonds with the paper's model names.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from choicelab import plotting
from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt
from choicelab.stats import t_interval
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer.tables import (
    BIAS_MODULES,
    TableSources,
    load_paper_table3,
    paper_comparisons,
    unadapted,
)

OUR_BENCHMARK = ("our questions are generated here from the paper's generators' logic (other questions, other counts "
                 "per element and grade), not the paper's question set")


def row_note(paper_model: Any, our_model: Any, comparison: str) -> tuple[bool, str]:
    """(like for like, why) of one compare_paper row."""
    has_paper = isinstance(paper_model, str) and bool(paper_model)
    has_ours = isinstance(our_model, str) and bool(our_model)
    if not has_ours:
        return False, f"{paper_model}: a paper model not run here, nothing to compare"
    if not has_paper:
        return False, f"{our_model}: our model, not one of the paper's"
    if comparison.startswith("Table 3"):
        return True, f"same model name; {OUR_BENCHMARK}"
    return False, (f"different models: the paper's {paper_model} (not runnable here) beside our {our_model}; "
                   "context, not a reproduction")


def with_notes(comparison: pd.DataFrame) -> pd.DataFrame:
    """The compare_paper table with ``like_for_like`` and ``note`` per row."""
    notes = [row_note(p, o, c) for p, o, c in zip(comparison["paper_model"], comparison["our_model"],
                                                  comparison["comparison"], strict=True)]
    out = comparison.copy()
    out["like_for_like"] = [alike for alike, _ in notes]
    out["note"] = [why for _, why in notes]
    return out


def _per_model(results: pd.DataFrame, module: str | None = None) -> pd.DataFrame:
    """Per model: mean over elements of the normalized accuracy (unadapted), its t 95 % interval over elements,
    elements and questions (``module``: that module's elements only)."""
    base = unadapted(results)
    if module is not None:
        base = base[base["module"].astype(str) == module]
    per_element = sm.summarize(base.assign(adaptation=""), ["model", "element"])
    rows = []
    for model, part in per_element.groupby("model", sort=True):
        values = part["normalized_accuracy"].astype(float).dropna()
        value, low, high = t_interval(values)
        rows.append({"model": str(model), "value": value, "low": low, "high": high,
                     "n_elements": int(len(values)), "n_questions": int(part["n_questions"].sum())})
    return pd.DataFrame(rows, columns=["model", "value", "low", "high", "n_elements", "n_questions"])


# The paper's text defines normalized accuracy as (acc - r)/r, yet says it "falls between -1 and 1", which that
# formula does only for two options; its Table 3 may use another normalization. Its numbers are plotted as printed.
TABLE3_DEFINITION_NOTE = ("paper: its numbers as printed; it defines (acc - r)/r but says the range is [-1, 1],\n"
                          "true of that formula for two options only, so its exact normalization is open")


def _panel(ax: Any, paper: pd.DataFrame, ours: pd.DataFrame, title: str) -> None:
    """Horizontal rows: the paper's models (black diamonds) then ours (circles, t 95 % interval over elements, n)."""
    labels = [f"paper: {m}" for m in paper["model"]] + [
        f"ours: {r.model} (n={r.n_questions} q, {r.n_elements} el.)" for r in ours.itertuples()]
    y = np.arange(len(labels))[::-1]
    ax.plot(paper["value"], y[:len(paper)], ls="none", marker=PAPER_MARKER, color=PAPER_COLOUR,
            label="the paper's number")
    if len(ours):
        xerr = np.nan_to_num(np.vstack([ours["value"] - ours["low"], ours["high"] - ours["value"]]).clip(min=0.0))
        ax.errorbar(ours["value"], y[len(paper):], xerr=xerr, ls="none", marker="o", capsize=3,
                    color="tab:blue", label="ours (t 95% interval over elements)")
        missing = ours[ours["value"].isna()]
        for r in missing.itertuples():
            ax.text(0.0, y[len(paper) + list(ours["model"]).index(r.model)], "no questions", va="center",
                    fontsize=8, color="0.4")
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0.0, color="red", lw=1)
    ax.set_xlabel("normalized accuracy (acc - r)/r (red: random guessing)")
    ax.set_title(title, fontsize=10)


def plot_paper_beside_ours(results: pd.DataFrame, paper_table3: str | Path, paper_bias_src: str | Path,
                           path: str | Path) -> Path:
    """Left: the paper's Table 3 normalized accuracy for its 13 models beside ours (whole benchmark, unadapted).
    Right: the paper's Cognitive Bias SRC (GPT-4 / GPT-3.5 Turbo, modules 2.2 and 2.5) beside ours on the same
    modules. Same x scale in both panels."""

    table3 = load_paper_table3(paper_table3)[["model", "normalized_accuracy"]].rename(
        columns={"normalized_accuracy": "value"})
    bias = pd.read_csv(paper_bias_src, dtype={"module": str})
    ours_all = _per_model(results)
    modules = list(BIAS_MODULES)
    n_right = sum(len(bias[bias["module"] == m]) + len(ours_all) for m in modules)
    height = max(len(table3) + len(ours_all), n_right) * 0.34 + 2.2
    fig, axes = plt.subplots(1, 1 + len(modules), figsize=(7 + 5.5 * len(modules), height), squeeze=False)
    _panel(axes[0][0], table3, ours_all, "Table 3: whole benchmark, no adaptation\n" + TABLE3_DEFINITION_NOTE)
    for ax, module in zip(axes[0][1:], modules, strict=True):
        paper = bias[bias["module"] == module].rename(columns={"paper_model": "model", "paper_value": "value"})
        _panel(ax, paper[["model", "value"]], _per_model(results, module), BIAS_MODULES[module])
    values = [v for ax in axes[0] for line in ax.get_lines() for v in np.asarray(line.get_xdata(), dtype=float)]
    finite = [v for v in values if math.isfinite(v)]
    if finite:
        lo, hi = min(min(finite), 0.0), max(finite)
        pad = 0.08 * (hi - lo or 1.0)
        for ax in axes[0]:
            ax.set_xlim(lo - pad, hi + pad)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9, bbox_to_anchor=(0.5, -0.04))
    fig.suptitle("STEER: the paper's numbers (black diamonds, its models) beside this run's "
                 f"({', '.join(ours_all['model']) or 'no model'}); "
                 f"{OUR_BENCHMARK}", fontsize=10, wrap=True)
    fig.tight_layout()
    return plotting.save_png(fig, path)


def paper_beside_ours(sources: Any, path: str | Path) -> Path:
    """Builder of ``steer/fig_compare_paper`` (rule steer_tables: it reads the paper's numbers)."""
    return plot_paper_beside_ours(sources.results, sources.paper_table3, sources.paper_bias_src, path)


def paper_comparison(sources: TableSources) -> pd.DataFrame:
    """:func:`paper_comparisons` of this run: Table 3 and the Cognitive Bias SRC beside the paper's numbers."""
    return with_notes(paper_comparisons(sources.metrics["table3"], sources.results, sources.paper_table3,
                                        sources.paper_bias_src))
