"""Number tables of the scoring-methods study (Tsvilodub et al.): what the paper reports, every number behind Figs. 2
and 3, and the robustness of predictions across methods on every benchmark of the grid.

Inputs are the choice frame (:func:`choicelab.studies.scoring_methods.metrics.choices_from_scores` of the score table)
and the human per-condition counts (:func:`choicelab.studies.scoring_methods.human.human_condition_accuracy`:
condition, k, n, accuracy).

What the paper reports, and what :func:`reported_choices` therefore keeps: free generation at tau = 0.1 only; rating
at each model's best scale (per rating score); string, label (all option-order seeds x label sets, pooled) and
embedding scores as they are. Accuracies pool every item version of a group (items x seeds x label sets), as the
authors' analysis does (LLM_link ``analysis/testing-stats.R``: ``sum(k) / sum(N)``). Every such accuracy carries its
exact 95 % interval (``ci95_low``, ``ci95_high``: as if the n item versions were independent) and beside it the
interval clustered by the pragmatics item (``clustered_low``, ``clustered_high``, ``n_clusters``: an item is answered
over label seeds, label sets, scales or temperatures; :func:`item_intervals`), the design effect and the minimum
detectable difference at that n; the figures draw the clustered one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, product

import pandas as pd

from choicelab.stats import accuracy_intervals, exact_interval, paired_difference
from choicelab.studies.scoring_methods import metrics as sm
from choicelab.studies.scoring_methods.human import PAPER_HUMAN_ACCURACY

METHOD_ORDER = ("free", "string", "label", "rating", "embedding")
SCORE_ORDER = ("free", *sm.STRING_SCORES, *sm.LABEL_SCORES, "rating_number", "rating_phrase", "cosine")
REPORTED_FREE_VARIANT = "tau=0.1"


def score_rank(score: str) -> int:
    return SCORE_ORDER.index(score) if score in SCORE_ORDER else len(SCORE_ORDER)


def method_rank(method: str) -> int:
    return METHOD_ORDER.index(method) if method in METHOD_ORDER else len(METHOD_ORDER)


def in_method_order(frame: pd.DataFrame, first: list[str], scores: bool = True) -> pd.DataFrame:
    """``frame`` sorted by the ``first`` columns, then by method (:data:`METHOD_ORDER`) and, with ``scores``, by score
    (:data:`SCORE_ORDER`)."""
    ranks = {"_m": frame["method"].map(method_rank)}
    if scores:
        ranks["_s"] = frame["score"].map(score_rank)
    return frame.assign(**ranks).sort_values([*first, *ranks]).drop(columns=list(ranks)).reset_index(drop=True)


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


# -- free generation as the paper counted it: the authors' hand codes where they exist -----------------------------

FREE_FROM_HAND = "authors' hand codes"
FREE_FROM_CODER = "coder"
FREE_FROM_MIXED = "mixed"  # a pooled row with hand-coded conditions and coded ones


def with_hand_coded_free(reported: pd.DataFrame, hand_free: pd.DataFrame, sources: dict[str, str]) -> pd.DataFrame:
    """``reported`` choices with free generation counted as the paper counted it: for a model the authors hand-coded
    (``sources``: our model name -> its source; a source ``hf:<model_name>`` of ``hand_free``), the free rows of each
    (condition, variant) the hand codes cover are replaced by one row per hand-coded generation of the authors' own
    run (``is_target`` = hand code ``target``; every used seed pooled), as the paper's figures drew them. Column
    ``free_from`` says where each free row's code comes from (:data:`FREE_FROM_HAND` or :data:`FREE_FROM_CODER`; ""
    for other methods). A model or condition without hand codes keeps the coder's rows."""
    out = reported.assign(free_from=reported["method"].eq("free").map({True: FREE_FROM_CODER, False: ""}))
    if hand_free.empty or "model_name" not in hand_free.columns:
        return out
    hand = hand_free.assign(source="hf:" + hand_free["model_name"].astype(str))
    replaced, added = [], []
    free = out[out["method"] == "free"]
    for (model, condition, variant), group in free.groupby(["model", "condition", "variant"], sort=True):
        mine = hand[(hand["source"] == sources.get(str(model), "")) & (hand["condition"] == condition)
                    & (hand["variant"] == variant)]
        if mine.empty:
            continue
        k, n = int(mine["k"].sum()), int(mine["n"].sum())
        template = group.iloc[[0] * n].reset_index(drop=True)
        template["is_target"] = [True] * k + [False] * (n - k)
        if "item_id" in template:
            template["item_id"] = pd.NA  # the authors' generations, not an item version of ours
        template["free_from"] = FREE_FROM_HAND
        replaced.append(group.index)
        added.append(template)
    if not added:
        return out
    keep = out.drop(index=[i for index in replaced for i in index])
    return pd.concat([keep, *added], ignore_index=True)


