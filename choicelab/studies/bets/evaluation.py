"""Bets evaluations: logit dumps -> one score row per (checkpoint, question) -> every number of the paper's Tables 5-20
and Figs 1-3 in one long table (:func:`evaluate_all`), which the result tables pivot into the paper's layout.

Every accuracy carries its exact 95 % interval, which takes the questions as independent, and beside it the interval
clustered by the question's item pair (:func:`sampled_unit`): a bet question repeats its (high, low) pair in four
win/lose variants, a value question in up to two orders, and the pair is what was drawn from the item lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from choicelab.mc.items import MCItem
from choicelab.stats import accuracy_intervals, binomial_se, paired_difference, ztest_pvalue
from choicelab.studies.bets import ground_truths as gt
from choicelab.studies.bets import items as items_mod
from choicelab.studies.bets import metrics as m
from choicelab.studies.bets.settings import Settings
from choicelab.studies.bets.stages import STAGE_DEFAULT, checkpoint_name, split_checkpoint

EVALUATION_SCHEMA = pa.schema(
    [
        pa.field("rq", pa.string(), nullable=False),  # rq1 | rq2 | rq3
        pa.field("model", pa.string(), nullable=False),  # the encoder (config name)
        pa.field("stage", pa.string(), nullable=False),  # default | fine-tuned | fine-tuned:<modality>
        pa.field("checkpoint", pa.string(), nullable=False),  # <model>__<stage> folder that produced the logits
        pa.field("eval_set", pa.string(), nullable=False),  # bets_value_cv, bets_bet_coin, ...
        pa.field("split", pa.string(), nullable=False),
        pa.field("ground_truth", pa.string(), nullable=False),  # standard | bca | normal | ... | non_negative_gain
        pa.field("tuned_on", pa.string(), nullable=False),  # dev set of the threshold, or the beliefs' source
        pa.field("threshold", pa.float64(), nullable=False),  # NaN for standard / BCA
        pa.field("dev_accuracy", pa.float64(), nullable=False),
        pa.field("hits", pa.int64(), nullable=False),
        pa.field("n", pa.int64(), nullable=False),
        pa.field("accuracy", pa.float64(), nullable=False),
        pa.field("p0", pa.float64(), nullable=False),  # random baseline of the z-test
        pa.field("p_value", pa.float64(), nullable=False),
        pa.field("significant", pa.bool_(), nullable=False),  # p <= .05
        pa.field("se", pa.float64(), nullable=False),  # binomial standard error
        pa.field("ci95_low", pa.float64(), nullable=False),  # exact (Clopper-Pearson): questions independent
        pa.field("ci95_high", pa.float64(), nullable=False),
        pa.field("clustered_low", pa.float64(), nullable=False),  # clustered by item pair (sampled_unit)
        pa.field("clustered_high", pa.float64(), nullable=False),
        pa.field("n_clusters", pa.int64(), nullable=False),  # item pairs
        pa.field("design_effect", pa.float64(), nullable=False),
        pa.field("min_detectable_difference", pa.float64(), nullable=False),  # at n, p = 0.5, with the design effect
    ],
    metadata={b"choicelab.schema": b"bets_evaluations/2"},
)
EVALUATION_COLUMNS = EVALUATION_SCHEMA.names  # the evaluation rows' columns, in order
PER_QUESTION_SCHEMA = pa.schema(
    [
        pa.field("rq", pa.string(), nullable=False),
        pa.field("checkpoint", pa.string(), nullable=False),
        pa.field("eval_set", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("ground_truth", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("unit", pa.string(), nullable=False),  # the item pair it repeats (sampled_unit)
        pa.field("prediction", pa.string(), nullable=False),  # chosen letters ("" = nothing above the threshold)
        pa.field("correct", pa.int64(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"bets_question_results/2"},
)


# -- dumps -> per-question scores --------------------------------------------------------------------------------------


def question_scores(dump: pd.DataFrame, questions: Mapping[tuple[str, str, str], MCItem]) -> pd.DataFrame:
    """One row per (checkpoint, question): raw logits and sigmoids in option order, with the question's metadata.

    ``questions`` maps (benchmark, split, item_id) to the question; a dump row without its question is an error.
    """
    logits = dump[dump["method"] == "mc_logit"].sort_values(["model", "benchmark", "split", "item_id", "option_id"])
    records = []
    for (ckpt, benchmark, split, item_id), group in logits.groupby(
        ["model", "benchmark", "split", "item_id"], sort=True
    ):
        key = (benchmark, split, item_id)
        if key not in questions:
            raise KeyError(f"dump of {ckpt} scores {key}, which is not in the benchmark files given")
        item = questions[key]
        values = group["score"].to_numpy(dtype=float)
        model, stage = split_checkpoint(ckpt)
        records.append(
            {
                "checkpoint": ckpt,
                "model": model,
                "stage": stage,
                "eval_set": benchmark,
                "split": split,
                "item_id": item_id,
                "logits": values,
                "sigmoids": m.sigmoid(values),
                "label": item.label,
                "meta": item.meta,
            }
        )
    return pd.DataFrame.from_records(records)


# -- evaluations -------------------------------------------------------------------------------------------------------


def _label_sets(frame: pd.DataFrame, ground_truth: str) -> list[list[str]]:
    return [meta["labels"][ground_truth] for meta in frame["meta"]]


def _eligible(frame: pd.DataFrame, ground_truth: str) -> pd.DataFrame:
    if ground_truth == "positive_gain":
        mask = [bool(meta["labels"]["positive_gain_eligible"]) for meta in frame["meta"]]
        return frame[np.array(mask, dtype=bool)]
    return frame


def _stack(frame: pd.DataFrame, column: str) -> np.ndarray:
    return np.vstack(frame[column].to_list()) if len(frame) else np.zeros((0, 3))


def sampled_unit(meta: Mapping[str, Any]) -> str:
    """The unit a question was sampled as: its (high, low) item pair, which its win/lose variants (bet questions) or
    orders (value questions) repeat."""
    return f"{meta['high']}|{meta['low']}"


def _units(frame: pd.DataFrame) -> list[str]:
    return [sampled_unit(meta) for meta in frame["meta"]]


def _summary(correct: np.ndarray, p0: float, units: Sequence[str]) -> dict[str, Any]:
    n = int(correct.size)
    accuracy = float(correct.mean()) if n else float("nan")
    p = ztest_pvalue(correct, p0)
    intervals = accuracy_intervals(correct, list(units))
    return {
        "hits": int(correct.sum()),
        "n": n,
        "accuracy": accuracy,
        "p0": p0,
        "p_value": p,
        "significant": bool(p <= m.ALPHA) if not np.isnan(p) else False,
        "se": binomial_se(accuracy, n),
        **{key: intervals[key] for key in EVALUATION_COLUMNS[EVALUATION_COLUMNS.index("ci95_low"):]},
    }


def _select(scores: pd.DataFrame, checkpoint: str, eval_set: str, split: str) -> pd.DataFrame:
    sel = scores[(scores["checkpoint"] == checkpoint) & (scores["eval_set"] == eval_set) & (scores["split"] == split)]
    return sel.sort_values("item_id")


def evaluate_standard(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    predictions = m.standard_predictions(_stack(frame, "logits"))
    return predictions, (predictions == frame["label"].to_numpy()).astype(int)


def evaluate_threshold(
    frame: pd.DataFrame, tune: pd.DataFrame, ground_truth: str
) -> tuple[dict[str, Any], np.ndarray, list[str]]:
    tune = _eligible(tune, ground_truth)
    frame = _eligible(frame, ground_truth)
    threshold, dev_accuracy = m.tune_threshold(_stack(tune, "sigmoids"), _label_sets(tune, ground_truth))
    predicted = m.threshold_sets(_stack(frame, "sigmoids"), threshold)
    correct = m.set_correct(predicted, _label_sets(frame, ground_truth))
    return {"threshold": threshold, "dev_accuracy": dev_accuracy}, correct, predicted


def _beliefs(scores: pd.DataFrame, checkpoint: str, belief_set: str, split: str) -> dict[tuple[str, str], str]:
    frame = _select(scores, checkpoint, belief_set, split)
    frame = frame[[meta.get("order", "hl") == "hl" for meta in frame["meta"]]]
    if frame.empty:
        raise ValueError(f"BCA needs {checkpoint}'s answers to {belief_set} ({split}); score it first")
    predictions, _ = evaluate_standard(frame)
    return {
        (meta["high"], meta["low"]): m.belief_of(int(p), meta["relations"])
        for p, meta in zip(predictions, frame["meta"], strict=True)
    }


@dataclass(frozen=True)
class _Cell:
    """One evaluation: the research question, the checkpoint and its stage label, the question set and split."""

    rq: str
    checkpoint: str
    stage: str
    eval_set: str
    split: str

    def frame(self, scores: pd.DataFrame) -> pd.DataFrame:
        return _select(scores, self.checkpoint, self.eval_set, self.split)

    def record(self, ground_truth: str, correct: np.ndarray, p0: float, units: Sequence[str], *,
               tuned: Mapping[str, Any] | None = None, tuned_on: str = "") -> dict[str, Any]:
        """The evaluation's row: its cell, ground truth, tuned threshold (if any) and :func:`_summary`."""
        tuned = tuned or {}
        return {"rq": self.rq, "model": split_checkpoint(self.checkpoint)[0], "stage": self.stage,
                "checkpoint": self.checkpoint, "eval_set": self.eval_set, "split": self.split,
                "ground_truth": ground_truth, "tuned_on": tuned_on,
                "threshold": tuned.get("threshold", float("nan")),
                "dev_accuracy": tuned.get("dev_accuracy", float("nan")), **_summary(correct, p0, units)}

    def questions(self, ground_truth: str, ids: Sequence[str], units: Sequence[str], predicted: Sequence[Any],
                  correct: np.ndarray) -> list[dict[str, Any]]:
        """One row per question of the evaluation: its sampled unit, the prediction and whether it is correct."""
        return [{"rq": self.rq, "checkpoint": self.checkpoint, "eval_set": self.eval_set, "split": self.split,
                 "ground_truth": ground_truth, "item_id": i, "unit": u, "prediction": p, "correct": int(c)}
                for i, u, p, c in zip(ids, units, predicted, correct, strict=True)]


