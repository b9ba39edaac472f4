"""The paper's names and numbers: its benchmark names, its controls, and its Tables 1 and 2 beside ours."""

from __future__ import annotations

import pandas as pd

PAPER_NAMES = {"anli": "aNLI", "hellaswag": "HellaSwag", "piqa": "PIQA", "siqa": "SocialIQA"}


def paper_name(benchmark: str) -> str:
    """The paper's name of a benchmark (other studies' benchmarks keep theirs)."""
    return PAPER_NAMES.get(benchmark, benchmark)


def paper_control(model: str) -> str:
    """The paper's control a model stands for: XLNet (Sec. 4.3), UnifiedQA (Sec. 4.2), else the fine-tuned
    encoder's own pre-trained base with an untrained head ("pre-trained RoBERTa", Sec. 4.4)."""
    name = model.lower()
    if "xlnet" in name:
        return "XLNet (xlnet-large-cased)"
    if "unifiedqa" in name:
        return "UnifiedQA (unifiedqa-t5-11b)"
    return "pre-trained RoBERTa"


def compare_paper(
    table1_ours: pd.DataFrame, table2_ours: pd.DataFrame, paper1: pd.DataFrame, paper2: pd.DataFrame
) -> pd.DataFrame:
    """The paper's Table 1 and Table 2 numbers beside ours (ours are for the configured encoders), with our n."""
    records = []
    for row in paper1.itertuples():
        ours = table1_ours[table1_ours["benchmark"] == row.benchmark] if len(table1_ours) else table1_ours
        for model_row in ours.itertuples() if len(ours) else [None]:
            for quantity, column in (("avg confidence difference", "avg_confidence_difference"),
                                     ("WQ pseudo-accuracy", "wq_pseudo_accuracy")):
                records.append({"table": "Table 1", "benchmark": row.benchmark, "quantity": quantity,
                                "paper": getattr(row, column), "model": getattr(model_row, "model", ""),
                                "ours": getattr(model_row, column, float("nan")),
                                "instances": getattr(model_row, "instances", 0)})
    for row in paper2.itertuples():
        ours = table2_ours[(table2_ours["benchmark"] == row.benchmark) & (table2_ours["probe"] == row.probe)] \
            if len(table2_ours) else table2_ours
        for model_row in ours.itertuples() if len(ours) else [None]:
            for quantity in ("threshold", "accuracy"):
                records.append({"table": "Table 2", "benchmark": row.benchmark, "quantity": f"{row.probe} {quantity}",
                                "paper": getattr(row, quantity), "model": getattr(model_row, "model", ""),
                                "ours": getattr(model_row, quantity, float("nan")),
                                "instances": getattr(model_row, "eval_instances", 0)})
    return pd.DataFrame.from_records(records)
