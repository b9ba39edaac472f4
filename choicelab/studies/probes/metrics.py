"""Metrics of the prior-bias / choice-paralysis probes, from per-item choice confidences.

Confidences are the softmax over an instance's choices (the dump's ``prob``). Tests follow the spec: exact binomial
test of pseudo-accuracy vs 1/n, paired Wilcoxon for before/after confidences, t-based 95 % CIs, alpha = .01 (the
paper's 99 %). Every test runs on statistics that are independent: one value per instance (averaged over a probe's
trials), or one test per trial; proportions get exact (Clopper-Pearson) intervals, valid and of non-zero width at
small n.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from choicelab.stats import accuracy_intervals, exact_interval, t_interval
from choicelab.studies.probes.scoring import ensemble_label, split_label

ALPHA = 0.01


def item_confidences(dump: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, benchmark, item): the confidence vector, label, prediction, label and max confidence."""
    records = []
    for (model, method, benchmark, item_id), group in dump.groupby(
        ["model", "method", "benchmark", "item_id"], sort=True
    ):
        group = group.sort_values("option_id")
        probs = group["prob"].to_numpy(dtype=float)
        label = int(np.flatnonzero(group["is_label"].to_numpy())[0])
        records.append({"model": model, "method": method, "benchmark": benchmark, "item_id": item_id, "probs": probs,
                        "label": label, "pred": int(np.argmax(probs)), "p_label": float(probs[label]),
                        "max_prob": float(probs.max()), "n_choices": len(probs)})
    return pd.DataFrame.from_records(records)


def confidence_frame(dump: pd.DataFrame, probed: pd.DataFrame) -> pd.DataFrame:
    """Per-item confidences joined with each probed instance's meta (probe, trial, n, sampling, original_id)."""
    conf = item_confidences(dump)
    meta = probed[["item_id", "meta"]].assign(meta=lambda f: f["meta"].map(json.loads))
    for key in ("probe", "trial", "n", "sampling", "original_id"):
        meta[key] = meta["meta"].map(lambda m, key=key: m.get(key))
    return conf.merge(meta.drop(columns="meta"), on="item_id", how="left")


def ensemble_confidences(conf: pd.DataFrame) -> pd.DataFrame:
    """The summed-confidence ensemble of each encoder's seed checkpoints (isi-nlp/ai2's ensemble.py sums the members'
    confidence vectors and takes the argmax): per item, the members' softmax confidences summed and divided by their
    number (a distribution again; its argmax is the summed vote), named :func:`.scoring.ensemble_label`. Only
    encoders with two or more seed checkpoints, and only items every member scored, are ensembled."""

    labels = conf["model"].map(split_label)
    frame = conf.assign(_base=[b for b, _ in labels], _seed=[s for _, s in labels])
    frame = frame[frame["_seed"].notna()]
    records = []
    for (base, _method, _benchmark), group in frame.groupby(["_base", "method", "benchmark"], sort=True):
        members = sorted(group["_seed"].unique())
        if len(members) < 2:
            continue
        name = ensemble_label(base, len(members))
        for _, rows in group.groupby("item_id", sort=True):
            if len(rows) != len(members):
                continue
            probs = np.mean(np.stack(rows["probs"].to_list()), axis=0)
            first = rows.iloc[0]
            label = int(first["label"])
            records.append({**first.drop(["_base", "_seed"]).to_dict(), "model": name, "probs": probs,
                            "pred": int(np.argmax(probs)), "p_label": float(probs[label]),
                            "max_prob": float(probs.max())})
    return pd.DataFrame.from_records(records, columns=list(conf.columns))


