"""Figures of the scoring-methods study (Tsvilodub et al.): Fig. 1 (an item under every method, with the score
formulas), Fig. 2 (accuracy per condition), Fig. 3 (accuracy and fit to the human data) and the robustness heat map of
the method x score grid. The numbers behind them are :mod:`choicelab.studies.scoring_methods.tables`.

The paper's figures are drawn from what the paper drew (:func:`paper_choices`): label scoring with the letter labels
(A, B, ...) only and rating with the numbers "1".."5" only (the authors' analysis file LLM_link
``analysis/llmlink_long_final.csv`` holds the alpha label set -- its FLAN-T5-XL label accuracy .621 is the argmax of
their ``label_alpha`` files, the ``label_numeric`` ones give .530 -- and the number-based rating). Fig. 3 comes twice:
with our probability clip (1e-3, delta to the worst row) and as the authors drew it (LLM_link
``analysis/testing-stats.R``: clip 1e-9; a log-likelihood above -100000 shown as LLH - worst + 500, where worst is
the lowest log-likelihood above -100000, one below it shown as 500; their constant 68768.470 is exactly minus the
lowest log-likelihood above -100000 of their data). Figures pooling both label sets and both rating scores are
extra artifacts, named ``*_pooled``."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from choicelab.plotting import LINE_SPACING, MIN_FONT_SIZE, plt
from choicelab.studies.scoring_methods import metrics as sm
from choicelab.studies.scoring_methods import prompts as ps
from choicelab.studies.scoring_methods import tables
from choicelab.studies.scoring_methods.items import load_condition
from choicelab.studies.scoring_methods.tables import (
    FREE_FROM_HAND,
    FREE_FROM_MIXED,
    METHOD_ORDER,
    StudyFrames,
    method_rank,
    score_rank,
)

METHOD_COLORS = {
    "free": "#e6850e",
    "string": "#a6cee3",
    "label": "#1f78b4",
    "rating": "#33a02c",
    "embedding": "#b15928",
    "human": "#444444",
}
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


def robustness_heatmap(matrix: pd.DataFrame, flips: pd.DataFrame | None = None) -> plt.Figure:
    """Rows = benchmark / model, columns = method:score; cell = accuracy minus chance (annotated with accuracy).
    Right panel: the share of items whose prediction flips across methods."""
    frame = matrix.assign(
        row=matrix["benchmark"] + " / " + matrix["model"], col=matrix["score"].map(lambda s: SHORT_SCORE.get(s, s))
    )
    pairs = sorted(
        set(zip(frame["method"], frame["score"], frame["col"], strict=True)),
        key=lambda p: (method_rank(p[0]), score_rank(p[1]), p[1]),
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
    item: Any,
    order: Sequence[int] | None = None,
    label_set: str = "alpha",
    scale: str = "likely",
    max_new_tokens: int | None = None,
) -> plt.Figure:
    """Fig. 1: one item (the paper shows an irony item) as each method presents it, the scored sequences in colour,
    and the set of scores with their formulas. ``item`` is a ScoringItem or a PragmaticsItem; ``max_new_tokens`` is
    the generation length the run used (``studies.scoring_methods.max_new_tokens``; the paper's is 50)."""
    if not isinstance(item, ps.ScoringItem):
        item = ps.from_pragmatics([item])[0]
    order = tuple(order) if order is not None else tuple(range(len(item.options)))
    labels = sm.labels_for(len(item.options), label_set)
    target = item.options[item.target]
    panels = [
        (
            f"free generation (tau = 0.1, <= {max_new_tokens} new tokens; the paper: <= 50)"
            if max_new_tokens is not None
            else "free generation (tau = 0.1; the paper: <= 50 new tokens)",
            ps.string_prompt(item),
            "<generated text, coded as an option>",
        ),
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
    # laid out in points from the line counts, at the sizes drawn: no block runs into the next
    # a line of text is LINE_SPACING times the font's line height, itself ~1.2 sizes (ascent plus descent)
    size, step = MIN_FONT_SIZE, MIN_FONT_SIZE * LINE_SPACING * 1.2
    blocks = []
    offset = 0.0
    for title, prompt, scored in panels:
        body, scored = _wrap(prompt), _wrap("scored: " + scored)
        blocks.append((offset, title, body, scored))
        offset += step * (4.4 + body.count("\n") + scored.count("\n"))  # title, body, scored, a gap
    fig = plt.figure(figsize=(13, max(11.0, offset / 72 / 0.95 + 0.4)))
    left = fig.add_axes((0.01, 0.01, 0.64, 0.95))
    right = fig.add_axes((0.66, 0.01, 0.33, 0.95))
    for ax in (left, right):
        ax.set_axis_off()

    def put(text: str, down: float, **style: Any) -> None:
        left.annotate(text, (0, 1), xycoords="axes fraction", xytext=(0, -down), textcoords="offset points",
                      va="top", **style)

    for top, title, body, scored in blocks:
        put(title, top, fontsize=9, fontweight="bold")
        put(body, top + step * 1.3, fontsize=size, family="monospace")
        put(scored, top + step * (1.4 + body.count("\n") + 1), fontsize=size, color="#b2182b", family="monospace")
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


BAR_IN = 0.22  # inches per bar: room for the n turned over it at the minimum font size
N_ROOM = 1.35  # the accuracy axis runs to 1; above it, up to this, the n written over the bars
MISSING_MARK = "n/a"  # written where a bar has no data (a bar of height 0 is drawn with its interval and n)


def _bars_with_intervals(ax: Any, x: np.ndarray, rows: Sequence[pd.DataFrame], width: float, color: str,
                         label: str) -> None:
    """One bar per x from a one-row frame (``accuracy``, ``n``, ``clustered_low``, ``clustered_high``) with its
    95 % interval clustered by item and its n written above; an empty frame is no data and shows
    :data:`MISSING_MARK`, so a missing bar differs from 0."""
    for xi, row in zip(x, rows, strict=True):
        if row.empty or not np.isfinite(float(row["accuracy"].iloc[0])):
            ax.text(xi, 0.01, MISSING_MARK, ha="center", va="bottom", rotation=90, color="grey")
            continue
        ax.bar([xi], [float(row["accuracy"].iloc[0])], width, color=color, label=label, edgecolor=color,
               linewidth=0.8)
        _intervals(ax, np.array([xi]), row)


def _intervals(ax: Any, x: np.ndarray, rows: pd.DataFrame) -> None:
    """95 % intervals clustered by item (``clustered_low``, ``clustered_high``) and n over accuracy bars; a row
    without one (a single item) draws n only."""
    for xi, (accuracy, low, high, n) in zip(
            x, rows[["accuracy", "clustered_low", "clustered_high", "n"]].itertuples(index=False), strict=True):
        if not n or not np.isfinite(float(accuracy)):
            continue
        if np.isfinite(float(low)) and np.isfinite(float(high)):
            ax.errorbar([xi], [accuracy], yerr=[[accuracy - low], [high - accuracy]], fmt="none", ecolor="black",
                        elinewidth=0.6, capsize=1.2)
        top = min(float(high) if np.isfinite(float(high)) else float(accuracy), 1.0)  # an interval past 1: at 1
        ax.text(xi, top + 0.01, f"n={int(n)}", ha="center", va="bottom", rotation=90)
    ax.set_ylim(0, N_ROOM)  # room above 1 for the n written over a bar, below the panel's title
    ax.set_yticks(np.linspace(0, 1, 5))


def fig2_accuracy(fig2: pd.DataFrame, title: str | None = None) -> plt.Figure:
    """Fig. 2: accuracy per condition (facets); bars per model x method with their 95 % intervals clustered by item
    and n (the pooled item versions; human: responses), human bar, dashed chance line 1/k; "n/a" where a model has
    no number."""
    conditions = sorted(fig2["condition"].unique())
    models = sorted(m for m in fig2["model"].unique() if m != "human")
    methods = [m for m in METHOD_ORDER if m in set(fig2["method"])]
    ncols = 4
    nrows = math.ceil((len(conditions) + 1) / ncols)
    # wide enough that the n written over neighbouring bars (turned, one line tall) do not touch
    panel = max(3.4, BAR_IN * len(methods) * (len(models) + 1) / 0.8 + 0.8)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel * ncols, 2.9 * nrows), squeeze=False, sharey=True)
    width = 0.8 / max(1, len(methods))
    for ax, condition in zip(axes.flat, conditions, strict=False):
        sub = fig2[fig2["condition"] == condition]
        for j, method in enumerate(methods):
            rows = [sub[(sub["model"] == m) & (sub["method"] == method)] for m in models]
            x = np.arange(len(models)) - 0.4 + width * (j + 0.5)
            _bars_with_intervals(ax, x, rows, width, METHOD_COLORS[method], method)
            if method == "free" and "coder_accuracy" in sub:
                coder = [sub[(sub["model"] == m) & (sub["method"] == method) & (sub["free_from"] == FREE_FROM_HAND)]
                         ["coder_accuracy"] for m in models]
                marks = [float(v.iloc[0]) if len(v) else np.nan for v in coder]
                if np.isfinite(marks).any():
                    ax.plot(x, marks, "kx", ms=5, ls="none", label=CODER_MARK)
        human = sub[sub["model"] == "human"]
        if len(human):
            _bars_with_intervals(ax, np.array([len(models)]), [human], 0.5, METHOD_COLORS["human"], "human")
        ax.axhline(float(sub["chance"].iloc[0]), color="black", ls="--", lw=1)
        ax.set_xticks(range(len(models) + 1), [*models, "human"], rotation=30, ha="right", fontsize=7)
        ax.set_title(CONDITION_NAMES.get(condition, condition), fontsize=9)
    for ax in axes.flat[len(conditions) :]:
        ax.set_axis_off()
    seen: dict[str, object] = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    labels = [m for m in (*methods, "human", CODER_MARK) if m in seen]
    handles = [*(seen[m] for m in labels), plt.Line2D([], [], color="black", ls="--"),
               plt.Line2D([], [], color="black", lw=0.6)]
    labels += ["chance 1/k", "95 % interval (clustered by item)"]
    axes.flat[-1].legend(handles, labels, loc="center", fontsize=8)
    for row in axes:
        row[0].set_ylabel("accuracy (higher is better)")
    title = title or "Fig. 2: accuracy per condition, model and method (averaged over each method's versions)"
    fig.suptitle(textwrap.fill(title, int(13 * fig.get_figwidth())), fontsize=10)
    fig.tight_layout()
    return fig


