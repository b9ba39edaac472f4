"""Revealed-belief pipeline steps: scenarios -> revealed (RevB) and stated (StaA) logit dumps -> distances ->
the paper's tables.

RevB is the model's next-token distribution over a scenario's outcomes at the end of a text-completion context,
computed exactly over multi-token outcomes (chain rule, times the probability that a number ends there) and
renormalized over the outcome set; coverage (raw outcome mass) and first-token probabilities are kept. StaA is the
letter distribution (A-E, renormalized) after the chat-templated MCQ with the assistant turn pre-filled by "[";
its distance to the ideal one-hot answer is reported (Chebyshev = 1 - P(correct)).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pandas as pd
import pyarrow as pa

from choicelab.dumps import DumpRow
from choicelab.items.revealed_belief import ANSWER_LETTERS, Scenario, StatedQuestion, row_sort_key, stated_prompt
from choicelab.stats import chebyshev, first_token_mass, l1, symmetric_kl

SCENARIO_SCHEMA = pa.schema(
    [
        pa.field("setting_id", pa.string(), nullable=False),
        pa.field("family", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("row_label", pa.string(), nullable=False),
        pa.field("appendix", pa.string(), nullable=False),
        pa.field("row_key", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("outcomes", pa.list_(pa.string()), nullable=False),
        pa.field("true_probs", pa.list_(pa.float64()), nullable=False),
        pa.field("true_fractions", pa.list_(pa.string()), nullable=False),
        pa.field("params", pa.string(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"rb_scenarios/1"},
)

QUESTION_SCHEMA = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("setting_id", pa.string(), nullable=False),
        pa.field("outcome", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("answers", pa.list_(pa.string()), nullable=False),
        pa.field("correct_index", pa.int32(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"rb_stated_questions/1"},
)


def scenarios_table(scenarios: Sequence[Scenario]) -> pa.Table:
    """Scenarios as an Arrow table; true distributions also kept as exact fractions (text)."""
    if not scenarios:
        raise ValueError("no revealed-belief scenarios were generated: check studies.revealed_belief in the config")
    return pa.table(
        {
            "setting_id": [s.setting_id for s in scenarios],
            "family": [s.family for s in scenarios],
            "variant": [s.variant for s in scenarios],
            "row_label": [s.row_label for s in scenarios],
            "appendix": [s.appendix for s in scenarios],
            "row_key": [json.dumps(row_sort_key(s)) for s in scenarios],
            "prompt": [s.prompt for s in scenarios],
            "outcomes": [list(s.outcomes) for s in scenarios],
            "true_probs": [[float(p) for p in s.true_distribution] for s in scenarios],
            "true_fractions": [[str(Fraction(p)) for p in s.true_distribution] for s in scenarios],
            "params": [json.dumps(s.params, sort_keys=True, default=str) for s in scenarios],
        },
        schema=SCENARIO_SCHEMA,
    )


def questions_table(questions: Sequence[StatedQuestion]) -> pa.Table:
    return pa.table(
        {
            "question_id": [q.question_id for q in questions],
            "setting_id": [q.setting_id for q in questions],
            "outcome": [q.outcome for q in questions],
            "text": [q.text for q in questions],
            "answers": [list(q.answers) for q in questions],
            "correct_index": [q.correct_index for q in questions],
        },
        schema=QUESTION_SCHEMA,
    )


def _numeric(outcomes: Sequence[str]) -> bool:
    return all(o.isdigit() for o in outcomes)


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else float(value)


def revealed_rows(scorer: Any, scenarios: pd.DataFrame, model_name: str) -> list[DumpRow]:
    """Score every scenario's outcomes after its prompt; one dump row per (scenario, outcome)."""
    from choicelab.lm.candidates import candidate_distributions, digit_continuation_ids

    digits = digit_continuation_ids(scorer.tokenizer)
    rows: list[DumpRow] = []
    numeric = scenarios[scenarios["outcomes"].map(_numeric)]
    words = scenarios[~scenarios["outcomes"].map(_numeric)]
    for frame, excluded in ((numeric, digits), (words, None)):
        if frame.empty:
            continue
        dists = candidate_distributions(
            scorer, frame["prompt"].tolist(), [list(o) for o in frame["outcomes"]], terminal_excluded_ids=excluded
        )
        for (_, scenario), dist in zip(frame.iterrows(), dists, strict=True):
            probs = dist.probs
            for k, outcome in enumerate(dist.candidates):
                rows.append(
                    DumpRow(
                        study="revealed_belief", benchmark=f"rb_{scenario['family']}", split="",
                        item_id=scenario["setting_id"], option_id=k, option_text=outcome, variant="revealed",
                        context=dist.context, model=model_name, method="outcome_prob", token_ids=dist.token_ids[k],
                        token_logprobs=dist.token_logprobs[k], sum_logprob=dist.logprobs[k], score=dist.logprobs[k],
                        prob=probs[k], is_label=False, boundary_merged=dist.boundary_merged[k],
                        terminal_logprob=_nan_if_none(dist.terminal_logprobs[k]),
                    )
                )
    return rows


