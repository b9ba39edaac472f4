"""Figures of the probes study (Figs 3-6), from the per-item confidence frame."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from choicelab.plotting import plt
from choicelab.studies.probes.paper import paper_name


def bias_free_choices(originals: pd.DataFrame, benchmark: str) -> int:
    """The option count of a benchmark's original items, whose 1/n is the bias-free confidence of Fig. 3 (not of the
    frame's first row: the confidences also hold Choice Paralysis items with up to 15 options)."""
    counts = originals["n_choices"].unique()
    if len(counts) != 1:
        raise ValueError(f"{benchmark}: original items with {sorted(counts)} options; Fig. 3 needs one option count")
    return int(counts[0])


def fig3_no_question(conf: pd.DataFrame) -> plt.Figure:
    """Confidence in the correct option before vs in the pseudo-correct option after No-Question, one panel per
    benchmark and model (each model's own boxes: none pools models)."""
    fig, axes, panels = _grid(conf)
    for ax, (benchmark, model), sub in panels:
        originals = sub[sub["probe"] == "orig"]
        before = originals["p_label"]
        after = sub[sub["probe"] == "nq"]["p_label"]
        ax.boxplot([before, after], tick_labels=[f"before\nn={len(before)}", f"after NQ\nn={len(after)}"],
                   showmeans=True)
        ax.axhline(1 / bias_free_choices(originals, benchmark), color="grey", ls="--", lw=1)
        ax.set_title(f"{paper_name(benchmark)} / {model}", fontsize=9)
    for row in axes:
        row[0].set_ylabel("confidence of the\n(pseudo-)correct option")
    fig.suptitle(textwrap.fill("Fig. 3: No-Question probe (dashed: bias-free confidence 1/n; n = instances; box "
                               "25-75 %, triangle: mean)", int(13 * fig.get_figwidth())), fontsize=10)
    fig.tight_layout()
    return fig


def interval_errors(frame: pd.DataFrame, value: str, interval: str) -> np.ndarray:
    """Matplotlib's ``yerr`` (2 x n: below, above) of ``value``'s interval ``<interval>_low`` .. ``<interval>_high``;
    a missing bound (one unit) draws no bar."""
    below = (frame[value] - frame[f"{interval}_low"]).fillna(0.0).to_numpy(dtype=float)
    above = (frame[f"{interval}_high"] - frame[value]).fillna(0.0).to_numpy(dtype=float)
    return np.vstack([below, above])


