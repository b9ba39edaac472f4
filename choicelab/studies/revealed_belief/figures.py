"""Figures of the revealed-belief study: Figs 2-6 and the single-die figure (matplotlib, deterministic: no
timestamps in the files)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from choicelab.plotting import plt
from choicelab.studies.revealed_belief.metrics import FIG5_CHANGES, baseline_increases
from choicelab.studies.revealed_belief.results import Built, Results

MAX_FACE_TICKS = 10  # face labels a 3-inch panel holds side by side at the minimum font size


def single_die_figure(dump: pd.DataFrame, scenarios: pd.DataFrame, models: Sequence[str]) -> plt.Figure:
    """Revealed distribution over the faces of one die vs the true uniform distribution, per model and face count."""
    dice = scenarios[(scenarios["family"] == "dice") & (scenarios["variant"] == "single")]
    dice = dice.assign(n_outcomes=dice["outcomes"].map(len)).sort_values("n_outcomes")
    fig, axes = plt.subplots(len(models), len(dice), figsize=(3.0 * len(dice), 2.4 * len(models)), squeeze=False)
    for r, model in enumerate(models):
        for c, (_, scenario) in enumerate(dice.iterrows()):
            ax = axes[r][c]
            rows = dump[(dump["model"] == model) & (dump["item_id"] == scenario["setting_id"])].sort_values("option_id")
            _bars_or_missing(ax, list(rows["option_text"]), rows["prob"], color="tab:blue", label="revealed")
            ax.plot(list(scenario["outcomes"]), list(scenario["true_probs"]), color="black", ls="--", label="true")
            ax.set_ylim(0, 1)
            ax.set_title(f"{model}\n1 die, {scenario['n_outcomes']} faces", fontsize=8)
            faces = list(scenario["outcomes"])
            step = -(-len(faces) // MAX_FACE_TICKS)  # every face named where they fit, else every step-th
            ax.set_xticks(range(0, len(faces), step), faces[::step], fontsize=8)
            ax.set_xlabel("face")
        axes[r][0].set_ylabel("probability")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Revealed belief of one die (renormalized over the faces)", fontsize=10)
    fig.tight_layout()
    return fig


def _bars_or_missing(ax: Any, x: list, heights: pd.Series, **style: Any) -> None:
    """Bars of probabilities where a zero is told from a missing value: a zero bar gets a short black tick on the
    axis, and a panel without rows says "no data" instead of looking like all zeros."""
    if not len(x):
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.4")
        return
    ax.bar(x, heights, **style)
    zeros = [pos for pos, h in zip(x, heights, strict=True) if h == 0]
    if zeros:
        ax.scatter(zeros, [0.0] * len(zeros), marker="_", s=120, color="black", zorder=3, clip_on=False)


def _whisker_boxes(ax, groups: list[list[float]], labels: list[str], colors: list[str]) -> None:
    """Box 25-75 %, whiskers 10-90 %, a black line at the median (the paper's Fig. 2 convention), seen on any box
    colour."""
    bp = ax.boxplot(groups, whis=(10, 90), showfliers=False, patch_artist=True, tick_labels=labels,
                    medianprops={"color": "black", "linewidth": 1.5})
    for patch, color in zip(bp["boxes"], colors, strict=True):
        patch.set_facecolor(color)


def fig2_boxplots(metrics: pd.DataFrame, roles: dict[str, str]) -> plt.Figure:
    """RevB Chebyshev distance per task, base vs instruct models."""
    revealed = metrics[metrics["method"] == "revealed"].assign(role=lambda f: f["model"].map(roles))
    tasks = ["dice", "coins", "choice", "preference"]
    fig, axes = plt.subplots(1, len(tasks), figsize=(12, 3.2), sharey=True)
    for ax, task in zip(axes, tasks, strict=True):
        sub = revealed[revealed["family"] == task]
        groups, labels, colors = [], [], []
        for role, color in (("base", "tab:blue"), ("instruct", "tab:orange")):
            values = sub[sub["role"] == role]["chebyshev"].tolist()
            if values:
                groups.append(values)
                labels.append(f"{role}\nn={len(values)}")
                colors.append(color)
        if groups:
            _whisker_boxes(ax, groups, labels, colors)
        else:
            ax.text(0.5, 0.5, "no settings", ha="center", va="center", transform=ax.transAxes, color="0.4")
        ax.set_title(task.capitalize())
    axes[0].set_ylabel("Chebyshev distance (RevB;\nlower is better)")
    named = "; ".join(f"{role}: {', '.join(sorted(m for m, r in roles.items() if r == role)) or 'none'}"
                      for role in ("base", "instruct"))
    fig.suptitle("Fig. 2: revealed-belief error per task, base vs instruct (box 25-75 %, whiskers 10-90 %, black: "
                 f"median; n = settings x models)\n{named}", fontsize=10)
    fig.tight_layout()
    return fig


FIG3_PICKS = (
    ("choice-single-4", "4 abstract choices"),
    ("coins-single-3c-b1-heads", "3 fair coins (number of Heads)"),
)


def fig3_distributions(
    dump: pd.DataFrame, scenarios: pd.DataFrame, table: pd.DataFrame, models: Sequence[str]
) -> plt.Figure:
    """RevB distributions for 4 abstract choices and 3 coins, with the RevB/StaA error table below (one row per
    setting and method, one column per model; "n/a" where a model has no value, e.g. StaA of a base model)."""
    picks = FIG3_PICKS
    n_rows = max(len(table), 1)
    fig = plt.figure(figsize=(11, 4.6 + 0.32 * (n_rows + 1)))
    # room between the bars' tick labels and the table's title (hspace: a share of the mean axes height)
    grid = fig.add_gridspec(2, len(picks), height_ratios=[4.2, 0.32 * (n_rows + 1) + 0.3], hspace=0.35)
    for col, (setting, title) in enumerate(picks):
        ax = fig.add_subplot(grid[0, col])
        scen = scenarios[scenarios["setting_id"] == setting]
        if scen.empty:
            ax.text(0.5, 0.5, f"{setting}: not generated in this run", ha="center", va="center",
                    transform=ax.transAxes, color="0.4")
            ax.axis("off")
            continue
        outcomes = list(scen.iloc[0]["outcomes"])
        width = 0.8 / (len(models) + 1)
        ax.bar(list(range(len(outcomes))), list(scen.iloc[0]["true_probs"]), width, color="black", label="true")
        for m, model in enumerate(models):
            rows = dump[(dump["model"] == model) & (dump["item_id"] == setting)].sort_values("option_id")
            _bars_or_missing(ax, [i + (m + 1) * width for i in range(len(rows))], rows["prob"].reset_index(drop=True),
                             width=width, label=model)
        ax.set_xticks([i + width * len(models) / 2 for i in range(len(outcomes))], outcomes)
        ax.set_title(title)
        ax.set_ylim(0, 1)
        ax.set_ylabel("probability")
        ax.legend(fontsize=8)
    ax_table = fig.add_subplot(grid[1, :])
    ax_table.axis("off")
    cells = [["n/a" if isinstance(v, float) and v != v else (f"{v:.2f}" if isinstance(v, float) else str(v))
              for v in row] for row in table.itertuples(index=False)]
    if cells:
        shown = ax_table.table(cellText=cells, colLabels=[str(c) for c in table.columns], loc="upper center",
                               cellLoc="center")
        shown.auto_set_font_size(False)
        shown.set_fontsize(9)
        shown.scale(1, 1.4)
    ax_table.set_title("Chebyshev distance to the true distribution (lower is better; n/a: not asked)", fontsize=9)
    fig.suptitle("Fig. 3: revealed distributions (4 choices, 3 coins) and RevB / StaA Chebyshev errors", fontsize=10)
    return fig


def fig4_die_priors(dump: pd.DataFrame, scenarios: pd.DataFrame, models: Sequence[str], faces: int) -> plt.Figure:
    """RevB of one die with no prior and with a previous roll of 1, the middle value and the maximum."""
    single = f"dice-single-1d{faces}"
    priors = scenarios[
        (scenarios["variant"] == "independent") & scenarios["setting_id"].str.startswith(f"dice-independent-1d{faces}-")
    ]
    settings = [(single, "no prior")] + [
        (s, f"prior {json.loads(p)['previous']}") for s, p in zip(priors["setting_id"], priors["params"], strict=True)
    ]
    fig, axes = plt.subplots(len(models), len(settings), figsize=(3 * len(settings), 2.4 * len(models)), squeeze=False)
    for r, model in enumerate(models):
        for c, (setting, title) in enumerate(settings):
            rows = dump[(dump["model"] == model) & (dump["item_id"] == setting)].sort_values("option_id")
            _bars_or_missing(axes[r][c], list(rows["option_text"]), rows["prob"])
            axes[r][c].axhline(1 / faces, color="black", ls="--", lw=1)
            axes[r][c].set_ylim(0, 1)
            axes[r][c].set_title(f"{model}: {title}", fontsize=8)
            axes[r][c].tick_params(labelsize=8)
    fig.suptitle(f"Fig. 4: one {faces}-sided die, no prior vs a previous roll (dashed: true 1/{faces})", fontsize=10)
    fig.tight_layout()
    return fig


FIG5_GROUPS = (("RevB base", "tab:blue"), ("RevB instruct", "tab:orange"), ("StaA", "tab:green"))
FEW = 5  # boxes drawn from fewer (model, setting) increases than this are hatched and say so


def fig5_increase(increases: pd.DataFrame, models: Sequence[str] = ()) -> plt.Figure:
    """The paper's Fig. 5: box plots of the per-(model, setting) increase of the Chebyshev error over each setting's
    own single-roll baseline (see :func:`choicelab.studies.revealed_belief.metrics.baseline_increases`), for a prior
    independent result (left) and one observation (right); RevB base, RevB instruct and StaA side by side. Boxes
    25-75 %, whiskers 10-90 %, red line at the median; n under each box."""
    fig, axes = plt.subplots(1, len(FIG5_CHANGES), figsize=(9, 3.4), sharey=True, squeeze=False)
    for ax, (_, change) in zip(axes[0], FIG5_CHANGES, strict=True):
        sub = increases[increases["change"] == change] if not increases.empty else increases
        groups, labels, colors = [], [], []
        for group, color in FIG5_GROUPS:
            values = sub[sub["group"] == group]["increase"].tolist() if not sub.empty else []
            if values:
                groups.append(values)
                labels.append(f"{group}\nn={len(values)}" + (" (few)" if len(values) < FEW else ""))
                colors.append(color)
        if groups:
            bp = ax.boxplot(groups, whis=(10, 90), showfliers=False, patch_artist=True, tick_labels=labels,
                            medianprops={"color": "red"})
            for patch, color, values in zip(bp["boxes"], colors, groups, strict=True):
                patch.set_facecolor(color)
                if len(values) < FEW:
                    patch.set_alpha(0.35)
                    patch.set_hatch("//")
        else:
            ax.text(0.5, 0.5, "no settings", ha="center", va="center", transform=ax.transAxes)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(change.capitalize(), fontsize=9)
        ax.tick_params(labelsize=8)
    axes[0][0].set_ylabel("Chebyshev increase over baseline")
    named = f"\nmodels: {', '.join(models)}" if models else ""
    fig.suptitle("Fig. 5: increase of the Chebyshev error over the same dice's single roll "
                 f"(box 25-75 %, whiskers 10-90 %, red: median){named}", fontsize=9)
    fig.tight_layout()
    return fig


def fig6_order(dump: pd.DataFrame, scenarios: pd.DataFrame, models: Sequence[str]) -> plt.Figure:
    """Probability of "Left" (RevB) by bias, when Left is named first vs second."""
    sub = scenarios[(scenarios["family"] == "preference") & (scenarios["variant"] == "single")]
    sub = sub[sub["setting_id"].str.startswith("preference-single-left-")]
    records = []
    for s in sub.itertuples():
        params = json.loads(s.params)
        for model in models:
            rows = dump[(dump["model"] == model) & (dump["item_id"] == s.setting_id)]
            p_left = float(rows[rows["option_text"] == "Left"]["prob"].sum())
            records.append({"model": model, "bias": params["bias"], "first": params["order"][0], "p_left": p_left,
                            "true": s.true_probs[s.outcomes.tolist().index("Left")]})
    frame = pd.DataFrame.from_records(records)
    fig, axes = plt.subplots(1, max(1, len(models)), figsize=(4 * max(1, len(models)), 3), squeeze=False)
    for ax, model in zip(axes[0], models, strict=False):
        part = frame[frame["model"] == model] if not frame.empty else frame
        for first, style in (("Left", "-o"), ("Right", "--s")):
            line = part[part["first"] == first].sort_values("bias")
            ax.plot(line["bias"], line["p_left"], style, label=f"{first} named first")
        if not part.empty:
            truth = part.drop_duplicates("bias").sort_values("bias")
            ax.plot(truth["bias"], truth["true"], ":", color="black", label="true")
        ax.set_title(model, fontsize=9)
        ax.set_xlabel("bias toward Left")
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("P(Left)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Fig. 6: order of the options Left / Right", fontsize=10)
    fig.tight_layout()
    return fig


# -- builders (ARTIFACTS) ---------------------------------------------------------------------------------------

def build_fig2(results: Results) -> Built:
    return Built(fig2_boxplots(results.metrics, results.roles))


def build_fig3(results: Results) -> Built:
    metrics = results.metrics
    table = metrics[metrics["setting_id"].isin([setting for setting, _ in FIG3_PICKS])]
    table = table.pivot_table(index=["setting_id", "method"], columns="model", values="chebyshev").reset_index()
    return Built(fig3_distributions(results.need("revealed"), results.scenarios, table, list(results.models)))


def build_fig4(results: Results) -> Built:
    """One 10-sided die as in the paper, or the largest die of the config (said in the caption)."""
    faces = results.need("faces")
    shown = 10 if 10 in faces else max(faces)
    note = "" if shown == 10 else f" (no 10-sided die in this configuration: {shown} faces shown)"
    return Built(fig4_die_priors(results.need("revealed"), results.scenarios, list(results.models), shown), note=note)


def build_fig5(results: Results) -> Built:
    increases = baseline_increases(results.metrics, results.scenarios, results.roles)
    return Built(fig5_increase(increases, list(results.models)))


def build_fig6(results: Results) -> Built:
    return Built(fig6_order(results.need("revealed"), results.scenarios, list(results.models)))


def build_single_die(results: Results) -> Built:
    return Built(single_die_figure(results.need("revealed"), results.scenarios, list(results.models)))
