"""Bets study: checkpoints -> logit dumps -> evaluations -> the paper's tables, comparison and p-value check.

Checkpoints per encoder ``m`` (the checkpoint's name is the dump's ``model`` column):

* ``m__default``: multiple-choice fine-tuning on SWAG (or the HellaSwag stand-in), the paper's "default" model;
* ``m__value_BE`` ... ``m__value_CV``: RQ1, task fine-tuned from the default model on one value template;
* ``m__bet_coin``, ``m__bet_dice``, ``m__bet_card``: RQ3, task fine-tuned on one bet modality.

RQ2 reuses the default and the ``value_<rq2_template>`` (Choice Valuable) checkpoints. :func:`scoring_plan` lists the
(question set, split) pairs each checkpoint is scored on; :func:`evaluate_all` computes every number of the paper's
Tables 5-20 and Figs 1-3 from the dumps into one long table, which the table builders pivot into the paper's layout.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from choicelab.items import bets as items_mod
from choicelab.mc.items import MCItem
from choicelab.metrics import bets as m

STAGE_DEFAULT = "default"
EVALUATION_COLUMNS = [
    "rq",
    "model",
    "stage",
    "checkpoint",
    "eval_set",
    "split",
    "ground_truth",
    "tuned_on",
    "threshold",
    "dev_accuracy",
    "hits",
    "n",
    "accuracy",
    "p0",
    "p_value",
    "significant",
    "se",
]
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
    ],
    metadata={b"choicelab.schema": b"bets_evaluations/1"},
)
PER_QUESTION_SCHEMA = pa.schema(
    [
        pa.field("rq", pa.string(), nullable=False),
        pa.field("checkpoint", pa.string(), nullable=False),
        pa.field("eval_set", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("ground_truth", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("prediction", pa.string(), nullable=False),  # chosen letters ("" = nothing above the threshold)
        pa.field("correct", pa.int64(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"bets_question_results/1"},
)
PAPER_BASELINES = {
    "standard": 1 / 3,
    "bca": 1 / 3,
    "normal": 1 / 8,
    "weak_normal": 1 / 4,
    "weak": 5 / 8,
    "strict": 1 / 8,
    "positive_gain": 1 / 4,
    "non_negative_gain": 1 / 4,
}
METRIC_NAMES = {**items_mod.GROUND_TRUTH_NAMES, "bca": "BCA", "standard": "ACC"}


# ----------------------------------------------------------------------------------------------------------------
# Plan


def task_stages(config: Mapping[str, Any]) -> list[str]:
    """Task fine-tuning stages: one per value template (RQ1) and one per bet modality (RQ3)."""
    templates = config.get("templates", list(items_mod.VALUE_TEMPLATES))
    modalities = config.get("modalities", list(items_mod.MODALITIES))
    return [f"value_{t}" for t in templates] + [f"bet_{mod}" for mod in modalities]


def scoring_plan(stage: str, config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (question set, split) pairs a checkpoint is scored on."""
    templates = config.get("templates", list(items_mod.VALUE_TEMPLATES))
    modalities = config.get("modalities", list(items_mod.MODALITIES))
    value_sets = [f"value_{t}" for t in templates]
    bet_sets = [f"bet_{mod}" for mod in modalities]
    rq2_template = f"value_{config.get('rq2_template', 'CV')}"
    belief_set = f"value_{config.get('belief_template', 'CV')}"
    if stage == STAGE_DEFAULT:
        plan = [(s, sp) for s in value_sets + bet_sets for sp in ("dev", "test")]
    elif stage.startswith("value_"):
        plan = [(stage, "dev"), (stage, "test")]
        if stage == rq2_template:
            plan += [(s, sp) for s in bet_sets for sp in ("dev", "test")]
            plan += [(belief_set, "test")] if belief_set != stage else []
    elif stage.startswith("bet_"):
        plan = [(s, sp) for s in bet_sets for sp in ("train", "test")] + [(stage, "dev")]
    else:
        raise ValueError(f"unknown bets stage {stage!r}; expected 'default', 'value_<template>' or 'bet_<modality>'")
    return sorted(set(plan))


def scored_questions(items: Sequence[MCItem], train_eval_size: int | None, seed: int) -> list[MCItem]:
    """The questions of one benchmark file a checkpoint is scored on: a train split is cut to a seeded
    ``train_eval_size`` (None = all; Fig. 2 and Table 20's train bars), dev and test splits are scored whole."""
    if train_eval_size is None or not items or items[0].split != "train":
        return list(items)
    from choicelab.items import swag

    return swag.seeded_sample(items, train_eval_size, seed)


def checkpoint_name(model: str, stage: str) -> str:
    return f"{model}__{stage}"


def split_checkpoint(name: str) -> tuple[str, str]:
    model, _, stage = name.rpartition("__")
    return model, stage


