"""Probes pipeline steps: benchmark subsets -> probed instances -> fine-tuned encoders' dumps -> the paper's tables.

Table and figure functions take the per-item confidence frame (``choicelab.metrics.probes.item_confidences`` joined
with each probed instance's meta: probe, trial, n, sampling, original_id).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import numpy as np
import pandas as pd

from choicelab.items.probes import choice_paralysis, no_question, no_right_answer, wrong_question
from choicelab.items.schema import MCItem
from choicelab.metrics import probes as pm

PAPER_NAMES = {"anli": "aNLI", "hellaswag": "HellaSwag", "piqa": "PIQA", "siqa": "SocialIQA"}


def subsample(items: Sequence[MCItem], size: int | None, seed: int) -> list[MCItem]:
    """A seeded subset of ``size`` items in their original order (all items when size is None or larger)."""
    if size is None or size >= len(items):
        return list(items)
    keep = set(random.Random(seed).sample(range(len(items)), size))
    return [it for i, it in enumerate(items) if i in keep]


def original_instances(items: Sequence[MCItem]) -> list[MCItem]:
    return [
        MCItem(it.benchmark, it.split, f"{it.item_id}/orig", it.prompt, it.choices, it.label,
               {"probe": "orig", "variant": "orig", "original_id": it.item_id, "trial": 0, "donors": [], "pseudo_correct": it.label})
        for it in items
    ]


def probe_all(
    items: Sequence[MCItem],
    *,
    trials: int,
    cp_n: Sequence[int],
    cp_instances: int,
    cp_sampling: Sequence[str],
    seed: int,
    answer_embeddings: np.ndarray | None = None,
    prompt_embeddings: np.ndarray | None = None,
) -> list[MCItem]:
    """The originals and every probe of one benchmark's evaluation items."""
    out = original_instances(items) + no_question(items) + wrong_question(items, trials, seed)
    out += no_right_answer(items, trials, seed)
    distinct_answers = len({it.choices[it.label] for it in items})
    for sampling in cp_sampling:
        for n in cp_n:
            if n > distinct_answers:  # e.g. the bets questions share three fixed answers: no donors exist
                print(f"choice paralysis n={n} skipped: the benchmark has only {distinct_answers} distinct answers")
            elif n <= len(items):
                out += choice_paralysis(items, n, trials, cp_instances, seed, sampling, answer_embeddings,
                                        prompt_embeddings)
    return out


def confidence_frame(dump: pd.DataFrame, probed: pd.DataFrame) -> pd.DataFrame:
    """Per-item confidences joined with each probed instance's meta (probe, trial, n, sampling, original_id)."""
    conf = pm.item_confidences(dump)
    meta = probed[["item_id", "meta"]].assign(meta=lambda f: f["meta"].map(json.loads))
    for key in ("probe", "trial", "n", "sampling", "original_id"):
        meta[key] = meta["meta"].map(lambda m, key=key: m.get(key))
    return conf.merge(meta.drop(columns="meta"), on="item_id", how="left")


def _orig_of(conf: pd.DataFrame) -> pd.DataFrame:
    return conf[conf["probe"] == "orig"].assign(item_id=lambda f: f["original_id"])


def accuracy_table(conf: pd.DataFrame, seed: int, train_sources: dict[str, str]) -> pd.DataFrame:
    records = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        correct = (group["pred"] == group["label"]).tolist()
        low, high = pm.bootstrap_ci(correct, seed)
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model, "dev_items": len(group),
                        "accuracy": float(np.mean(correct)), "ci95_low": low, "ci95_high": high,
                        "fine_tuned_on": train_sources.get(benchmark, "")})
    return pd.DataFrame.from_records(records)


def table1(conf: pd.DataFrame) -> pd.DataFrame:
    """Wrong-Question: bias-free 1/n, average confidence difference (NQ minus WQ, in the pseudo-correct option) and
    the pseudo-accuracy under Wrong-Question (mean +- SE over trials), with the binomial test vs 1/n."""
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        nq, wq = group[group["probe"] == "nq"], group[group["probe"] == "wq"]
        per_trial = [float((t["pred"] == t["label"]).mean()) for _, t in wq.groupby("trial")]
        test = pm.pseudo_accuracy_test(wq)
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model,
                        "bias_free": test["chance"], "avg_confidence_difference": nq["p_label"].mean() - wq["p_label"].mean(),
                        "wq_pseudo_accuracy": float(np.mean(per_trial)),
                        "wq_pseudo_accuracy_se": float(np.std(per_trial, ddof=1) / np.sqrt(len(per_trial))) if len(per_trial) > 1 else float("nan"),
                        "binomial_p": test["p_value"], "significant_at_01": test["significant"]})
    return pd.DataFrame.from_records(records)


