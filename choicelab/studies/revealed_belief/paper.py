"""The paper's numbers beside ours: the Llama-3-70B Chebyshev rows of the appendix tables
(data/revealed_belief/paper/llama3_70b_chebyshev.csv), as a table (:func:`compare_paper`) and a figure
(:func:`compare_paper_figure`). The paper reports one model, Llama-3-70B (base in block 1, Instruct in blocks 2-3);
where our model is another, the numbers are context, not a reproduction: each row says which."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pandas as pd

from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt
from choicelab.stats import t_interval
from choicelab.studies.revealed_belief.results import Built, Results
from choicelab.studies.revealed_belief.tables import BLOCK_TITLES, BLOCKS, appendix_table_ids, to_markdown

PAPER_MODEL = {"base": "Llama-3-70B", "instruct": "Llama-3-70B-Instruct"}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).split("/")[-1].lower())


def is_paper_model(model: str, role: str) -> bool:
    """Whether our ``model`` (id, role) is the model the paper reports for that role (Llama-3-70B, -Instruct)."""
    key = _key(model)
    return "llama370b" in key and (("instruct" in key) == (role == "instruct"))


def like_for_like_note(model: str, role: str) -> tuple[bool, str]:
    """(like for like, why) for our ``model`` beside the paper's model of its role."""
    paper = PAPER_MODEL[role]
    if is_paper_model(model, role):
        return True, f"same model as the paper ({paper})"
    return False, (f"different model: the paper reports {paper}, ours is {model}; context, not a reproduction of "
                   "the number")


