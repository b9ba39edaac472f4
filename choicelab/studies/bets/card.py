"""The bets study's card panel: Table 5's accuracy per stage and template against chance (a checkpoint's interval
clustered by item pair, a mean over seeds' t interval), the paper's models beside."""

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
    finite,
    item_values,
    read_table,
    table_path,
)
from choicelab.studies.bets.artifacts import ARTIFACTS
from choicelab.studies.bets.items import benchmark_name
from choicelab.studies.bets.stages import STAGE_DEFAULT, split_checkpoint, split_seed

TITLE = "Thinking in bets"


def bets_panel(root: str | Path, model: str) -> Panel:
    """Table 5 (value questions): accuracy per stage and template against the study's chance (a checkpoint's 95 %
    interval clustered by item pair, a mean over seeds' t interval over them), the paper's models' percentages from
    its comparison table."""
    path = table_path(root, "bets", ARTIFACTS, "table5")
    t = read_table(path)
    names = t["model"].astype(str)
    # the model's row: its own, else its mean over seeds, else (one seed configured) its only seed's
    unique = list(names.unique())
    label = next((n for n in unique if n == model or n.startswith(f"{model} mean of")), None)
    if label is None:
        label = next((n for n in unique if n.startswith(f"{model}__seed")), None)
    if label is None:
        raise ValueError(f"{path}: no rows for {model!r}")
    rows = t[names == label]
    compare_path = table_path(root, "bets", ARTIFACTS, "compare_paper")
    compare = read_table(compare_path) if compare_path.is_file() else pd.DataFrame()
    headlines = []
    for _, r in rows.iterrows():
        paper = ()
        if len(compare):
            c = compare[(compare["table"] == "table5") & (compare["stage"] == r["stage"])
                        & (compare["condition"] == r["condition"])].drop_duplicates("paper_model")
            paper = tuple((str(p.paper_model), float(p.paper_percent) / 100) for p in c.itertuples()
                          if finite(p.paper_percent))
        label_ = f"{r['stage']}, {r['condition']}: accuracy on {r['split']} questions ({r['ground_truth']})"
        chance = float(r["p0"])
        if finite(r.get("ci95_low_seeds")):  # a mean over seeds: its t interval over the seeds
            headlines.append(Headline(label_, float(r["accuracy_percent"]) / 100, float(r["ci95_low_seeds"]),
                                      float(r["ci95_high_seeds"]), int(r["seeds"]), "seeds", str(path), chance,
                                      paper, note=f"chance {chance:.2f}; {label}; t interval over seeds",
                                      interval="t over seeds"))
        else:  # one checkpoint: the interval clustered by item pair
            headlines.append(Headline(label_, float(r["accuracy_percent"]) / 100,
                                      float(r["clustered_low_percent"]) / 100, float(r["clustered_high_percent"]) / 100,
                                      int(r["n_clusters"]), "item pairs", str(path), chance, paper,
                                      note=f"chance {chance:.2f}; {label}; {int(r['n'])} questions, clustered by "
                                           f"item pair", interval="clustered by item pair"))
    flags = chance_flags("bets", headlines)
    sources = (str(path), str(compare_path)) if len(compare) else (str(path),)
    return Panel("bets", TITLE, OK, headlines=tuple(headlines), flags=flags, sources=sources)


def _questions_of(root: Path, model: str) -> list[Path]:
    """The per-question evaluation table of the card run (every checkpoint's answers; the model's rows are read)."""
    path = Path(root) / "bets" / "metrics" / "questions.parquet"
    return [path] if path.is_file() else []


def _value_questions_per_item(root: Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's hits on Table 5's value questions (standard method, test split) per stage and template: each
    question's value is its hit averaged over the model's seeds, clustered by the item pair it was sampled as. The
    index compares models on the questions both answered."""
    out = {}
    for path in _questions_of(root, model):
        q = pd.read_parquet(path)
        q = q[(q["rq"] == "rq1") & (q["ground_truth"] == "standard") & (q["split"] == "test")]
        owner, stage = zip(*map(split_checkpoint, q["checkpoint"].astype(str)), strict=True) if len(q) else ((), ())
        q = q.assign(encoder=[split_seed(o)[0] for o in owner],
                     stage=["default" if s == STAGE_DEFAULT else "fine-tuned" for s in stage])
        q = q[q["encoder"] == model]
        for (stage_label, eval_set), group in q.groupby(["stage", "eval_set"], sort=True):
            per_item = group.groupby(["item_id", "unit"], sort=True)["correct"].mean().reset_index()
            condition = str(eval_set).removeprefix(benchmark_name("value", "")).upper()
            out[f"bets: {stage_label}, {condition}: accuracy on value questions (standard)"] = item_values(
                per_item["item_id"], per_item["correct"], per_item["unit"])
    return out


CARD = CardEntry(
    title=TITLE,
    axis="accuracy on the value questions, 0 to 1 (higher is better)",
    tables=("table5", "compare_paper"),
    panel=bets_panel,
    models={"encoder": ("models",)},
    skips={"causal": "bets fine-tunes an encoder with a multiple-choice head on the bet tasks (the paper's "
                     "BERT-family models); a causal model has no such head, so the study does not apply"},
    scale_keys=("seeds", "train_eval_size"),
    per_item=(PerItem(True, "item pairs", _questions_of, _value_questions_per_item),),
)
