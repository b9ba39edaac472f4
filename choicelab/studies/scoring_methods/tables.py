"""Figures, number tables and the paper comparison of the scoring-methods study (Tsvilodub et al.).

Inputs are the choice frame (:func:`choicelab.metrics.scoring_methods.choices_from_scores` of the score table) and the
human per-condition counts (:func:`choicelab.items.pragmatics.human_condition_accuracy`: condition, k, n, accuracy).

What the paper reports, and what :func:`reported_choices` therefore keeps: free generation at tau = 0.1 only; rating
at each model's best scale (per rating score); string, label (all option-order seeds x label sets, pooled) and
embedding scores as they are. Accuracies pool every item version of a group (items x seeds x label sets), as the
authors' analysis does (LLM_link ``analysis/testing-stats.R``: ``sum(k) / sum(N)``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from choicelab.plotting import plt
from choicelab.metrics import scoring_methods as sm

METHOD_ORDER = ("free", "string", "label", "rating", "embedding")
METHOD_COLORS = {
    "free": "#e6850e",
    "string": "#a6cee3",
    "label": "#1f78b4",
    "rating": "#33a02c",
    "embedding": "#b15928",
    "human": "#444444",
}
SCORE_ORDER = ("free", *sm.STRING_SCORES, *sm.LABEL_SCORES, "rating_number", "rating_phrase", "cosine")
SHORT_SCORE = {
    "free": "free",
    "option_logprob": "str::optProb (1)",
    "mean_token_prob": "str::avgOptProb (2)",
    "mean_token_logprob": "str::avgNegSurp (3)",
    "prior_corrected": "str::priorCorr (4)",
    "surprisal_reduction": "str::surpRed (5)",
    "label_logprob": "lbl::optProb (1)",
    "label_prior_corrected": "lbl::priorCorr (4)",
    "label_surprisal_reduction": "lbl::surpRed (5)",
    "rating_number": "rating (numbers)",
    "rating_phrase": "rating (phrases)",
    "cosine": "embedding",
}
CONDITION_NAMES = {
    "coherence": "Coherence",
    "deceits": "Deceits",
    "humour": "Humour",
    "indirect_speech": "Indirect speech",
    "irony": "Irony",
    "maxims": "Maxims",
    "metaphor": "Metaphor",
}
REPORTED_FREE_VARIANT = "tau=0.1"


def _score_rank(score: str) -> int:
    return SCORE_ORDER.index(score) if score in SCORE_ORDER else len(SCORE_ORDER)


def _method_rank(method: str) -> int:
    return METHOD_ORDER.index(method) if method in METHOD_ORDER else len(METHOD_ORDER)


# -- selecting what the paper reports -----------------------------------------------------------------------------


def best_rating_scales(choices: pd.DataFrame) -> pd.DataFrame:
    """Per (benchmark, model, rating score): the scale with the highest pooled accuracy (ties: alphabetical)."""
    rating = choices[choices["method"] == "rating"]
    if rating.empty:
        return pd.DataFrame(columns=["benchmark", "model", "score", "variant", "accuracy"])
    acc = rating.groupby(["benchmark", "model", "score", "variant"], as_index=False)["is_target"].mean()
    acc = acc.rename(columns={"is_target": "accuracy"}).sort_values(
        ["benchmark", "model", "score", "accuracy", "variant"], ascending=[True, True, True, False, True]
    )
    return acc.groupby(["benchmark", "model", "score"], as_index=False).first()


def reported_choices(choices: pd.DataFrame, free_variant: str = REPORTED_FREE_VARIANT) -> pd.DataFrame:
    """The choice rows behind the paper's figures: free generation at ``free_variant``, rating at the best scale."""
    best = best_rating_scales(choices)[["benchmark", "model", "score", "variant"]].assign(_best=True)
    out = choices.merge(best, on=["benchmark", "model", "score", "variant"], how="left")
    keep = (out["method"] != "rating") | out["_best"].fillna(False).astype(bool)
    keep &= (out["method"] != "free") | (out["variant"] == free_variant)
    return out[keep].drop(columns="_best").reset_index(drop=True)


