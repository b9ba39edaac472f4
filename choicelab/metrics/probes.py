"""Metrics of the prior-bias / choice-paralysis probes, from per-item choice confidences.

Confidences are the softmax over an instance's choices (the dump's ``prob``). Tests follow the spec: exact binomial
test of pseudo-accuracy vs 1/n, paired Wilcoxon for before/after confidences, t-based 95 % CIs, seeded bootstrap
CIs for accuracies, alpha = .01.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.01


def item_confidences(dump: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, benchmark, item): the confidence vector, label, prediction, label and max confidence."""
    records = []
    for (model, method, benchmark, item_id), group in dump.groupby(["model", "method", "benchmark", "item_id"], sort=True):
        group = group.sort_values("option_id")
        probs = group["prob"].to_numpy(dtype=float)
        label = int(np.flatnonzero(group["is_label"].to_numpy())[0])
        records.append({"model": model, "method": method, "benchmark": benchmark, "item_id": item_id, "probs": probs,
                        "label": label, "pred": int(np.argmax(probs)), "p_label": float(probs[label]),
                        "max_prob": float(probs.max()), "n_choices": len(probs)})
    return pd.DataFrame.from_records(records)


def accuracy(conf: pd.DataFrame) -> float:
    return float((conf["pred"] == conf["label"]).mean()) if len(conf) else float("nan")


def bootstrap_ci(correct: Sequence[bool], seed: int, resamples: int = 1000, level: float = 0.95) -> tuple[float, float]:
    values = np.asarray(correct, dtype=float)
    if values.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = rng.choice(values, size=(resamples, values.size), replace=True).mean(axis=1)
    return float(np.quantile(means, (1 - level) / 2)), float(np.quantile(means, (1 + level) / 2))


def t_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean and t-based confidence interval."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if x.size else float("nan")
    if x.size < 2:
        return mean, float("nan"), float("nan")
    half = stats.t.ppf((1 + level) / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return mean, mean - half, mean + half


def pseudo_accuracy_test(conf: pd.DataFrame) -> dict[str, float]:
    """Pseudo-accuracy (choosing the pseudo-correct / substituted option) vs the bias-free 1/n, exact binomial test."""
    hits = int((conf["pred"] == conf["label"]).sum())
    n = len(conf)
    chance = float((1 / conf["n_choices"]).mean())
    p_value = stats.binomtest(hits, n, chance).pvalue if n else float("nan")
    return {"pseudo_accuracy": hits / n if n else float("nan"), "chance": chance, "n": n, "p_value": float(p_value),
            "significant": bool(p_value < ALPHA)}


def hits_at_k(conf: pd.DataFrame, k: int) -> float:
    """Share of instances whose (pseudo-)correct option is among the k most confident."""
    ranks = [int((row.probs > row.probs[row.label]).sum()) for row in conf.itertuples()]
    return float(np.mean([r < k for r in ranks])) if ranks else float("nan")


def maxprob_selective(original: Sequence[float], perturbed: Sequence[float], seed: int) -> tuple[float, float]:
    """MaxProb selective prediction: the threshold is the mean max-prob of a seeded 50 % half of originals+perturbed;
    returns (threshold, accuracy of "max-prob > threshold => original" on the other half)."""
    values = [(float(v), 1) for v in original] + [(float(v), 0) for v in perturbed]
    order = list(range(len(values)))
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    fit, held = [values[i] for i in order[:half]], [values[i] for i in order[half:]]
    threshold = float(np.mean([v for v, _ in fit]))
    acc = float(np.mean([(v > threshold) == bool(is_original) for v, is_original in held]))
    return threshold, acc


def nra_confidences(original: pd.DataFrame, nra: pd.DataFrame) -> dict[str, float]:
    """No-Right-Answer: ANC / ANC' (mean confidence of the non-substituted wrong options before / after), RAC (real
    answer before), SAC (substituted answer after); ``nra`` rows carry ``original_id``."""
    before = original.set_index("item_id")
    anc, anc_after, rac, sac = [], [], [], []
    for row in nra.itertuples():
        orig = before.loc[row.original_id]
        others = [k for k in range(len(row.probs)) if k != row.label]
        anc.append(float(np.mean(orig["probs"][others])))
        anc_after.append(float(np.mean(row.probs[others])))
        rac.append(float(orig["probs"][row.label]))
        sac.append(float(row.probs[row.label]))
    out = {"ANC": float(np.mean(anc)), "ANC'": float(np.mean(anc_after)), "RAC": float(np.mean(rac)),
           "SAC": float(np.mean(sac))}
    out["ANC'-SAC"] = out["ANC'"] - out["SAC"]
    out["ANC-RAC"] = out["ANC"] - out["RAC"]
    return out


def wilcoxon_paired(before: Sequence[float], after: Sequence[float]) -> float:
    diffs = np.asarray(after, dtype=float) - np.asarray(before, dtype=float)
    if diffs.size == 0 or np.allclose(diffs, 0):
        return float("nan")
    return float(stats.wilcoxon(before, after).pvalue)


def label_balance(conf: pd.DataFrame) -> pd.DataFrame:
    """Share of predictions and of gold labels per option position."""
    n = int(conf["n_choices"].max())
    return pd.DataFrame({"position": range(n),
                         "predicted": [float((conf["pred"] == k).mean()) for k in range(n)],
                         "gold": [float((conf["label"] == k).mean()) for k in range(n)]})


_WORD = re.compile(r"[a-z']+")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def overlap_correlation(prompts: Sequence[str], choices: Sequence[Sequence[str]], probs: Sequence[np.ndarray]) -> tuple[float, float]:
    """Pearson r (and p) between a choice's number of words shared with the prompt and the confidence it gets."""
    overlap, conf = [], []
    for prompt, options, p in zip(prompts, choices, probs, strict=True):
        pw = words(prompt)
        for option, c in zip(options, p, strict=True):
            overlap.append(len(pw & words(option)))
            conf.append(float(c))
    if len(set(overlap)) < 2:
        return float("nan"), float("nan")
    r, p_value = stats.pearsonr(overlap, conf)
    return float(r), float(p_value)