def stated_rows(scorer: Any, questions: pd.DataFrame, model_name: str) -> tuple[list[DumpRow], bool]:
    """Letter distribution (A-E) after each stated-answer prompt; returns the rows and whether the model's chat
    template was used (False = the plain documented template)."""
    from choicelab.lm.candidates import candidate_distributions

    records = [
        StatedQuestion(r.question_id, r.setting_id, r.outcome, r.text, tuple(r.answers), int(r.correct_index))
        for r in questions.itertuples()
    ]
    prompts = [stated_prompt(q, scorer.tokenizer) for q in records]
    used_chat = bool(prompts) and prompts[0][1]
    dists = candidate_distributions(
        scorer, [p for p, _ in prompts], [list(ANSWER_LETTERS)] * len(records), leading_space=False
    )
    rows: list[DumpRow] = []
    variant = "stated:chat" if used_chat else "stated:plain"
    for q, dist in zip(records, dists, strict=True):
        probs = dist.probs
        for k, letter in enumerate(ANSWER_LETTERS):
            rows.append(
                DumpRow(
                    study="revealed_belief", benchmark="rb_stated", split="", item_id=q.question_id, option_id=k,
                    option_text=f"{letter}) {q.answers[k]}", variant=variant, context=dist.context, model=model_name,
                    method="letter_prob", token_ids=dist.token_ids[k], token_logprobs=dist.token_logprobs[k],
                    sum_logprob=dist.logprobs[k], score=dist.logprobs[k], prob=probs[k], is_label=k == q.correct_index,
                    boundary_merged=dist.boundary_merged[k], terminal_logprob=_nan_if_none(dist.terminal_logprobs[k]),
                )
            )
    return rows, used_chat


def _distances(p: Sequence[float], q: Sequence[float], epsilon: float) -> dict[str, float]:
    return {"chebyshev": chebyshev(p, q), "l1": l1(p, q), "symmetric_kl": symmetric_kl(p, q, epsilon=epsilon)}