def coder_beside(table: pd.DataFrame, coder_table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``table`` (built on :func:`with_hand_coded_free` rows) with the coder's free-generation numbers beside it: on
    every free row, ``coder_k``, ``coder_n``, ``coder_accuracy`` (and ``coder_loglik`` where the tables have a
    log-likelihood) from ``coder_table`` (the same table built on the coder's rows), matched on ``keys``."""
    columns = {"k": "coder_k", "n": "coder_n", "accuracy": "coder_accuracy", "loglik": "coder_loglik"}
    coder = coder_table[coder_table["method"] == "free"]
    coder = coder[[*keys, *[c for c in columns if c in coder.columns]]].rename(columns=columns)
    return table.merge(coder, on=keys, how="left")


def free_sources(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per ``by`` group of free rows: where the codes come from (``free_from``; "mixed" where a group pools both)."""
    free = rows[rows["method"] == "free"]
    if "free_from" not in free.columns or free.empty:
        return pd.DataFrame(columns=[*by, "free_from"])
    return free.groupby(by, as_index=False)["free_from"].agg(
        lambda v: v.iloc[0] if v.nunique() == 1 else FREE_FROM_MIXED)


# -- number tables --------------------------------------------------------------------------------------------------


INTERVAL_COLUMNS = ["ci95_low", "ci95_high", "clustered_low", "clustered_high", "n_clusters", "design_effect",
                    "min_detectable_difference"]


def item_intervals(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per ``by`` group of choice rows: the exact 95 % interval of its accuracy and the interval clustered by the
    item (``item_id``; its versions -- seeds, label sets, scales, temperatures, scores -- repeat it), with the design
    effect and the minimum detectable difference at the group's n (:func:`choicelab.stats.accuracy_intervals`)."""
    records = []
    for key, group in rows.groupby(by, sort=True, dropna=False):
        row = accuracy_intervals(group["is_target"].astype(float).to_numpy(), group["item_id"].tolist())
        records.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                        **{c: row[c] for c in INTERVAL_COLUMNS}})
    return pd.DataFrame.from_records(records, columns=[*by, *INTERVAL_COLUMNS])


def fig2_table(choices: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (condition, model, method), pooled over the method's reported versions and scores, with its exact
    and its item-clustered interval (:func:`item_intervals`), plus the human rows (model = method = "human"; n counts
    responses, clustered by item, as ``n_counts`` says) and the chance rate 1/k."""
    rows = reported_choices(choices)
    acc = rows.groupby(["condition", "model", "method"], as_index=False).agg(
        n=("is_target", "size"), k=("is_target", "sum"), n_options=("n_options", "first")
    )
    acc["accuracy"] = acc["k"] / acc["n"]
    acc = acc.merge(item_intervals(rows, ["condition", "model", "method"]), on=["condition", "model", "method"])
    acc["n_counts"] = "item versions"
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
            "n_counts": "responses",
            **{c: humans.get(c, float("nan")) for c in INTERVAL_COLUMNS if c != "n_clusters"},
            "n_clusters": humans.get("n_items", float("nan")),  # the items the responses answer
        }
    )
    out = pd.concat([acc, human_rows], ignore_index=True)
    out["chance"] = 1.0 / out["n_options"]
    return in_method_order(out, ["condition", "model"], scores=False)


def overall_table(choices: pd.DataFrame) -> pd.DataFrame:
    """Per (model, method): accuracy over every condition and reported version (label sets, seeds, scales, scores
    pooled), with its exact and its item-clustered interval (:func:`item_intervals`): an item belongs to one
    condition, so ``n_clusters`` counts each item once -- the number a model's method is summarised by (the cards'
    headline), never a sum of rows that repeat the same items."""
    rows = reported_choices(choices)
    acc = rows.groupby(["model", "method"], as_index=False).agg(n=("is_target", "size"), k=("is_target", "sum"))
    acc["accuracy"] = acc["k"] / acc["n"]
    acc["chance"] = rows.assign(c=1.0 / rows["n_options"]).groupby(["model", "method"])["c"].mean().to_numpy()
    acc["n_counts"] = "item versions"
    acc = acc.merge(item_intervals(rows, ["model", "method"]), on=["model", "method"])
    return in_method_order(acc, ["model"], scores=False)


def fig3_table(choices: pd.DataFrame, human: pd.DataFrame, clip: tuple[float, float] = sm.P_CLIP) -> pd.DataFrame:
    """Per (model, method, score): pooled accuracy (exact and item-clustered intervals: :func:`item_intervals`), mean
    of the condition accuracies, log-likelihood of the human
    data (binomial per condition, p clipped to ``clip``, summed) and its difference to the worst row."""
    rows = reported_choices(choices)
    table = sm.human_loglik(rows, human, by=("model", "method", "score"), clip=clip)
    table = sm.delta_loglik(table).merge(item_intervals(rows, ["model", "method", "score"]),
                                                     on=["model", "method", "score"], how="left")
    return in_method_order(table, ["model"])


CLIP_SENSITIVITY = "clip1e-9"  # suffix of the columns computed with the authors' clip (sm.AUTHORS_P_CLIP)


def _with_authors_clip(fig3: pd.DataFrame, choices: pd.DataFrame, human: pd.DataFrame, reference: float
                       ) -> pd.DataFrame:
    """``fig3`` plus loglik and delta_loglik (to ``reference``), p clipped to [1e-9, 1 - 1e-9] (the authors')."""
    authors = fig3_table(choices, human, clip=sm.AUTHORS_P_CLIP)
    authors = authors.assign(delta_loglik=authors["loglik"] - reference)[
        ["model", "method", "score", "loglik", "delta_loglik"]
    ]
    authors = authors.rename(columns={c: f"{c}_{CLIP_SENSITIVITY}" for c in ("loglik", "delta_loglik")})
    return fig3.merge(authors, on=["model", "method", "score"], how="left")


def paper_fig2_table(paper: pd.DataFrame, coder: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """:func:`fig2_table` of ``paper`` (:func:`with_hand_coded_free` rows) with ``free_from`` and the coder's free
    numbers (``coder``: the same choices with the coder's free rows) beside, per condition and model."""
    keys = ["condition", "model", "method"]
    table = fig2_table(paper, human)
    sources = free_sources(reported_choices(paper), ["condition", "model"]).assign(method="free")
    table = table.merge(sources, on=keys, how="left")
    return coder_beside(table, fig2_table(coder, human), keys)


def paper_fig3_table(paper: pd.DataFrame, coder: pd.DataFrame, human: pd.DataFrame,
                     clip: tuple[float, float] = sm.P_CLIP) -> pd.DataFrame:
    """:func:`fig3_table` of ``paper`` with ``free_from`` and the coder's free accuracy and log-likelihood beside
    (its delta is not: the worst row is the paper table's)."""
    keys = ["model", "method", "score"]
    table = fig3_table(paper, human, clip=clip)
    sources = free_sources(reported_choices(paper), ["model"]).assign(method="free", score="free")
    table = table.merge(sources, on=keys, how="left")
    return coder_beside(table, fig3_table(coder, human, clip=clip), keys)


def table_numbers(choices: pd.DataFrame, human: pd.DataFrame, coder: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every number behind Figs. 2 and 3 in one long frame (column ``figure``; rows ``overall``: each model's method
    over every condition, :func:`overall_table`), with two sensitivity analyses:

    * the log-likelihood with the authors' clip 1e-9 beside ours (1e-3): columns ``loglik_clip1e-9`` and
      ``delta_loglik_clip1e-9`` (the delta to the same worst pooled row);
    * label scoring per label set: the pooled label rows have ``label_set`` "pooled"; rows "alpha" and "numeric"
      give the same numbers for one label set alone (the authors report one set), their deltas relative to the
      pooled table's worst row.

    ``choices`` are the paper's rows (:func:`with_hand_coded_free`: free generation from the authors' hand codes where
    they exist, ``free_from``); with ``coder`` (the same rows with the coder's free codes) every free row also gives
    the coder's ``coder_k``, ``coder_n``, ``coder_accuracy`` (and ``coder_loglik``, our clip) beside."""
    coder = choices if coder is None else coder
    fig2 = paper_fig2_table(choices, coder, human).assign(figure="fig2", score="")
    fig3 = paper_fig3_table(choices, coder, human)
    worst = float(fig3["loglik"].min())
    worst_authors = float(fig3_table(choices, human, clip=sm.AUTHORS_P_CLIP)["loglik"].min())
    fig3 = _with_authors_clip(fig3, choices, human, worst_authors).assign(figure="fig3", condition="")
    parts = [fig2, fig3, overall_table(choices).assign(figure="overall", condition="", score="")]
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
        *INTERVAL_COLUMNS,
        "n_counts",
        "chance",
        "mean_condition_accuracy",
        "loglik",
        "delta_loglik",
        f"loglik_{CLIP_SENSITIVITY}",
        f"delta_loglik_{CLIP_SENSITIVITY}",
        "n_conditions",
        "free_from",
        "coder_k",
        "coder_n",
        "coder_accuracy",
        "coder_loglik",
    ]
    return out.reindex(columns=columns)


# -- robustness across methods ------------------------------------------------------------------------------------


def robustness_matrix(choices: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (benchmark, model, method, score) over every version (seeds, label sets, scales, temperatures),
    with its exact and its item-clustered interval (:func:`item_intervals`)."""
    keys = ["benchmark", "model", "method", "score"]
    out = choices.groupby(keys, as_index=False).agg(
        n=("is_target", "size"),
        accuracy=("is_target", "mean"),
        chance=("n_options", lambda s: float((1.0 / s).mean())),
        tie_broken=("n_tied", lambda s: float((s > 1).mean())),
        unclassified=("chosen", lambda s: float((s == sm.UNCLASSIFIED).mean())),
    ).merge(item_intervals(choices, keys), on=keys)
    return in_method_order(out, ["benchmark", "model"])


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
        keys = sorted(wide.columns, key=lambda k: (method_rank(k.split(":")[0]), score_rank(k.split(":")[-1]), k))
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


def method_differences(rows: pd.DataFrame) -> pd.DataFrame:
    """Two methods on the same pragmatics items, per model, over all conditions ("all") and per condition: each
    method's accuracy per item (averaged over its versions and scores), and A minus B paired item by item with its
    t 95 % interval over the items both answered (:func:`choicelab.stats.paired_difference`; the item is the unit,
    so the seeds, label sets and scales repeating it are not counted as evidence). ``covers_zero``: the interval
    includes 0, the two methods are not told apart at this n."""
    per_item = rows.groupby(["model", "condition", "item_id", "method"])["is_target"].mean().unstack("method")
    records = []
    for model, wide in per_item.groupby(level="model", sort=True):
        methods = sorted(wide.columns, key=method_rank)
        scopes = [("all", wide), *((c, part) for c, part in wide.groupby(level="condition", sort=True))]
        for condition, part in scopes:
            for a, b in combinations(methods, 2):
                both = part[[a, b]].dropna()
                if both.empty:
                    continue
                paired = paired_difference(both[a], both[b])
                records.append({"model": model, "condition": condition, "a": a, "b": b, "n_items": paired.n,
                                "accuracy_a": float(both[a].mean()), "accuracy_b": float(both[b].mean()),
                                "difference": paired.mean, "difference_low": paired.low,
                                "difference_high": paired.high,
                                "covers_zero": bool(paired.low <= 0 <= paired.high) if paired.n > 1 else None})
    return pd.DataFrame.from_records(records, columns=["model", "condition", "a", "b", "n_items", "accuracy_a",
                                                       "accuracy_b", "difference", "difference_low",
                                                       "difference_high", "covers_zero"])


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


# -- free-generation accuracy with the coder's error --------------------------------------------------------------


def misclassification_interval(
    k: int, n: int, true_target: int, n_hand_target: int, true_other: int, n_hand_other: int, level: float = 0.95
) -> tuple[float, float]:
    """An interval for the true target rate of ``n`` coded generations of which ``k`` were coded target, allowing for
    the coder's misclassification: the coded rate q, the coder's sensitivity Se (``true_target`` of
    ``n_hand_target``) and specificity Sp (``true_other`` of ``n_hand_other``, measured against hand codes) each
    range over their exact ``level`` interval, and the rate is (q + Sp - 1) / (Se + Sp - 1) (Rogan-Gladen) at the
    least and most favourable corner, clipped to [0, 1]. Where Se + Sp - 1 can come near 0 (a coder no better than
    chance, or no hand-coded targets to measure Se on) the interval is [0, 1]."""
    boxes = [exact_interval(k, n, level), exact_interval(true_target, n_hand_target, level),
             exact_interval(true_other, n_hand_other, level)]
    if any(b != b for box in boxes for b in box):  # nan: nothing measured
        return 0.0, 1.0
    rates = []
    for q, se, sp in product(*boxes):
        if se + sp - 1 <= 0.05:
            return 0.0, 1.0
        rates.append(min(max((q + sp - 1) / (se + sp - 1), 0.0), 1.0))
    return min(rates), max(rates)


def free_accuracy_table(
    choices: pd.DataFrame, hand_free: pd.DataFrame, agreement: pd.DataFrame, sources: dict[str, str]
) -> pd.DataFrame:
    """Free-generation accuracy per model, condition and variant (temperature), with the coder's error.

    ``accuracy`` (k of n, exact interval ``ci_low``-``ci_high``; beside it the interval clustered by item over the
    generation seeds, ``clustered_low``-``clustered_high``) is the coder's on our generations; ``adj_low`` -
    ``adj_high`` (:func:`misclassification_interval`) widens it by the coder's sensitivity and specificity measured on
    the held-out hand codes of the condition (``agreement``: rows of ``role`` "held out", counts pooled over those
    models; ``coder_target_kappa`` etc. beside). Where the authors hand-coded the model (``sources``: our model name
    -> its source, ``hf:<model_name>`` of ``hand_free``), their hand-coded accuracy on their generations is beside
    (``hand_*``) and is what ``reported`` takes, as the paper did; elsewhere ``reported`` is the coder's."""
    free = choices[choices["method"] == "free"]
    held = agreement[agreement["role"] == "held out"]
    counts = ["n", "n_hand_target", "true_target", "n_hand_other", "true_other"]
    pooled = held.groupby("condition")[counts].sum()
    kappa = held.groupby("condition")["target_kappa"].mean()
    on = ", ".join(sorted(set(held["hand_model"]))) or "none"
    hand = hand_free.assign(source="hf:" + hand_free["model_name"].astype(str))
    rows = []
    groups = [(key, g) for key, g in free.groupby(["model", "condition", "variant"], sort=True)]
    groups += [((m, "all", v), g) for (m, v), g in free.groupby(["model", "variant"], sort=True)]
    for (model, condition, variant), group in groups:
        k, n = int(group["is_target"].sum()), len(group)
        low, high = exact_interval(k, n)
        clustered = accuracy_intervals(group["is_target"].astype(float).to_numpy(), group["item_id"].tolist())
        row = {"model": model, "condition": condition, "variant": variant, "k": k, "n": n, "accuracy": k / n,
               "ci_low": low, "ci_high": high, **{c: clustered[c] for c in INTERVAL_COLUMNS[2:]}}
        if condition in pooled.index:
            c = pooled.loc[condition]
            row["adj_low"], row["adj_high"] = misclassification_interval(
                k, n, int(c["true_target"]), int(c["n_hand_target"]), int(c["true_other"]), int(c["n_hand_other"]))
            row |= {"coder_target_kappa": float(kappa.loc[condition]),
                    "coder_sensitivity": c["true_target"] / c["n_hand_target"] if c["n_hand_target"] else float("nan"),
                    "coder_specificity": c["true_other"] / c["n_hand_other"] if c["n_hand_other"] else float("nan"),
                    "agreement_n": int(c["n"]), "agreement_on": on}
        else:
            row |= {"adj_low": 0.0, "adj_high": 1.0, "agreement_n": 0, "agreement_on": "none"}
        source = sources.get(str(model), "")
        mine = hand[(hand["source"] == source) & (hand["variant"] == variant)]
        mine = mine if condition == "all" else mine[mine["condition"] == condition]
        if len(mine):
            hk, hn = int(mine["k"].sum()), int(mine["n"].sum())
            hlow, hhigh = exact_interval(hk, hn)
            row |= {"hand_model_name": mine["model_name"].iloc[0], "hand_k": hk, "hand_n": hn,
                    "hand_accuracy": hk / hn, "hand_ci_low": hlow, "hand_ci_high": hhigh}
        row["reported"] = row.get("hand_accuracy", row["accuracy"])
        row["reported_from"] = "authors' hand codes" if "hand_accuracy" in row else "coder"
        rows.append(row)
    return pd.DataFrame(rows)


# -- the study's tables, as the ARTIFACTS table builds them ---------------------------------------------------------


@dataclass(frozen=True)
class StudyFrames:
    """What the tables and figures are built from (rule sm_choices' outputs): the study's choices, the grid's
    choices, the human counts per condition, and the root of the pragmatics source files (Fig. 1's item)."""

    choices: pd.DataFrame
    grid: pd.DataFrame
    human: pd.DataFrame
    sources_root: str = ""
    hand_codes: pd.DataFrame = field(default_factory=pd.DataFrame)  # the hand-code loader's report
    hand_free: pd.DataFrame = field(default_factory=pd.DataFrame)  # the authors' hand-coded free accuracy
    coder_agreement: pd.DataFrame = field(default_factory=pd.DataFrame)  # the coder against the hand codes
    model_sources: dict = field(default_factory=dict)  # our model name -> its source (hf:<hub name>)
    max_new_tokens: int | None = None  # free generation's length cap in this run (Fig. 1 states it)
    reanalysis_verdict: str = ""  # rule sm_reanalysis's one line (the authors' outputs against their numbers)
    reported: pd.DataFrame = field(init=False, repr=False)  # what the paper reports, free coded by the coder
    paper: pd.DataFrame = field(init=False, repr=False)  # the same, free from the hand codes where they exist

    def __post_init__(self) -> None:
        object.__setattr__(self, "reported", reported_choices(self.choices))
        object.__setattr__(self, "paper", with_hand_coded_free(self.reported, self.hand_free, self.model_sources))

    def models(self, with_grid: bool) -> list[str]:
        """The models the artifact's numbers come from, for its caption."""
        names = set(self.choices["model"].astype(str))
        if with_grid:
            names |= set(self.grid["model"].astype(str))
        return sorted(names)


def numbers_table(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """Every number behind Figs. 2 and 3 (:func:`table_numbers`) and its Markdown."""
    frame = table_numbers(data.paper, data.human, coder=data.reported)
    return frame, frame.to_markdown(index=False, floatfmt=".3f")


def free_accuracy_artifact(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """Free-generation accuracy with the coder's error and the authors' hand-coded accuracy beside
    (:func:`free_accuracy_table`), then the coder's agreement with the hand codes per model and condition."""
    if "role" not in data.coder_agreement.columns or "model_name" not in data.hand_free.columns:
        raise ValueError("the free_accuracy table needs rule sm_coder_agreement's outputs (hand_free, coder_agreement)")
    frame = free_accuracy_table(data.choices, data.hand_free, data.coder_agreement, data.model_sources)
    agreement = data.coder_agreement
    columns = ["hand_model", "role", "condition", "n", "target_agreement", "target_kappa", "agreement", "kappa",
               "sensitivity", "specificity", "majority_baseline"]
    markdown = "## Free-generation accuracy\n\n" + frame.to_markdown(index=False, floatfmt=".3f")
    markdown += "\n\n## The coder against the authors' hand codes (target vs not; exact option)\n\n" + (
        agreement[columns].to_markdown(index=False, floatfmt=".3f") if len(agreement) else
        "not measured: no coder model is configured (studies.scoring_methods.coder.model / embedder)")
    return frame, markdown


def method_differences_table(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """Every pair of methods on the same items (:func:`method_differences` of the rows behind Fig. 2) and its
    Markdown."""
    frame = method_differences(reported_choices(data.paper))
    return frame, frame.to_markdown(index=False, floatfmt=".3f")


def hand_codes_table(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """The hand-code loader's report: every file of the authors' hand codes with its status and whether it is used."""
    frame = data.hand_codes
    return frame, frame.drop(columns=["sha256"], errors="ignore").to_markdown(index=False)


def human_accuracy_table(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """Human accuracy per condition from the raw human data, beside the paper's."""
    frame = data.human.assign(paper=data.human["condition"].map(PAPER_HUMAN_ACCURACY))
    return frame, frame.to_markdown(index=False, floatfmt=".3f")


def robustness_tables(data: StudyFrames) -> tuple[pd.DataFrame, str]:
    """The grid's accuracy per (benchmark, model, method, score), the pairwise agreement between methods and the
    share of items whose prediction flips, in one long frame (column ``kind``) and as three Markdown sections."""
    matrix = robustness_matrix(data.grid).assign(kind="accuracy")
    agreement = method_agreement(data.grid, level="method").assign(kind="agreement")
    flips = flip_share(data.grid).assign(kind="flip_share")
    frame = pd.concat([matrix, agreement, flips], ignore_index=True)
    markdown = "\n\n".join(
        [f"## {title}\n\n" + part.drop(columns=["kind"]).to_markdown(index=False, floatfmt=".3f")
         for title, part in (("Accuracy per benchmark, model, method and score", matrix),
                             ("Pairwise agreement between methods", agreement),
                             ("Share of items whose predicted option flips across methods", flips))])
    return frame, markdown
