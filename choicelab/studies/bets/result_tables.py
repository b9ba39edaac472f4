"""The result tables of the bets study (Tables 5, 6, 9-20): the evaluations pivoted into the paper's layout.

Each table is a CSV (one row per evaluation, accuracy in %) and a Markdown grid as the paper prints it: cells
'default/fine-tuned' (RQ1, RQ2) or 'train/test' per (fine-tune modality -> test modality) (RQ3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from choicelab.studies.bets import ground_truths as gt
from choicelab.studies.bets import items as items_mod
from choicelab.studies.bets import metrics as m


def _pct(x: float) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.0f}"


def _cell_formatter(stages: Sequence[str], value: str, symbol: str):
    """'68†/96†' style cells: one value per stage, joined by '/'."""

    def cell(group: pd.DataFrame) -> str:
        parts = []
        for stage in stages:
            row = group[group["stage"] == stage]
            if row.empty:
                parts.append("-")
                continue
            r = row.iloc[0]
            spread = r.get("sd_seeds", float("nan"))
            sd = f"±{100 * spread:.0f}" if value == "accuracy" and not pd.isna(spread) else ""  # a mean over seeds
            parts.append(
                _pct(r["accuracy_percent"] / 100) + sd + (symbol if r["significant"] else "")
                if value == "accuracy"
                else m.format_pvalue(r["p_value"])
            )
        return "/".join(parts)

    return cell


def long_table(ev: pd.DataFrame) -> pd.DataFrame:
    """The CSV form of a result table: one row per evaluation, accuracy in % with its exact 95 % interval (questions
    independent) and its interval clustered by item pair (``n_clusters`` pairs), the design effect and the minimum
    detectable difference (%) at its n; a mean over seeds has its t 95 % interval over seeds instead."""
    out = ev.copy()
    out["condition"] = [
        e.removeprefix("bets_value_").removeprefix("bets_bet_").upper() if "value" in e else e.removeprefix("bets_bet_")
        for e in out["eval_set"]
    ]
    out["accuracy_percent"] = 100 * out["accuracy"]
    for column in ("ci95_low", "ci95_high", "clustered_low", "clustered_high", "min_detectable_difference"):
        out[f"{column}_percent"] = 100 * out[column]
    cols = [
        "model",
        "stage",
        "condition",
        "split",
        "ground_truth",
        "accuracy_percent",
        "ci95_low_percent",
        "ci95_high_percent",
        "clustered_low_percent",
        "clustered_high_percent",
        "n_clusters",
        "design_effect",
        "min_detectable_difference_percent",
        "hits",
        "n",
        "p0",
        "p_value",
        "significant",
        "threshold",
        "dev_accuracy",
        "tuned_on",
        "checkpoint",
    ]
    cols += [c for c in ("seeds", "sd_seeds", "ci95_low_seeds", "ci95_high_seeds") if c in out]  # seed spread
    cols += [c for c in ("model_competence",) if c in out]  # the checkpoint's competence gate
    return out[cols].sort_values(["model", "stage", "condition", "split", "ground_truth"]).reset_index(drop=True)


CONDITION_ORDER = [*items_mod.VALUE_TEMPLATES, *items_mod.MODALITIES]  # the paper's: BE BV CE CV; Coin Dice Card
GROUND_TRUTH_ORDER = ["standard", "bca", *gt.VALUE_GROUND_TRUTHS, *gt.BET_GROUND_TRUTHS]


def paper_order(long: pd.DataFrame) -> pd.DataFrame:
    """Rows in the paper's column order: templates BE, BV, CE, CV; modalities Coin, Dice, Card (Tables 6, 13-15);
    ACC before BCA; ground truths Strict, Positive Gain, Non-Negative Gain. Other conditions (the RQ3
    'fine-tune->test' pairs, which the paper orders alphabetically: Card, Coin, Dice) sort after, alphabetically.
    The model order is kept (the config's)."""
    def rank(values: pd.Series, order: Sequence[str]) -> list[tuple[int, str]]:
        return [(order.index(v), "") if v in order else (len(order), str(v)) for v in values]

    keys = pd.DataFrame(
        {"condition": rank(long["condition"], CONDITION_ORDER), "gt": rank(long["ground_truth"], GROUND_TRUTH_ORDER)},
        index=long.index,
    )
    order = sorted(range(len(long)), key=lambda i: (keys["condition"].iat[i], keys["gt"].iat[i]))
    return long.iloc[order]


def pivot_markdown(
    ev: pd.DataFrame,
    *,
    rows: Sequence[str],
    columns: Sequence[str],
    stages: Sequence[str],
    value: str,
    symbol: str = "†",
) -> str:
    """The paper's layout: one row per ``rows`` key, one column per ``columns`` key, cells 'default/fine-tuned'."""
    if ev.empty:
        return "_no evaluations (the study has no models configured)_\n"
    long = paper_order(long_table(ev))
    cell = _cell_formatter(stages, value, symbol)
    grouped = {key: cell(group) for key, group in long.groupby(list(rows) + list(columns), sort=False)}
    row_keys = list(dict.fromkeys(tuple(k[: len(rows)]) for k in grouped))
    col_keys = list(dict.fromkeys(tuple(k[len(rows) :]) for k in grouped))
    header = [*rows, *[" ".join(str(x) for x in c) for c in col_keys]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for rk in row_keys:
        cells = [grouped.get(tuple(rk) + tuple(ck), "-") for ck in col_keys]
        lines.append("| " + " | ".join([*map(str, rk), *cells]) + " |")
    legend = "/".join(stages)
    note = (
        f"\nCells: {legend}. {symbol} marks accuracy significantly above the random baseline (one-sided z-test, "
        "alpha .05; for a 'mean of k seeds' row, shown as mean±SD over seeds: its t 95% interval over seeds lies "
        "above the baseline). The CSV gives each accuracy's exact 95% interval and its interval clustered by item "
        "pair (a bet question's four win/lose variants repeat one pair), with the minimum detectable difference."
        if value == "accuracy"
        else f"\nCells: {legend} one-sided z-test p-values vs the random baseline."
    )
    return "\n".join(lines) + "\n" + note + "\n"


@dataclass(frozen=True)
class _Spec:
    """One result table: its research question, ground truths and cell value ('accuracy' or 'p'), the grid's row and
    column keys, the stages a cell joins ('default/fine-tuned'; RQ3: the splits, 'train/test') and the symbol marking
    significance."""

    rq: str
    gts: tuple[str, ...]
    value: str
    rows: tuple[str, ...] = ("model",)
    cols: tuple[str, ...] = ("condition",)
    stages: tuple[str, ...] = ("default", "fine-tuned")
    symbol: str = "†"


_RQ2_COLS = ("condition", "ground_truth")
_BY_TRUTH = ("model", "ground_truth")
RESULT_TABLES: dict[str, _Spec] = {
    "table5": _Spec("rq1", ("standard",), "accuracy"),
    "table9": _Spec("rq1", ("standard",), "p"),
    "table10": _Spec("rq1", ("normal",), "p"),
    "table11": _Spec("rq1", ("weak_normal",), "p"),
    "table12": _Spec("rq1", ("weak",), "p"),
    "table6": _Spec("rq2", ("standard", "bca"), "accuracy", cols=_RQ2_COLS, symbol="§"),
    "table13": _Spec("rq2", ("standard", "bca"), "p", cols=_RQ2_COLS),
    "table14": _Spec("rq2", gt.BET_GROUND_TRUTHS, "accuracy", rows=_BY_TRUTH, symbol="§"),
    "table15": _Spec("rq2", gt.BET_GROUND_TRUTHS, "p", rows=_BY_TRUTH),
    "table20": _Spec("rq3", ("standard",), "accuracy", stages=("train", "test")),
    "table16": _Spec("rq3", ("standard",), "p", stages=("train", "test")),
    "table17": _Spec("rq3", ("strict",), "p", stages=("test",)),
    "table18": _Spec("rq3", ("positive_gain",), "p", stages=("test",)),
    "table19": _Spec("rq3", ("non_negative_gain",), "p", stages=("test",)),
}


def result_table(ev: pd.DataFrame, name: str) -> tuple[pd.DataFrame, str]:
    """(CSV frame, Markdown in the paper's layout) of one result table."""
    spec = RESULT_TABLES[name]
    sel = grid = ev[(ev["rq"] == spec.rq) & ev["ground_truth"].isin(spec.gts)]
    if spec.rq == "rq3":  # one column per (fine-tune modality -> test modality), cells 'train/test'
        sel = sel[sel["split"].isin(spec.stages)]
        grid = sel.assign(
            eval_set=[f"{ft.removeprefix('fine-tuned:')}->{e.removeprefix('bets_bet_')}"
                      for ft, e in zip(sel["stage"], sel["eval_set"], strict=True)],
            stage=sel["split"],
        )
    markdown = pivot_markdown(grid, rows=spec.rows, columns=spec.cols, stages=spec.stages, value=spec.value,
                              symbol=spec.symbol)
    return long_table(sel), markdown
