"""Revealed-belief tables: Table 1 (the scenario grid) and the appendix tables B.1.1-B.3.4, C.1-C.3, D.1-D.3 and
E.1-E.3 (Chebyshev, L1 and symmetric-KL blocks, the paper's row labels and order, one column per model)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from choicelab.stats import clustered_mean, paired_difference
from choicelab.studies.revealed_belief.results import Built, Results

METRIC_BLOCKS = (("chebyshev", "Chebyshev"), ("l1", "L1"), ("symmetric_kl", "Symmetric KL"))
BLOCKS = {1: ("revealed", "base"), 2: ("revealed", "instruct"), 3: ("stated", "instruct")}
BLOCK_TITLES = {1: "Revealed Belief (base models)", 2: "Revealed Belief (instruction fine-tuned models)",
                3: "Stated Answer (instruction fine-tuned models)"}
GROUP_TITLES = {"b1": "Dice: regular, independent, dependent", "b2": "Dice: one observation",
                "b3": "Dice: two observations, single die", "b4": "Dice: two observations, multiple dice",
                "c": "Coins", "d": "Choice", "e": "Preference"}


def appendix_table_ids() -> dict[str, tuple[str, int]]:
    """Artifact table id -> (scenario appendix group, block 1/2/3), in the paper's numbering."""
    ids: dict[str, tuple[str, int]] = {}
    for block in (1, 2, 3):
        for k in (1, 2, 3, 4):
            ids[f"table_b{block}_{k}"] = (f"b{k}", block)
    for letter in ("c", "d", "e"):
        for block in (1, 2, 3):
            ids[f"table_{letter}{block}"] = (letter, block)
    return ids


def paper_reference(table_id: str) -> str:
    group, block = appendix_table_ids()[table_id]
    number = f"B.{block}.{group[1]}" if group.startswith("b") else f"{group.upper()}.{block}"
    return f"Appendix Table {number}: {GROUP_TITLES[group]}, {BLOCK_TITLES[block]}"


def appendix_table(metrics: pd.DataFrame, group: str, models: Sequence[str]) -> pd.DataFrame:
    """A Chebyshev, an L1 and a symmetric-KL block of rows (the paper's row labels and order), one column per model;
    each cell averages the row's settings (the parameters the row does not list)."""
    subset = metrics[metrics["appendix"] == group]
    if subset.empty:
        raise ValueError(f"no revealed-belief metrics for appendix group {group!r}")
    order = subset.drop_duplicates("row_label").assign(key=lambda f: f["row_key"].map(json.loads))
    rows = [r for r, _ in sorted(zip(order["row_label"], order["key"], strict=True), key=lambda x: x[1])]
    records = []
    for column, title in METRIC_BLOCKS:
        means = subset.groupby(["row_label", "model"])[column].mean()
        for row in rows:
            record: dict[str, Any] = {"metric": title, "row": row}
            for model in models:
                record[model] = float(means.get((row, model), float("nan")))
            records.append(record)
    return pd.DataFrame.from_records(records, columns=["metric", "row", *models])


def table1(scenarios: pd.DataFrame) -> pd.DataFrame:
    """Table 1: scenarios, variants and parameters, with the number of settings generated for each."""
    parameters = {
        ("dice", "single"): "Number of dice, number of faces",
        ("dice", "independent"): "Number of dice, number of faces, result of the previous roll",
        ("dice", "dependent"): "Number of dice, number of faces, result of the previous roll",
        ("dice", "observation"): "Number of dice, number of faces, observation",
        ("dice", "two observations"): "Number of dice, number of faces, two observations",
        ("coins", "single"): "Number of coins, Heads or Tails, bias",
        ("coins", "independent"): "Number of coins, Heads or Tails, bias, result of the previous flip",
        ("coins", "dependent"): "Number of coins, Heads or Tails, bias, result of the previous flip",
        ("choice", "single"): "Number of options",
        ("choice", "independent"): "Number of options, previous choice",
        ("preference", "single"): "Option 1, option 2, bias, order",
        ("preference", "independent"): "Option 1, option 2, bias, order, previous selection",
    }
    counts = scenarios.groupby(["family", "variant"], sort=False).size()
    return pd.DataFrame.from_records(
        [{"scenario": family.capitalize(), "variant": variant, "parameters": parameters[(family, variant)],
          "settings": int(n)} for (family, variant), n in counts.items()]
    )


