"""The competence gate of the fine-tuned encoders, and the summary of their seed checkpoints.

The probes measure a trained model's prior bias; a checkpoint that did not learn its benchmark (its dev accuracy's
exact 95 % interval covers chance) has a near-constant head, and every probe statistic built on it measures that head,
not a learned bias. :func:`competence` checks each checkpoint's dev accuracy against chance, against its untrained-head
control (the same encoder's pre-trained weights with a fresh head) and, where the config sets one, against the
paper's premise (a model "verified to achieve over 80%"); :func:`mark` writes the verdict into every table row built
on a checkpoint. Nothing is dropped: a checkpoint below chance is still in every table, marked.

Each encoder is fine-tuned once per seed (``studies.probes.seeds``); :func:`with_seed_summary` adds, per encoder, a
row with the mean over its seed checkpoints and the SD and t 95 % interval of the headline numbers over seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from choicelab.mc.competence import COLUMN, OK, judge, not_above_chance, not_above_control, seeds_verdict
from choicelab.stats import t_interval
from choicelab.studies.probes.paper import paper_name
from choicelab.studies.probes.scoring import CONTROL_SUFFIX, ENSEMBLE_INFIX, seed_mean_label, split_label

SUBJECT = "probe statistics"
NOT_ABOVE_CHANCE = not_above_chance(SUBJECT)
NOT_ABOVE_CONTROL = not_above_control(SUBJECT)
__all__ = ["COLUMN", "NOT_ABOVE_CHANCE", "NOT_ABOVE_CONTROL", "OK", "competence", "mark", "with_seed_summary"]


def is_trained(model: str) -> bool:
    """A fine-tuned checkpoint (``<encoder> seed <s>``) or an ensemble of them: the models the gate applies to."""
    return split_label(model)[1] is not None or ENSEMBLE_INFIX in model


def _base(model: str) -> str:
    base = split_label(model)[0]
    return base.split(ENSEMBLE_INFIX)[0]


def competence(conf: pd.DataFrame, control: pd.DataFrame | None = None,
               premise: float | None = None, training: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """One row per trained model and benchmark: accuracy with its exact 95 % interval, chance (mean 1/n), the
    untrained-head control's accuracy (its n), and the verdict: not above chance (interval covers or lies below
    chance), not above the control (the interval's low end not above the control's accuracy), below the premise
    (accuracy under ``premise``), else above chance and control.

    Where a checkpoint's training record (``training``: ``"<label>|<benchmark>"`` -> record, as
    :func:`.tables.training_records` reads them) holds the gate's evaluation (``gate_items`` originals scored
    before and after fine-tuning), those are used: more items than the probed dev set, and the control is the same
    seed's untrained head on the same items. Otherwise the probed dev originals and the control dump's originals."""
    orig = conf[(conf["probe"] == "orig") & conf["model"].map(is_trained)]
    controls: dict[tuple[str, str], tuple[float, int]] = {}
    if control is not None and len(control):
        corig = control[control["probe"] == "orig"]
        for (model, benchmark), group in corig.groupby(["model", "benchmark"], sort=True):
            controls[(model.removesuffix(CONTROL_SUFFIX), benchmark)] = (
                float((group["pred"] == group["label"]).mean()), len(group))
    records = []
    for (model, benchmark), group in orig.groupby(["model", "benchmark"], sort=True):
        record = (training or {}).get(f"{model}|{benchmark}", {})
        if "evaluation_accuracy" in record:
            n = int(record["evaluation_items"])
            correct = round(float(record["evaluation_accuracy"]) * n)
            chance = float(record["evaluation_chance"])
            control_accuracy, control_items = float(record["initial_evaluation_accuracy"]), n
            source = f"gate: {n} originals scored before and after fine-tuning"
        else:
            n = len(group)
            correct = int((group["pred"] == group["label"]).sum())
            chance = float((1 / group["n_choices"]).mean())
            control_accuracy, control_items = controls.get((_base(model), benchmark), (float("nan"), 0))
            source = f"probed dev originals ({n})"
        gate = judge(correct, n, chance, control_accuracy=control_accuracy, control_items=control_items,
                     premise=premise, subject=SUBJECT)
        records.append({"benchmark": paper_name(benchmark), "model": model, "dev_items": n, "accuracy": gate.accuracy,
                        "ci95_low": gate.ci95_low, "ci95_high": gate.ci95_high, "chance": chance,
                        "above_chance": gate.above_chance, "control_accuracy": control_accuracy,
                        "control_items": control_items, "above_control": gate.above_control, "premise": premise,
                        "meets_premise": gate.meets_premise, "gate_source": source, COLUMN: gate.verdict})
    columns = ["benchmark", "model", "dev_items", "accuracy", "ci95_low", "ci95_high", "chance", "above_chance",
               "control_accuracy", "control_items", "above_control", "premise", "meets_premise", "gate_source",
               COLUMN]
    return pd.DataFrame.from_records(records, columns=columns)


def mark(frame: pd.DataFrame, gate: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the :data:`COLUMN` verdict of the checkpoint each row is built on (its ``model`` and
    ``benchmark``, the paper's benchmark names); rows of a seed summary say in how many seeds the gate failed;
    untrained models (causal LMs, controls) get an empty cell."""
    if not {"model", "benchmark"} <= set(frame.columns) or not len(frame):
        return frame
    verdicts = {(r.model, r.benchmark): getattr(r, COLUMN) for r in gate.itertuples()}
    failed: dict[tuple[str, str], list[bool]] = {}
    for (model, benchmark), verdict in verdicts.items():
        base, seed = split_label(model)
        if seed is not None:
            failed.setdefault((base, benchmark), []).append(verdict == NOT_ABOVE_CHANCE)

    def verdict_of(model: str, benchmark: str) -> str:
        benchmark = paper_name(benchmark)
        if (model, benchmark) in verdicts:
            return verdicts[(model, benchmark)]
        for (base, bench), flags in failed.items():
            if bench == benchmark and model == seed_mean_label(base, len(flags)):
                return seeds_verdict(flags, SUBJECT)
        return ""

    out = frame.copy()
    out[COLUMN] = [verdict_of(str(m), str(b)) for m, b in zip(out["model"], out["benchmark"], strict=True)]
    return out


