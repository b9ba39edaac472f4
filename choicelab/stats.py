"""Statistics every study shares, each written once: seeded subsamples and derived seeds, binomial standard errors,
exact intervals and z-tests, mean and SE, expected calibration error, and distances between distributions.

No torch: item generation and metrics import this module freely.
"""

from __future__ import annotations

import hashlib
import math
import random
import warnings
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


# -- seeds and subsamples ------------------------------------------------------------------------------------------


def derived_seed(*parts: object, separator: str = ":") -> int:
    """A 63-bit seed from ``parts`` (e.g. the job's seed and an item's id), stable across Python versions and runs:
    the first 8 bytes of the SHA-256 of their ``str`` joined by ``separator``, shifted right by one (never
    ``hash()``). The one per-item seed derivation; ``derived_seed(seed, key)`` hashes ``f"{seed}:{key}"``. STEER's
    question generators join their parts with ``"\x1f"`` (:func:`choicelab.studies.steer.items.base.make_rng`)."""
    text = separator.join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def seeded_subsample(items: Sequence[T], size: int | None, seed: int) -> list[T]:
    """``size`` items drawn with ``random.Random(seed)``, kept in their original order (all when ``size`` is None or
    not smaller than the list)."""
    if size is None or size >= len(items):
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), size))
    return [items[i] for i in keep]


# -- proportions -----------------------------------------------------------------------------------------------------


def binomial_se(p: float, n: int) -> float:
    """Binomial standard error sqrt(p (1 - p) / n); NaN for n = 0."""
    return math.sqrt(p * (1 - p) / n) if n > 0 else float("nan")


def exact_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) binomial interval of a proportion: valid at any n, never of zero width (3 of 3 ->
    [0.29, 1]; 1 of 1 -> [0.025, 1]). ``successes`` may be fractional (instances' hit rates averaged over trials)."""
    from scipy import stats

    if n <= 0:
        return float("nan"), float("nan")
    alpha = 1 - level
    low = 0.0 if successes <= 0 else float(stats.beta.ppf(alpha / 2, successes, n - successes + 1))
    high = 1.0 if successes >= n else float(stats.beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    return low, high


def ztest_pvalue(correct: Sequence[int] | np.ndarray, p0: float) -> float:
    """One-sided z-test p-value that the accuracy exceeds ``p0`` (statsmodels ``ztest``, ``alternative='larger'``).

    A vector with no variance (all right or all wrong) has an infinite z statistic: p = 0 above p0, 1 below.
    """
    from statsmodels.stats.weightstats import ztest

    x = np.asarray(correct, dtype=float)
    if x.size < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, p = ztest(x, value=p0, alternative="larger")
    if math.isnan(p):  # zero variance exactly at p0 (cannot happen for the baselines used here)
        return 0.5
    return float(p)


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (ddof 1; NaN with fewer than two values)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return float("nan"), float("nan")
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


# -- calibration -----------------------------------------------------------------------------------------------------

ECE_BINS = 10


def expected_calibration_error(top_prob: Sequence[float], correct: Sequence[bool], n_bins: int = ECE_BINS) -> float:
    """ECE = sum_b (n_b / N) * |accuracy_b - mean top-prob_b| over ``n_bins`` uniform bins of [0, 1].

    Bin b holds probabilities in [b/n, (b+1)/n); the last bin also holds 1.0. Empty bins contribute nothing.
    """
    probs = np.clip(np.asarray(top_prob, dtype=float), 0.0, 1.0)
    hits = np.asarray(correct, dtype=float)
    if probs.shape != hits.shape:
        raise ValueError(f"top_prob has {probs.shape} entries but correct has {hits.shape}")
    if probs.size == 0:
        return math.nan
    if np.isnan(probs).any():
        raise ValueError("top_prob contains NaN; every question needs a probability on its top answer")
    bins = np.minimum((probs * n_bins).astype(int), n_bins - 1)
    total = 0.0
    for b in np.unique(bins):
        in_bin = bins == b
        total += in_bin.mean() * abs(hits[in_bin].mean() - probs[in_bin].mean())
    return float(total)


# -- distributions ---------------------------------------------------------------------------------------------------


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
