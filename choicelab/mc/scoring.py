"""Scoring any multiple-choice benchmark (a list of MCItem) with the shared engine into logit-dump rows.

Rows take the ``variant`` given, else the item's ``meta["variant"]`` (probed instances carry theirs), and the
``context`` the model was conditioned on (the prompt a continuation follows, or the lettered prompt).

Three generic methods, used by every study and by the cross-benchmark grids:

* ``sum_logprob`` (causal): each choice is a continuation of the prompt; score = sum of its token log-probs.
* ``letter_prob`` (causal): the choices are listed with letters after the prompt, followed by an answer suffix;
  score = log-probability of each letter as the next token(s); ``prob`` renormalized over the letters.
* ``mc_logit`` (encoder): AutoModelForMultipleChoice raw logit per choice; ``prob`` = softmax over the choices.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from choicelab.dumps import DumpRow, softmax
from choicelab.mc.items import MCItem

LETTERS = tuple(string.ascii_uppercase)
DEFAULT_ANSWER_SUFFIX = "Answer:"


def letter_prompt(item: MCItem, letters: Sequence[str] = LETTERS, suffix: str = DEFAULT_ANSWER_SUFFIX) -> str:
    """The prompt, the options as ``A. text`` lines, then the answer suffix (the letter follows after a space)."""
    if len(item.choices) > len(letters):
        raise ValueError(f"item {item.item_id!r} has {len(item.choices)} choices but only {len(letters)} letters")
    lines = [item.prompt.rstrip()] if item.prompt.strip() else []
    lines += [f"{letters[k]}. {choice}" for k, choice in enumerate(item.choices)]
    lines.append(suffix)
    return "\n".join(lines)


@dataclass(frozen=True)
class _Scored:
    """One item's options as a method scored them after ``context``: a score per option, the tokens it scored and
    their log-probabilities (empty for an encoder's logits), whether a token straddled the option's boundary, and the
    log-probability of what ends the option (None where not scored)."""

    context: str
    scores: Sequence[float]
    token_ids: Sequence[Sequence[int]]
    token_logprobs: Sequence[Sequence[float]]
    boundary_merged: Sequence[bool] | None = None
    terminal_logprobs: Sequence[float | None] | None = None


def _rows_for_item(item: MCItem, scored: _Scored, *, study: str, model: str, method: str,
                   variant: str) -> list[DumpRow]:
    scores, token_logprobs = scored.scores, scored.token_logprobs
    probs = softmax(list(scores))
    merged = scored.boundary_merged if scored.boundary_merged is not None else [False] * len(item.choices)
    terminal = scored.terminal_logprobs if scored.terminal_logprobs is not None else [None] * len(item.choices)
    return [
        DumpRow(
            study=study,
            benchmark=item.benchmark,
            split=item.split,
            item_id=item.item_id,
            option_id=k,
            option_text=item.choices[k],
            variant=variant or str(item.meta.get("variant", "")),
            context=scored.context,
            model=model,
            method=method,
            token_ids=tuple(scored.token_ids[k]),
            token_logprobs=tuple(token_logprobs[k]),
            sum_logprob=float(sum(token_logprobs[k])) + (terminal[k] or 0.0) if token_logprobs[k] else float(scores[k]),
            score=float(scores[k]),
            prob=probs[k],
            is_label=k == item.label,
            boundary_merged=bool(merged[k]),
            terminal_logprob=math.nan if terminal[k] is None else float(terminal[k]),
        )
        for k in range(len(item.choices))
    ]


def candidate_rows(item: MCItem, dist: Any, *, study: str, model: str, method: str, variant: str) -> list[DumpRow]:
    """Rows for one item from a :class:`choicelab.lm.candidates.CandidateDistribution` over its option labels."""
    scored = _Scored(dist.context, list(dist.logprobs), list(dist.token_ids), list(dist.token_logprobs),
                     list(dist.boundary_merged), list(dist.terminal_logprobs))
    return _rows_for_item(item, scored, study=study, model=model, method=method, variant=variant)


def score_sequences(
    scorer: Any, items: Sequence[MCItem], *, study: str, model: str, variant: str = ""
) -> list[DumpRow]:
    """Method ``sum_logprob``: each choice scored as a continuation (after a space) of the item's prompt."""
    from choicelab.lm.causal import ContinuationRequest

    requests = [
        ContinuationRequest(f"{i}:{k}", item.prompt, (" " if item.prompt.strip() else "") + choice)
        for i, item in enumerate(items)
        for k, choice in enumerate(item.choices)
    ]
    scores = iter(scorer.score(requests))
    rows: list[DumpRow] = []
    for item in items:
        per_choice = [next(scores) for _ in item.choices]
        scored = _Scored(item.prompt, [s.sum_logprob for s in per_choice], [s.token_ids for s in per_choice],
                         [s.token_logprobs for s in per_choice], [s.boundary_merged for s in per_choice])
        rows += _rows_for_item(item, scored, study=study, model=model, method="sum_logprob", variant=variant)
    return rows


def score_letters(
    scorer: Any,
    items: Sequence[MCItem],
    *,
    study: str,
    model: str,
    variant: str = "",
    suffix: str = DEFAULT_ANSWER_SUFFIX,
    letters: Sequence[str] = LETTERS,
) -> list[DumpRow]:
    """Method ``letter_prob``: the probability of each option's letter after the lettered prompt."""
    from choicelab.lm.candidates import candidate_distributions

    contexts = [letter_prompt(item, letters, suffix) for item in items]
    candidates = [list(letters[: len(item.choices)]) for item in items]
    dists = candidate_distributions(scorer, contexts, candidates)
    rows: list[DumpRow] = []
    for item, dist in zip(items, dists, strict=True):
        rows += candidate_rows(item, dist, study=study, model=model, method="letter_prob", variant=variant)
    return rows


def score_encoder(
    model_obj: Any,
    tokenizer: Any,
    items: Sequence[MCItem],
    *,
    study: str,
    model: str,
    variant: str = "",
    input_format: str = "pair",
    max_length: int = 128,
) -> list[DumpRow]:
    """Method ``mc_logit``: an encoder's multiple-choice logits."""
    from choicelab.lm.encoder import mc_logits

    logits = mc_logits(model_obj, tokenizer, items, input_format=input_format, max_length=max_length)
    return encoder_rows(items, logits, study=study, model=model, variant=variant)


def encoder_rows(items: Sequence[MCItem], logits: Sequence[Sequence[float]], *, study: str, model: str,
                 variant: str = "") -> list[DumpRow]:
    """Method ``mc_logit`` rows of an encoder's multiple-choice logits (one array per item, in item order)."""
    rows: list[DumpRow] = []
    for item, values in zip(items, logits, strict=True):
        none = [() for _ in item.choices]
        scored = _Scored(item.prompt, [float(v) for v in values], none, none)
        rows += _rows_for_item(item, scored, study=study, model=model, method="mc_logit", variant=variant)
    return rows