def table2(conf: pd.DataFrame, seed: int) -> pd.DataFrame:
    """MaxProb threshold (accuracy of telling originals from perturbed instances) per probe."""
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        original = group[group["probe"] == "orig"]["max_prob"].tolist()
        record = {"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model}
        for probe in ("nq", "wq", "nra"):
            perturbed = group[group["probe"] == probe]["max_prob"].tolist()
            threshold, acc = pm.maxprob_selective(original, perturbed, seed)
            record[f"{probe}_threshold"] = threshold
            record[f"{probe}_accuracy"] = acc
        records.append(record)
    return pd.DataFrame.from_records(records)


def nra_table(conf: pd.DataFrame) -> pd.DataFrame:
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        values = pm.nra_confidences(_orig_of(group), group[group["probe"] == "nra"])
        test = pm.pseudo_accuracy_test(group[group["probe"] == "nra"])
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model, **values,
                        "nra_pseudo_accuracy": test["pseudo_accuracy"], "binomial_p": test["p_value"]})
    return pd.DataFrame.from_records(records)


def choice_paralysis_table(conf: pd.DataFrame) -> pd.DataFrame:
    """c_p - c (confidence in the correct answer under Choice Paralysis minus before), accuracy and hits@k by n."""
    orig = _orig_of(conf).set_index(["model", "item_id"])["p_label"]
    cp = conf[conf["probe"] == "cp"]
    records = []
    for (model, benchmark, sampling, n), group in cp.groupby(["model", "benchmark", "sampling", "n"], sort=True):
        before = [orig.get((model, o), np.nan) for o in group["original_id"]]
        diff = np.asarray(group["p_label"]) - np.asarray(before)
        mean, low, high = pm.t_ci(diff)
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model, "sampling": sampling,
                        "n": int(n), "accuracy": pm.accuracy(group), "chance": 1 / n, "confidence": group["p_label"].mean(),
                        "cp_minus_c": mean, "ci95_low": low, "ci95_high": high,
                        "wilcoxon_p": pm.wilcoxon_paired(before, group["p_label"].tolist()),
                        **{f"hits@{k}": pm.hits_at_k(group, k) for k in (1, 2, 3, 5) if k <= n}})
    return pd.DataFrame.from_records(records)


def label_balance_table(conf: pd.DataFrame) -> pd.DataFrame:
    frames = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        frames.append(pm.label_balance(group).assign(benchmark=PAPER_NAMES.get(benchmark, benchmark), model=model))
    return pd.concat(frames, ignore_index=True)[["benchmark", "model", "position", "predicted", "gold"]]


