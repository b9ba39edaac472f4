"""Figures of the revealed-belief study (matplotlib, deterministic: no timestamps in the files)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "choicelab"  # deterministic SVG ids: reruns give identical files
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

EMBEDDED_PAIR_NOTE = (
    "The embedded models are not a matched base/instruct pair (Gemma-3-270M base, SmolLM2-135M-Instruct)."
)


def single_die_figure(dump: pd.DataFrame, scenarios: pd.DataFrame, models: Sequence[str]) -> plt.Figure:
    """Revealed distribution over the faces of one die vs the true uniform distribution, per model and face count."""
    dice = scenarios[(scenarios["family"] == "dice") & (scenarios["variant"] == "single")]
    dice = dice.assign(n_outcomes=dice["outcomes"].map(len)).sort_values("n_outcomes")
    fig, axes = plt.subplots(len(models), len(dice), figsize=(3.0 * len(dice), 2.4 * len(models)), squeeze=False)
    for r, model in enumerate(models):
        for c, (_, scenario) in enumerate(dice.iterrows()):
            ax = axes[r][c]
            rows = dump[(dump["model"] == model) & (dump["item_id"] == scenario["setting_id"])].sort_values("option_id")
            ax.bar(rows["option_text"], rows["prob"], color="tab:blue", label="revealed")
            ax.plot(list(scenario["outcomes"]), list(scenario["true_probs"]), color="black", ls="--", label="true")
            ax.set_ylim(0, 1)
            ax.set_title(f"{model}\n1 die, {scenario['n_outcomes']} faces", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Revealed belief of one die (renormalized over the faces)", fontsize=10)
    fig.tight_layout()
    return fig


def save_figure(fig: plt.Figure, png: str, svg: str) -> None:
    from choicelab.io import atomic_path

    with atomic_path(png, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    with atomic_path(svg, suffix=".svg") as tmp:
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