def read_frames(paths: Sequence[str]) -> pd.DataFrame:
    """The rows of several Parquet files (dumps, probed instances, item files) in one frame."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def read_confidences(path: str) -> pd.DataFrame:
    """The confidence frame written by rule probes_confidences, each ``probs`` an array again."""
    conf = pd.read_parquet(path)
    conf["probs"] = conf["probs"].map(np.asarray)
    return conf


def accuracy(conf: pd.DataFrame) -> float:
    return float((conf["pred"] == conf["label"]).mean()) if len(conf) else float("nan")


def _trials(conf: pd.DataFrame) -> list[pd.DataFrame]:
    if "trial" not in conf or conf["trial"].isna().all():
        return [conf]
    return [group for _, group in conf.groupby("trial", sort=True)]


def per_instance(conf: pd.DataFrame) -> pd.DataFrame:
    """One row per original instance: the hit rate (pred == label) and the (pseudo-)correct option's confidence,
    averaged over the instance's trials: independent values for the tests."""
    frame = conf.assign(hit=(conf["pred"] == conf["label"]).astype(float), chance=1 / conf["n_choices"])
    columns = [c for c in ("hit", "p_label", "chance") if c in frame]
    return frame.groupby("original_id", sort=True)[columns].mean()


CLUSTERED = ("clustered_low", "clustered_high", "n_clusters", "design_effect", "min_detectable_difference")


def clustered_by_original(conf: pd.DataFrame) -> dict[str, float]:
    """The (pseudo-)accuracy's interval clustered by the original item: every row (an instance in one trial) a 0/1,
    its cluster the original it perturbs (:func:`choicelab.stats.accuracy_intervals`), with the design effect of the
    repeats and the minimum detectable difference at the rows' n. Its centre is the mean over rows, equal to the mean
    over instances when every instance has the same number of trials."""
    hits = (conf["pred"] == conf["label"]).astype(float).to_numpy()
    row = accuracy_intervals(hits, conf["original_id"].tolist())
    return {key: row[key] for key in CLUSTERED}


def pseudo_accuracy_test(conf: pd.DataFrame) -> dict[str, float]:
    """Pseudo-accuracy (choosing the pseudo-correct / substituted option) vs the bias-free 1/n: an exact binomial
    test within each trial (its instances are independent); ``p_value`` is the largest over the trials, so
    "significant" means significant in every trial. The exact 95 % interval counts each instance once (its hit
    rate over trials), not each trial; the clustered one (:func:`clustered_by_original`) counts every row, clustered
    by its original."""
    chance = float((1 / conf["n_choices"]).mean()) if len(conf) else float("nan")
    p_values = []
    for trial in _trials(conf):
        hits = int((trial["pred"] == trial["label"]).sum())
        p_values.append(stats.binomtest(hits, len(trial), float((1 / trial["n_choices"]).mean())).pvalue)
    per = per_instance(conf) if len(conf) else pd.DataFrame({"hit": []})
    n = len(per)
    low, high = exact_interval(float(per["hit"].sum()), n)
    p_value = float(max(p_values)) if n else float("nan")
    return {"pseudo_accuracy": float(per["hit"].mean()) if n else float("nan"), "ci95_low": low, "ci95_high": high,
            "chance": chance, "n": n, "trials": len(p_values), "p_value": p_value,
            "significant": bool(p_value < ALPHA), **(clustered_by_original(conf) if n else dict.fromkeys(CLUSTERED))}


def mcnemar_vs_before(orig: pd.DataFrame, probed: pd.DataFrame) -> float:
    """Pseudo-accuracy after a probe vs accuracy before, paired by instance: an exact McNemar test within each trial;
    the largest p over the trials."""
    before = (orig.set_index("original_id")["pred"] == orig.set_index("original_id")["label"])
    p_values = []
    for trial in _trials(probed):
        after = (trial.set_index("original_id")["pred"] == trial.set_index("original_id")["label"])
        pairs = pd.concat([before.rename("before"), after.rename("after")], axis=1, join="inner")
        worse = int((pairs["before"] & ~pairs["after"]).sum())
        better = int((~pairs["before"] & pairs["after"]).sum())
        p_values.append(1.0 if worse + better == 0 else stats.binomtest(worse, worse + better, 0.5).pvalue)
    return float(max(p_values)) if p_values else float("nan")


def signed_rank(differences: Sequence[float], alternative: str = "two-sided") -> float:
    """Wilcoxon signed-rank p of per-instance differences (NaN when there are none or all are zero)."""
    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    if d.size == 0 or np.allclose(d, 0):
        return float("nan")
    return float(stats.wilcoxon(d, alternative=alternative).pvalue)