def failing(gate: pd.DataFrame) -> list[str]:
    """``model / benchmark`` of every checkpoint not above chance (for captions)."""
    bad = gate[gate[COLUMN] == NOT_ABOVE_CHANCE]
    return [f"{m} / {b}" for m, b in zip(bad["model"], bad["benchmark"], strict=True)]


def seeds_in(models: Sequence[str]) -> int:
    """How many training seeds the model names of a frame show (0 when none is a seed checkpoint)."""
    return len({seed for seed in (split_label(m)[1] for m in models) if seed is not None})


def caption_note(gate: pd.DataFrame, seeds: int | None = None) -> str:
    """What a caption adds: how many seeds, and which checkpoints are not above chance."""
    parts = []
    if seeds:
        parts.append(f"{seeds} training seed{'s' if seeds != 1 else ''} per encoder and benchmark: each checkpoint, "
                     "and the mean over seeds with the SD and t 95% interval over seeds")
    bad = failing(gate)
    if bad:
        parts.append(f"{NOT_ABOVE_CHANCE}: {', '.join(bad)}")
    return "; ".join(parts)


def with_seed_summary(frame: pd.DataFrame, keys: Sequence[str], headline: Sequence[str]) -> pd.DataFrame:
    """``frame`` plus, per encoder with two or more seed checkpoints and per ``keys`` cell, a row named
    :func:`.scoring.seed_mean_label` holding the mean over the seed rows of every numeric column (the seed and the
    per-checkpoint intervals left empty), the number of seeds, and for each ``headline`` column its SD over seeds
    (``<col>_sd_seeds``) and t 95 % interval over seeds (``<col>_seeds_ci95_low/high``). The seed rows keep these
    columns empty."""
    if not len(frame) or "model" not in frame:
        return frame
    labels = frame["model"].map(split_label)
    seeded = frame.assign(_base=[b for b, _ in labels], _seed=[s for _, s in labels])
    seeded = seeded[seeded["_seed"].notna()]
    rows = []
    for (base, *_), group in seeded.groupby(["_base", *keys], sort=True, dropna=False):
        k = group["_seed"].nunique()
        if k < 2:
            continue
        row: dict[str, object] = dict(group.iloc[0].drop(["_base", "_seed"]))
        row["model"] = seed_mean_label(base, k)
        for column in frame.columns:
            if column in keys or column == "model":
                continue
            if column == "seed" or ("ci95" in column and "seeds" not in column):
                row[column] = float("nan")  # a mean of seeds or of per-checkpoint intervals means nothing
                continue
            values = pd.to_numeric(group[column], errors="coerce")
            if values.notna().all() and group[column].dtype != bool:
                row[column] = float(values.mean())
            elif group[column].dtype == bool:
                row[column] = bool(group[column].all())
            elif group[column].nunique(dropna=False) > 1:
                row[column] = ""
        row["seeds"] = k
        for column in headline:
            values = pd.to_numeric(group[column], errors="coerce").dropna().to_numpy(dtype=float)
            mean, low, high = t_interval(values)
            row[f"{column}_sd_seeds"] = float(values.std(ddof=1)) if values.size > 1 else float("nan")
            row[f"{column}_seeds_ci95_low"], row[f"{column}_seeds_ci95_high"] = low, high
        rows.append(row)
    if not rows:
        return frame
    out = pd.concat([frame, pd.DataFrame.from_records(rows)], ignore_index=True)
    return out


# The cells a table's seed summary groups by (besides the encoder) and its headline numbers (SD and interval over
# seeds); tables not listed get no seed summary.
SEED_SUMMARY: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "table_accuracy": (("benchmark",), ("accuracy",)),
    "table1": (("benchmark",), ("avg_confidence_difference", "wq_pseudo_accuracy")),
    "table2": (("benchmark", "probe"), ("threshold", "accuracy")),
    "table_nra": (("benchmark",), ("ANC'-SAC", "ANC-RAC")),
    "table_choice_paralysis": (("benchmark", "sampling", "n"), ("confidence", "accuracy")),
    "table_hits_at_k": (("benchmark", "sampling", "n", "k"), ("hits_at_k",)),
    "table_label_balance": (("benchmark", "position"), ("predicted",)),
    "table_lengths": (("benchmark",), ()),
    "table_overlap": (("benchmark",), ("pearson_r",)),
}
