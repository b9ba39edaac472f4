"""Card models side by side: every pair of models compared on the items both answered, and every card number as data.

A headline is compared item by item where the card run's per-item files hold it (STEER's questions, revealed
belief's settings, the scoring methods' items, the probes' original items in the logit dumps): the paired
difference and its interval clustered by the study's sampled unit (:func:`choicelab.stats.paired_difference`), and
each model's rank with the range of ranks its paired intervals allow. Every card number (estimate, interval, n,
unit, reference, source) is written as a table (``cards.parquet``) and with the comparisons as JSON
(``cards.json``), so many models are compared without scraping pages.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from choicelab.cards.items import dump_files, item_rows
from choicelab.cards.panels import OK, Panel
from choicelab.stats import paired_difference
from choicelab.studies.scoring_methods.tables import reported_choices
from choicelab.studies.steer.card import plain_adaptation

ITEM_COLUMNS = ["item", "cluster", "value"]


@dataclass(frozen=True)
class PerItem:
    """One comparable quantity: its label, the study and file it is read from, whether higher is better, the unit
    its items are clustered in, and a reader giving a model's values per item (:data:`ITEM_COLUMNS`)."""

    label: str
    study: str
    path: str  # relative to the card run's results folder
    higher_is_better: bool
    cluster_unit: str
    read: Callable[[pd.DataFrame, str], pd.DataFrame]