def scenarios_of(frame: pd.DataFrame) -> list[str]:
    """The sampled unit of each setting: its scenario (family and variant, a row of Table 1), which its settings
    repeat with other parameters (dice and faces, bias, previous result)."""
    return (frame["family"].astype(str) + " / " + frame["variant"].astype(str)).tolist()


REVEALED_VS_STATED = ["model", "template", "family", "settings", "scenarios", "revealed", "revealed_low",
                      "revealed_high", "stated", "stated_low", "stated_high", "difference", "difference_low",
                      "difference_high", "covers_zero"]


def revealed_vs_stated(metrics: pd.DataFrame) -> pd.DataFrame:
    """The paper's comparison of revealed (RevB) and stated (StaA) belief on the same settings: per instruct model,
    StaA prompt template and scenario family ("all": every family), the mean Chebyshev error of each, and RevB minus
    StaA paired setting by setting; every mean with its 95 % interval clustered by scenario
    (:func:`scenarios_of`; :func:`choicelab.stats.clustered_mean`, t on scenarios - 1 degrees of freedom: a family
    of two scenarios has one). ``covers_zero``: the two are not told apart at this number of scenarios."""
    revealed = metrics[metrics["method"] == "revealed"][["model", "setting_id", "family", "variant", "chebyshev"]]
    stated = metrics[metrics["method"] == "stated"]
    if stated.empty:
        return pd.DataFrame(columns=REVEALED_VS_STATED)
    both = stated[["model", "template", "setting_id", "chebyshev"]].merge(
        revealed, on=["model", "setting_id"], suffixes=("_stated", "_revealed"))
    records = []
    for (model, template), group in both.groupby(["model", "template"], sort=True):
        for family, part in [("all", group), *group.groupby("family", sort=True)]:
            scenarios = scenarios_of(part)
            rev = clustered_mean(part["chebyshev_revealed"], scenarios)
            sta = clustered_mean(part["chebyshev_stated"], scenarios)
            diff = paired_difference(part["chebyshev_revealed"], part["chebyshev_stated"], scenarios)
            records.append({"model": model, "template": template, "family": family, "settings": diff.n,
                            "scenarios": diff.n_clusters, "revealed": rev.mean, "revealed_low": rev.low,
                            "revealed_high": rev.high, "stated": sta.mean, "stated_low": sta.low,
                            "stated_high": sta.high, "difference": diff.mean, "difference_low": diff.low,
                            "difference_high": diff.high,
                            "covers_zero": bool(diff.low <= 0 <= diff.high) if diff.n_clusters > 1 else None})
    return pd.DataFrame.from_records(records, columns=REVEALED_VS_STATED)


def to_markdown(frame: pd.DataFrame, floatfmt: str = ".2f") -> str:
    return frame.to_markdown(index=False, floatfmt=floatfmt) + "\n"


# -- builders (ARTIFACTS) ---------------------------------------------------------------------------------------


def build_table1(results: Results) -> Built:
    frame = table1(results.scenarios)
    return Built(frame, to_markdown(frame))


def build_revealed_vs_stated(results: Results) -> Built:
    frame = revealed_vs_stated(results.metrics)
    return Built(frame, to_markdown(frame, ".3f"))


def build_appendix_table(results: Results, table_id: str) -> Built:
    """An appendix table: its block's method, the models of its block's role; a StaA model without a chat template
    is flagged "(plain template)"."""
    group, block = appendix_table_ids()[table_id]
    method, role = BLOCKS[block]
    metrics = results.metrics
    block_models = results.of_role(role)
    subset = metrics[(metrics["method"] == method) & metrics["model"].isin(block_models)]
    if method == "stated":
        plain = set(subset[subset["template"] == "plain"]["model"])
        subset = subset.assign(model=[f"{m} (plain template)" if m in plain else m for m in subset["model"]])
        block_models = [f"{m} (plain template)" if m in plain else m for m in block_models]
    frame = appendix_table(subset, group, block_models)
    return Built(frame, to_markdown(frame), f"; models: {', '.join(block_models)}")