# -- number tables --------------------------------------------------------------------------------------------------


def fig2_table(choices: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (condition, model, method), pooled over the method's reported versions and scores, plus the
    human rows (model = method = "human") and the chance rate 1/k."""
    rows = reported_choices(choices)
    acc = rows.groupby(["condition", "model", "method"], as_index=False).agg(
        n=("is_target", "size"), k=("is_target", "sum"), n_options=("n_options", "first")
    )
    acc["accuracy"] = acc["k"] / acc["n"]
    chance = rows.groupby("condition")["n_options"].first()
    humans = human[human["condition"].isin(acc["condition"].unique())]
    human_rows = pd.DataFrame(
        {
            "condition": humans["condition"],
            "model": "human",
            "method": "human",
            "n": humans["n"],
            "k": humans["k"],
            "accuracy": humans["accuracy"],
            "n_options": humans["condition"].map(chance),
        }
    )
    out = pd.concat([acc, human_rows], ignore_index=True)
    out["chance"] = 1.0 / out["n_options"]
    out["_m"] = out["method"].map(_method_rank)
    return out.sort_values(["condition", "model", "_m"]).drop(columns="_m").reset_index(drop=True)


def fig3_table(
    choices: pd.DataFrame,
    human: pd.DataFrame,
    reference: dict[str, str] | None = None,
    clip: tuple[float, float] = sm.P_CLIP,
) -> pd.DataFrame:
    """Per (model, method, score): pooled accuracy, mean of the condition accuracies, log-likelihood of the human
    data (binomial per condition, p clipped to ``clip``, summed) and its difference to the worst row (or
    ``reference``)."""
    rows = reported_choices(choices)
    table = sm.human_loglik(rows, human, by=("model", "method", "score"), clip=clip)
    table = sm.delta_loglik(table, reference)
    table["_m"] = table["method"].map(_method_rank)
    table["_s"] = table["score"].map(_score_rank)
    return table.sort_values(["model", "_m", "_s"]).drop(columns=["_m", "_s"]).reset_index(drop=True)


CLIP_SENSITIVITY = "clip1e-9"  # suffix of the columns computed with the authors' clip (sm.AUTHORS_P_CLIP)


def _with_authors_clip(fig3: pd.DataFrame, choices: pd.DataFrame, human: pd.DataFrame, reference: float | None
                       ) -> pd.DataFrame:
    """``fig3`` plus loglik and delta_loglik with p clipped to [1e-9, 1 - 1e-9] (the authors' analysis)."""
    authors = fig3_table(choices, human, clip=sm.AUTHORS_P_CLIP)
    ref = float(authors["loglik"].min()) if reference is None else reference
    authors = authors.assign(delta_loglik=authors["loglik"] - ref)[["model", "method", "score", "loglik", "delta_loglik"]]
    authors = authors.rename(columns={c: f"{c}_{CLIP_SENSITIVITY}" for c in ("loglik", "delta_loglik")})
    return fig3.merge(authors, on=["model", "method", "score"], how="left")


def table_numbers(choices: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """Every number behind Figs. 2 and 3 in one long frame (column ``figure``), with two sensitivity analyses:

    * the log-likelihood with the authors' clip 1e-9 beside ours (1e-3): columns ``loglik_clip1e-9`` and
      ``delta_loglik_clip1e-9`` (the delta to the same worst pooled row);
    * label scoring per label set: the pooled label rows have ``label_set`` "pooled"; rows "alpha" and "numeric"
      give the same numbers for one label set alone (the authors report one set), their deltas relative to the
      pooled table's worst row."""
    fig2 = fig2_table(choices, human).assign(figure="fig2", score="")
    fig3 = fig3_table(choices, human)
    worst = float(fig3["loglik"].min()) if not fig3.empty else None
    worst_authors = float(fig3_table(choices, human, clip=sm.AUTHORS_P_CLIP)["loglik"].min()) if not fig3.empty else None
    fig3 = _with_authors_clip(fig3, choices, human, worst_authors).assign(figure="fig3", condition="")
    parts = [fig2, fig3]
    labels = choices[choices["method"] == "label"]
    for label_set in sorted(labels["label_set"].dropna().unique()):
        subset = labels[labels["label_set"] == label_set]
        f2 = fig2_table(subset, human)
        parts.append(f2[f2["method"] == "label"].assign(figure="fig2", score="", label_set=label_set))
        f3 = fig3_table(subset, human)
        f3 = f3.assign(delta_loglik=f3["loglik"] - worst)
        parts.append(_with_authors_clip(f3, subset, human, worst_authors).assign(
            figure="fig3", condition="", label_set=label_set))
    out = pd.concat(parts, ignore_index=True)
    pooled = out["label_set"].isna() if "label_set" in out else pd.Series(True, index=out.index)
    out["label_set"] = out.get("label_set", pd.Series("", index=out.index)).where(~pooled, "")
    out.loc[pooled & (out["method"] == "label"), "label_set"] = "pooled"
    columns = [
        "figure",
        "condition",
        "model",
        "method",
        "score",
        "label_set",
        "n",
        "k",
        "accuracy",
        "chance",
        "mean_condition_accuracy",
        "loglik",
        "delta_loglik",
        f"loglik_{CLIP_SENSITIVITY}",
        f"delta_loglik_{CLIP_SENSITIVITY}",
        "n_conditions",
    ]
    return out.reindex(columns=columns)


# -- robustness across methods ------------------------------------------------------------------------------------


def robustness_matrix(choices: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (benchmark, model, method, score) over every version (seeds, label sets, scales, temperatures)."""
    out = choices.groupby(["benchmark", "model", "method", "score"], as_index=False).agg(
        n=("is_target", "size"),
        accuracy=("is_target", "mean"),
        chance=("n_options", lambda s: float((1.0 / s).mean())),
        tie_broken=("n_tied", lambda s: float((s > 1).mean())),
        unclassified=("chosen", lambda s: float((s == sm.UNCLASSIFIED).mean())),
    )
    out["_m"] = out["method"].map(_method_rank)
    out["_s"] = out["score"].map(_score_rank)
    return out.sort_values(["benchmark", "model", "_m", "_s"]).drop(columns=["_m", "_s"]).reset_index(drop=True)


def _prediction_shares(choices: pd.DataFrame, level: str) -> pd.DataFrame:
    """Per (benchmark, model, item, variant key): the share of versions predicting each option."""
    keyed = choices.assign(key=choices["method"] if level == "method" else choices["method"] + ":" + choices["score"])
    counts = keyed.groupby(["benchmark", "model", "item_id", "key", "chosen"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby(["benchmark", "model", "item_id", "key"])["count"].transform(
        "sum"
    )
    return counts


def method_agreement(choices: pd.DataFrame, level: str = "method_score") -> pd.DataFrame:
    """Pairwise agreement between methods (``level="method"``) or method:score pairs, per (benchmark, model).

    Agreement of A and B on an item = the probability that a random version of A (seed, label set, scale...) and a
    random version of B pick the same option (sum_o pA(o) pB(o)); averaged over the items both scored. Unclassified
    free generations count as one more "option"."""
    if level not in {"method", "method_score"}:
        raise ValueError("level must be 'method' or 'method_score'")
    shares = _prediction_shares(choices, level)
    records = []
    for (benchmark, model), group in shares.groupby(["benchmark", "model"], sort=True):
        wide = group.pivot_table(index=["item_id", "chosen"], columns="key", values="share", fill_value=0.0)
        keys = sorted(wide.columns, key=lambda k: (_method_rank(k.split(":")[0]), _score_rank(k.split(":")[-1]), k))
        scored = group.groupby("key")["item_id"].apply(set)
        for a, b in combinations(keys, 2):
            items = scored[a] & scored[b]
            if not items:
                continue
            sub = wide.loc[wide.index.get_level_values("item_id").isin(items)]
            per_item = (sub[a] * sub[b]).groupby(level="item_id").sum()
            records.append(
                {
                    "benchmark": benchmark,
                    "model": model,
                    "a": a,
                    "b": b,
                    "n_items": len(items),
                    "agreement": float(per_item.mean()),
                }
            )
    return pd.DataFrame.from_records(records, columns=["benchmark", "model", "a", "b", "n_items", "agreement"])


def flip_share(choices: pd.DataFrame, level: str = "method") -> pd.DataFrame:
    """Per (benchmark, model): the share of items whose predicted option is not the same for every method.

    Each method's (or method:score's) prediction for an item is its modal choice over its versions (ties: the
    lowest option index). Columns: benchmark, model, n_items, n_keys, flip_share."""
    shares = _prediction_shares(choices, level)
    modal = (
        shares.sort_values(["share", "chosen"], ascending=[False, True])
        .groupby(["benchmark", "model", "item_id", "key"], as_index=False)
        .first()
    )
    per_item = modal.groupby(["benchmark", "model", "item_id"]).agg(
        n_keys=("key", "nunique"), n_predictions=("chosen", "nunique")
    )
    per_item = per_item[per_item["n_keys"] > 1]
    out = per_item.groupby(["benchmark", "model"]).agg(
        n_items=("n_keys", "size"),
        n_keys=("n_keys", "max"),
        flip_share=("n_predictions", lambda s: float((s > 1).mean())),
    )
    return out.reset_index()


def robustness_heatmap(matrix: pd.DataFrame, flips: pd.DataFrame | None = None) -> plt.Figure:
    """Rows = benchmark / model, columns = method:score; cell = accuracy minus chance (annotated with accuracy).
    Right panel: the share of items whose prediction flips across methods."""
    frame = matrix.assign(
        row=matrix["benchmark"] + " / " + matrix["model"], col=matrix["score"].map(lambda s: SHORT_SCORE.get(s, s))
    )
    pairs = sorted(
        set(zip(frame["method"], frame["score"], frame["col"], strict=True)),
        key=lambda p: (_method_rank(p[0]), _score_rank(p[1]), p[1]),
    )
    cols = list(dict.fromkeys(p[2] for p in pairs))
    rows = sorted(frame["row"].unique())
    acc = frame.pivot_table(index="row", columns="col", values="accuracy").reindex(index=rows, columns=cols)
    chance = frame.pivot_table(index="row", columns="col", values="chance").reindex(index=rows, columns=cols)
    width = 1.0 + 0.55 * len(cols) + (1.8 if flips is not None else 0)
    fig, axes = plt.subplots(
        1,
        2 if flips is not None else 1,
        figsize=(width, 1.2 + 0.45 * len(rows)),
        squeeze=False,
        gridspec_kw={"width_ratios": [len(cols), 3]} if flips is not None else None,
    )
    ax = axes[0][0]
    delta = (acc - chance).to_numpy(dtype=float)
    image = ax.imshow(delta, cmap="RdBu", vmin=-0.5, vmax=0.5, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not math.isnan(acc.iat[i, j]):
                ax.text(j, i, f"{acc.iat[i, j]:.2f}", ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(cols)), cols, rotation=60, ha="right", fontsize=6)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    fig.colorbar(image, ax=ax, fraction=0.03, label="accuracy - chance")
    if flips is not None:
        fl = flips.assign(row=flips["benchmark"] + " / " + flips["model"]).set_index("row").reindex(rows)
        axes[0][1].barh(range(len(rows)), fl["flip_share"].to_numpy(dtype=float), color="#777777")
        axes[0][1].set_yticks(range(len(rows)), [""] * len(rows))
        axes[0][1].invert_yaxis()
        axes[0][1].set_xlim(0, 1)
        axes[0][1].set_xlabel("items whose choice\nflips across methods", fontsize=7)
    fig.suptitle("Robustness of MC predictions across scoring methods", fontsize=9)
    fig.tight_layout()
    return fig


# -- figures --------------------------------------------------------------------------------------------------------

FORMULAS = [
    ("(1) option probability", r"$P(o\,|\,I)=\prod_t P(w_t\,|\,I,w_{<t})$"),
    ("(2) average option probability", r"$\frac{1}{|o|}\sum_t P(w_t\,|\,I,w_{<t})$"),
    ("(3) average negative surprisal", r"$\frac{1}{|o|}\sum_t \log P(w_t\,|\,I,w_{<t})$"),
    ("(4) prior-corrected probability", r"$P(o\,|\,I)\,/\,P(o\,|\,I_0)$"),
    ("(5) surprisal reduction", r"$S(o\,|\,I_0)\,/\,S(o\,|\,I),\ S=-\sum_t \log P(w_t\,|\,\cdot)$"),
    ("(6) rating aggregation", r"$\sum_{r=1}^{5} r\ \mathrm{softmax}_r\,\log P(r\,|\,I,o)$"),
    ("(7) embedding similarity", r"$\cos(E(I),E(o))$"),
]


def _wrap(text: str, width: int = 95) -> str:
    return "\n".join(textwrap.fill(line, width) if line else "" for line in text.split("\n"))


def fig1_example(
    item: Any, order: Sequence[int] | None = None, label_set: str = "alpha", scale: str = "likely"
) -> plt.Figure:
    """Fig. 1: one item (the paper shows an irony item) as each method presents it, the scored sequences in colour,
    and the set of scores with their formulas. ``item`` is a ScoringItem or a PragmaticsItem."""
    from choicelab.pipelines import scoring_methods as ps

    if not isinstance(item, ps.ScoringItem):
        item = ps.from_pragmatics([item])[0]
    order = tuple(order) if order is not None else tuple(range(len(item.options)))
    labels = sm.labels_for(len(item.options), label_set)
    target = item.options[item.target]
    panels = [
        ("free generation (tau = 0.1, <= 50 tokens)", ps.string_prompt(item), "<generated text, coded as an option>"),
        ("string scoring: each option given I and given I0 = T", ps.string_prompt(item), " | ".join(item.options)),
        (
            "label scoring: labels given I and given I0 = T + options",
            ps.label_prompt(item, order, labels),
            " | ".join(labels),
        ),
        (
            f"rating ({scale}): numbers / phrases given I and the option",
            ps.rating_prompt(item, target, scale),
            " | ".join(str(r) for r in sm.RATING_POINTS) + "   or   " + " | ".join(ps.SCALES[scale]),
        ),
        ("embedding similarity: E(I) vs E(o)", ps.string_prompt(item), " | ".join(item.options)),
    ]
    fig = plt.figure(figsize=(13, 11))
    left = fig.add_axes((0.01, 0.01, 0.64, 0.95))
    right = fig.add_axes((0.66, 0.01, 0.33, 0.95))
    for ax in (left, right):
        ax.set_axis_off()
    y = 1.0
    for title, prompt, scored in panels:
        left.text(0, y, title, fontsize=9, fontweight="bold", va="top", transform=left.transAxes)
        body = _wrap(prompt)
        n_lines = body.count("\n") + 1
        left.text(0.01, y - 0.025, body, fontsize=6.5, va="top", family="monospace", transform=left.transAxes)
        y -= 0.025 + 0.0107 * n_lines
        left.text(
            0.01,
            y - 0.004,
            _wrap("scored: " + scored),
            fontsize=6.5,
            va="top",
            color="#b2182b",
            family="monospace",
            transform=left.transAxes,
        )
        y -= 0.05
    right.text(0, 1.0, "Scores (argmax over the options)", fontsize=10, fontweight="bold", va="top")
    for k, (name, formula) in enumerate(FORMULAS):
        right.text(0, 0.93 - 0.12 * k, name, fontsize=9, va="top")
        right.text(0.03, 0.89 - 0.12 * k, formula, fontsize=11, va="top")
    right.text(
        0,
        0.06,
        _wrap(
            f"I: task T, context C and question Q. I0 (string): T only.\n"
            f'I0 (label): T + labelled options. Target: "{target}"',
            60,
        ),
        fontsize=7,
        va="top",
    )
    fig.suptitle(f"Fig. 1: item {item.item_id} presented by each method", fontsize=11)
    return fig


def fig2_accuracy(fig2: pd.DataFrame) -> plt.Figure:
    """Fig. 2: accuracy per condition (facets); bars per model x method, human bar, dashed chance line 1/k."""
    conditions = sorted(fig2["condition"].unique())
    models = sorted(m for m in fig2["model"].unique() if m != "human")
    methods = [m for m in METHOD_ORDER if m in set(fig2["method"])]
    ncols = 4
    nrows = math.ceil((len(conditions) + 1) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.9 * nrows), squeeze=False, sharey=True)
    width = 0.8 / max(1, len(methods))
    for ax, condition in zip(axes.flat, conditions, strict=False):
        sub = fig2[fig2["condition"] == condition]
        for j, method in enumerate(methods):
            values = [sub[(sub["model"] == m) & (sub["method"] == method)]["accuracy"] for m in models]
            heights = [float(v.iloc[0]) if len(v) else np.nan for v in values]
            ax.bar(
                np.arange(len(models)) - 0.4 + width * (j + 0.5),
                heights,
                width,
                color=METHOD_COLORS[method],
                label=method,
            )
        human = sub[sub["model"] == "human"]["accuracy"]
        if len(human):
            ax.bar([len(models)], [float(human.iloc[0])], 0.5, color=METHOD_COLORS["human"], label="human")
        ax.axhline(float(sub["chance"].iloc[0]), color="black", ls="--", lw=1)
        ax.set_xticks(range(len(models) + 1), [*models, "human"], rotation=30, ha="right", fontsize=7)
        ax.set_title(CONDITION_NAMES.get(condition, condition), fontsize=9)
        ax.set_ylim(0, 1)
    for ax in axes.flat[len(conditions) :]:
        ax.set_axis_off()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="black", ls="--"))
    labels.append("chance 1/k")
    axes.flat[-1].legend(handles, labels, loc="center", fontsize=8)
    for row in axes:
        row[0].set_ylabel("accuracy")
    fig.suptitle("Fig. 2: accuracy per condition, model and method (averaged over each method's versions)", fontsize=10)
    fig.tight_layout()
    return fig


def fig3_accuracy_loglik(fig3: pd.DataFrame) -> plt.Figure:
    """Fig. 3: accuracy (top) and delta log-likelihood of the human data (bottom) per score (x axis), one column per
    model; bar colour = method."""
    models = sorted(fig3["model"].unique())
    fig, axes = plt.subplots(2, len(models), figsize=(max(4.5, 4.2 * len(models)), 6), squeeze=False, sharey="row")
    for j, model in enumerate(models):
        sub = fig3[fig3["model"] == model].copy()
        sub["_m"] = sub["method"].map(_method_rank)
        sub["_s"] = sub["score"].map(_score_rank)
        sub = sub.sort_values(["_m", "_s"])
        x = np.arange(len(sub))
        colors = [METHOD_COLORS.get(m, "grey") for m in sub["method"]]
        names = [SHORT_SCORE.get(s, s) for s in sub["score"]]
        for i, (column, label) in enumerate((("accuracy", "accuracy"), ("delta_loglik", "Δ log-likelihood"))):
            ax = axes[i][j]
            ax.bar(x, sub[column].to_numpy(dtype=float), color=colors)
            ax.set_xticks(x, names if i == 1 else [""] * len(x), rotation=60, ha="right", fontsize=7)
            if j == 0:
                ax.set_ylabel(label)
        axes[0][j].set_title(model, fontsize=9)
        axes[0][j].set_ylim(0, 1)
    handles = [plt.Rectangle((0, 0), 1, 1, color=METHOD_COLORS[m]) for m in METHOD_ORDER if m in set(fig3["method"])]
    names = [m for m in METHOD_ORDER if m in set(fig3["method"])]
    fig.legend(handles, names, fontsize=7, loc="lower center", ncol=len(names), frameon=False)
    fig.suptitle(
        "Fig. 3: accuracy and goodness of fit to the human data (Δ to the worst model/score), pooled over conditions",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


# -- comparison with the paper --------------------------------------------------------------------------------------


def _method_accuracy(fig3: pd.DataFrame) -> pd.DataFrame:
    """Per (model, method): the mean of its scores' pooled accuracies."""
    return fig3.groupby(["model", "method"], as_index=False)["accuracy"].mean()


def _finding(key: str, paper: str, ours: str, agrees: bool | None, note: str = "") -> dict[str, Any]:
    return {"kind": "finding", "key": key, "paper": paper, "ours": ours, "agrees": agrees, "note": note}


def _best_methods(per_method: pd.DataFrame) -> dict[str, str]:
    return {
        model: group.sort_values(["accuracy", "method"], ascending=[False, True])["method"].iloc[0]
        for model, group in per_method.groupby("model")
    }


def _findings(fig2: pd.DataFrame, fig3: pd.DataFrame, flips: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    per_method = _method_accuracy(fig3)
    models = sorted(per_method["model"].unique())
    best = _best_methods(per_method)
    # 1. Variation across methods.
    spread = fig3.groupby("model")["accuracy"].agg(lambda s: float(s.max() - s.min()))
    flip_text = ", ".join(f"{r.model}: {r.flip_share:.2f}" for r in flips.itertuples()) if len(flips) else "n/a"
    out.append(
        _finding(
            "not_robust",
            "predictions are not robust under variation of the scoring method (within and across models)",
            f"accuracy range over method x score per model: {', '.join(f'{m}: {v:.2f}' for m, v in spread.items())}; "
            f"share of items whose choice flips across methods: {flip_text}",
            bool(len(spread)) and bool((spread >= 0.10).all()),
            "criterion: range >= 0.10 for every model",
        )
    )
    # 2. Label scoring best.
    label_best = [m for m in models if best[m] == "label"]
    out.append(
        _finding(
            "label_best",
            "label scoring works best for all models except GPT-instruct (free generation there)",
            "best method per model: " + ", ".join(f"{m}: {best[m]}" for m in models),
            len(label_best) >= len(models) - 1 if models else None,
            "criterion: label is the best method for all models but at most one",
        )
    )
    # 3. No single method supreme.
    out.append(
        _finding(
            "no_single_best",
            "no single method delivers supreme results for all models",
            f"{len(set(best.values()))} different best methods over {len(models)} models",
            len(set(best.values())) > 1 if len(models) > 1 else None,
            "needs at least two models",
        )
    )
    # 4. Accuracy and likelihood correlated.
    if len(fig3) >= 3 and fig3["accuracy"].std() > 0 and fig3["loglik"].std() > 0:
        r = float(np.corrcoef(fig3["accuracy"], fig3["loglik"])[0, 1])
        out.append(
            _finding(
                "accuracy_loglik_correlated",
                "accuracy and log-likelihood of the human data are fairly correlated",
                f"Pearson r over (model, method, score) = {r:.2f}",
                r >= 0.5,
                "criterion: r >= 0.5",
            )
        )
    else:
        out.append(
            _finding(
                "accuracy_loglik_correlated",
                "accuracy and likelihood are fairly correlated",
                "too few distinct rows",
                None,
            )
        )
    # 5. No model-method pair beats humans in all conditions.
    humans = fig2[fig2["model"] == "human"].set_index("condition")["accuracy"]
    machine = fig2[fig2["model"] != "human"]
    beats = (
        machine.assign(above=machine["accuracy"] > machine["condition"].map(humans))
        .groupby(["model", "method"])["above"]
        .all()
    )
    out.append(
        _finding(
            "humans_not_beaten",
            "no model-method pair outperforms human accuracy in all conditions",
            f"pairs above humans in every condition: {int(beats.sum())} of {len(beats)}",
            bool(not beats.any()) if len(beats) else None,
        )
    )
    # 6. Rating no payback.
    pivot = per_method.pivot_table(index="model", columns="method", values="accuracy")
    if {"rating"} <= set(pivot.columns) and set(pivot.columns) & {"string", "label"}:
        others = pivot[[c for c in ("string", "label") if c in pivot.columns]].max(axis=1)
        out.append(
            _finding(
                "rating_no_payback",
                "rating is more expensive with no payback in accuracy",
                ", ".join(
                    f"{m}: rating {pivot.at[m, 'rating']:.2f} vs best of string/label {others[m]:.2f}"
                    for m in pivot.index
                ),
                bool((pivot["rating"] <= others).all()),
            )
        )
    # 7. Embedding worse.
    if "embedding" in pivot.columns and len(pivot.columns) > 1:
        rest = pivot.drop(columns="embedding").mean(axis=1)
        out.append(
            _finding(
                "embedding_worse",
                "the embedding method performs generally worse",
                ", ".join(
                    f"{m}: embedding {pivot.at[m, 'embedding']:.2f} vs other methods' mean {rest[m]:.2f}"
                    for m in pivot.index
                ),
                bool((pivot["embedding"] < rest).all()),
            )
        )
    # 8. Method choice matters more for worse models.
    best_acc = fig3.groupby("model")["accuracy"].max()
    if len(models) >= 3:
        r = float(np.corrcoef(best_acc[spread.index], spread)[0, 1])
        out.append(
            _finding(
                "spread_larger_for_worse_models",
                "the choice of method matters more for models that perform worse overall",
                f"correlation of best accuracy with accuracy range: {r:.2f}",
                r < 0,
            )
        )
    else:
        out.append(
            _finding(
                "spread_larger_for_worse_models",
                "the choice of method matters more for worse models",
                f"{len(models)} model(s): not testable",
                None,
                "needs at least three models",
            )
        )
    # 9. Free generation best for the best model (GPT-instruct in the paper).
    if models:
        top = best_acc.idxmax()
        out.append(
            _finding(
                "free_best_for_best_model",
                "GPT-instruct (the best model) does best with free generation",
                f"best model here: {top}; its best method: {best[top]}",
                best[top] == "free",
                "GPT-instruct itself is not in our model set",
            )
        )
    return out


def compare_paper(
    choices: pd.DataFrame,
    human: pd.DataFrame,
    paper_human: dict[str, float] | None = None,
    flips: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Our human accuracies beside the paper's, then each of the paper's qualitative findings checked on our data.

    Columns: kind ("human_accuracy" | "finding"), key, paper, ours, agrees (None = not testable here), note."""
    from choicelab.items.pragmatics import PAPER_HUMAN_ACCURACY

    paper_human = paper_human or PAPER_HUMAN_ACCURACY
    records = []
    for row in human.itertuples():
        paper = paper_human.get(row.condition)
        records.append(
            {
                "kind": "human_accuracy",
                "key": row.condition,
                "paper": f"{paper:.3f}" if paper is not None else "",
                "ours": f"{row.accuracy:.3f}",
                "agrees": round(row.accuracy, 3) == paper if paper is not None else None,
                "note": f"{int(row.k)} of {int(row.n)} responses",
            }
        )
    fig2 = fig2_table(choices, human)
    fig3 = fig3_table(choices, human)
    flips = flips if flips is not None else flip_share(reported_choices(choices))
    records += _findings(fig2, fig3, flips)
    return pd.DataFrame.from_records(records, columns=["kind", "key", "paper", "ours", "agrees", "note"])
