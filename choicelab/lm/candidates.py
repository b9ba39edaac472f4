"""Next-token distributions over candidate strings at the end of a context (letters, labels, outcomes).

A candidate's probability is the chain rule over its tokens (so multi-token candidates such as " 12" are exact),
optionally times a terminal factor: the probability that the candidate *ends* there, i.e. that the next token is
not a continuation (for numbers: not another digit), so " 1" is not credited with the mass of " 12".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from transformers import PreTrainedTokenizerBase

from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.stats import first_token_mass


@dataclass(frozen=True)
class CandidateDistribution:
    """Raw and renormalized probabilities of each candidate after one context.

    ``logprobs[i]`` is log P(candidate i [and it ends there]); ``coverage`` = sum of the raw probabilities, i.e. how
    much of the model's probability mass falls on the candidate set at all; ``first_token_probs[i]`` is the
    probability of candidate i's first token only; ``first_token_mass`` is the probability that the next token is
    the first token of any candidate (distinct first tokens counted once, so it is <= 1).
    """

    context: str
    candidates: tuple[str, ...]
    logprobs: tuple[float, ...]
    token_ids: tuple[tuple[int, ...], ...]
    token_logprobs: tuple[tuple[float, ...], ...]
    terminal_logprobs: tuple[float | None, ...]
    boundary_merged: tuple[bool, ...]

    @property
    def first_token_probs(self) -> tuple[float, ...]:
        return tuple(math.exp(lps[0]) if lps else 1.0 for lps in self.token_logprobs)

    @property
    def first_token_mass(self) -> float:
        return first_token_mass(self.token_ids, self.token_logprobs)

    @property
    def raw_probs(self) -> tuple[float, ...]:
        return tuple(math.exp(lp) for lp in self.logprobs)

    @property
    def coverage(self) -> float:
        return math.fsum(self.raw_probs)

    @property
    def probs(self) -> tuple[float, ...]:
        """Renormalized over the candidate set (computed in log space)."""
        top = max(self.logprobs)
        weights = [math.exp(lp - top) for lp in self.logprobs]
        total = math.fsum(weights)
        return tuple(w / total for w in weights)


def digit_continuation_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """Token ids whose text starts with a digit (no leading space): the tokens that would continue a number."""
    ids = []
    for token_id in range(len(tokenizer)):
        text = tokenizer.decode([token_id])
        if text[:1].isdigit():
            ids.append(token_id)
    return ids


def candidate_distributions(
    scorer: CausalScorer,
    contexts: Sequence[str],
    candidates: Sequence[Sequence[str]],
    *,
    leading_space: bool = True,
    terminal_excluded_ids: Iterable[int] | None = None,
) -> list[CandidateDistribution]:
    """For each context, the distribution over its candidates (written after a space when ``leading_space``)."""
    if len(contexts) != len(candidates):
        raise ValueError("one candidate list per context is required")
    requests = []
    for c, (context, cands) in enumerate(zip(contexts, candidates, strict=True)):
        if len(set(cands)) != len(cands):
            raise ValueError(f"candidates of context {c} are not unique: {list(cands)}")
        for k, cand in enumerate(cands):
            text = (" " + cand) if leading_space and not context.endswith(" ") else cand
            requests.append(ContinuationRequest(f"{c}:{k}", context, text))
    scores = iter(scorer.score(requests, terminal_excluded_ids=terminal_excluded_ids))
    out = []
    for context, cands in zip(contexts, candidates, strict=True):
        rows = [next(scores) for _ in cands]
        out.append(
            CandidateDistribution(
                context=context,
                candidates=tuple(cands),
                logprobs=tuple(r.sum_logprob + (r.terminal_logprob or 0.0) for r in rows),
                token_ids=tuple(r.token_ids for r in rows),
                token_logprobs=tuple(r.token_logprobs for r in rows),
                terminal_logprobs=tuple(r.terminal_logprob for r in rows),
                boundary_merged=tuple(r.boundary_merged for r in rows),
            )
        )
    return out
