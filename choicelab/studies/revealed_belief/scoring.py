"""Revealed-belief scoring steps (model-facing): a causal LM's revealed (RevB) and stated (StaA) distributions as
logit-dump rows.

RevB is the model's next-token distribution over a scenario's outcomes at the end of a text-completion context,
computed exactly over multi-token outcomes (chain rule, times the probability that a number ends there) and
renormalized over the outcome set; the raw outcome mass and first tokens are kept in the dump. StaA is the letter
distribution (A-E, renormalized) of the continuations "[A" ... "[E" of the assistant turn after the chat-templated MCQ
(each scored whole, so a vocabulary with "[A" as one token is asked for that token).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from choicelab.dumps import DumpRow
from choicelab.studies.revealed_belief.stated import (
    ANSWER_CONTINUATIONS,
    ANSWER_LETTERS,
    StatedQuestion,
    stated_prompt,
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


def stated_rows(scorer: Any, questions: pd.DataFrame, model_name: str,
                chat_template: bool | str | None = None) -> tuple[list[DumpRow], bool]:
    """Answer distribution ("[A" ... "[E", renormalized) after each stated-answer prompt; returns the rows and
    whether the model's chat template was used (False = the plain documented template)."""
    from choicelab.lm.candidates import candidate_distributions

    records = [
        StatedQuestion(r.question_id, r.setting_id, r.outcome, r.text, tuple(r.answers), int(r.correct_index))
        for r in questions.itertuples()
    ]
    prompts = [stated_prompt(q, scorer.tokenizer, chat_template) for q in records]
    used_chat = bool(prompts) and prompts[0][1]
    dists = candidate_distributions(
        scorer, [p for p, _ in prompts], [list(ANSWER_CONTINUATIONS)] * len(records), leading_space=False
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
