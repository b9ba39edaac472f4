"""Distances between a revealed and a true distribution, and the first-token mass of a candidate set."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check(p: Sequence[float], q: Sequence[float]) -> None:
    if len(p) != len(q):
        raise ValueError(f"distributions differ in length: {len(p)} vs {len(q)}")


def chebyshev(p: Sequence[float], q: Sequence[float]) -> float:
    _check(p, q)
    return max(abs(a - b) for a, b in zip(p, q, strict=True))


def l1(p: Sequence[float], q: Sequence[float]) -> float:
    _check(p, q)
    return math.fsum(abs(a - b) for a, b in zip(p, q, strict=True))


def symmetric_kl(p: Sequence[float], q: Sequence[float], epsilon: float = 1e-6) -> float:
    _check(p, q)
    ps = [a + epsilon for a in p]
    qs = [b + epsilon for b in q]
    sp, sq = math.fsum(ps), math.fsum(qs)
    ps = [a / sp for a in ps]
    qs = [b / sq for b in qs]
    return math.fsum(a * math.log(a / b) + b * math.log(b / a) for a, b in zip(ps, qs, strict=True))


def first_token_mass(token_ids: Sequence[Sequence[int]], token_logprobs: Sequence[Sequence[float]]) -> float:
    """P(the next token is the first token of some candidate), at one context: each *distinct* first token counted
    once, so the value is a probability (<= 1) even when candidates share their first token -- e.g. a tokenizer that
    writes " " as its own token before every number, where all outcomes start with the same " " token (summing the
    first-token probabilities over candidates would count it once per outcome). A candidate without tokens (empty
    continuation) contributes nothing."""
    if len(token_ids) != len(token_logprobs):
        raise ValueError("one token-id list per token-logprob list is required")
    firsts: dict[int, float] = {}
    for ids, lps in zip(token_ids, token_logprobs, strict=True):
        if len(ids) and len(lps):
            firsts.setdefault(int(ids[0]), float(lps[0]))
    return math.fsum(math.exp(lp) for lp in firsts.values())