def default_stage_items(
    data: str, root: str, *, train_size: int | None, dev_size: int | None, seed: int
) -> tuple[list[MCItem], list[MCItem], str]:
    """Train and dev items of the "default" stage and a description of the data for the tables.

    ``swag``: the public SWAG train / val files. ``hellaswag``: the documented stand-in, a seeded half/half split of
    the HellaSwag validation set (it has no public train file in the mirror), so train and dev never share items.
    """
    from choicelab.items import swag

    if data == "swag":
        train, dev = swag.load_swag(root, "train"), swag.load_swag(root, "val")
        source = "SWAG (rowanz/swagaf train.csv / val.csv)"
    elif data == "hellaswag":
        from choicelab.mc.commonsense import load_benchmark, train_dev_split

        train, dev = train_dev_split(load_benchmark("hellaswag", "dev", root), 0.5, seed)
        source = "HellaSwag validation, seeded half/half split (stand-in for SWAG)"
    else:
        raise ValueError(f"studies.bets.default_stage.data must be 'swag' or 'hellaswag', not {data!r}")
    train = swag.seeded_sample(train, train_size, seed)
    dev = swag.seeded_sample(dev, dev_size, seed + 1)
    return train, dev, f"{source}: {len(train)} train / {len(dev)} dev items"


def input_format(config: Mapping[str, Any]) -> str:
    """The one text layout of every bets stage (SWAG stage, task fine-tuning, scoring): ``bets.input_format``."""
    from choicelab.mc.finetune import INPUT_FORMATS

    fmt = config.get("input_format", "pair")
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"studies.bets.input_format must be one of {INPUT_FORMATS}, not {fmt!r}")
    return fmt


def score_checkpoint(
    checkpoint_dir: str,
    benchmarks: Sequence[Sequence[MCItem]],
    *,
    name: str,
    configured_format: str,
    max_length: int,
    train_eval_size: int | None,
    seed: int,
    device: str = "auto",
    log: Any = print,
) -> list[Any]:
    """Dump rows (``mc_logit`` and ``mc_sigmoid``) of one checkpoint on each benchmark's scored questions.

    The checkpoint is scored in the input format it was trained in; a checkpoint trained in another format than
    ``configured_format`` is refused (see :func:`choicelab.mc.finetune.require_input_format`).
    """
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.mc.finetune import require_input_format
    from choicelab.mc.scoring import score_encoder

    fmt = require_input_format(checkpoint_dir, configured_format, purpose="bets scoring")
    model, tokenizer, _ = load_encoder_mc(checkpoint_dir, seed=0, device=device)
    rows: list[Any] = []
    for items in benchmarks:
        scored = scored_questions(items, train_eval_size, seed)
        logits = score_encoder(
            model, tokenizer, scored, study="bets", model=name, input_format=fmt, max_length=max_length
        )
        rows += logits + sigmoid_rows(logits)
        if scored:
            log(f"{scored[0].benchmark} {scored[0].split}: {len(scored)} questions scored ({fmt} format)")
    return rows


# ----------------------------------------------------------------------------------------------------------------
# Dumps -> per-question scores


def sigmoid_rows(rows: Sequence[Any]) -> list[Any]:
    """Method ``mc_sigmoid`` rows next to each ``mc_logit`` row: score = sigmoid(raw logit), prob = NaN."""
    from dataclasses import replace

    return [
        replace(r, method="mc_sigmoid", score=float(m.sigmoid(np.array([r.score]))[0]), prob=float("nan"))
        for r in rows
        if r.method == "mc_logit"
    ]


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


# ----------------------------------------------------------------------------------------------------------------
# Evaluations


def _label_sets(frame: pd.DataFrame, ground_truth: str) -> list[list[str]]:
    return [meta["labels"][ground_truth] for meta in frame["meta"]]


def _eligible(frame: pd.DataFrame, ground_truth: str) -> pd.DataFrame:
    if ground_truth == "positive_gain":
        mask = [bool(meta["labels"]["positive_gain_eligible"]) for meta in frame["meta"]]
        return frame[np.array(mask, dtype=bool)]
    return frame


def _stack(frame: pd.DataFrame, column: str) -> np.ndarray:
    return np.vstack(frame[column].to_list()) if len(frame) else np.zeros((0, 3))


