"""Tables of the probes study, from the per-item confidence frame (:func:`.metrics.confidence_frame`: each item's
confidences joined with its probed instance's meta: probe, trial, n, sampling, original_id)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from choicelab.stats import (
    accuracy_intervals,
    exact_interval,
    min_detectable_difference,
    paired_difference,
    t_interval,
)
from choicelab.studies.probes import metrics as pm
from choicelab.studies.probes.competence import COLUMN
from choicelab.studies.probes.paper import paper_control, paper_name
from choicelab.studies.probes.scoring import CONTROL_SUFFIX, checkpoint_label, split_label


def train_info(train: pd.DataFrame) -> dict[str, dict]:
    """benchmark -> what its checkpoint was fine-tuned and selected on (for the accuracy table)."""
    out: dict[str, dict] = {}
    for benchmark, group in train.groupby("benchmark", sort=True):
        metas = [json.loads(m) for m in group["meta"]]
        out[benchmark] = {"train_source": metas[0].get("train_source", ""),
                          "train_items": sum(m.get("role", "fit") == "fit" for m in metas),
                          "selection": metas[0].get("selection", "")}
    return out


def _orig_of(conf: pd.DataFrame) -> pd.DataFrame:
    return conf[conf["probe"] == "orig"].assign(item_id=lambda f: f["original_id"])


def training_records(checkpoints: list[str]) -> dict[str, dict]:
    """checkpoint label (``<encoder> seed <s>``) and benchmark -> its training record (``model.json``)."""
    from choicelab.lm.loading import read_model_json

    out: dict[str, dict] = {}
    for path in checkpoints:
        meta = read_model_json(path)
        model, benchmark, seed = Path(path).name.rsplit("__", 2)
        out[f"{checkpoint_label(model, int(seed.removeprefix('seed')))}|{benchmark}"] = meta["training"]
    return out


def _recipe(training: dict) -> str:
    p = training.get("params", {})
    frozen = "word embeddings frozen" if p.get("freeze_word_embeddings") else "nothing frozen"
    return (f"lr {p.get('learning_rate')!r}, batch {p.get('batch_size')} x accumulation {p.get('grad_accumulation')}, "
            f"{training.get('steps')} steps ({training.get('epochs_run', 0):.2f} of {p.get('max_epochs')} epochs), "
            f"warmup {p.get('warmup_steps')}, max_length {p.get('max_length')}, {frozen}, "
            f"{training.get('precision', 'fp32')}")


def accuracy_table(conf: pd.DataFrame, train_info: dict[str, dict], gate: pd.DataFrame,
                   training: dict[str, dict]) -> pd.DataFrame:
    """Dev accuracy of each fine-tuned checkpoint (and ensemble) with its exact 95 % CI (each dev item is asked once:
    its own unit, so no clustered interval) and the minimum detectable difference at its n, the competence gate (chance,
    the untrained-head control's accuracy, the verdict: :mod:`.competence`), the training seed and recipe (from the
    checkpoint's ``model.json``), the best held-out accuracy that selected it, and what it was fine-tuned and selected
    on (``train_info``: benchmark -> {train_source, train_items, selection})."""

    by_paper = {paper_name(b): b for b in conf["benchmark"].unique()}
    records = []
    for row in gate.itertuples():
        benchmark = by_paper.get(row.benchmark, row.benchmark)
        info = train_info.get(benchmark, {})
        record = training.get(f"{row.model}|{benchmark}", {})
        seed = split_label(row.model)[1]
        records.append({"benchmark": row.benchmark, "model": row.model, "seed": seed, "gate_items": row.dev_items,
                        "accuracy": row.accuracy, "ci95_low": row.ci95_low, "ci95_high": row.ci95_high,
                        "min_detectable_difference": min_detectable_difference(int(row.dev_items)),
                        "chance": row.chance, "control_accuracy": row.control_accuracy,
                        "control_items": row.control_items, "above_chance": row.above_chance,
                        "above_control": row.above_control, "meets_premise": row.meets_premise,
                        "gate_source": row.gate_source, COLUMN: getattr(row, COLUMN),
                        "heldout_best_accuracy": record.get("best_dev_accuracy", float("nan")),
                        "recipe": _recipe(record) if record else "ensemble: summed confidences of the seeds",
                        "fine_tuned_on": info.get("train_source", ""), "train_items": info.get("train_items"),
                        "model_selection": info.get("selection", "")})
    return pd.DataFrame.from_records(records)


def confidence_difference(nq: pd.DataFrame, wq: pd.DataFrame) -> tuple[float, float, float, int]:
    """(mean, low, high, n) of the No-Question minus Wrong-Question confidence in the pseudo-correct option, paired
    per instance (``original_id``; Wrong-Question averaged over its trials): the instances are the sampling unit, so
    the t 95 % interval (:func:`choicelab.stats.paired_difference`) is over the n instances probed both ways. Equal
    to the difference of the two means when every instance has the same number of trials."""
    per_instance = pd.concat([nq.groupby("original_id")["p_label"].mean().rename("nq"),
                              wq.groupby("original_id")["p_label"].mean().rename("wq")], axis=1, join="inner")
    paired = paired_difference(per_instance["nq"], per_instance["wq"])
    return paired.mean, paired.low, paired.high, len(per_instance)


def table1(conf: pd.DataFrame) -> pd.DataFrame:
    """Wrong-Question (Table 1): bias-free 1/n, the average confidence difference (No-Question minus Wrong-Question,
    in the pseudo-correct option: the mean over instances of each instance's No-Question confidence minus its mean
    Wrong-Question confidence over trials, with its paired t 95 % interval over those n instances), the
    pseudo-accuracy (mean over trials, its exact 95 % CI over instances and its interval clustered by the original
    item) and the paper's significance statements at 99 % (``pm.wrong_question_tests``)."""
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        nq, wq = group[group["probe"] == "nq"], group[group["probe"] == "wq"]
        if wq.empty:
            continue
        per_trial = [float((t["pred"] == t["label"]).mean()) for _, t in wq.groupby("trial")]
        test = pm.pseudo_accuracy_test(wq)
        orig = _orig_of(group)
        difference, difference_low, difference_high, difference_n = confidence_difference(nq, wq)
        records.append({"benchmark": paper_name(benchmark), "model": model, "instances": test["n"],
                        "trials": test["trials"], "bias_free": test["chance"],
                        "accuracy_before": pm.accuracy(orig),
                        "avg_confidence_difference": difference,
                        "avg_confidence_difference_low": difference_low,
                        "avg_confidence_difference_high": difference_high,
                        "avg_confidence_difference_n": difference_n,
                        "wq_pseudo_accuracy": float(np.mean(per_trial)),
                        "wq_pseudo_accuracy_ci95_low": test["ci95_low"],
                        "wq_pseudo_accuracy_ci95_high": test["ci95_high"],
                        **{f"wq_pseudo_accuracy_{k}": test[k] for k in pm.CLUSTERED},
                        **{k: v for k, v in pm.wrong_question_tests(orig, nq, wq).items()
                           if k not in ("n", "trials", "chance", "confidence_difference",
                                        "confidence_difference_ci95_low", "confidence_difference_ci95_high")}})
    return pd.DataFrame.from_records(records)


def _maxprob_by_instance(frame: pd.DataFrame) -> dict[str, float]:
    return dict(zip(frame["original_id"], frame["max_prob"], strict=True))


def table2(conf: pd.DataFrame, seed: int, repeats: int | None = None) -> pd.DataFrame:
    """MaxProb (Table 2), as in the paper: per probe and repeat, the instances are split 50/50; the threshold is the
    mean max-prob of the first half's originals and their perturbed versions (1:1), the accuracy is that of
    "max-prob > threshold => original" on the other half's originals and perturbed versions. Repeat r uses trial r
    of Wrong-Question / No-Right-Answer (No-Question has one version; its repeats redraw the split). The mean over
    the repeats with its t 95 % interval over them (``_repeats_low``, ``_repeats_high``; the repeats share their
    instances, so this is their spread, not a sampling interval); the exact 95 % CI counts one repeat's decisions
    (2 x evaluation instances)."""
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        original = _maxprob_by_instance(group[group["probe"] == "orig"])
        trials = sorted(group.loc[group["probe"].isin(["wq", "nra"]), "trial"].dropna().astype(int).unique())
        count = repeats or max(1, len(trials))
        for probe in ("nq", "wq", "nra"):
            probed = group[group["probe"] == probe]
            if probed.empty:
                continue
            runs = []
            for r in range(count):
                version = probed if probe == "nq" else probed[probed["trial"] == (trials[r] if r < len(trials) else -1)]
                if version.empty:
                    continue
                runs.append(pm.maxprob_selective(original, _maxprob_by_instance(version), seed=seed * 1000 + r))
            threshold, threshold_low, threshold_high = t_interval([x["threshold"] for x in runs])
            acc, acc_low, acc_high = t_interval([x["accuracy"] for x in runs])
            decisions = 2 * runs[0]["eval_instances"]
            low, high = exact_interval(acc * decisions, decisions)
            records.append({"benchmark": paper_name(benchmark), "model": model, "probe": probe, "repeats": len(runs),
                            "fit_instances": runs[0]["fit_instances"], "eval_instances": runs[0]["eval_instances"],
                            "threshold": threshold, "threshold_repeats_low": threshold_low,
                            "threshold_repeats_high": threshold_high, "accuracy": acc,
                            "accuracy_repeats_low": acc_low, "accuracy_repeats_high": acc_high,
                            "accuracy_ci95_low": low, "accuracy_ci95_high": high})
    return pd.DataFrame.from_records(records)


def nra_table(conf: pd.DataFrame) -> pd.DataFrame:
    """No-Right-Answer (Fig. 4 numbers): ANC, ANC', RAC, SAC and the bars ANC'-SAC, ANC-RAC with their t 95 %
    intervals over instances, and the pseudo-accuracy (choosing the substituted option) with its exact and its
    clustered (by original item) interval."""
    records = []
    for (model, benchmark), group in conf.groupby(["model", "benchmark"], sort=True):
        nra = group[group["probe"] == "nra"]
        if nra.empty:
            continue
        values = pm.nra_confidences(_orig_of(group), nra)
        test = pm.pseudo_accuracy_test(nra)
        records.append({"benchmark": paper_name(benchmark), "model": model, "instances": test["n"], **values,
                        "nra_pseudo_accuracy": test["pseudo_accuracy"], "ci95_low": test["ci95_low"],
                        "ci95_high": test["ci95_high"], **{k: test[k] for k in pm.CLUSTERED},
                        "chance": test["chance"], "binomial_p": test["p_value"],
                        "significant_99": test["significant"]})
    return pd.DataFrame.from_records(records)


def _cp_with_before(conf: pd.DataFrame) -> pd.DataFrame:
    orig = _orig_of(conf).set_index(["model", "item_id"])["p_label"]
    cp = conf[conf["probe"] == "cp"].copy()
    cp["before"] = [orig.get((m, o), np.nan) for m, o in zip(cp["model"], cp["original_id"], strict=True)]
    return cp


def choice_paralysis_table(conf: pd.DataFrame) -> pd.DataFrame:
    """Choice Paralysis by n and sampling (Fig. 5 numbers): confidence in the correct answer, the mean over trials
    (each trial a fresh draw of instances) with its t 95 % interval over them, beside the confidence before;
    accuracy with its exact 95 % CI over distinct instances and its interval clustered by the original item; c_p - c
    with a t 95 % CI and a Wilcoxon signed-rank test on per-instance values (an instance drawn in several trials
    counts once)."""
    records = []
    cp = _cp_with_before(conf)
    original = _orig_of(conf)
    for (model, benchmark, sampling, n), group in cp.groupby(["model", "benchmark", "sampling", "n"], sort=True):
        trials = [t for _, t in group.groupby("trial")]
        confidence, confidence_low, confidence_high = t_interval([t["p_label"].mean() for t in trials])
        acc = float(np.mean([pm.accuracy(t) for t in trials]))
        per = group.assign(diff=group["p_label"] - group["before"]).groupby("original_id")["diff"].mean()
        mean, low, high = t_interval(per)
        before = original[(original["model"] == model) & (original["benchmark"] == benchmark)]
        hits = pm.per_instance(group)["hit"]
        acc_low, acc_high = exact_interval(float(hits.sum()), len(hits))
        records.append({"benchmark": paper_name(benchmark), "model": model, "sampling": sampling, "n": int(n),
                        "trials": len(trials), "instances_per_trial": int(np.mean([len(t) for t in trials])),
                        "distinct_instances": len(per), "accuracy": acc,
                        "accuracy_ci95_low": acc_low, "accuracy_ci95_high": acc_high,
                        **{f"accuracy_{k}": v for k, v in pm.clustered_by_original(group).items()}, "chance": 1 / n,
                        "accuracy_before": pm.accuracy(before), "confidence": confidence,
                        "confidence_trials_low": confidence_low, "confidence_trials_high": confidence_high,
                        "confidence_before": float(before["p_label"].mean()),
                        "cp_minus_c": mean, "ci95_low": low, "ci95_high": high,
                        "wilcoxon_p": pm.signed_rank(per), "significant_99": bool(pm.signed_rank(per) < pm.ALPHA)})
    return pd.DataFrame.from_records(records)


def hits_at_k_table(conf: pd.DataFrame) -> pd.DataFrame:
    """hits@k under Choice Paralysis for every k = 1..n (Fig. 6 numbers): the mean over trials, the exact 95 % CI
    over all the rows of the trials (as if each were an independent item), the interval clustered by the original
    item (an instance drawn in several trials counts as one unit: the one Fig. 6 draws), and the original accuracy
    (Fig. 6's dashed line)."""
    records = []
    original = _orig_of(conf)
    for (model, benchmark, sampling, n), group in conf[conf["probe"] == "cp"].groupby(
            ["model", "benchmark", "sampling", "n"], sort=True):
        trials = [t for _, t in group.groupby("trial")]
        before = original[(original["model"] == model) & (original["benchmark"] == benchmark)]
        for k in range(1, int(n) + 1):
            hits = [float(r < k) for r in pm.label_ranks(group)]
            row = accuracy_intervals(hits, group["original_id"].tolist())
            records.append({"benchmark": paper_name(benchmark), "model": model, "sampling": sampling, "n": int(n),
                            "k": k, "trials": len(trials), "instances": len(group),
                            "hits_at_k": float(np.mean([pm.hits_at_k(t, k) for t in trials])),
                            **{c: row[c] for c in ("ci95_low", "ci95_high", *pm.CLUSTERED)},
                            "original_accuracy": pm.accuracy(before)})
    return pd.DataFrame.from_records(records)


def label_balance_table(conf: pd.DataFrame) -> pd.DataFrame:
    """Share of gold labels and of predictions per option position (exact 95 % CIs), with an exact binomial test
    of each gold share vs 1/n (Sec. 4.1: is the first option correct more often than chance?)."""
    frames = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        n = len(group)
        balance = pm.label_balance(group)
        gold_counts = [int((group["label"] == k).sum()) for k in balance["position"]]
        chance = 1 / int(group["n_choices"].max())
        balance = balance.assign(
            benchmark=paper_name(benchmark), model=model, instances=n, gold_count=gold_counts,
            gold_ci95_low=[exact_interval(c, n)[0] for c in gold_counts],
            gold_ci95_high=[exact_interval(c, n)[1] for c in gold_counts],
            gold_vs_chance_p=[stats.binomtest(c, n, chance).pvalue for c in gold_counts])
        frames.append(balance)
    return pd.concat(frames, ignore_index=True)[
        ["benchmark", "model", "position", "instances", "gold_count", "gold", "gold_ci95_low", "gold_ci95_high",
         "gold_vs_chance_p", "predicted"]]


def length_table(conf: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Length in words of the selected vs the non-selected choices (Sec. 4.1), with t-based 95 % CIs and Welch's
    t-test of the difference."""
    choices = dict(zip(items["item_id"], items["choices"], strict=True))
    records = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        selected, other = [], []
        for row in group.itertuples():
            options = choices[row.original_id]
            selected.append(pm.n_words(options[row.pred]))
            other += [pm.n_words(c) for k, c in enumerate(options) if k != row.pred]
        s_mean, s_low, s_high = t_interval(selected)
        o_mean, o_low, o_high = t_interval(other)
        p_value = float(stats.ttest_ind(selected, other, equal_var=False).pvalue) if len(selected) > 1 else np.nan
        records.append({"benchmark": paper_name(benchmark), "model": model, "instances": len(group),
                        "selected_words": s_mean, "selected_ci95_low": s_low, "selected_ci95_high": s_high,
                        "other_words": o_mean, "other_ci95_low": o_low, "other_ci95_high": o_high,
                        "welch_p": p_value, "significant_95": bool(p_value < 0.05)})
    return pd.DataFrame.from_records(records)


def overlap_table(conf: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Sec. 4.1's words-overlap statistic: Pearson r between the frequency distributions of prompt-overlapping
    words in the selected and in the non-selected choices (paper: 0.982 SocialIQA ... 0.997 HellaSwag)."""
    lookup = items.set_index("item_id")
    records = []
    for (model, benchmark), group in _orig_of(conf).groupby(["model", "benchmark"], sort=True):
        rows = lookup.loc[group["original_id"]]
        stat = pm.overlap_correlation(rows["prompt"].tolist(), [list(c) for c in rows["choices"]],
                                      group["pred"].tolist())
        records.append({"benchmark": paper_name(benchmark), "model": model, "instances": len(group), **stat})
    return pd.DataFrame.from_records(records)


def probe_key(row: pd.Series) -> str:
    if row["probe"] == "cp":
        return f"cp n={int(row['n'])} {row['sampling']}"
    return {
        "orig": "original (accuracy)", "nq": "No-Question", "wq": "Wrong-Question", "nra": "No-Right-Answer"
    }[row["probe"]]


def versus_original(group: pd.DataFrame, original: pd.DataFrame) -> dict[str, float]:
    """A probe's pseudo-accuracy minus the accuracy on the same instances before it, paired per original item (each
    instance's hit rate over the probe's trials minus its hit on the original): the mean difference, its t 95 %
    interval over the instances both answered (:func:`choicelab.stats.paired_difference`) and their number."""
    after = pm.per_instance(group)["hit"]
    before = pm.per_instance(original)["hit"] if len(original) else pd.Series(dtype=float)
    both = pd.concat([after.rename("after"), before.rename("before")], axis=1, join="inner")
    paired = paired_difference(both["after"], both["before"])
    return {"minus_original": paired.mean, "minus_original_low": paired.low, "minus_original_high": paired.high,
            "paired_instances": paired.n}


def robustness_matrix(conf: pd.DataFrame) -> pd.DataFrame:
    """benchmark x model x method x probe -> pseudo-accuracy minus chance (1/n), with an exact 95 % interval that
    counts each original instance once (its hit rate over the probe's trials): valid at small n and never of zero
    width; beside it the interval clustered by the original item (every row, its trials and perturbations clustered:
    ``clustered_low``, ``clustered_high`` minus chance, ``n_clusters``, ``design_effect``,
    ``min_detectable_difference``). ``covers_zero`` marks cells whose exact interval includes chance: they are not
    evidence of an effect. ``minus_original`` (:func:`versus_original`): the probe against the accuracy before, paired
    on the same instances (NaN for the originals themselves)."""
    conf = conf.assign(probe_name=conf.apply(probe_key, axis=1))
    records = []
    for (benchmark, model, method, probe), group in conf.groupby(
        ["benchmark", "model", "method", "probe_name"], sort=True
    ):
        per = pm.per_instance(group)
        chance = float(per["chance"].mean())
        rate = float(per["hit"].mean())
        low, high = exact_interval(float(per["hit"].sum()), len(per))
        clustered = pm.clustered_by_original(group)
        original = conf[(conf["benchmark"] == benchmark) & (conf["model"] == model) & (conf["method"] == method)
                        & (conf["probe"] == "orig")]
        paired = (versus_original(group, original) if group["probe"].iloc[0] != "orig"
                  else {"minus_original": np.nan, "minus_original_low": np.nan, "minus_original_high": np.nan,
                        "paired_instances": 0})
        records.append({"benchmark": benchmark, "model": model, "method": method, "probe": probe,
                        "instances": len(per), "rows": len(group), "pseudo_accuracy": rate, "chance": chance,
                        "minus_chance": rate - chance, "ci95_low": low - chance, "ci95_high": high - chance,
                        "clustered_low": clustered["clustered_low"] - chance,
                        "clustered_high": clustered["clustered_high"] - chance,
                        **{k: clustered[k] for k in pm.CLUSTERED[2:]},
                        "covers_zero": bool(low - chance <= 0 <= high - chance), **paired})
    return pd.DataFrame.from_records(records)


UNIFIEDQA_STATUS = ("not run in this configuration (UnifiedQA, Sec. 4.2: the paper config scores "
                    "allenai/unifiedqa-t5-11b on 50 instances x 3 draws); the paper's numbers are shown alone")


def _with_average(matrix: pd.DataFrame) -> pd.DataFrame:
    """Adds, per (condition, model, probe), the mean over benchmarks (the paper's "average" statements), its n and a
    exact binomial interval on the pooled instances."""
    rows = []
    for (condition, model, probe), group in matrix.groupby(["condition", "model", "probe"], sort=True):
        if group["benchmark"].nunique() < 2:
            continue
        hits = float((group["pseudo_accuracy"] * group["instances"]).sum())
        n = int(group["instances"].sum())
        low, high = exact_interval(hits, n)
        rows.append({"condition": condition, "model": model, "benchmark": "all", "probe": probe, "instances": n,
                     "pseudo_accuracy": float(group["pseudo_accuracy"].mean()), "ci95_low": low, "ci95_high": high,
                     "chance": float(group["chance"].mean())})
    return pd.concat([matrix, pd.DataFrame(rows)], ignore_index=True)


def controls_table(control: pd.DataFrame, fine_tuned: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Sec. 4's controls: pre-trained encoders with an untrained multiple-choice head (and UnifiedQA, a pre-trained
    seq2seq QA model, where configured) under the four probes (and Choice Paralysis by n and sampling), beside the
    fine-tuned encoders on the same instances and the paper's numbers. Pseudo-accuracy = accuracy on originals and
    Choice Paralysis; exact 95 % CIs count each instance once, the clustered ones every row clustered by its original
    item (the rows averaged over benchmarks, "all", carry the pooled exact interval only);
    ``covers_chance`` marks cells indistinguishable from 1/n. Paper controls with no run here (UnifiedQA) are listed
    with their status, never dropped."""
    order = {"pre-trained RoBERTa": 0, "XLNet (xlnet-large-cased)": 1, "UnifiedQA (unifiedqa-t5-11b)": 2}
    frames = []
    for condition, conf in (("control", control), ("fine-tuned", fine_tuned)):
        if conf.empty:
            continue
        matrix = robustness_matrix(conf)
        matrix["condition"] = condition
        matrix["model"] = matrix["model"].str.removesuffix(CONTROL_SUFFIX)
        matrix["benchmark"] = matrix["benchmark"].map(paper_name)
        frames.append(matrix.drop(columns=["rows", "minus_chance", "covers_zero", "method"]).assign(
            ci95_low=lambda f: f["ci95_low"] + f["chance"], ci95_high=lambda f: f["ci95_high"] + f["chance"],
            clustered_low=lambda f: f["clustered_low"] + f["chance"],
            clustered_high=lambda f: f["clustered_high"] + f["chance"]))
    ours = _with_average(pd.concat(frames, ignore_index=True))
    ours["covers_chance"] = (ours["ci95_low"] <= ours["chance"]) & (ours["chance"] <= ours["ci95_high"])
    ours["paper_control"] = [paper_control(m) if c == "control" else "fine-tuned RoBERTa (the paper's model)"
                             for c, m in zip(ours["condition"], ours["model"], strict=True)]
    ours["setup"] = [("fine-tuned on the benchmark" if c == "fine-tuned" else
                      "pre-trained, no fine-tuning; choices scored by decoder log-likelihood" if "UnifiedQA" in p
                      else "pre-trained encoder, untrained multiple-choice head")
                     for c, p in zip(ours["condition"], ours["paper_control"], strict=True)]
    ours["status"] = "run"
    paper = paper.rename(columns={"control": "paper_control"})
    table = ours.merge(paper, on=["paper_control", "benchmark", "probe"], how="left")
    # paper statements without a run here: UnifiedQA always; the others when the config has no such control
    covered = set(zip(table["paper_control"], table["benchmark"], table["probe"], strict=True))
    missing = paper[[(c, b, p) not in covered for c, b, p in zip(paper["paper_control"], paper["benchmark"],
                                                                   paper["probe"], strict=True)]]
    missing = missing.assign(condition="control", model="", instances=0, status=[
        UNIFIEDQA_STATUS if "UnifiedQA" in c else "not run in this configuration (see studies.probes.control_models)"
        for c in missing["paper_control"]])
    columns = ["paper_control", "condition", "setup", "model", "benchmark", "probe", "instances", "pseudo_accuracy",
               "ci95_low", "ci95_high", "clustered_low", "clustered_high", "n_clusters", "chance", "covers_chance",
               "paper", "note", "status"]
    table = pd.concat([table, missing], ignore_index=True).reindex(columns=columns)
    table["covers_chance"] = table["covers_chance"].astype("boolean")
    table["_order"] = table["paper_control"].map(order).fillna(3)
    return table.sort_values(["_order", "condition", "model", "benchmark", "probe"], kind="stable",
                             ignore_index=True).drop(columns="_order")


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
