"""The paper's findings (Tsvilodub et al.) checked on our data, beside the human accuracies it prints."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt
from choicelab.studies.scoring_methods.human import PAPER_HUMAN_ACCURACY
from choicelab.studies.scoring_methods.tables import (
    StudyFrames,
    fig2_table,
    fig3_table,
    flip_share,
    reported_choices,
)


def _finding(key: str, paper: str, ours: str, agrees: bool | None, note: str = "") -> dict[str, Any]:
    return {"kind": "finding", "key": key, "paper": paper, "ours": ours, "agrees": agrees, "note": note}


def _findings(fig2: pd.DataFrame, fig3: pd.DataFrame, flips: pd.DataFrame) -> list[dict[str, Any]]:
    """The paper's nine qualitative findings (Sec. 5), each checked on our Fig. 2 / Fig. 3 tables."""
    per_method = fig3.groupby(["model", "method"], as_index=False)["accuracy"].mean()  # the mean over its scores
    models = sorted(per_method["model"].unique())
    best = {model: group.sort_values(["accuracy", "method"], ascending=[False, True])["method"].iloc[0]
            for model, group in per_method.groupby("model")}
    spread = fig3.groupby("model")["accuracy"].agg(lambda s: float(s.max() - s.min()))
    out = _method_choice_findings(spread, flips, models, best)
    out.append(_likelihood_finding(fig3))
    out.append(_humans_finding(fig2))
    out += _method_cost_findings(per_method)
    out += _model_quality_findings(fig3, spread, models, best)
    return out


def _method_choice_findings(spread: pd.Series, flips: pd.DataFrame, models: list[str],
                            best: dict[str, str]) -> list[dict[str, Any]]:
    """Findings 1-3: predictions vary with the method; label scoring is best; no single method is best for all."""
    out = []
    # 1. Variation across methods.
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
    return out


def _likelihood_finding(fig3: pd.DataFrame) -> dict[str, Any]:
    """Finding 4: accuracy and likelihood correlated."""
    if len(fig3) >= 3 and fig3["accuracy"].std() > 0 and fig3["loglik"].std() > 0:
        r = float(np.corrcoef(fig3["accuracy"], fig3["loglik"])[0, 1])
        return _finding(
            "accuracy_loglik_correlated",
            "accuracy and log-likelihood of the human data are fairly correlated",
            f"Pearson r over (model, method, score) = {r:.2f}",
            r >= 0.5,
            "criterion: r >= 0.5",
        )
    return _finding(
        "accuracy_loglik_correlated",
        "accuracy and likelihood are fairly correlated",
        "too few distinct rows",
        None,
    )


def _humans_finding(fig2: pd.DataFrame) -> dict[str, Any]:
    """Finding 5: no model-method pair beats humans in all conditions."""
    humans = fig2[fig2["model"] == "human"].set_index("condition")["accuracy"]
    machine = fig2[fig2["model"] != "human"]
    beats = (
        machine.assign(above=machine["accuracy"] > machine["condition"].map(humans))
        .groupby(["model", "method"])["above"]
        .all()
    )
    return _finding(
        "humans_not_beaten",
        "no model-method pair outperforms human accuracy in all conditions",
        f"pairs above humans in every condition: {int(beats.sum())} of {len(beats)}",
        bool(not beats.any()) if len(beats) else None,
    )


def _method_cost_findings(per_method: pd.DataFrame) -> list[dict[str, Any]]:
    """Findings 6-7: rating does not pay back its cost; embedding is worse (each where the methods were run)."""
    out = []
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
    return out


def _model_quality_findings(fig3: pd.DataFrame, spread: pd.Series, models: list[str],
                            best: dict[str, str]) -> list[dict[str, Any]]:
    """Findings 8-9: the method matters more for worse models; the best model does best with free generation."""
    out = []
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


# The paper's models (Sec. 3); it prints their accuracies only as bars (Figs 2-3), no numbers.
PAPER_MODELS = ("GPT-3.5-turbo-instruct", "text-davinci-002", "LLaMA-2-7B", "FLAN-T5-XL")


def _key(name: str) -> str:
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