def _summary(correct: np.ndarray, p0: float) -> dict[str, Any]:
    n = int(correct.size)
    accuracy = float(correct.mean()) if n else float("nan")
    p = m.ztest_pvalue(correct, p0)
    return {
        "hits": int(correct.sum()),
        "n": n,
        "accuracy": accuracy,
        "p0": p0,
        "p_value": p,
        "significant": bool(p <= m.ALPHA) if not np.isnan(p) else False,
        "se": m.binomial_se(accuracy, n),
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


def _record(
    rq: str,
    checkpoint: str,
    stage_label: str,
    eval_set: str,
    split: str,
    ground_truth: str,
    correct: np.ndarray,
    p0: float,
    tuned: Mapping[str, Any] | None = None,
    tuned_on: str = "",
) -> dict[str, Any]:
    model, _ = split_checkpoint(checkpoint)
    tuned = tuned or {}
    return {
        "rq": rq,
        "model": model,
        "stage": stage_label,
        "checkpoint": checkpoint,
        "eval_set": eval_set,
        "split": split,
        "ground_truth": ground_truth,
        "tuned_on": tuned_on,
        "threshold": tuned.get("threshold", float("nan")),
        "dev_accuracy": tuned.get("dev_accuracy", float("nan")),
        **_summary(correct, p0),
    }


def _threshold_records(rq, scores, ckpt, stage_label, eval_set, split, tune_set, ground_truths, per_question):
    records = []
    frame = _select(scores, ckpt, eval_set, split)
    tune = _select(scores, ckpt, tune_set, "dev")
    for gt in ground_truths:
        if frame.empty or tune.empty:
            continue
        tuned, correct, predicted = evaluate_threshold(frame, tune, gt)
        p0 = m.random_set_baseline(_label_sets(_eligible(frame, gt), gt))
        records.append(_record(rq, ckpt, stage_label, eval_set, split, gt, correct, p0, tuned, f"{tune_set}:dev"))
        ids = _eligible(frame, gt)["item_id"].to_list()
        per_question += [
            {
                "rq": rq,
                "checkpoint": ckpt,
                "eval_set": eval_set,
                "split": split,
                "ground_truth": gt,
                "item_id": i,
                "prediction": p,
                "correct": int(c),
            }
            for i, p, c in zip(ids, predicted, correct, strict=True)
        ]
    return records


def _standard_record(rq, scores, ckpt, stage_label, eval_set, split, per_question):
    frame = _select(scores, ckpt, eval_set, split)
    if frame.empty:
        return []
    predictions, correct = evaluate_standard(frame)
    per_question += [
        {
            "rq": rq,
            "checkpoint": ckpt,
            "eval_set": eval_set,
            "split": split,
            "ground_truth": "standard",
            "item_id": i,
            "prediction": items_mod.LETTERS[int(p)],
            "correct": int(c),
        }
        for i, p, c in zip(frame["item_id"], predictions, correct, strict=True)
    ]
    p0 = float(np.mean([1 / len(lg) for lg in frame["logits"]]))
    return [_record(rq, ckpt, stage_label, eval_set, split, "standard", correct, p0)]


def evaluate_all(
    scores: pd.DataFrame, models: Sequence[str], config: Mapping[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every evaluation of the paper (RQ1, RQ2 incl. BCA, RQ3) -> (one row per evaluation, one row per question)."""
    templates = config.get("templates", list(items_mod.VALUE_TEMPLATES))
    modalities = config.get("modalities", list(items_mod.MODALITIES))
    rq2_stage = f"value_{config.get('rq2_template', 'CV')}"
    belief_set = items_mod.benchmark_name("value", config.get("belief_template", "CV"))
    records: list[dict[str, Any]] = []
    per_question: list[dict[str, Any]] = []
    for model in models:
        default = checkpoint_name(model, STAGE_DEFAULT)
        for template in templates:  # RQ1
            eval_set = items_mod.benchmark_name("value", template)
            for ckpt, label in ((default, "default"), (checkpoint_name(model, f"value_{template}"), "fine-tuned")):
                records += _standard_record("rq1", scores, ckpt, label, eval_set, "test", per_question)
                records += _threshold_records(
                    "rq1", scores, ckpt, label, eval_set, "test", eval_set, items_mod.VALUE_GROUND_TRUTHS, per_question
                )
        for modality in modalities:  # RQ2
            eval_set = items_mod.benchmark_name("bet", modality)
            for ckpt, label in ((default, "default"), (checkpoint_name(model, rq2_stage), "fine-tuned")):
                frame = _select(scores, ckpt, eval_set, "test")
                if frame.empty:
                    continue
                records += _standard_record("rq2", scores, ckpt, label, eval_set, "test", per_question)
                beliefs = _beliefs(scores, ckpt, belief_set, "test")
                predictions, _ = evaluate_standard(frame)
                metas = frame["meta"].to_list()
                question_beliefs = [beliefs[(meta["high"], meta["low"])] for meta in metas]
                correct = m.belief_conditioned_correct(
                    predictions, [meta["standard_by_belief"] for meta in metas], question_beliefs
                )
                records.append(
                    _record(
                        "rq2",
                        ckpt,
                        label,
                        eval_set,
                        "test",
                        "bca",
                        correct,
                        1 / 3,
                        tuned_on=f"beliefs:{belief_set}:test",
                    )
                )
                records += _threshold_records(
                    "rq2", scores, ckpt, label, eval_set, "test", eval_set, items_mod.BET_GROUND_TRUTHS, per_question
                )
        for source in modalities:  # RQ3
            ckpt = checkpoint_name(model, f"bet_{source}")
            tune_set = items_mod.benchmark_name("bet", source)
            for target in modalities:
                eval_set = items_mod.benchmark_name("bet", target)
                for split in ("train", "test"):
                    records += _standard_record(
                        "rq3", scores, ckpt, f"fine-tuned:{source}", eval_set, split, per_question
                    )
                records += _threshold_records(
                    "rq3",
                    scores,
                    ckpt,
                    f"fine-tuned:{source}",
                    eval_set,
                    "test",
                    tune_set,
                    items_mod.BET_GROUND_TRUTHS,
                    per_question,
                )
    evaluations = pd.DataFrame.from_records(records, columns=EVALUATION_COLUMNS)
    return evaluations, pd.DataFrame.from_records(per_question)


# ----------------------------------------------------------------------------------------------------------------
# Static tables (rendered from the item lists and templates)


def _example_pair(lists: items_mod.ItemLists) -> tuple[str, str]:
    high, low = lists.high["test"], lists.low["test"]
    return ("airplane" if "airplane" in high else high[0]), ("pen" if "pen" in low else low[0])


def table1(lists: items_mod.ItemLists, templates: Mapping[str, Any]) -> pd.DataFrame:
    """Table 1: one MCQA instance, its choices and the concatenated question-answer pairs the encoder scores."""
    high, low = _example_pair(lists)
    item = next(
        q
        for q in items_mod.value_questions("BE", "test", lists, templates)
        if q.meta["high"] == high and q.meta["low"] == low
    )
    return pd.DataFrame(
        {
            "Prompt": [item.prompt] * len(item.choices),
            "Choice": list(item.choices),
            "Question-Answer Pair": [f"{item.prompt} {c}" for c in item.choices],
        }
    )


def table2(lists: items_mod.ItemLists) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Split": list(items_mod.SPLITS),
            "High-value items": [", ".join(lists.high[s]) for s in items_mod.SPLITS],
            "Low-value items": [", ".join(lists.low[s]) for s in items_mod.SPLITS],
            "Value questions per template": [len(lists.high[s]) * len(lists.low[s]) for s in items_mod.SPLITS],
            "Bet questions per modality": [4 * len(lists.high[s]) * len(lists.low[s]) for s in items_mod.SPLITS],
        }
    )


def _listing(prompt: str, choices: Sequence[str]) -> str:
    return " ".join([prompt] + [f"({items_mod.LETTERS[i]}) {c}" for i, c in enumerate(choices)])


def table3(lists: items_mod.ItemLists, templates: Mapping[str, Any]) -> pd.DataFrame:
    high, low = "car", "pen"
    if high not in lists.high["test"] or low not in lists.low["test"]:
        high, low = lists.high["test"][0], lists.low["test"][0]
    rows = []
    for name, template in templates["value"].items():
        texts = [c["text"] for c in template["choices"]]
        rows.append(
            {
                "Name": template["name"],
                "Template": _listing(
                    template["prompt"].format(h="[h]", l="[l]"), [t.format(h="[h]", l="[l]") for t in texts]
                ),
                "Example instantiation (value question)": _listing(
                    template["prompt"].format(h=high, l=low), [t.format(h=high, l=low) for t in texts]
                ),
            }
        )
    return pd.DataFrame(rows)


def table4(templates: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for template in templates["bet"].values():
        a, b = template["outcomes"]
        prompt = template["prompt"].format(a=a, b=b, pay_a="win a [h]/[l]", pay_b="lose a [l]/[h]")
        rows.append({"Modality": template["name"], "Question template": _listing(prompt, template["choices"])})
    return pd.DataFrame(rows)


def expected_gain_table(templates: Mapping[str, Any], variant: str) -> pd.DataFrame:
    """Tables 7-8: expected gain of every admissible prediction of a Coin question, derived symbolically."""
    outcomes = items_mod.variant_outcomes(templates, variant)
    gains = items_mod.prediction_gains(outcomes)
    labels = items_mod.bet_label_sets(outcomes)
    names = {"a": "Head", "b": "Tail", "ab": "Head and Tail", "c": "Do Not Bet"}
    sign_words = {1: "> 0", 0: "= 0", -1: "< 0"}
    rows = []
    for key, name in names.items():
        form = gains[key]
        rows.append(
            {
                "Choice": name,
                "Expected gain": items_mod.format_form(form),
                "Sign on 0 < L < X < (H-L)/2": sign_words[items_mod.sign_on_region(form)],
                "Strict": key in labels["strict"],
                "Positive Gain": key in labels["positive_gain"],
                "Non-Negative Gain": key in labels["non_negative_gain"],
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------------------------
# Result tables


def _pct(x: float) -> str:
    return "n/a" if pd.isna(x) else f"{100 * x:.0f}"


def _mark(row: pd.Series, symbol: str) -> str:
    return symbol if row["significant"] else ""


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
            parts.append(
                _pct(r["accuracy_percent"] / 100) + _mark(r, symbol)
                if value == "accuracy"
                else m.format_pvalue(r["p_value"])
            )
        return "/".join(parts)

    return cell


def long_table(ev: pd.DataFrame) -> pd.DataFrame:
    """The CSV form of a result table: one row per evaluation, accuracy in %."""
    out = ev.copy()
    out["condition"] = [
        e.removeprefix("bets_value_").removeprefix("bets_bet_").upper() if "value" in e else e.removeprefix("bets_bet_")
        for e in out["eval_set"]
    ]
    out["accuracy_percent"] = 100 * out["accuracy"]
    out["se_percent"] = 100 * out["se"]
    cols = [
        "model",
        "stage",
        "condition",
        "split",
        "ground_truth",
        "accuracy_percent",
        "se_percent",
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
    return out[cols].sort_values(["model", "stage", "condition", "split", "ground_truth"]).reset_index(drop=True)


CONDITION_ORDER = [*items_mod.VALUE_TEMPLATES, *items_mod.MODALITIES]  # the paper's: BE BV CE CV; Coin Dice Card
GROUND_TRUTH_ORDER = ["standard", "bca", *items_mod.VALUE_GROUND_TRUTHS, *items_mod.BET_GROUND_TRUTHS]


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
        "alpha .05)."
        if value == "accuracy"
        else f"\nCells: {legend} one-sided z-test p-values vs the random baseline."
    )
    return "\n".join(lines) + "\n" + note + "\n"


RESULT_TABLES: dict[str, dict[str, Any]] = {
    "table5": {
        "rq": "rq1",
        "gts": ["standard"],
        "value": "accuracy",
        "rows": ["model"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 5: value questions, standard method, accuracy (%)",
    },
    "table9": {
        "rq": "rq1",
        "gts": ["standard"],
        "value": "p",
        "rows": ["model"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 9: p-values of Table 5 (vs 1/3)",
    },
    "table10": {
        "rq": "rq1",
        "gts": ["normal"],
        "value": "p",
        "rows": ["model"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 10: p-values of Fig. 1, Normal (vs 1/8)",
    },
    "table11": {
        "rq": "rq1",
        "gts": ["weak_normal"],
        "value": "p",
        "rows": ["model"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 11: p-values of Fig. 1, Weak Normal (vs 1/4)",
    },
    "table12": {
        "rq": "rq1",
        "gts": ["weak"],
        "value": "p",
        "rows": ["model"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 12: p-values of Fig. 1, Weak (vs 5/8)",
    },
    "table6": {
        "rq": "rq2",
        "gts": ["standard", "bca"],
        "value": "accuracy",
        "rows": ["model"],
        "cols": ["condition", "ground_truth"],
        "stages": ["default", "fine-tuned"],
        "symbol": "§",
        "what": "Table 6: bet questions, ACC and BCA (%), default / fine-tuned on value questions",
    },
    "table13": {
        "rq": "rq2",
        "gts": ["standard", "bca"],
        "value": "p",
        "rows": ["model"],
        "cols": ["condition", "ground_truth"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 13: p-values of Table 6 (vs 1/3)",
    },
    "table14": {
        "rq": "rq2",
        "gts": list(items_mod.BET_GROUND_TRUTHS),
        "value": "accuracy",
        "rows": ["model", "ground_truth"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "symbol": "§",
        "what": "Table 14: bet questions, threshold method (%), default / fine-tuned",
    },
    "table15": {
        "rq": "rq2",
        "gts": list(items_mod.BET_GROUND_TRUTHS),
        "value": "p",
        "rows": ["model", "ground_truth"],
        "cols": ["condition"],
        "stages": ["default", "fine-tuned"],
        "what": "Table 15: p-values of Table 14",
    },
    "table20": {
        "rq": "rq3",
        "gts": ["standard"],
        "value": "accuracy",
        "rows": ["model"],
        "cols": ["stage", "condition"],
        "stages": ["train", "test"],
        "split_stages": True,
        "what": "Table 20: RQ3 accuracy (%), train items / test items, fine-tuned on one modality",
    },
    "table16": {
        "rq": "rq3",
        "gts": ["standard"],
        "value": "p",
        "rows": ["model"],
        "cols": ["stage", "condition"],
        "stages": ["train", "test"],
        "split_stages": True,
        "what": "Table 16: p-values of Fig. 2 / Table 20",
    },
    "table17": {
        "rq": "rq3",
        "gts": ["strict"],
        "value": "p",
        "rows": ["model"],
        "cols": ["stage", "condition"],
        "stages": ["test"],
        "split_stages": True,
        "what": "Table 17: p-values of Fig. 3, Strict (vs 1/8)",
    },
    "table18": {
        "rq": "rq3",
        "gts": ["positive_gain"],
        "value": "p",
        "rows": ["model"],
        "cols": ["stage", "condition"],
        "stages": ["test"],
        "split_stages": True,
        "what": "Table 18: p-values of Fig. 3, Positive Gain (vs 1/4)",
    },
    "table19": {
        "rq": "rq3",
        "gts": ["non_negative_gain"],
        "value": "p",
        "rows": ["model"],
        "cols": ["stage", "condition"],
        "stages": ["test"],
        "split_stages": True,
        "what": "Table 19: p-values of Fig. 3, Non-Negative Gain (vs 1/4)",
    },
}
STATIC_TABLES = {
    "table1": "Table 1: an MCQA instance and its question-answer pairs",
    "table2": "Table 2: high- and low-value items per split",
    "table3": "Table 3: the four value templates with an example instantiation",
    "table4": "Table 4: the three bet modalities",
    "table7": "Table 7: expected gains, win a high-value item / lose a low-value item (Coin)",
    "table8": "Table 8: expected gains, lose a high-value item / win a low-value item (Coin)",
}


def result_table(ev: pd.DataFrame, name: str) -> tuple[pd.DataFrame, str]:
    """(CSV frame, Markdown in the paper's layout) of one result table."""
    spec = RESULT_TABLES[name]
    sel = ev[(ev["rq"] == spec["rq"]) & ev["ground_truth"].isin(spec["gts"])]
    if spec.get("split_stages"):  # RQ3: cells are 'train/test' per (fine-tune modality -> test modality)
        sel = sel[sel["split"].isin(spec["stages"])]
        return long_table(sel), _rq3_markdown(sel, spec)
    md = pivot_markdown(
        sel,
        rows=spec["rows"],
        columns=spec["cols"],
        stages=spec["stages"],
        value="accuracy" if spec["value"] == "accuracy" else "p",
        symbol=spec.get("symbol", "†"),
    )
    return long_table(sel), md


def _rq3_markdown(sel: pd.DataFrame, spec: Mapping[str, Any]) -> str:
    """RQ3 grids: one column per (fine-tune modality -> test modality), cells 'train/test'."""
    if sel.empty:
        return "_no evaluations (the study has no models configured)_\n"
    frame = sel.copy()
    frame["eval_set"] = [
        f"{ft.removeprefix('fine-tuned:')}->{e.removeprefix('bets_bet_')}"
        for ft, e in zip(frame["stage"], frame["eval_set"], strict=True)
    ]
    frame["stage"] = frame["split"]
    return pivot_markdown(
        frame,
        rows=spec["rows"],
        columns=["condition"],
        stages=spec["stages"],
        value="accuracy" if spec["value"] == "accuracy" else "p",
        symbol=spec.get("symbol", "†"),
    )


PAPER_SWAG_DEV_ACCURACY = {"BERT": 0.77, "RoBERTa": 0.79, "DeBERTa": 0.85, "BigBird": 0.81}  # Sec. 4.2.2


def training_notes(
    model_meta: Mapping[str, Mapping[str, Any]], paper_labels: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Which data each checkpoint was trained on, with which recipe, and its best dev accuracy -- for the default
    (SWAG) stage beside the paper's SWAG validation accuracy of the same model (BERT 77, RoBERTa 79, DeBERTa 85,
    BigBird 81; empty where our model is not one of the paper's) -- and whether each task fine-tuning reached its
    target."""
    paper_labels = paper_labels or {}
    rows = []
    for name, meta in sorted(model_meta.items()):
        training = meta.get("training", {})
        params = training.get("params", {})
        model, stage = split_checkpoint(name)
        paper_model = paper_labels.get(model, "")
        rows.append(
            {
                "model": model,
                "stage": stage,
                "trained_on": training.get("data", ""),
                "train_items": training.get("train_items"),
                "dev_items": training.get("dev_items"),
                "input_format": params.get("input_format", ""),
                "learning_rate": params.get("learning_rate"),
                "batch_size": params.get("batch_size"),
                "warmup_steps": params.get("warmup_steps"),
                "max_length": params.get("max_length"),
                "epochs_run": training.get("epochs_run"),
                "steps": training.get("steps"),
                "best_dev_accuracy": training.get("best_dev_accuracy"),
                "paper_model": paper_model,
                "paper_swag_dev_accuracy": (
                    PAPER_SWAG_DEV_ACCURACY.get(paper_model, np.nan) if stage == STAGE_DEFAULT else np.nan
                ),
                "target_dev_accuracy": training.get("target_dev_accuracy"),
                "reached_target": training.get("reached_target"),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------------------------
# Paper comparison


def _our_key(ev: pd.DataFrame) -> pd.DataFrame:
    """Our evaluations keyed like paper_numbers.csv (table, stage, condition, metric)."""
    rows = []
    for r in ev.itertuples(index=False):
        cond = (
            r.eval_set.removeprefix("bets_value_").upper()
            if "value" in r.eval_set
            else r.eval_set.removeprefix("bets_bet_")
        )
        if r.rq == "rq1" and r.ground_truth == "standard":
            table = "table5"
        elif r.rq == "rq2" and r.ground_truth in ("standard", "bca"):
            table = "table6"
        elif r.rq == "rq2":
            table = "table14"
        elif r.rq == "rq3" and r.ground_truth == "standard":
            table, cond = "table20", f"{cond}:{r.split}"
        else:
            continue
        rows.append(
            {
                "table": table,
                "stage": r.stage,
                "condition": cond,
                "metric": r.ground_truth,
                "model": r.model,
                "accuracy_percent": 100 * r.accuracy,
                "n": r.n,
            }
        )
    return pd.DataFrame(rows, columns=["table", "stage", "condition", "metric", "model", "accuracy_percent", "n"])


def compare_paper(
    ev: pd.DataFrame, paper: pd.DataFrame, paper_labels: Mapping[str, str], notes: pd.DataFrame
) -> pd.DataFrame:
    """The paper's Tables 5, 6, 14 and 20 beside ours, plus the RQ3 headline (diagonal vs off-diagonal means).

    ``paper_labels`` maps our model names to the paper's (e.g. bert-base-uncased -> BERT); a row's ``same_model``
    says whether the two numbers come from the same model. Different models are not a reproduction, and the
    ``note`` column says so, together with the default-stage data and whether task fine-tuning reached its target.
    """
    acc = paper[paper["table"].isin(["table5", "table6", "table14", "table20"])].copy()
    acc["paper_value"] = acc["value"].astype(float)
    ours = _our_key(ev)
    keys = ["table", "stage", "condition", "metric"]
    rows = []
    for key, group in acc.groupby(keys, sort=False):
        entry = dict(zip(keys, key, strict=True))
        mine = ours[(ours[keys] == pd.Series(entry)).all(axis=1)] if not ours.empty else ours
        for r in group.itertuples(index=False):
            for o in mine.itertuples(index=False) if len(mine) else [None]:
                rows.append(
                    {
                        **entry,
                        "paper_model": r.model,
                        "paper_percent": r.paper_value,
                        "our_model": getattr(o, "model", ""),
                        "our_percent": getattr(o, "accuracy_percent", np.nan),
                        "same_model": bool(o is not None and paper_labels.get(o.model) == r.model),
                    }
                )
    out = pd.DataFrame(rows)
    out["difference"] = out["our_percent"] - out["paper_percent"]
    out = pd.concat([out, _headline(acc, ours, paper_labels)], ignore_index=True)
    out["note"] = [_note(r, notes) for r in out.itertuples(index=False)]
    return out


def _diag(frame: pd.DataFrame, diagonal: bool) -> pd.Series:
    ft = frame["stage"].str.removeprefix("fine-tuned:")
    te = frame["condition"].str.split(":").str[0]
    return (ft == te) if diagonal else (ft != te)


def _mean_and_se(frame: pd.DataFrame) -> tuple[float, float]:
    """Mean accuracy (%) of a set of cells and its binomial standard error (cells independent)."""
    if frame.empty:
        return np.nan, np.nan
    p = frame["accuracy_percent"].to_numpy(dtype=float) / 100
    n = frame["n"].to_numpy(dtype=float)
    return 100 * float(p.mean()), 100 * float(np.sqrt(np.sum(p * (1 - p) / n)) / len(p))


def _headline(acc: pd.DataFrame, ours: pd.DataFrame, paper_labels: Mapping[str, str]) -> pd.DataFrame:
    """RQ3's headline on test items: the mean of the diagonal (fine-tuned and tested on the same modality), of the
    off-diagonal cells, and their gap (paper: 96.1 - 71.8 = 24.3 points), ours with a binomial SE; the gap row's
    ``gap_appears`` says whether our gap is positive by more than 1.96 SE."""
    paper20 = acc[(acc["table"] == "table20") & acc["condition"].str.endswith(":test")]
    ours20 = ours[(ours["table"] == "table20") & ours["condition"].str.endswith(":test")] if not ours.empty else ours
    paper_means = {d: paper20[_diag(paper20, d)]["paper_value"].mean() for d in (True, False)}
    rows = []
    for model in sorted(ours20["model"].unique()) if len(ours20) else [""]:
        mine = ours20[ours20["model"] == model] if model else ours20
        stats = {d: _mean_and_se(mine[_diag(mine, d)]) if len(mine) else (np.nan, np.nan) for d in (True, False)}
        gap = stats[True][0] - stats[False][0]
        gap_se = float(np.hypot(stats[True][1], stats[False][1]))
        cells = [
            ("diagonal mean", paper_means[True], stats[True][0], stats[True][1]),
            ("off-diagonal mean", paper_means[False], stats[False][0], stats[False][1]),
            ("diagonal minus off-diagonal", paper_means[True] - paper_means[False], gap, gap_se),
        ]
        for label, paper_value, our_value, se in cells:
            rows.append(
                {
                    "table": "table20 headline",
                    "stage": "fine-tuned",
                    "condition": label,
                    "metric": "standard",
                    "paper_model": "mean of 4",
                    "paper_percent": paper_value,
                    "our_model": model,
                    "our_percent": our_value,
                    "our_se_percent": se,
                    "same_model": False,
                    "difference": our_value - paper_value,
                    "gap_appears": (bool(gap > 1.96 * gap_se) if not np.isnan(gap) else None)
                    if label == "diagonal minus off-diagonal"
                    else None,
                }
            )
    return pd.DataFrame(rows)


def _note(row: Any, notes: pd.DataFrame) -> str:
    parts = []
    if row.condition == "diagonal minus off-diagonal" and row.our_model:
        appears = getattr(row, "gap_appears", None)
        if appears is True:
            parts.append("the paper's same- vs cross-modality gap appears (> 1.96 SE)")
        elif appears is False:
            parts.append("the paper's same- vs cross-modality gap does not appear (not > 1.96 SE)")
    if row.our_model and not row.same_model:
        parts.append(
            f"different model ({row.our_model} vs the paper's {row.paper_model}): a comparison, not a reproduction"
        )
    if row.our_model and not notes.empty:
        default = notes[(notes["model"] == row.our_model) & (notes["stage"] == "default")]
        if len(default):
            parts.append(f"default stage trained on {default.iloc[0]['trained_on']}")
        task = None
        if row.table == "table20" or row.table == "table20 headline":
            task = notes[(notes["model"] == row.our_model) & notes["stage"].str.startswith("bet_")]
        elif row.stage == "fine-tuned":
            task = notes[(notes["model"] == row.our_model) & notes["stage"].str.startswith("value_")]
        if task is not None and len(task) and not bool(task["reached_target"].all()):
            missed = ", ".join(task.loc[~task["reached_target"].astype(bool), "stage"])
            parts.append(f"task fine-tuning did not reach the target dev accuracy for {missed}")
    if not row.our_model:
        parts.append("no model of ours for this cell")
    return "; ".join(parts)


def pvalue_check(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's p-values recomputed from the paper's own accuracies with our z-test; marks where they agree."""
    pairs = {"table9": "table5", "table13": "table6", "table15": "table14", "table16": "table20"}
    keys = ["model", "stage", "condition", "metric"]
    rows = []
    for p_table, acc_table in pairs.items():
        pv = paper[paper["table"] == p_table].set_index(keys)
        acc = paper[paper["table"] == acc_table].set_index(keys)
        for key, r in pv.iterrows():
            accuracy = float(acc.loc[key, "value"])
            n = int(r["n"])
            p0 = PAPER_BASELINES[key[3]]
            ours = m.pvalue_from_accuracy(accuracy, n, p0)
            rows.append(
                {
                    "table": p_table,
                    "accuracy_table": acc_table,
                    **dict(zip(keys, key, strict=True)),
                    "n": n,
                    "p0": p0,
                    "paper_accuracy_percent": accuracy,
                    "paper_p": r["value"],
                    "our_p": ours,
                    "our_p_printed": m.format_pvalue(ours),
                    "agrees": m.paper_pvalue_agrees(ours, r["value"]),
                }
            )
    return pd.DataFrame(rows)


def read_paper_numbers(path: str) -> pd.DataFrame:
    """data/bets/paper/paper_numbers.csv with values kept as printed ('<.001', '.392', '68')."""
    frame = pd.read_csv(path, dtype=str)
    frame["n"] = frame["n"].astype(int)
    return frame


def to_arrow(frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """A frame as an Arrow table of exactly ``schema`` (column order and types checked)."""
    missing = [f.name for f in schema if f.name not in frame.columns]
    if missing:
        raise ValueError(f"cannot write {schema.metadata.get(b'choicelab.schema', b'').decode()}: missing {missing}")
    return pa.table({f.name: frame[f.name].to_list() for f in schema}, schema=schema)


def questions_by_key(items: Iterable[MCItem]) -> dict[tuple[str, str, str], MCItem]:
    return {(it.benchmark, it.split, it.item_id): it for it in items}


def meta_json(meta: Mapping[str, Any]) -> str:
    return json.dumps(meta, sort_keys=True)
