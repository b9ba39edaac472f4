"""The scoring methods' card panel: accuracy per method (clustered by item, chance beside), the humans' accuracy,
the fit to the human data and the free-generation coder's kappa against its bar."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from choicelab.card_entry import (
    OK,
    CardEntry,
    Headline,
    Panel,
    PerItem,
    chance_flags,
    item_values,
    mean_headline,
    read_table,
    table_path,
)
from choicelab.studies.scoring_methods.artifacts import ARTIFACTS
from choicelab.studies.scoring_methods.tables import reported_choices

TITLE = "Scoring methods"


def scoring_methods_panel(root: str | Path, model: str, coder_min_kappa: float) -> Panel:
    """Accuracy per method over the pragmatics conditions (the table's ``overall`` rows: every version of an item
    counted once as its item, the interval clustered by item; chance beside), the humans' accuracy (responses,
    clustered by item) per condition, the fit to the human data per method and score (log-likelihood, the paper's
    Fig. 3 quantity, pooled label sets only), the free-generation coder's agreement with the authors' hand codes,
    flagged below ``coder_min_kappa``."""
    path = table_path(root, "scoring_methods", ARTIFACTS, "table_numbers")
    t = read_table(path)
    pooled = t["label_set"].fillna("").astype(str).isin(["", "pooled"])  # "alpha"/"numeric" repeat the same items
    overall = t[(t["figure"] == "overall") & (t["model"].astype(str) == model) & pooled]
    if overall.empty:
        raise ValueError(f"{path}: no overall rows for {model!r} (the scoring-methods tables predate them: rerun "
                         f"sm_tables)")
    human = t[(t["figure"] == "fig2") & (t["method"] == "human")
              & t["condition"].isin(t[(t["figure"] == "fig2") & (t["model"].astype(str) == model)]["condition"])]
    human_point = (("humans (the paper's data)",
                    float(human["k"].sum() / human["n"].sum())),) if len(human) else ()
    # n counts items (n_clusters), each once: the interval is clustered by item
    headlines = [Headline(f"{r['method']}: accuracy over the pragmatics conditions", float(r["accuracy"]),
                          float(r["clustered_low"]), float(r["clustered_high"]), int(r["n_clusters"]), "items",
                          str(path), float(r["chance"]), human_point, interval="clustered by item",
                          note=f"chance {float(r['chance']):.2f}; {int(r['n'])} item versions, clustered by item")
                 for _, r in overall.iterrows()]
    flags = list(chance_flags("scoring methods", headlines))
    humans = pd.DataFrame({"condition": human["condition"].astype(str), "accuracy": human["accuracy"].astype(float),
                           "low": human["clustered_low"].astype(float), "high": human["clustered_high"].astype(float),
                           "responses": human["n"].astype(int), "items": human["n_clusters"].astype("Int64")})
    fig3 = t[(t["figure"] == "fig3") & (t["model"].astype(str) == model) & pooled]
    fit = pd.DataFrame({"method": fig3["method"].astype(str), "score": fig3["score"].astype(str),
                        "loglik": fig3["loglik"].astype(float),
                        "n_conditions": fig3["n_conditions"].astype("Int64")})
    sources = [str(path)]
    free_path = table_path(root, "scoring_methods", ARTIFACTS, "free_accuracy")
    if free_path.is_file():
        free = read_table(free_path)
        free = free[free["model"].astype(str) == model]
        coded = free.dropna(subset=["coder_target_kappa"]).drop_duplicates("condition")
        if len(coded):
            h = mean_headline("free-generation coder: target-vs-not kappa with the authors' hand codes, mean over "
                               "conditions", coded["coder_target_kappa"], "conditions", str(free_path),
                               note=f"{int(coded['agreement_n'].sum())} hand-coded generations; "
                                    f"bar {coder_min_kappa:.2f} (cards.coder_min_kappa)")
            h = Headline(**{**h.__dict__, "quantity": "kappa"})
            headlines.append(h)
            if h.estimate < coder_min_kappa:
                flags.append(f"scoring methods: the free-generation coder's kappa {h.estimate:.2f} is below its bar "
                             f"{coder_min_kappa:.2f}: free-generation accuracy rests on a weak coder")
        sources.append(str(free_path))
    caption = ("fit to the human data: log-likelihood of the humans' choices under each method and score's choice "
               "distribution, summed over the conditions (the paper's Fig. 3; higher is better); its table gives no "
               "interval")
    humans_caption = ("the humans' accuracy per condition (the paper's data): n counts responses, the 95 % interval "
                      "is clustered by item (participants answer the same items)")
    return Panel("scoring_methods", TITLE, OK, headlines=tuple(headlines), detail=fit,
                 flags=tuple(flags), sources=tuple(sources),
                 extra={"detail_caption": caption, "tables": ((humans_caption, humans),)})


def _choices_file(root: Path, model: str) -> list[Path]:
    return [Path(root) / "scoring_methods" / "metrics" / "choices.parquet"]


def _choices_per_item(root: Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's hit rate per item and method (its reported choices, versions averaged within an item): the index
    compares models on them."""
    path = _choices_file(root, model)[0]
    if not path.is_file():
        return {}
    frame = pd.read_parquet(path)
    out = {}
    for method in ("free", "string", "label", "rating"):
        rows = frame[(frame["model"].astype(str) == model) & (frame["method"] == method)]
        if rows.empty:
            continue
        per = reported_choices(rows).groupby("item_id", as_index=False)["is_target"].mean()
        out[f"scoring methods: {method} accuracy"] = item_values(per["item_id"], per["is_target"])
    return out


CARD = CardEntry(
    title=TITLE,
    axis="accuracy over the pragmatics items, 0 to 1 (higher is better)",
    tables=("table_numbers", "free_accuracy"),
    panel=scoring_methods_panel,
    models={"causal": ("models", "grid_models")},
    skips={"encoder": "scoring methods compares free generation, string, label and rating scores of a causal (or "
                      "seq2seq) model"},
    scale_keys=("items_per_condition", "grid_benchmarks", "grid_items"),
    options=lambda cards: {"coder_min_kappa": cards["coder_min_kappa"]},
    benchmark_lists=("grid_benchmarks",),
    per_item=(PerItem(True, "items", _choices_file, _choices_per_item),),
)