def revealed_metrics(dump: pd.DataFrame, scenarios: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per (model, setting): distances of the revealed vs the true distribution, plus coverage (raw outcome mass)."""
    truth = scenarios.set_index("setting_id")
    records = []
    for (model, setting_id), group in dump.groupby(["model", "item_id"], sort=True):
        group = group.sort_values("option_id")
        true_probs = list(truth.loc[setting_id, "true_probs"])
        revealed = group["prob"].tolist()
        if len(revealed) != len(true_probs):
            raise ValueError(f"setting {setting_id}: {len(revealed)} revealed outcomes but {len(true_probs)} true ones")
        records.append(
            {
                "model": model, "setting_id": setting_id, "method": "revealed",
                **{c: truth.loc[setting_id, c] for c in ("family", "variant", "row_label", "appendix", "row_key")},
                **_distances(revealed, true_probs, epsilon),
                "coverage": math.fsum(math.exp(s) for s in group["score"]),
                "first_token_mass": first_token_mass(list(group["token_ids"]), list(group["token_logprobs"])),
            }
        )
    return pd.DataFrame.from_records(records)


def stated_metrics(dump: pd.DataFrame, questions: pd.DataFrame, scenarios: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per (model, setting): the StaA distance to the ideal one-hot answer, averaged over the queried outcomes
    (Chebyshev = StaA error = 1 - P(correct letter))."""
    truth = scenarios.set_index("setting_id")
    setting_of = dict(zip(questions["question_id"], questions["setting_id"], strict=True))
    per_question = []
    for (model, variant, question_id), group in dump.groupby(["model", "variant", "item_id"], sort=True):
        group = group.sort_values("option_id")
        ideal = [1.0 if label else 0.0 for label in group["is_label"]]
        per_question.append({"model": model, "template": variant.split(":")[-1], "setting_id": setting_of[question_id],
                             **_distances(group["prob"].tolist(), ideal, epsilon)})
    frame = pd.DataFrame.from_records(per_question)
    if frame.empty:
        return frame
    out = frame.groupby(["model", "template", "setting_id"], as_index=False)[["chebyshev", "l1", "symmetric_kl"]].mean()
    for c in ("family", "variant", "row_label", "appendix", "row_key"):
        out[c] = out["setting_id"].map(truth[c])
    out["method"] = "stated"
    return out


def baseline_setting(setting_id: str, params: dict[str, Any]) -> str:
    """The single-roll setting a dice setting is compared with in Fig. 5: the same number of dice and faces."""
    return f"dice-single-{params['dice']}d{params['faces']}"


FIG5_CHANGES = (("independent", "prior independent result"), ("observation", "one observation"))


def baseline_increases(metrics: pd.DataFrame, scenarios: pd.DataFrame, roles: dict[str, str]) -> pd.DataFrame:
    """Fig. 5's data: per (model, setting) of a dice roll with a prior independent result or one observation, the
    increase of its Chebyshev error over *its own* baseline -- the single roll with the same dice and faces, scored by
    the same model with the same method (and, for StaA, the same prompt template). One row per (group, model,
    setting); ``group`` is "RevB base", "RevB instruct" or "StaA". A setting whose baseline is missing is an error."""
    params = {s: json.loads(p) for s, p in zip(scenarios["setting_id"], scenarios["params"], strict=True)}
    dice = metrics[metrics["family"] == "dice"]
    template = dice["template"] if "template" in dice.columns else pd.Series("", index=dice.index)
    dice = dice.assign(template=template.fillna(""))
    baseline = dice.set_index(["method", "model", "template", "setting_id"])["chebyshev"]
    records = []
    for variant, change in FIG5_CHANGES:
        for r in dice[dice["variant"] == variant].itertuples(index=False):
            base_id = baseline_setting(r.setting_id, params[r.setting_id])
            key = (r.method, r.model, r.template, base_id)
            if key not in baseline.index:
                raise ValueError(f"Fig. 5: no {r.method} baseline {base_id} for {r.model} (setting {r.setting_id})")
            group = "StaA" if r.method == "stated" else f"RevB {roles.get(r.model, '?')}"
            records.append({"group": group, "change": change, "model": r.model, "setting_id": r.setting_id,
                            "baseline_setting": base_id, "chebyshev": r.chebyshev,
                            "baseline_chebyshev": float(baseline[key]),
                            "increase": r.chebyshev - float(baseline[key])})
    columns = ["group", "change", "model", "setting_id", "baseline_setting", "chebyshev", "baseline_chebyshev",
               "increase"]
    return pd.DataFrame.from_records(records, columns=columns)


def models_note(models: Sequence[str], roles: dict[str, str]) -> str:
    """A caption's sentence naming the models that actually ran, by role (RevB base / instruct; StaA: instruct)."""
    base = [m for m in models if roles.get(m) == "base"]
    instruct = [m for m in models if roles.get(m) == "instruct"]
    return (f"Base models: {', '.join(base) or 'none'}; instruction-tuned models: {', '.join(instruct) or 'none'} "
            "(StaA is asked of the instruction-tuned ones).")


# -- tables ---------------------------------------------------------------------------------------------------

METRIC_BLOCKS = (("chebyshev", "Chebyshev"), ("l1", "L1"), ("symmetric_kl", "Symmetric KL"))
BLOCKS = {1: ("revealed", "base"), 2: ("revealed", "instruct"), 3: ("stated", "instruct")}
BLOCK_TITLES = {1: "Revealed Belief (base models)", 2: "Revealed Belief (instruction fine-tuned models)",
                3: "Stated Answer (instruction fine-tuned models)"}
GROUP_TITLES = {"b1": "Dice: regular, independent, dependent", "b2": "Dice: one observation",
                "b3": "Dice: two observations, single die", "b4": "Dice: two observations, multiple dice",
                "c": "Coins", "d": "Choice", "e": "Preference"}


def appendix_table_ids() -> dict[str, tuple[str, int]]:
    """Artifact table id -> (scenario appendix group, block 1/2/3), in the paper's numbering."""
    ids: dict[str, tuple[str, int]] = {}
    for block in (1, 2, 3):
        for k in (1, 2, 3, 4):
            ids[f"table_b{block}_{k}"] = (f"b{k}", block)
    for letter in ("c", "d", "e"):
        for block in (1, 2, 3):
            ids[f"table_{letter}{block}"] = (letter, block)
    return ids


def paper_reference(table_id: str) -> str:
    group, block = appendix_table_ids()[table_id]
    number = f"B.{block}.{group[1]}" if group.startswith("b") else f"{group.upper()}.{block}"
    return f"Appendix Table {number}: {GROUP_TITLES[group]}, {BLOCK_TITLES[block]}"


def appendix_table(metrics: pd.DataFrame, group: str, models: Sequence[str]) -> pd.DataFrame:
    """A Chebyshev, an L1 and a symmetric-KL block of rows (the paper's row labels and order), one column per model;
    each cell averages the row's settings (the parameters the row does not list)."""
    subset = metrics[metrics["appendix"] == group]
    if subset.empty:
        raise ValueError(f"no revealed-belief metrics for appendix group {group!r}")
    order = subset.drop_duplicates("row_label").assign(key=lambda f: f["row_key"].map(json.loads))
    rows = [r for r, _ in sorted(zip(order["row_label"], order["key"], strict=True), key=lambda x: x[1])]
    records = []
    for column, title in METRIC_BLOCKS:
        means = subset.groupby(["row_label", "model"])[column].mean()
        for row in rows:
            record: dict[str, Any] = {"metric": title, "row": row}
            for model in models:
                record[model] = float(means.get((row, model), float("nan")))
            records.append(record)
    return pd.DataFrame.from_records(records, columns=["metric", "row", *models])


def table1(scenarios: pd.DataFrame) -> pd.DataFrame:
    """Table 1: scenarios, variants and parameters, with the number of settings generated for each."""
    parameters = {
        ("dice", "single"): "Number of dice, number of faces",
        ("dice", "independent"): "Number of dice, number of faces, result of the previous roll",
        ("dice", "dependent"): "Number of dice, number of faces, result of the previous roll",
        ("dice", "observation"): "Number of dice, number of faces, observation",
        ("dice", "two observations"): "Number of dice, number of faces, two observations",
        ("coins", "single"): "Number of coins, Heads or Tails, bias",
        ("coins", "independent"): "Number of coins, Heads or Tails, bias, result of the previous flip",
        ("coins", "dependent"): "Number of coins, Heads or Tails, bias, result of the previous flip",
        ("choice", "single"): "Number of options",
        ("choice", "independent"): "Number of options, previous choice",
        ("preference", "single"): "Option 1, option 2, bias, order",
        ("preference", "independent"): "Option 1, option 2, bias, order, previous selection",
    }
    counts = scenarios.groupby(["family", "variant"], sort=False).size()
    return pd.DataFrame.from_records(
        [{"scenario": family.capitalize(), "variant": variant, "parameters": parameters[(family, variant)],
          "settings": int(n)} for (family, variant), n in counts.items()]
    )


def compare_paper(metrics: pd.DataFrame, paper: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """The paper's Llama-3-70B Chebyshev rows beside ours (context, not a pass/fail)."""
    ours = metrics.groupby(["method", "appendix", "row_label", "model"])["chebyshev"].mean()
    records = []
    for row in paper.itertuples():
        group, block = appendix_table_ids()[row.table]
        method = BLOCKS[block][0]
        record = {"table": row.table, "row": row.row, "paper_llama3_70b": row.llama3_70b}
        for model in models:
            record[model] = float(ours.get((method, group, row.row, model), float("nan")))
        records.append(record)
    return pd.DataFrame.from_records(records)


def to_markdown(frame: pd.DataFrame, floatfmt: str = ".2f") -> str:
    return frame.to_markdown(index=False, floatfmt=floatfmt) + "\n"