def length_table(conf: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Length (characters) of the selected choice vs the other choices, with t-based 95 % CIs."""
    choices = dict(zip(items["item_id"], items["choices"], strict=True))
    records = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        selected, other = [], []
        for row in group.itertuples():
            options = choices[row.original_id]
            selected.append(len(options[row.pred]))
            other += [len(c) for k, c in enumerate(options) if k != row.pred]
        s_mean, s_low, s_high = pm.t_ci(selected)
        o_mean, o_low, o_high = pm.t_ci(other)
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model, "selected_length": s_mean,
                        "selected_ci95": f"[{s_low:.1f}, {s_high:.1f}]", "other_length": o_mean,
                        "other_ci95": f"[{o_low:.1f}, {o_high:.1f}]"})
    return pd.DataFrame.from_records(records)


def overlap_table(conf: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    lookup = items.set_index("item_id")
    records = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        rows = lookup.loc[group["original_id"]]
        r, p = pm.overlap_correlation(rows["prompt"].tolist(), [list(c) for c in rows["choices"]], group["probs"].tolist())
        records.append({"benchmark": PAPER_NAMES.get(benchmark, benchmark), "model": model, "pearson_r": r, "p_value": p})
    return pd.DataFrame.from_records(records)


def compare_paper(table1_ours: pd.DataFrame, table2_ours: pd.DataFrame, paper1: pd.DataFrame, paper2: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 1 and Table 2 numbers beside ours (ours are for the configured encoders, not RoBERTa-large)."""
    records = []
    for row in paper1.itertuples():
        ours = table1_ours[table1_ours["benchmark"] == row.benchmark]
        for model_row in ours.itertuples() if len(ours) else [None]:
            records.append({"table": "Table 1", "benchmark": row.benchmark, "quantity": "avg confidence difference",
                            "paper": row.avg_confidence_difference, "model": getattr(model_row, "model", ""),
                            "ours": getattr(model_row, "avg_confidence_difference", float("nan"))})
            records.append({"table": "Table 1", "benchmark": row.benchmark, "quantity": "WQ pseudo-accuracy",
                            "paper": row.wq_pseudo_accuracy, "model": getattr(model_row, "model", ""),
                            "ours": getattr(model_row, "wq_pseudo_accuracy", float("nan"))})
    for row in paper2.itertuples():
        ours = table2_ours[table2_ours["benchmark"] == row.benchmark]
        for model_row in ours.itertuples() if len(ours) else [None]:
            for quantity in ("threshold", "accuracy"):
                records.append({"table": "Table 2", "benchmark": row.benchmark, "quantity": f"{row.probe} {quantity}",
                                "paper": getattr(row, quantity), "model": getattr(model_row, "model", ""),
                                "ours": getattr(model_row, f"{row.probe}_{quantity}", float("nan"))})
    return pd.DataFrame.from_records(records)


def causal_subset(probed: Sequence[MCItem], n_originals: int | None, seed: int) -> list[MCItem]:
    """Every probed instance of a seeded subset of ``n_originals`` original items (bounds causal-LM scoring cost)."""
    originals = sorted({it.meta["original_id"] for it in probed})
    if n_originals is not None and n_originals < len(originals):
        originals = random.Random(seed).sample(originals, n_originals)
    keep = set(originals)
    return [it for it in probed if it.meta["original_id"] in keep]


def probe_key(row: pd.Series) -> str:
    if row["probe"] == "cp":
        return f"cp n={int(row['n'])} {row['sampling']}"
    return {"orig": "original (accuracy)", "nq": "No-Question", "wq": "Wrong-Question", "nra": "No-Right-Answer"}[row["probe"]]


def robustness_matrix(conf: pd.DataFrame, seed: int) -> pd.DataFrame:
    """benchmark x model x method x probe -> pseudo-accuracy minus chance (1/n), with bootstrap 95 % CIs."""
    conf = conf.assign(probe_name=conf.apply(probe_key, axis=1))
    records = []
    for (benchmark, model, method, probe), group in conf.groupby(["benchmark", "model", "method", "probe_name"], sort=True):
        correct = (group["pred"] == group["label"]).to_numpy(dtype=float)
        chance = float((1 / group["n_choices"]).mean())
        low, high = pm.bootstrap_ci(correct, seed)
        records.append({"benchmark": benchmark, "model": model, "method": method, "probe": probe, "items": len(group),
                        "pseudo_accuracy": float(correct.mean()), "chance": chance,
                        "minus_chance": float(correct.mean()) - chance, "ci95_low": low - chance,
                        "ci95_high": high - chance})
    return pd.DataFrame.from_records(records)


def choice_paralysis_groups(probed: Sequence[MCItem], sampling: str = "random") -> dict[int, list[MCItem]]:
    """Choice Paralysis instances of one sampling, first trial only, by n (what the timing table scores)."""
    groups: dict[int, list[MCItem]] = {}
    for item in probed:
        meta = item.meta
        if meta.get("probe") == "cp" and meta.get("sampling") == sampling and meta.get("trial", 0) == 0:
            groups.setdefault(int(meta["n"]), []).append(item)
    return dict(sorted(groups.items()))


def timing_table(timings: pd.DataFrame) -> pd.DataFrame:
    """Seconds per instance by n, and relative to the smallest n (paper, PIQA: 50 instances took 30 min at n = 5
    and 98 min at n = 15, i.e. 3.27 times longer: near-linear in n). Wall-clock numbers: they vary run to run."""
    frame = timings.copy()
    frame["seconds_per_instance"] = frame["seconds"] / frame["instances"]
    frame["seconds_per_instance_per_choice"] = frame["seconds_per_instance"] / frame["n"]
    smallest = frame.sort_values("n").groupby(["benchmark", "model"])["seconds_per_instance"].transform("first")
    frame["relative_to_smallest_n"] = frame["seconds_per_instance"] / smallest
    frame["paper_relative_piqa"] = frame["n"].map({5: 1.0, 15: 98 / 30})
    return frame.sort_values(["benchmark", "model", "n"]).reset_index(drop=True)