def like_for_like(kind: str, models: list[str]) -> tuple[bool, str]:
    """(like for like, why) for a row of :func:`compare_paper`: human accuracies are the same raw responses the paper
    counted; a finding is the paper's only where we ran all four of its models."""
    if kind == "human_accuracy":
        return True, "same human responses as the paper (LLM_link human data), recounted here"
    ran = {_key(m) for m in models}
    missing = [p for p in PAPER_MODELS if not any(_key(p) in r for r in ran)]
    if not models:
        return False, "no model run here"
    if not missing:
        return True, "the paper's four models"
    return False, (f"different models: the paper's finding is over {', '.join(PAPER_MODELS)}; ours over "
                   f"{', '.join(models)} (not run here: {', '.join(missing)}); a check of the claim, "
                   "not a reproduction")


def compare_paper(
    choices: pd.DataFrame,
    human: pd.DataFrame,
    paper_human: dict[str, float] | None = None,
    flips: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Our human accuracies beside the paper's, then each of the paper's qualitative findings checked on our data.

    Columns: kind ("human_accuracy" | "finding"), key, paper, ours, agrees (None = not testable here), note."""
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
    frame = pd.DataFrame.from_records(records, columns=["kind", "key", "paper", "ours", "agrees", "note"])
    models = sorted(str(m) for m in choices["model"].unique()) if "model" in choices else []
    verdicts = [like_for_like(kind, models) for kind in frame["kind"]]
    frame["like_for_like"] = [alike for alike, _ in verdicts]
    frame["note"] = ["; ".join(part for part in (note, why) if part)
                     for note, (_, why) in zip(frame["note"], verdicts, strict=True)]
    return frame


def compare_paper_figure(human: pd.DataFrame, paper_human: dict[str, float] | None = None) -> plt.Figure:
    """The numbers the paper prints (human accuracy per condition; its models' accuracies are bars only) beside ours
    recounted from the raw responses: the paper's as black diamonds, ours with its 95 % interval clustered by item
    (participants answer the same items: :func:`.human.human_condition_accuracy`) and n responses."""
    paper_human = paper_human or PAPER_HUMAN_ACCURACY
    conditions = list(human["condition"])
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(conditions)), 3.8))
    x = np.arange(len(conditions))
    paper = [paper_human.get(c, np.nan) for c in conditions]
    ax.plot(x - 0.12, paper, ls="none", marker=PAPER_MARKER, color=PAPER_COLOUR,
            label="paper: human accuracy (printed)")
    below, above = human["accuracy"] - human["clustered_low"], human["clustered_high"] - human["accuracy"]
    ax.errorbar(x + 0.12, human["accuracy"], yerr=[below, above], ls="none", marker="o", capsize=3,
                color="C0", label="ours: human accuracy from the raw responses (95% interval clustered by item)")
    ax.set_xticks(x, [f"{c}\nn={int(n)}" for c, n in zip(conditions, human["n"], strict=True)], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy (target choices)")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("The paper's printed human accuracies beside ours; the paper prints its models' (GPT-3.5-instruct, "
                 "davinci-002,\nLLaMA-2-7B, FLAN-T5-XL) accuracies only as bars, see compare_paper for its findings",
                 fontsize=9)
    fig.tight_layout()
    return fig


def compare_paper_figure_of(data: StudyFrames) -> plt.Figure:
    """:func:`compare_paper_figure` of the study's human data."""
    return compare_paper_figure(data.human)


def compare_paper_table(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """:func:`compare_paper` on the study's choices (flips across every method version) and its Markdown; with rule
    sm_reanalysis's verdict (the authors' released outputs against their own numbers) as a last row and the first
    line."""
    frame = compare_paper(data.choices, data.human, flips=flip_share(data.choices))
    if not data.reanalysis_verdict:
        return frame, frame.to_markdown(index=False)
    row = {"kind": "reanalysis", "key": "authors_outputs", "paper": "the authors' processed Fig. 2 / Fig. 3 numbers",
           "ours": data.reanalysis_verdict, "agrees": "0 unexplained" in data.reanalysis_verdict,
           "note": "tables reanalysis_fig2, reanalysis_fig3; docs/scoring_methods.md, Reanalysis of the authors' "
           "outputs", "like_for_like": True}
    frame = pd.concat([frame, pd.DataFrame([row])], ignore_index=True)
    return frame, f"{data.reanalysis_verdict}\n\n{frame.to_markdown(index=False)}"