def compare_paper(metrics: pd.DataFrame, paper: pd.DataFrame, models: Sequence[str],
                  roles: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The paper's Llama-3-70B Chebyshev rows beside ours (one column per model), with the paper's model of the
    block, the block's method and role, and a note per row saying which of our models are like for like and why the
    others are not (a model that does not answer the block's questions, e.g. a base model in a StaA block, is n/a)."""
    roles = dict(roles or {})
    ours = metrics.groupby(["method", "appendix", "row_label", "model"])["chebyshev"].mean()
    records = []
    for row in paper.itertuples():
        group, block = appendix_table_ids()[row.table]
        method, role = BLOCKS[block]
        record = {"table": row.table, "row": row.row, "method": method, "role": role,
                  "paper_model": PAPER_MODEL[role], "paper_llama3_70b": row.llama3_70b}
        notes, same = [], []
        for model in models:
            record[model] = float(ours.get((method, group, row.row, model), float("nan")))
            if roles.get(model, role) != role:
                continue
            alike, why = like_for_like_note(model, role)
            (same if alike else notes).append(model if alike else why)
        record["like_for_like"] = ", ".join(same)
        record["note"] = "; ".join(notes) if notes else ("" if same else f"no {role} model of ours in this block")
        records.append(record)
    return pd.DataFrame.from_records(records)


def build_compare_paper(results: Results) -> Built:
    frame = compare_paper(results.metrics, results.need("paper"), list(results.models), results.roles)
    alike = [m for m in results.models if is_paper_model(m, results.roles[m])]
    note = ("; like for like: " + ", ".join(alike)) if alike else (
        "; none of our models is the paper's Llama-3-70B (-Instruct): every row is context, not a reproduction")
    return Built(frame, to_markdown(frame), note)


def paper_beside_ours(metrics: pd.DataFrame, paper: pd.DataFrame, models: Sequence[str],
                      roles: Mapping[str, str]) -> pd.DataFrame:
    """Per appendix table (block x scenario group) and source (the paper's model, or each of ours of the block's
    role): the mean Chebyshev distance over the table's rows that both the paper and ours report, its t 95 % interval
    over those rows (a handful: t, not 1.96 SE) and the number of rows n."""
    compared = compare_paper(metrics, paper, models, roles)
    records = []
    for table, part in compared.groupby("table", sort=False):
        role = part["role"].iloc[0]
        for model in [m for m in models if roles[m] == role]:
            both = part[part[model].notna()]
            if both.empty:
                continue
            for source, values in ((f"paper: {part['paper_model'].iloc[0]}", both["paper_llama3_70b"]),
                                   (model, both[model])):
                mean, low, high = t_interval(values.astype(float))
                records.append({"table": table, "block": int(appendix_table_ids()[table][1]), "method":
                                part["method"].iloc[0], "role": role, "source": source, "beside": model,
                                "chebyshev": mean, "n": int(values.size), "ci95_low": low, "ci95_high": high})
    return pd.DataFrame.from_records(records, columns=["table", "block", "method", "role", "source", "beside",
                                                       "chebyshev", "n", "ci95_low", "ci95_high"])


def compare_paper_figure(summary: pd.DataFrame, models: Sequence[str]) -> plt.Figure:
    """One panel per block (RevB base, RevB instruct, StaA instruct): per appendix table, the paper's mean Chebyshev
    distance (black diamonds, its model named) beside each of our models' (mean and t 95 % interval over the same
    rows, n rows under the axis), on the same scale."""
    blocks = sorted(summary["block"].unique()) if not summary.empty else []
    fig, axes = plt.subplots(1, max(1, len(blocks)), figsize=(5.2 * max(1, len(blocks)), 4.4), squeeze=False,
                             sharey=True)
    colours = {m: f"C{i}" for i, m in enumerate(models)}
    for ax, block in zip(axes[0], blocks, strict=False):
        part = summary[summary["block"] == block]
        tables = list(dict.fromkeys(part["table"]))
        beside = list(dict.fromkeys(part["beside"]))
        width = 0.8 / max(1, 2 * len(beside))
        for j, model in enumerate(beside):
            for k, is_paper in enumerate((True, False)):
                rows = part[(part["beside"] == model) & (part["source"].str.startswith("paper: ") == is_paper)]
                x = [tables.index(t) + (2 * j + k - (2 * len(beside) - 1) / 2) * width for t in rows["table"]]
                label = rows["source"].iloc[0] if is_paper else f"ours: {model}"
                if is_paper and j > 0:
                    label = None
                below = (rows["chebyshev"] - rows["ci95_low"]).fillna(0.0)
                above = (rows["ci95_high"] - rows["chebyshev"]).fillna(0.0)
                ax.errorbar(x, rows["chebyshev"], yerr=[below, above], ls="none", capsize=2,
                            marker=PAPER_MARKER if is_paper else "o",
                            color=PAPER_COLOUR if is_paper else colours[model], label=label)
        ns = part[~part["source"].str.startswith("paper: ")].groupby("table", sort=False)["n"].max()
        ax.set_xticks(range(len(tables)), [f"{t.removeprefix('table_')}\nn={int(ns.get(t, 0))}" for t in tables],
                      fontsize=8)
        ax.set_title(BLOCK_TITLES[block], fontsize=9)
        ax.legend(fontsize=8)
    if not blocks:
        axes[0][0].text(0.5, 0.5, "no appendix rows in this run", ha="center", va="center",
                        transform=axes[0][0].transAxes)
    axes[0][0].set_ylabel("mean Chebyshev distance\n(t 95% interval over rows)")
    fig.suptitle("The paper's Llama-3-70B (black diamonds) beside our models, per appendix table "
                 f"(ours: {', '.join(models)}; n = rows both report)", fontsize=10)
    fig.tight_layout()
    return fig


def build_compare_paper_figure(results: Results) -> Built:
    summary = paper_beside_ours(results.metrics, results.need("paper"), list(results.models), results.roles)
    alike = [m for m in results.models if is_paper_model(m, results.roles[m])]
    note = "" if alike else "; none of our models is the paper's: context, not a reproduction"
    return Built(compare_paper_figure(summary, list(results.models)), note=note)