def fig4_no_right_answer(nra: pd.DataFrame) -> plt.Figure:
    """Bars ANC'-SAC and ANC-RAC per benchmark (and model), with t 95 % intervals over instances; ideal:
    ANC'-SAC = 0, ANC-RAC = -1."""
    fig, ax = plt.subplots(figsize=(max(6.0, 2.2 * len(nra) + 2), 3.8))
    labels = [f"{r.benchmark}\n{textwrap.fill(str(r.model), 16)}\nn={int(r.instances)}" for r in nra.itertuples()]
    x = np.arange(len(labels))
    ax.bar(x - 0.2, nra["ANC'-SAC"], 0.4, yerr=interval_errors(nra, "ANC'-SAC", "ANC'-SAC_ci95"), capsize=3,
           label="ANC' - SAC (after)")
    ax.bar(x + 0.2, nra["ANC-RAC"], 0.4, yerr=interval_errors(nra, "ANC-RAC", "ANC-RAC_ci95"), capsize=3,
           label="ANC - RAC (before)")
    ax.set_xticks(x, labels, fontsize=8)
    ax.axhline(0, color="black", lw=0.8)
    ax.legend(fontsize=8)
    ax.set_ylabel("confidence difference (t 95% interval)")
    ax.set_title(f"Fig. 4: No-Right-Answer confidences ({', '.join(sorted(nra['model'].astype(str).unique()))})",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _grid(frame: pd.DataFrame, panel_width: float = 3.6, panel_height: float = 3.0):  # noqa: ANN202
    """A figure with one row per model and one column per benchmark (a long row of panels is unreadable at 100 %),
    and the (axis, (benchmark, model), rows) of each panel; panels without rows are switched off."""
    models = sorted(frame["model"].astype(str).unique()) or [""]
    benchmarks = sorted(frame["benchmark"].astype(str).unique()) or [""]
    fig, axes = plt.subplots(len(models), len(benchmarks), figsize=(panel_width * len(benchmarks) + 0.6,
                                                                    panel_height * len(models) + 0.8),
                             squeeze=False, sharey=True)
    panels = []
    for r, model in enumerate(models):
        for c, benchmark in enumerate(benchmarks):
            rows = frame[(frame["model"].astype(str) == model) & (frame["benchmark"].astype(str) == benchmark)]
            if rows.empty:
                axes[r][c].text(0.5, 0.5, "not run", ha="center", va="center", transform=axes[r][c].transAxes)
                continue
            panels.append((axes[r][c], (benchmark, model), rows))
    return fig, axes, panels


def fig5_choice_paralysis(cp: pd.DataFrame) -> plt.Figure:
    """Confidence in the correct answer after Choice Paralysis by n and sampling (mean and t 95 % interval over
    trials), beside the
    grey bar of the original confidence, one panel per benchmark and model (the paper's Fig. 5)."""
    fig, axes, panels = _grid(cp)
    for ax, (benchmark, model), group in panels:
        group = group.sort_values(["sampling", "n"])
        labels = ["original"] + [f"{r.sampling}\nn={r.n}" for r in group.itertuples()]
        values = [group["confidence_before"].iloc[0], *group["confidence"]]
        errors = np.hstack([np.zeros((2, 1)), interval_errors(group, "confidence", "confidence_trials")])
        colors = ["grey"] + ["tab:blue" if s == "random" else "tab:orange" for s in group["sampling"]]
        ax.bar(range(len(values)), values, yerr=errors, color=colors, capsize=3)
        ax.set_xticks(range(len(values)), labels, fontsize=8)
        ax.set_title(f"{benchmark} / {model}\n{int(group['instances_per_trial'].iloc[0])} instances x "
                     f"{int(group['trials'].iloc[0])} trials", fontsize=8)
    for row in axes:
        row[0].set_ylabel("confidence in correct\n(t 95% interval over trials)")
    fig.suptitle("Fig. 5: Choice Paralysis (grey: original confidence; blue random, orange heuristic sampling)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def fig6_hits_at_k(hits: pd.DataFrame) -> plt.Figure:
    """hits@k under Choice Paralysis for both samplings and every n (mean over trials, 95 % interval clustered by
    the original item), one panel per benchmark and model, with the original accuracy dashed (the paper's Fig. 6)."""
    fig, axes, panels = _grid(hits)
    for ax, (benchmark, model), group in panels:
        for (sampling, n), curve in group.groupby(["sampling", "n"], sort=True):
            ax.errorbar(curve["k"], curve["hits_at_k"], yerr=interval_errors(curve, "hits_at_k", "clustered"),
                        capsize=2, lw=1,
                        ls="-" if sampling == "random" else "--", marker="o" if sampling == "random" else "s",
                        ms=3, label=f"{sampling} n={n}")
        ax.axhline(group["original_accuracy"].iloc[0], color="grey", ls="--", lw=1)
        ax.set_xlabel("k")
        ax.set_title(f"{benchmark} / {model}", fontsize=8)
    axes[0][0].legend(fontsize=8)
    for row in axes:
        row[0].set_ylabel("hits@k (95% interval,\nclustered by item)")
    fig.suptitle("Fig. 6: hits@k under Choice Paralysis (dashed grey: original accuracy)", fontsize=9)
    fig.tight_layout()
    return fig


def cell_text_colour(value: float, covers_zero: bool, limit: float = 0.5) -> str:
    """Text colour of a heat-map cell on the RdBu_r scale from -``limit`` to ``limit``: white on the dark ends (|value|
    above 60 % of the limit, dark red or dark blue), black on the pale middle and on the white hatched cells."""
    return "white" if not covers_zero and abs(value) > 0.6 * limit else "black"


def robustness_heatmap(matrix: pd.DataFrame) -> plt.Figure:
    """Rows = benchmark / model / method, columns = probe; cell = pseudo-accuracy minus chance, with its n. Cells
    whose exact (Clopper-Pearson) 95 % interval covers zero are drawn white and hatched, their value in brackets: they
    are not evidence of an effect."""
    index = ["benchmark", "model", "method"]
    pivot = matrix.pivot_table(index=index, columns="probe", values="minus_chance")
    covers = matrix.pivot_table(index=index, columns="probe", values="covers_zero", aggfunc="max")
    covers = covers.reindex_like(pivot).fillna(True).astype(bool).to_numpy()
    counts = matrix.pivot_table(index=index, columns="probe", values="instances").reindex_like(pivot).to_numpy()
    values = pivot.to_numpy()
    fig, ax = plt.subplots(figsize=(1.5 * max(4, pivot.shape[1]) + 5, 0.62 * max(4, pivot.shape[0]) + 2.2))
    image = ax.imshow(np.where(covers, np.nan, values), cmap="RdBu_r", vmin=-0.5, vmax=0.5, aspect="auto")
    ax.set_xticks(range(pivot.shape[1]), list(pivot.columns), rotation=45, ha="right", fontsize=9)
    ax.set_yticks(range(pivot.shape[0]), [" / ".join(map(str, i)) for i in pivot.index], fontsize=9)
    for (r, c), value in np.ndenumerate(values):
        if np.isnan(value):
            ax.text(c, r, "not run", ha="center", va="center", fontsize=8, color="0.45")
            continue
        if covers[r, c]:
            ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, hatch="///", color="0.8", lw=0))
        text = f"({value:+.2f})" if covers[r, c] else f"{value:+.2f}"
        ax.text(c, r, f"{text}\nn={int(counts[r, c])}", ha="center", va="center", fontsize=8,
                color=cell_text_colour(value, covers[r, c]))
    fig.colorbar(image, ax=ax, label="pseudo-accuracy - chance")
    ax.set_title("Probes on every benchmark and scorer (hatched, bracketed: 95% CI covers 0)", fontsize=9)
    fig.tight_layout()
    return fig
