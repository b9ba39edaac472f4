"""Figures of the probes study (Figs 3-6), from the per-item confidence frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from choicelab.figures.common import plt
from choicelab.metrics.probes import hits_at_k
from choicelab.pipelines.probes import PAPER_NAMES


def _benchmarks(conf: pd.DataFrame) -> list[str]:
    return sorted(conf["benchmark"].unique())


def fig3_no_question(conf: pd.DataFrame) -> plt.Figure:
    """Confidence in the correct option before vs in the pseudo-correct option after No-Question."""
    names = _benchmarks(conf)
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.2), squeeze=False, sharey=True)
    for ax, name in zip(axes[0], names, strict=True):
        sub = conf[conf["benchmark"] == name]
        before = sub[sub["probe"] == "orig"]["p_label"]
        after = sub[sub["probe"] == "nq"]["p_label"]
        ax.boxplot([before, after], tick_labels=["before", "after NQ"], showmeans=True)
        ax.axhline(1 / sub["n_choices"].iloc[0], color="grey", ls="--", lw=1)
        ax.set_title(PAPER_NAMES.get(name, name))
    axes[0][0].set_ylabel("confidence of the (pseudo-)correct option")
    fig.suptitle("Fig. 3: No-Question probe (dashed: bias-free confidence 1/n)", fontsize=10)
    fig.tight_layout()
    return fig


def fig4_no_right_answer(nra: pd.DataFrame) -> plt.Figure:
    """Bars ANC'-SAC and ANC-RAC per benchmark (and model)."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    labels = [f"{r.benchmark}\n{r.model}" for r in nra.itertuples()]
    x = np.arange(len(labels))
    ax.bar(x - 0.2, nra["ANC'-SAC"], 0.4, label="ANC' - SAC (after)")
    ax.bar(x + 0.2, nra["ANC-RAC"], 0.4, label="ANC - RAC (before)")
    ax.set_xticks(x, labels, fontsize=7)
    ax.axhline(0, color="black", lw=0.8)
    ax.legend(fontsize=7)
    ax.set_title("Fig. 4: No-Right-Answer confidences", fontsize=10)
    fig.tight_layout()
    return fig


def fig5_choice_paralysis(cp: pd.DataFrame) -> plt.Figure:
    """Confidence in the correct answer vs n, per sampling method and benchmark."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for (benchmark, model, sampling), group in cp.groupby(["benchmark", "model", "sampling"]):
        group = group.sort_values("n")
        ax.plot(group["n"], group["confidence"], "-o" if sampling == "random" else "--s",
                label=f"{benchmark} {model} ({sampling})")
    ax.set_xlabel("number of choices n")
    ax.set_ylabel("confidence in the correct answer")
    ax.legend(fontsize=6)
    ax.set_title("Fig. 5: Choice Paralysis", fontsize=10)
    fig.tight_layout()
    return fig


def fig6_hits_at_k(conf: pd.DataFrame) -> plt.Figure:
    """hits@k under Choice Paralysis (random sampling), per n and benchmark."""
    cp = conf[(conf["probe"] == "cp") & (conf["sampling"] == "random")]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for (benchmark, model, n), group in cp.groupby(["benchmark", "model", "n"]):
        ks = list(range(1, int(n) + 1))
        ax.plot(ks, [hits_at_k(group, k) for k in ks], label=f"{PAPER_NAMES.get(benchmark, benchmark)} {model} n={int(n)}")
    ax.set_xlabel("k")
    ax.set_ylabel("hits@k")
    ax.legend(fontsize=6)
    ax.set_title("Fig. 6: hits@k under Choice Paralysis", fontsize=10)
    fig.tight_layout()
    return fig


def robustness_heatmap(matrix: pd.DataFrame) -> plt.Figure:
    """Rows = benchmark / model / method, columns = probe; cell = pseudo-accuracy minus chance."""
    pivot = matrix.pivot_table(index=["benchmark", "model", "method"], columns="probe", values="minus_chance")
    fig, ax = plt.subplots(figsize=(1.2 * max(4, pivot.shape[1]) + 3, 0.35 * max(4, pivot.shape[0]) + 1.5))
    image = ax.imshow(pivot.to_numpy(), cmap="RdBu_r", vmin=-0.5, vmax=0.5, aspect="auto")
    ax.set_xticks(range(pivot.shape[1]), list(pivot.columns), rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(pivot.shape[0]), [" / ".join(map(str, i)) for i in pivot.index], fontsize=7)
    for (r, c), value in np.ndenumerate(pivot.to_numpy()):
        if not np.isnan(value):
            ax.text(c, r, f"{value:+.2f}", ha="center", va="center", fontsize=6)
    fig.colorbar(image, ax=ax, label="pseudo-accuracy - chance")
    ax.set_title("Probes on every benchmark and scorer", fontsize=10)
    fig.tight_layout()
    return fig
