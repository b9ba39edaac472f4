"""The paper's names and numbers: its benchmark names, its controls, and its Tables 1 and 2 beside ours."""

from __future__ import annotations

import pandas as pd

from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt

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


PAPER_MODEL = "RoBERTa-large (fine-tuned per benchmark)"


def like_for_like(model: str) -> tuple[bool, str]:
    """(like for like, why) for our ``model`` beside the paper's numbers, which are all RoBERTa-large's."""
    key = "".join(ch for ch in str(model).lower() if ch.isalnum())
    if "robertalarge" in key:
        return True, "same encoder as the paper (RoBERTa-large, fine-tuned here with our recipe)"
    if not model:
        return False, "not run here"
    return False, (f"different model: the paper's numbers are RoBERTa-large's, ours are {model}'s; context, not a "
                   "reproduction of the number")


# Which 95 % interval of ours each quantity carries: (column prefix, what it is).
DRAWN = {
    "avg_confidence_difference": ("avg_confidence_difference", "paired t over instances"),
    "wq_pseudo_accuracy": ("wq_pseudo_accuracy_clustered", "clustered by original item"),
    "threshold": ("threshold_repeats", "t over repeats"),
    "accuracy": ("accuracy_ci95", "exact, one repeat's decisions"),
}


def _interval(model_row: object, column: str) -> dict[str, object]:
    prefix, kind = DRAWN[column]
    return {"ours_low": getattr(model_row, f"{prefix}_low", float("nan")),
            "ours_high": getattr(model_row, f"{prefix}_high", float("nan")), "ours_interval": kind}


def compare_paper(
    table1_ours: pd.DataFrame, table2_ours: pd.DataFrame, paper1: pd.DataFrame, paper2: pd.DataFrame
) -> pd.DataFrame:
    """The paper's Table 1 and Table 2 numbers beside ours (ours are for the configured encoders), with our n and 95 %
    interval (``ours_low``, ``ours_high``; which one in ``ours_interval``: :data:`DRAWN`), the paper's model and,
    per row, whether ours is like for like and why not."""
    records = []
    for row in paper1.itertuples():
        ours = table1_ours[table1_ours["benchmark"] == row.benchmark] if len(table1_ours) else table1_ours
        for model_row in ours.itertuples() if len(ours) else [None]:
            for quantity, column in (("avg confidence difference", "avg_confidence_difference"),
                                     ("WQ pseudo-accuracy", "wq_pseudo_accuracy")):
                records.append({"table": "Table 1", "benchmark": row.benchmark, "quantity": quantity,
                                "paper": getattr(row, column), "model": getattr(model_row, "model", ""),
                                "ours": getattr(model_row, column, float("nan")),
                                **_interval(model_row, column), "instances": getattr(model_row, "instances", 0)})
    for row in paper2.itertuples():
        ours = table2_ours[(table2_ours["benchmark"] == row.benchmark) & (table2_ours["probe"] == row.probe)] \
            if len(table2_ours) else table2_ours
        for model_row in ours.itertuples() if len(ours) else [None]:
            for quantity in ("threshold", "accuracy"):
                records.append({"table": "Table 2", "benchmark": row.benchmark, "quantity": f"{row.probe} {quantity}",
                                "paper": getattr(row, quantity), "model": getattr(model_row, "model", ""),
                                "ours": getattr(model_row, quantity, float("nan")),
                                **_interval(model_row, quantity),
                                "instances": getattr(model_row, "eval_instances", 0)})
    frame = pd.DataFrame.from_records(records, columns=["table", "benchmark", "quantity", "paper", "model", "ours",
                                                        "ours_low", "ours_high", "ours_interval", "instances"])
    verdicts = [like_for_like(m) for m in frame["model"]]
    frame.insert(4, "paper_model", PAPER_MODEL)
    frame["like_for_like"] = [alike for alike, _ in verdicts]
    frame["note"] = [why for _, why in verdicts]
    return frame


def compare_paper_figure(compared: pd.DataFrame) -> plt.Figure:
    """One panel per quantity of the paper's Tables 1 and 2: per benchmark, the paper's number (black diamond,
    RoBERTa-large) beside each of our models' (with its 95 % interval, :data:`DRAWN`; n instances on the axis), same
    scale."""
    quantities = list(dict.fromkeys(compared["quantity"]))
    n_cols = 4
    n_rows = max(1, -(-len(quantities) // n_cols))
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4.2 * n_cols, 3.6 * n_rows), squeeze=False)
    models = sorted(m for m in compared["model"].unique() if m)
    colours = {m: f"C{i}" for i, m in enumerate(models)}
    width = 0.8 / (len(models) + 1)
    order = sorted(dict.fromkeys(compared["benchmark"]))  # one benchmark order in every panel
    for ax, quantity in zip(axes.flat, quantities, strict=False):
        part = compared[compared["quantity"] == quantity]
        benchmarks = [b for b in order if b in set(part["benchmark"])]
        paper = part.drop_duplicates("benchmark")
        ax.plot([benchmarks.index(b) - len(models) * width / 2 for b in paper["benchmark"]], paper["paper"],
                ls="none", marker=PAPER_MARKER, color=PAPER_COLOUR, label="paper: RoBERTa-large")
        ns: dict[str, list[str]] = {b: [] for b in benchmarks}
        for i, model in enumerate(models):
            mine = part[part["model"] == model]
            x = [benchmarks.index(b) + (i + 1 - len(models) / 2) * width for b in mine["benchmark"]]
            below, above = (mine["ours"] - mine["ours_low"]).fillna(0.0), (mine["ours_high"] - mine["ours"]).fillna(0.0)
            ax.errorbar(x, mine["ours"], yerr=[below, above], ls="none", marker="o", capsize=2,
                        color=colours[model], label=f"ours: {model}")
            for b, n in zip(mine["benchmark"], mine["instances"], strict=True):
                ns[b].append(str(int(n)))
        # one n where every model has the same; else each model's, one line each
        ax.set_xticks(range(len(benchmarks)), [f"{b}\nn=" + ("\n".join(dict.fromkeys(ns[b])) or "-")
                                               for b in benchmarks], fontsize=8)
        kind = part["ours_interval"].iloc[0]
        ax.set_title(f"{part['table'].iloc[0]}: {quantity}\n(ours: 95% interval, {kind})", fontsize=9)
        ax.set_ylabel(quantity)
        ax.set_xlim(-0.6, len(benchmarks) - 0.4)
    for ax in list(axes.flat)[len(quantities):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("The paper's Tables 1-2 (black diamonds: RoBERTa-large) beside ours "
                 f"({', '.join(models) or 'no model run'}; bars: 95% intervals; n = instances)", fontsize=10)
    fig.tight_layout()
    return fig