def _steer(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    q = frame[frame["model"].astype(str) == model]
    if q.empty:
        return pd.DataFrame(columns=ITEM_COLUMNS)
    q = q[q["adaptation"].astype(str) == plain_adaptation(list(q["adaptation"].astype(str).unique()))]
    return pd.DataFrame({"item": q["item_id"].astype(str), "cluster": q["template_id"].astype(str),
                         "value": q["correct"].astype(float)})


def _revealed_belief(method: str) -> Callable[[pd.DataFrame, str], pd.DataFrame]:
    def read(frame: pd.DataFrame, model: str) -> pd.DataFrame:
        d = frame[(frame["model"].astype(str) == model) & (frame["method"] == method)]
        per = d.groupby(["setting_id", "family", "variant"], as_index=False)["chebyshev"].mean()  # StaA: templates
        return pd.DataFrame({"item": per["setting_id"].astype(str),
                             "cluster": per["family"].astype(str) + "/" + per["variant"].astype(str),
                             "value": per["chebyshev"].astype(float)})
    return read


def _scoring_method(method: str) -> Callable[[pd.DataFrame, str], pd.DataFrame]:
    def read(frame: pd.DataFrame, model: str) -> pd.DataFrame:
        rows = frame[(frame["model"].astype(str) == model) & (frame["method"] == method)]
        if rows.empty:
            return pd.DataFrame(columns=ITEM_COLUMNS)
        per = reported_choices(rows).groupby("item_id", as_index=False)["is_target"].mean()  # versions -> item
        return pd.DataFrame({"item": per["item_id"].astype(str), "cluster": per["item_id"].astype(str),
                             "value": per["is_target"].astype(float)})
    return read


PER_ITEM: tuple[PerItem, ...] = (
    PerItem("STEER accuracy, whole benchmark (0-shot)", "steer", "steer/metrics/questions.parquet", True,
            "templates", _steer),
    PerItem("RevB error (Chebyshev)", "revealed_belief", "revealed_belief/metrics/distances.parquet", False,
            "scenarios", _revealed_belief("revealed")),
    PerItem("StaA error (Chebyshev)", "revealed_belief", "revealed_belief/metrics/distances.parquet", False,
            "scenarios", _revealed_belief("stated")),
    *(PerItem(f"scoring methods: {m} accuracy", "scoring_methods", "scoring_methods/metrics/choices.parquet", True,
              "items", _scoring_method(m)) for m in ("free", "string", "label", "rating")),
)


@dataclass(frozen=True)
class Comparable:
    """One quantity's values per item for every model that has it."""

    label: str
    study: str
    higher_is_better: bool
    cluster_unit: str
    values: dict[str, pd.DataFrame]  # model -> its values per item (:data:`ITEM_COLUMNS`)


def probe_originals(run_root: str | Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's hits on the probes' original (unprobed) items per benchmark and scorer, from its logit dumps
    (variant ``orig``): label -> values per item (each original its own unit)."""
    out = {}
    for path in dump_files(run_root, "probes", model):
        rows = item_rows(pd.read_parquet(path), model)
        rows = rows[(rows["variant"] == "orig") & rows["correct"].notna()]
        for (benchmark, method), group in rows.groupby(["benchmark", "method"], sort=True):
            out[f"probes: original accuracy, {benchmark} ({method})"] = pd.DataFrame(
                {"item": group["item_id"].astype(str), "cluster": group["item_id"].astype(str),
                 "value": group["correct"].astype(float)})
    return out


def per_item_values(run_root: str | Path, models: Sequence[str]) -> list[Comparable]:
    """Every quantity with per-item values for at least one model: the :data:`PER_ITEM` quantities whose file the
    card run wrote (a study it did not run has none) and the probes' original accuracies from the dumps."""
    out = []
    frames: dict[str, pd.DataFrame] = {}
    for q in PER_ITEM:
        path = Path(run_root) / q.path
        if not path.is_file():
            continue
        frame = frames.setdefault(q.path, pd.read_parquet(path))
        values = {m: v for m in models if len(v := q.read(frame, m))}
        if values:
            out.append(Comparable(q.label, q.study, q.higher_is_better, q.cluster_unit, values))
    originals: dict[str, dict[str, pd.DataFrame]] = {}
    for model in models:
        for label, values in probe_originals(run_root, model).items():
            originals.setdefault(label, {})[model] = values
    out += [Comparable(label, "probes", True, "original items", values) for label, values in originals.items()]
    return out


def paired_table(comparables: Sequence[Comparable]) -> pd.DataFrame:
    """Every pair of models per quantity, on the items both answered: mean of a minus b item by item with its 95 %
    interval clustered by the study's unit (:func:`choicelab.stats.paired_difference`), the shared items and units,
    and which model the interval says is better (none where it covers zero)."""
    rows = []
    for q in comparables:
        for a, b in itertools.combinations(list(q.values), 2):  # in the card order
            both = q.values[a].merge(q.values[b], on=["item", "cluster"], suffixes=("_a", "_b"))
            if both.empty:
                continue
            d = paired_difference(both["value_a"], both["value_b"], both["cluster"].tolist())
            better = "" if not d.low > 0 and not d.high < 0 else (
                a if (d.low > 0) == q.higher_is_better else b)
            rows.append({"quantity": q.label, "study": q.study, "model_a": a, "model_b": b, "difference": d.mean,
                         "low": d.low, "high": d.high, "n_items": d.n, "n_clusters": d.n_clusters,
                         "cluster_unit": q.cluster_unit, "higher_is_better": q.higher_is_better, "better": better})
    return pd.DataFrame(rows, columns=["quantity", "study", "model_a", "model_b", "difference", "low", "high",
                                       "n_items", "n_clusters", "cluster_unit", "higher_is_better", "better"])


def ranks(comparables: Sequence[Comparable], paired: pd.DataFrame) -> pd.DataFrame:
    """Per quantity, each model's rank by its mean over its items (1 = best) and the ranks its paired intervals
    allow: from 1 + the models shown better than it to the number of models less those shown worse."""
    rows = []
    for q in comparables:
        means = {m: float(v["value"].mean()) for m, v in q.values.items()}
        order = sorted(means, key=means.get, reverse=q.higher_is_better)
        pairs = paired[paired["quantity"] == q.label]
        for model in order:
            mine = pairs[(pairs["model_a"] == model) | (pairs["model_b"] == model)]
            wins = int((mine["better"] == model).sum())
            losses = int(((mine["better"] != model) & (mine["better"] != "")).sum())
            rows.append({"quantity": q.label, "model": model, "mean": means[model], "rank": order.index(model) + 1,
                         "rank_best": 1 + losses, "rank_worst": len(order) - wins, "models": len(order)})
    return pd.DataFrame(rows, columns=["quantity", "model", "mean", "rank", "rank_best", "rank_worst", "models"])


def card_numbers(cards: Mapping[str, Sequence[Panel]]) -> pd.DataFrame:
    """Every headline of every card: model, study, label, estimate, its 95 % interval, n and unit, the reference
    (chance or zero) and whether the interval covers or lies below it, the table read, the papers' numbers."""
    rows = []
    for model, panels in cards.items():
        for p in panels:
            if p.status != OK:
                rows.append({"model": model, "study": p.study, "status": p.status, "label": "", "reason": p.reason})
                continue
            for h in p.headlines:
                record = asdict(h)
                record["paper"] = "; ".join(f"{name}: {value:.4g}" for name, value in h.paper)
                rows.append({"model": model, "study": p.study, "status": p.status, **record,
                             "covers_reference": h.covers_reference, "below_reference": h.below_reference,
                             "reason": ""})
    return pd.DataFrame(rows, columns=["model", "study", "status", "label", "estimate", "low", "high", "n", "unit",
                                       "reference", "covers_reference", "below_reference", "source", "paper", "note",
                                       "reason"])