PAPER_LABEL_SET = "alpha"  # the label set of the paper's label bars (letters A, B, ...)
PAPER_RATING_SCORE = "rating_number"  # the rating the paper reports: the numbers 1..5 after the listed scale
AUTHORS_LOGLIK_FLOOR = -100000.0  # testing-stats.R: a log-likelihood at or below this is displayed as ...
AUTHORS_FLOOR_SHOWN = 500.0  # ... 500, and every other as LLH - (worst LLH above the floor) + 500


def paper_choices(reported: pd.DataFrame) -> pd.DataFrame:
    """The reported choices the paper's figures draw: label rows of the letter label set only, rating rows of the
    number-based rating only; other methods as they are."""
    label = reported["method"] == "label"
    rating = reported["method"] == "rating"
    keep = (~label | (reported["label_set"] == PAPER_LABEL_SET)) & (~rating | (reported["score"] == PAPER_RATING_SCORE))
    return reported[keep].reset_index(drop=True)


def authors_display(fig3: pd.DataFrame) -> pd.DataFrame:
    """``fig3`` (log-likelihood with the authors' clip) with ``delta_loglik`` as the authors displayed it and
    ``floored`` (shown at the floor value)."""
    above = fig3.loc[fig3["loglik"] > AUTHORS_LOGLIK_FLOOR, "loglik"]
    worst = float(above.min()) if len(above) else 0.0
    floored = fig3["loglik"] <= AUTHORS_LOGLIK_FLOOR
    shown = (fig3["loglik"] - worst + AUTHORS_FLOOR_SHOWN).where(~floored, AUTHORS_FLOOR_SHOWN)
    return fig3.assign(delta_loglik=shown, floored=floored)


