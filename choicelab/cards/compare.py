"""Card models side by side: every pair of models compared on the items both answered, and every card number as data.

A headline is compared item by item where a study's card entry reads it per item from the card run (its
``per_item``: STEER's questions, revealed belief's settings, the scoring methods' items, the probes' original items in
the logit dumps; the module names no study): the paired
difference and its interval clustered by the study's sampled unit (:func:`choicelab.stats.paired_difference`), and
each model's rank with the range of ranks its paired intervals allow. Every card number (estimate, interval, n,
unit, reference, source) is written as a table (``cards.parquet``) and with the comparisons as JSON
(``cards.json``), so many models are compared without scraping pages.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from choicelab.cards.panels import OK, Panel, card_entries
from choicelab.stats import paired_difference


@dataclass(frozen=True)
class Comparable:
    """One quantity's values per item for every model that has it."""

    label: str
    study: str
    higher_is_better: bool
    cluster_unit: str
    values: dict[str, pd.DataFrame]  # model -> its values per item (:data:`~choicelab.card_entry.VALUE_COLUMNS`)


def per_item_values(run_root: str | Path, models: Sequence[str]) -> list[Comparable]:
    """Every quantity with per-item values for at least one model: what each study's card entry compares item by item
    (its ``per_item``, :class:`~choicelab.card_entry.PerItem`), for the studies the card run ran."""
    out: dict[tuple[str, str], Comparable] = {}
    for study, entry in card_entries().items():
        for quantity in entry.per_item:
            for model in models:
                for label, values in quantity.read(Path(run_root), model).items():
                    if len(values):
                        found = out.setdefault((study, label), Comparable(
                            label, study, quantity.higher_is_better, quantity.cluster_unit, {}))
                        found.values[model] = values
    return list(out.values())


def per_item_files(run_root: str | Path, models: Sequence[str]) -> list[str]:
    """The card run's files :func:`per_item_values` reads (the index's provenance names them)."""
    return sorted({str(path) for entry in card_entries().values() for quantity in entry.per_item for model in models
                   for path in quantity.files(Path(run_root), model) if path.is_file()})


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
    """Every headline of every card: model, study, label, estimate, its 95 % interval and how it is computed, n and
    unit, the reference (chance or zero) and whether the interval covers or lies below it, the table read, the papers'
    numbers."""
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
    return pd.DataFrame(rows, columns=["model", "study", "status", "label", "estimate", "low", "high", "interval",
                                       "n", "unit", "reference", "covers_reference", "below_reference", "source",
                                       "paper", "note", "reason"])
