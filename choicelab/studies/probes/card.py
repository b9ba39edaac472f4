"""The probes' card panel: pseudo-accuracy minus chance per probe and benchmark (intervals clustered by original
item, greyed where they cover zero), competence flags, the paper's RoBERTa on the Wrong-Question probe."""

from __future__ import annotations

from dataclasses import replace
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
    mean_headline,
    read_table,
    table_path,
)
from choicelab.dumps import dump_files, item_rows
from choicelab.studies.probes.artifacts import ARTIFACTS

TITLE = "Probes: prior bias and choice paralysis"


PROBE_ORDER = ("No-Question", "No-Right-Answer", "Wrong-Question")
BENCHMARK_KEYS = {"socialiqa": "siqa"}
COMMONSENSE = ("anli", "hellaswag", "piqa", "siqa")  # the paper tables' benchmark names -> the robustness matrix's


def _model_rows(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """Rows of ``model``: its own name, else its first seed's label (``<model> seed N``)."""
    names = frame["model"].astype(str)
    exact = frame[names == model]
    if len(exact):
        return exact
    seeded = sorted(n for n in names.unique() if n.startswith(f"{model} seed "))
    return frame[names == seeded[0]] if seeded else exact


ORIGINAL = "original (accuracy)"  # the robustness matrix's row of the unprobed items
BY_ITEM = "clustered by original item"  # a probed item repeats its original: one unit


def probes_panel(root: str | Path, model: str) -> Panel:
    """Pseudo-accuracy minus chance under No-Question, No-Right-Answer, Wrong-Question and Choice Paralysis per
    benchmark (95 % intervals clustered by original item, from the robustness matrix; a cell whose interval covers
    zero is greyed); a competence flag on every benchmark whose original accuracy is not above chance (probe
    statistics of a model at chance are not interpretable), and the fine-tuned encoders' gate verdict; the paper's
    Table 1 numbers."""
    path = table_path(root, "probes", ARTIFACTS, "robustness_matrix")
    m = _model_rows(read_table(path), model)
    if m.empty:
        raise ValueError(f"{path}: no rows for {model!r}")
    if m["method"].nunique() > 1:  # a causal model: the letter scorer is the card's (one number per cell)
        method = "letter_prob" if "letter_prob" in set(m["method"]) else sorted(m["method"].unique())[0]
        m = m[m["method"] == method]
    probe = m["probe"].astype(str)
    m = m.assign(probe_group=probe.where(~probe.str.startswith("cp "), "Choice Paralysis (" + probe.str[3:] + ")"),
                 low=m["clustered_low"].astype(float), high=m["clustered_high"].astype(float))
    cells = [Headline(f"{r.probe_group}, {r.benchmark}", float(r.minus_chance), float(r.low), float(r.high),
                      int(r.n_clusters), "original items", str(path), 0.0, interval=BY_ITEM)
             for r in m.itertuples()]
    detail = pd.DataFrame({"benchmark": m["benchmark"].astype(str), "probe": m["probe_group"],
                           "minus_chance": m["minus_chance"].astype(float), "low": m["low"], "high": m["high"],
                           "original_items": m["n_clusters"].astype(int),
                           "grey": [h.covers_reference for h in cells]}).reset_index(drop=True)
    originals = [replace(h, label=f"original accuracy minus chance, {h.label.split(', ', 1)[1]}")
                 for h, g in zip(cells, m["probe_group"], strict=True) if g == ORIGINAL]
    flags = list(chance_flags("probes", originals, "chance (0 on this scale)",
                              ": probe statistics of this benchmark are not interpretable"))
    headlines = []
    # the headline means are over the commonsense benchmarks (the paper's); the detail keeps every benchmark run
    commonsense = m[m["benchmark"].astype(str).str.lower().isin(COMMONSENSE)]
    m_all, m = m, (commonsense if len(commonsense) else m)
    for group in PROBE_ORDER:
        rows = m[m["probe_group"] == group]
        if len(rows) == 1:  # one benchmark: its own interval, clustered by original item
            cell = cells[m_all.index.get_loc(rows.index[0])]
            headlines.append(replace(cell, label=f"{group}: pseudo-accuracy minus chance, {rows['benchmark'].iloc[0]}"))
        elif len(rows):
            headlines.append(mean_headline(f"{group}: pseudo-accuracy minus chance, mean over benchmarks",
                                            rows["minus_chance"], "benchmarks", str(path), 0.0,
                                            note=f"{int(rows['n_clusters'].sum())} original items in all"))
    cp = m[m["probe_group"].str.startswith("Choice Paralysis")]
    if len(cp):
        headlines.append(mean_headline("Choice Paralysis: hits minus chance, mean over benchmarks and settings",
                                        cp["minus_chance"], "cells", str(path), 0.0))
    headlines += originals
    compare_path = table_path(root, "probes", ARTIFACTS, "compare_paper")
    sources = [str(path)]
    if compare_path.is_file():
        compare = read_table(compare_path)
        wq = compare[compare["quantity"].astype(str) == "WQ pseudo-accuracy"].drop_duplicates("benchmark")
        wq_rows = m[m["probe_group"] == "Wrong-Question"]
        chance = dict(zip(wq_rows["benchmark"].astype(str).str.lower(), wq_rows["chance"].astype(float),
                          strict=False))
        # the paper's WQ pseudo-accuracy on the card's scale: minus the benchmark's chance (bias-free) level
        key = {b: BENCHMARK_KEYS.get(str(b).lower(), str(b).lower()) for b in wq["benchmark"]}
        paper = tuple((f"RoBERTa, {r.benchmark}", float(r.paper) - chance[key[r.benchmark]])
                      for r in wq.itertuples() if finite(r.paper) and key[r.benchmark] in chance)
        headlines = [replace(h, paper=paper) if h.label.startswith("Wrong-Question") else h
                     for h in headlines]
        sources.append(str(compare_path))
    verdicts = sorted({str(v) for v in m.get("model_competence", pd.Series(dtype=str)).dropna() if str(v)})
    flags += [f"probes: the fine-tuned checkpoint's competence gate: {v}" for v in verdicts
              if "not" in v or "below" in v]
    caption = (f"pseudo-accuracy minus chance per benchmark and probe, {m_all['model'].iloc[0]}, scorer "
               f"{m_all['method'].iloc[0]}; 95 % intervals clustered by original item; grey: the interval covers "
               f"zero")
    return Panel("probes", TITLE, OK, headlines=tuple(headlines), detail=detail,
                 flags=tuple(flags), sources=tuple(sources), extra={"detail_caption": caption})


def _dumps_of(root: Path, model: str) -> list[Path]:
    return dump_files(root, "probes", model)


def _originals_per_item(root: Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's hits on the original (unprobed) items per benchmark and scorer, from its logit dumps (variant
    ``orig``; each original its own unit): the index compares models on them."""
    out = {}
    for path in _dumps_of(root, model):
        rows = item_rows(pd.read_parquet(path), model)
        rows = rows[(rows["variant"] == "orig") & rows["correct"].notna()]
        for (benchmark, method), group in rows.groupby(["benchmark", "method"], sort=True):
            out[f"probes: original accuracy, {benchmark} ({method})"] = item_values(group["item_id"], group["correct"])
    return out


CARD = CardEntry(
    title=TITLE,
    axis="pseudo-accuracy minus chance (0: no prior bias shown; the original items' accuracy: higher is better)",
    tables=("robustness_matrix", "compare_paper"),
    panel=probes_panel,
    models={"causal": ("causal_models",), "encoder": ("models",)},
    scale_keys=("benchmarks", "causal_benchmarks", "dev_size", "train_size", "causal_items", "seeds"),
    # the paper comparison reads the fine-tuned encoders' confidences: a card run with no encoder does not ask for
    # it (the panel then reads the robustness matrix only, without the paper's RoBERTa)
    needs={"compare_paper": "models"},
    benchmark_lists=("causal_benchmarks",),
    per_item=(PerItem(True, "original items", _dumps_of, _originals_per_item),),
)