def fig3_accuracy_loglik(fig3: pd.DataFrame, title: str | None = None, loglik_label: str = "Δ log-likelihood"
                         ) -> plt.Figure:
    """Fig. 3: accuracy (top) and delta log-likelihood of the human data (bottom) per score (x axis), one column per
    model; bar colour = method. Rows with ``floored`` true are hatched (shown at the authors' display floor)."""
    models = sorted(fig3["model"].unique())
    coder_marked = False
    fig, axes = plt.subplots(2, len(models), figsize=(max(4.5, 4.2 * len(models)), 6), squeeze=False, sharey="row")
    for j, model in enumerate(models):
        sub = tables.in_method_order(fig3[fig3["model"] == model], [])
        x = np.arange(len(sub))
        colors = [METHOD_COLORS.get(m, "grey") for m in sub["method"]]
        names = [SHORT_SCORE.get(s, s) for s in sub["score"]]
        floored = sub["floored"].to_numpy(dtype=bool) if "floored" in sub else np.zeros(len(sub), dtype=bool)
        for i, (column, label) in enumerate((("accuracy", "accuracy"), ("delta_loglik", loglik_label))):
            ax = axes[i][j]
            bars = ax.bar(x, sub[column].to_numpy(dtype=float), color=colors)
            if i == 0:
                _intervals(ax, x, sub)
            if i == 0 and "coder_accuracy" in sub and "free_from" in sub:
                hand = sub["free_from"].isin([FREE_FROM_HAND, FREE_FROM_MIXED]).to_numpy(dtype=bool)
                if hand.any():
                    ax.plot(x[hand], sub["coder_accuracy"].to_numpy(dtype=float)[hand], "kx", ms=5, ls="none")
                    coder_marked = True
            if i == 1:
                for bar, low in zip(bars, floored, strict=True):
                    if low:
                        bar.set_hatch("///")
            ax.set_xticks(x, names if i == 1 else [""] * len(x), rotation=60, ha="right", fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{label}\n(higher is better)")
        axes[0][j].set_title(model, fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=METHOD_COLORS[m]) for m in METHOD_ORDER if m in set(fig3["method"])]
    names = [m for m in METHOD_ORDER if m in set(fig3["method"])]
    if coder_marked:
        handles.append(plt.Line2D([], [], color="black", marker="x", ls="none"))
        names.append(CODER_MARK)
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=min(len(names), 2 + 2 * len(models)),
               frameon=False)  # under the tick labels: the file is cut to the tight box of everything drawn
    title = title or (
        "Fig. 3: accuracy and goodness of fit to the human data (Δ to the worst model/score), pooled over conditions"
    )
    fig.suptitle(textwrap.fill(title, int(13 * fig.get_figwidth())), fontsize=10)
    fig.tight_layout()
    return fig