def wrong_question_tests(orig: pd.DataFrame, nq: pd.DataFrame, wq: pd.DataFrame) -> dict[str, float]:
    """The significance statements of Table 1 (Sec. 3.1.2), each at 99 % on independent statistics:
    pseudo-accuracy vs 1/n (exact binomial per trial) and vs the accuracy before (exact McNemar per trial); the
    No-Question minus Wrong-Question confidence difference > 0, the Wrong-Question confidence vs before and vs the
    ideal 1/n (Wilcoxon signed-rank on per-instance values, Wrong-Question averaged over its trials)."""
    wq_inst, nq_inst, orig_inst = per_instance(wq), per_instance(nq), per_instance(orig)
    diff = (nq_inst["p_label"] - wq_inst["p_label"]).dropna()
    vs_before = (wq_inst["p_label"] - orig_inst["p_label"]).dropna()
    test = pseudo_accuracy_test(wq)
    d_mean, d_low, d_high = t_interval(diff)
    out = {
        "n": test["n"], "trials": test["trials"], "chance": test["chance"],
        "pseudo_accuracy_vs_chance_p": test["p_value"],
        "pseudo_accuracy_vs_before_p": mcnemar_vs_before(orig, wq),
        "confidence_difference": d_mean, "confidence_difference_ci95_low": d_low,
        "confidence_difference_ci95_high": d_high,
        "confidence_difference_gt0_p": signed_rank(diff, "greater"),
        "confidence": float(wq_inst["p_label"].mean()) if len(wq_inst) else float("nan"),
        "confidence_vs_before_p": signed_rank(vs_before),
        "confidence_vs_ideal_p": signed_rank(wq_inst["p_label"] - wq_inst["chance"]),
    }
    for key in [k for k in out if k.endswith("_p")]:
        out[key.removesuffix("_p") + "_significant_99"] = bool(out[key] < ALPHA)
    return out


def label_ranks(conf: pd.DataFrame) -> list[int]:
    """Per row, how many options are more confident than the (pseudo-)correct one (0: it is the top choice)."""
    return [int((row.probs > row.probs[row.label]).sum()) for row in conf.itertuples()]


def hits_at_k(conf: pd.DataFrame, k: int) -> float:
    """Share of instances whose (pseudo-)correct option is among the k most confident."""
    ranks = label_ranks(conf)
    return float(np.mean([r < k for r in ranks])) if ranks else float("nan")


