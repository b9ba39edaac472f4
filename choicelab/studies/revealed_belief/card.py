"""Revealed belief's card panel: RevB and StaA Chebyshev errors (intervals clustered by scenario), their paired
difference, per scenario family; the paper's Llama-3-70B on the same appendix rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from choicelab.card_entry import (
    OK,
    CardEntry,
    Headline,
    Panel,
    PerItem,
    item_values,
    mean_headline,
    read_table,
    table_path,
)
from choicelab.stats import clustered_mean
from choicelab.studies.revealed_belief.artifacts import ARTIFACTS
from choicelab.studies.revealed_belief.tables import appendix_table_ids

TITLE = "Revealed belief vs stated answer"
METHODS = (("revealed", "RevB error (Chebyshev)"), ("stated", "StaA error (Chebyshev)"))  # distances' method: label


def _scenario_headline(label: str, rows: pd.DataFrame, column: str, source: str,
                       reference: float | None = None) -> Headline:
    """The mean of ``column`` over settings with its interval clustered by scenario (family and variant: its settings
    repeat it with other parameters); n counts scenarios."""
    scenario = rows["family"].astype(str) + "/" + rows["variant"].astype(str)
    m = clustered_mean(rows[column].astype(float), scenario.tolist())
    return Headline(label, m.mean, m.low, m.high, m.n_clusters, "scenarios", source, reference,
                    note=f"{m.n} settings, clustered by scenario", interval="clustered by scenario")


def revealed_belief_panel(root: str | Path, model: str) -> Panel:
    """RevB and StaA Chebyshev errors (mean over settings, 95 % interval clustered by scenario), their paired
    difference where both were scored, per scenario family; the paper's Llama-3-70B on the same appendix rows."""
    dpath = Path(root) / "revealed_belief" / "metrics" / "distances.parquet"
    d = read_table(dpath)
    d = d[d["model"].astype(str) == model]
    if d.empty:
        raise ValueError(f"{dpath}: no settings scored for {model!r}")
    headlines = []
    compare_path = table_path(root, "revealed_belief", ARTIFACTS, "compare_paper")
    compare = read_table(compare_path)
    # the paper's numbers (paper_llama3_70b); paper_model names the model in words
    paper_cols = [c for c in compare.columns
                  if c.startswith("paper_") and pd.api.types.is_numeric_dtype(compare[c])]
    for method, label in METHODS:
        rows = d[d["method"] == method]
        if len(rows):
            headlines.append(_scenario_headline(label + ", all settings", rows, "chebyshev", str(dpath)))
    if model in compare.columns and paper_cols:
        block = compare["table"].map(lambda t: appendix_table_ids().get(str(t), ("", 0))[1])
        who = paper_cols[0][len("paper_"):]
        # blocks 1 and 2 are the revealed belief of base and instruct models (ours: one value per row), 3 the stated
        for label, blocks, names in (("RevB", (1, 2), {1: "base", 2: "instruct"}), ("StaA", (3,), {3: "instruct"})):
            rows = compare[block.isin(blocks)].dropna(subset=[model, paper_cols[0]])
            ours = rows[block[rows.index] == blocks[0]]
            if len(ours) > 1:
                paper = tuple((f"{who} {names[b]} (the paper's, same rows)",
                               float(rows[block[rows.index] == b][paper_cols[0]].mean()))
                              for b in blocks if (block[rows.index] == b).any())
                headlines.append(mean_headline(
                    f"{label} error on the appendix rows the paper reports, mean over rows", ours[model], "rows",
                    str(compare_path), paper=paper, note="Chebyshev; the same rows for both; a row averages its "
                                                         "settings"))
    wide = d.pivot_table(index=["setting_id", "family", "variant"], columns="method", values="chebyshev",
                         aggfunc="mean").reset_index()
    if {"revealed", "stated"} <= set(wide.columns):
        both = wide.dropna(subset=["revealed", "stated"])
        if len(both):
            headlines.append(_scenario_headline("StaA minus RevB error, paired by setting",
                                                both.assign(diff=both["stated"] - both["revealed"]), "diff",
                                                str(dpath), reference=0.0))
    rows = []
    for (family, method), group in d.groupby(["family", "method"], sort=True):
        h = _scenario_headline(f"{family} {method}", group, "chebyshev", str(dpath))
        rows.append({"family": family, "method": method, "chebyshev": h.estimate, "low": h.low, "high": h.high,
                     "n": h.n})
    reason = "" if any(h.label.startswith("StaA") for h in headlines) else (
        "no stated answers for this model in the card run (the study asks instruct models for them)")
    return Panel("revealed_belief", TITLE, OK, reason=reason, headlines=tuple(headlines),
                 detail=pd.DataFrame(rows, columns=["family", "method", "chebyshev", "low", "high", "n"]),
                 sources=(str(dpath), str(compare_path)))


def _distances_file(root: Path, model: str) -> list[Path]:
    return [Path(root) / "revealed_belief" / "metrics" / "distances.parquet"]


def _distances_per_item(root: Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's Chebyshev error per setting, RevB and StaA apart (StaA's templates averaged), clustered by scenario
    (family and variant): the index compares models on them."""
    path = _distances_file(root, model)[0]
    if not path.is_file():
        return {}
    frame = pd.read_parquet(path)
    out = {}
    for method, label in METHODS:
        d = frame[(frame["model"].astype(str) == model) & (frame["method"] == method)]
        if d.empty:
            continue
        per = d.groupby(["setting_id", "family", "variant"], as_index=False)["chebyshev"].mean()
        out[label] = item_values(per["setting_id"], per["chebyshev"],
                                 per["family"].astype(str) + "/" + per["variant"].astype(str))
    return out


CARD = CardEntry(
    title=TITLE,
    axis="Chebyshev error of the belief, 0 to 1 (lower is better); StaA minus RevB above 0: stated answers err more",
    tables=("compare_paper",),
    panel=revealed_belief_panel,
    models={"causal": ("models",)},
    skips={"encoder": "revealed belief reads a causal model's next-token distribution over outcomes"},
    scale_keys=("n_dice", "faces"),
    per_item=(PerItem(False, "scenarios", _distances_file, _distances_per_item),),
)