# -- the study's figures, as the ARTIFACTS table builds them --------------------------------------------------------


def fig1_figure(data: StudyFrames) -> plt.Figure:
    """Fig. 1 on the first irony item (the paper shows an irony item)."""
    return fig1_example(load_condition(data.sources_root, "irony")[0], max_new_tokens=data.max_new_tokens)


PAPER_VERSIONS = "labels A, B, ... only; rating: numbers 1-5 only"
POOLED_VERSIONS = "labels pooled over A, B, ... and 1, 2, ...; rating: numbers and phrases"


CODER_MARK = "free: coder (bar: authors' hand codes)"


def _models_named(data: StudyFrames) -> str:
    """The title's tail naming the models drawn."""
    return f". Models: {', '.join(data.models(with_grid=False))}"


def _paper_and_coder(data: StudyFrames, pooled: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's rows and the coder's: every reported version (``pooled``) or the paper's (:func:`paper_choices`)."""
    return (data.paper, data.reported) if pooled else (paper_choices(data.paper), paper_choices(data.reported))


def fig2_figure(data: StudyFrames, pooled: bool = False) -> plt.Figure:
    """Fig. 2 as the paper drew it (:func:`paper_choices`): free generation from the authors' hand codes where they
    exist (:func:`~choicelab.studies.scoring_methods.tables.with_hand_coded_free`), the coder's accuracy marked;
    ``pooled``: over every reported version, both label sets, both rating scores (not the paper's drawing)."""
    title = (f"Fig. 2, pooled (not as the paper): accuracy per condition, model and method ({POOLED_VERSIONS})"
             if pooled else
             f"Fig. 2: accuracy per condition, model and method (averaged over each method's versions; "
             f"{PAPER_VERSIONS})")
    return fig2_accuracy(tables.paper_fig2_table(*_paper_and_coder(data, pooled), data.human),
                         title + _models_named(data))


def fig3_figure(data: StudyFrames, pooled: bool = False) -> plt.Figure:
    """Fig. 3 on the paper's versions (``pooled``: every reported version, both label sets pooled, both rating
    scores) with our clip (p in [1e-3, 1 - 1e-3]; Δ to the worst row)."""
    title = (f"Fig. 3, pooled (not as the paper): accuracy and fit to the human data (clip 1e-3; {POOLED_VERSIONS})"
             if pooled else
             f"Fig. 3: accuracy and fit to the human data (clip 1e-3, Δ to the worst model/score; {PAPER_VERSIONS})")
    return fig3_accuracy_loglik(tables.paper_fig3_table(*_paper_and_coder(data, pooled), data.human),
                                title + _models_named(data))


def fig3_authors_figure(data: StudyFrames) -> plt.Figure:
    """Fig. 3 on the paper's versions as the authors computed and displayed it (clip 1e-9, display floor)."""
    fig3 = tables.paper_fig3_table(*_paper_and_coder(data, False), data.human, clip=sm.AUTHORS_P_CLIP)
    return fig3_accuracy_loglik(
        authors_display(fig3),
        "Fig. 3 as the authors drew it: clip 1e-9; LLH - worst LLH above -1e5 + 500, "
        f"LLH <= -1e5 shown as 500 (hatched); {PAPER_VERSIONS}" + _models_named(data),
        "LLH diff. (authors' display)",
    )


def robustness_figure(data: StudyFrames) -> plt.Figure:
    return robustness_heatmap(tables.robustness_matrix(data.grid), tables.flip_share(data.grid))