def _threshold_records(cell: _Cell, scores: pd.DataFrame, tune_set: str, ground_truths: Sequence[str],
                       per_question: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The threshold method's evaluations of ``cell`` under each ground truth, tuned on ``tune_set``'s dev split."""
    records = []
    frame = cell.frame(scores)
    tune = _select(scores, cell.checkpoint, tune_set, "dev")
    for truth in ground_truths:
        if frame.empty or tune.empty:
            continue
        tuned, correct, predicted = evaluate_threshold(frame, tune, truth)
        eligible = _eligible(frame, truth)
        p0 = m.random_set_baseline(_label_sets(eligible, truth))
        units = _units(eligible)
        records.append(cell.record(truth, correct, p0, units, tuned=tuned, tuned_on=f"{tune_set}:dev"))
        per_question += cell.questions(truth, eligible["item_id"].to_list(), units, predicted, correct)
    return records


def _standard_record(cell: _Cell, scores: pd.DataFrame, per_question: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The standard method's evaluation of ``cell`` (none where the checkpoint was not scored on it)."""
    frame = cell.frame(scores)
    if frame.empty:
        return []
    predictions, correct = evaluate_standard(frame)
    units = _units(frame)
    per_question += cell.questions("standard", frame["item_id"].to_list(), units,
                                   [gt.LETTERS[int(p)] for p in predictions], correct)
    p0 = float(np.mean([1 / len(lg) for lg in frame["logits"]]))
    return [cell.record("standard", correct, p0, units)]


def evaluate_all(
    scores: pd.DataFrame, models: Sequence[str], settings: Settings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every evaluation of the paper (RQ1, RQ2 incl. BCA, RQ3) -> (one row per evaluation, one row per question)."""
    templates, modalities = settings.templates, settings.modalities
    rq2_stage = f"value_{settings.rq2_template}"
    belief_set = items_mod.benchmark_name("value", settings.belief_template)
    records: list[dict[str, Any]] = []
    per_question: list[dict[str, Any]] = []
    for model in models:
        default = checkpoint_name(model, STAGE_DEFAULT)
        for template in templates:  # RQ1
            eval_set = items_mod.benchmark_name("value", template)
            for ckpt, label in ((default, "default"), (checkpoint_name(model, f"value_{template}"), "fine-tuned")):
                cell = _Cell("rq1", ckpt, label, eval_set, "test")
                records += _standard_record(cell, scores, per_question)
                records += _threshold_records(cell, scores, eval_set, gt.VALUE_GROUND_TRUTHS, per_question)
        for modality in modalities:  # RQ2
            eval_set = items_mod.benchmark_name("bet", modality)
            for ckpt, label in ((default, "default"), (checkpoint_name(model, rq2_stage), "fine-tuned")):
                cell = _Cell("rq2", ckpt, label, eval_set, "test")
                frame = cell.frame(scores)
                if frame.empty:
                    continue
                records += _standard_record(cell, scores, per_question)
                beliefs = _beliefs(scores, ckpt, belief_set, "test")
                predictions, _ = evaluate_standard(frame)
                metas = frame["meta"].to_list()
                question_beliefs = [beliefs[(meta["high"], meta["low"])] for meta in metas]
                correct = m.belief_conditioned_correct(
                    predictions, [meta["standard_by_belief"] for meta in metas], question_beliefs
                )
                records.append(cell.record("bca", correct, 1 / 3, _units(frame), tuned_on=f"beliefs:{belief_set}:test"))
                records += _threshold_records(cell, scores, eval_set, gt.BET_GROUND_TRUTHS, per_question)
        for source in modalities:  # RQ3
            ckpt = checkpoint_name(model, f"bet_{source}")
            tune_set = items_mod.benchmark_name("bet", source)
            for target in modalities:
                eval_set = items_mod.benchmark_name("bet", target)
                for split in ("train", "test"):
                    records += _standard_record(_Cell("rq3", ckpt, f"fine-tuned:{source}", eval_set, split), scores,
                                                per_question)
                records += _threshold_records(_Cell("rq3", ckpt, f"fine-tuned:{source}", eval_set, "test"), scores,
                                              tune_set, gt.BET_GROUND_TRUTHS, per_question)
    evaluations = pd.DataFrame.from_records(records, columns=EVALUATION_COLUMNS)
    return evaluations, pd.DataFrame.from_records(per_question)


def fine_tuning_paired(evaluations: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """RQ1 and RQ2's comparison on the same questions: per encoder (seed checkpoint), question set, split and ground
    truth, the fine-tuned stage's accuracy minus the default stage's, paired question by question, with its 95 %
    interval clustered by item pair (:func:`choicelab.stats.paired_difference`; the pair's variants are answered by
    both stages). ``covers_zero``: the interval includes 0, fine-tuning's effect is not told apart at this n."""

    cell = ["rq", "eval_set", "split", "ground_truth"]
    stages = evaluations[["rq", "checkpoint", "model", "stage"]].drop_duplicates()
    frame = questions.merge(stages, on=["rq", "checkpoint"])
    frame = frame[frame["rq"].isin(["rq1", "rq2"])]
    records = []
    for (model, *key), group in frame.groupby(["model", *cell], sort=True):
        default = group[group["stage"] == "default"].set_index("item_id")
        tuned = group[group["stage"] == "fine-tuned"].set_index("item_id")
        both = tuned.join(default[["correct"]].rename(columns={"correct": "correct_default"}), how="inner")
        if both.empty:
            continue
        paired = paired_difference(both["correct"], both["correct_default"], both["unit"].tolist())
        records.append({"model": model, **dict(zip(cell, key, strict=True)), "n": paired.n,
                        "n_clusters": paired.n_clusters, "default_accuracy": float(both["correct_default"].mean()),
                        "fine_tuned_accuracy": float(both["correct"].mean()), "difference": paired.mean,
                        "difference_low": paired.low, "difference_high": paired.high,
                        "covers_zero": bool(paired.low <= 0 <= paired.high) if paired.n_clusters > 1 else None})
    return pd.DataFrame.from_records(records, columns=["model", *cell, "n", "n_clusters", "default_accuracy",
                                                       "fine_tuned_accuracy", "difference", "difference_low",
                                                       "difference_high", "covers_zero"])


def to_arrow(frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """A frame as an Arrow table of exactly ``schema`` (column order and types checked)."""
    missing = [f.name for f in schema if f.name not in frame.columns]
    if missing:
        raise ValueError(f"cannot write {schema.metadata.get(b'choicelab.schema', b'').decode()}: missing {missing}")
    return pa.table({f.name: frame[f.name].to_list() for f in schema}, schema=schema)


def questions_by_key(items: Iterable[MCItem]) -> dict[tuple[str, str, str], MCItem]:
    return {(it.benchmark, it.split, it.item_id): it for it in items}