def maxprob_selective(original: Mapping[str, float], perturbed: Mapping[str, float], seed: int) -> dict[str, float]:
    """MaxProb selective prediction as in the paper (Sec. 3.3), for one repeat.

    ``original`` and ``perturbed`` map an instance id to the max-prob of its original and of its perturbed version.
    The instances (not the values) are split 50/50 (seeded); the threshold is the mean max-prob over the first half's
    originals and their perturbed versions (1:1); "max-prob > threshold => original" is scored on the other half's
    originals and perturbed versions. Always answering "perturbed" (or "original") scores exactly 0.5.
    """
    ids = sorted(set(original) & set(perturbed))
    if len(ids) < 2:
        raise ValueError("MaxProb needs at least two instances with an original and a perturbed version")
    random.Random(seed).shuffle(ids)
    fit, held = ids[: len(ids) // 2], ids[len(ids) // 2 :]
    threshold = float(np.mean([original[i] for i in fit] + [perturbed[i] for i in fit]))
    right = [original[i] > threshold for i in held] + [not perturbed[i] > threshold for i in held]
    return {"threshold": threshold, "accuracy": float(np.mean(right)), "fit_instances": len(fit),
            "eval_instances": len(held)}


def nra_confidences(original: pd.DataFrame, nra: pd.DataFrame) -> dict[str, float]:
    """No-Right-Answer: ANC / ANC' (mean confidence of the non-substituted wrong options before / after), RAC (real
    answer before), SAC (substituted answer after), the bars ANC'-SAC and ANC-RAC with their t 95 % intervals
    (``_ci95_low``, ``_ci95_high``) and standard deviations over instances (each instance's values averaged over its
    trials first; the paper's Fig. 4
    bars of 0.37-0.75 match SDs: an SE at its n >= 1,532 is below 0.026); ``nra`` rows carry ``original_id``."""
    before = original.set_index("item_id")
    rows = []
    for row in nra.itertuples():
        orig = before.loc[row.original_id]
        others = [k for k in range(len(row.probs)) if k != row.label]
        rows.append({"original_id": row.original_id, "ANC": float(np.mean(orig["probs"][others])),
                     "ANC'": float(np.mean(row.probs[others])), "RAC": float(orig["probs"][row.label]),
                     "SAC": float(row.probs[row.label])})
    per = pd.DataFrame(rows).groupby("original_id").mean()
    per["ANC'-SAC"] = per["ANC'"] - per["SAC"]
    per["ANC-RAC"] = per["ANC"] - per["RAC"]
    out = {key: float(per[key].mean()) for key in ("ANC", "ANC'", "RAC", "SAC", "ANC'-SAC", "ANC-RAC")}
    for bar in ("ANC'-SAC", "ANC-RAC"):
        _, out[f"{bar}_ci95_low"], out[f"{bar}_ci95_high"] = t_interval(per[bar])
        out[f"{bar}_sd"] = float(per[bar].std(ddof=1)) if len(per) > 1 else float("nan")
    return out


def label_balance(conf: pd.DataFrame) -> pd.DataFrame:
    """Share of predictions and of gold labels per option position."""
    n = int(conf["n_choices"].max())
    return pd.DataFrame({"position": range(n),
                         "predicted": [float((conf["pred"] == k).mean()) for k in range(n)],
                         "gold": [float((conf["label"] == k).mean()) for k in range(n)]})


_WORD = re.compile(r"[a-z0-9']+")


def word_list(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, apostrophes), in order."""
    return _WORD.findall(text.lower())


def words(text: str) -> set[str]:
    return set(word_list(text))


def n_words(text: str) -> int:
    return len(word_list(text))


def overlap_frequencies(prompts: Sequence[str], choices: Sequence[Sequence[str]],
                        selected: Sequence[int]) -> tuple[Counter, Counter]:
    """Word frequencies of the prompt-overlapping words (tokens of a choice that also occur in its prompt) in the
    selected choices and in the non-selected choices."""
    chosen, other = Counter(), Counter()
    for prompt, options, pick in zip(prompts, choices, selected, strict=True):
        prompt_words = words(prompt)
        for k, option in enumerate(options):
            (chosen if k == pick else other).update(w for w in word_list(option) if w in prompt_words)
    return chosen, other


def overlap_correlation(prompts: Sequence[str], choices: Sequence[Sequence[str]],
                        selected: Sequence[int]) -> dict[str, float]:
    """The paper's irregularity statistic (Sec. 4.1): Pearson r between the word-frequency distributions of
    prompt-overlapping words in the selected and in the non-selected choices, over their joint vocabulary."""
    chosen, other = overlap_frequencies(prompts, choices, selected)
    vocabulary = sorted(set(chosen) | set(other))
    out = {"vocabulary": len(vocabulary), "selected_tokens": sum(chosen.values()),
           "other_tokens": sum(other.values()), "pearson_r": float("nan"), "ci95_low": float("nan"),
           "ci95_high": float("nan"), "p_value": float("nan"),
           "top_words": " ".join(w for w, _ in (chosen + other).most_common(8))}
    if len(vocabulary) >= 3:
        x = np.array([chosen[w] for w in vocabulary], dtype=float)
        y = np.array([other[w] for w in vocabulary], dtype=float)
        if x.std() > 0 and y.std() > 0:
            result = stats.pearsonr(x / x.sum(), y / y.sum())
            out["pearson_r"], out["p_value"] = float(result.statistic), float(result.pvalue)
            if len(vocabulary) > 3:  # Fisher-z 95 % interval, n = vocabulary size
                ci = result.confidence_interval(0.95)
                out["ci95_low"], out["ci95_high"] = float(ci.low), float(ci.high)
    return out
