"""Statistics every study shares, each written once: seeded subsamples and derived seeds, binomial standard errors,
exact intervals and z-tests, mean and SE, t intervals over a handful of seeds or benchmarks, intervals clustered by
the unit that was sampled, paired differences, the minimum detectable difference, expected calibration error, and
distances between distributions.

Which interval for what (docs/statistics.md): an accuracy over items carries its exact (Clopper-Pearson) interval,
which takes the items as independent draws, and beside it the interval clustered by the sampled unit
(:func:`clustered_mean`: a STEER template, a probed original item, a pragmatics item answered over seeds), which does
not; a mean over a few seeds or benchmarks carries a t interval (:func:`t_interval`), never 1.96 SE; two models or
conditions answering the same items are compared by :func:`paired_difference`.

No torch: item generation and metrics import this module freely.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

T = TypeVar("T")
LEVEL = 0.95  # every interval's level
Z95 = statistics.NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.959964: the normal quantile, written once


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


def t_interval(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean and its t interval (n - 1 degrees of freedom): for means over a handful of seeds or benchmarks, where
    1.96 SE would be too narrow. Fewer than two values: the mean and NaN bounds."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if x.size else float("nan")
    if x.size < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class ClusteredMean:
    """A mean over observations sampled in clusters, with its cluster-robust SE and t interval."""

    mean: float
    se: float
    low: float
    high: float
    n: int  # observations
    n_clusters: int  # sampled units: the interval's degrees of freedom are n_clusters - 1


def clustered_mean(
    values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable] | None = None, level: float = LEVEL
) -> ClusteredMean:
    """The mean of ``values`` and its interval when observations share a sampled unit (``clusters``: a template, an
    original item, a pragmatics item over seeds): the cluster-robust (CR1) standard error of Miller (2024, "Adding
    error bars to evals", eq. 4), sqrt(C / (C - 1) * sum_c (sum_{i in c} (x_i - mean))^2) / n, and a t interval with
    C - 1 degrees of freedom (few clusters: t, not normal). Without clusters every observation is its own unit.
    Fewer than two units: NaN SE and bounds."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    labels = list(range(x.size)) if clusters is None else list(clusters)
    if len(labels) != x.size:
        raise ValueError(f"{x.size} values but {len(labels)} cluster labels")
    n = int(x.size)
    mean = float(x.mean()) if n else float("nan")
    codes = {label: k for k, label in enumerate(dict.fromkeys(labels))}
    c = len(codes)
    if c < 2:
        return ClusteredMean(mean, float("nan"), float("nan"), float("nan"), n, c)
    sums = np.bincount([codes[label] for label in labels], weights=x - mean, minlength=c)
    se = float(math.sqrt(c / (c - 1) * float(np.sum(sums**2))) / n)
    half = float(stats.t.ppf(0.5 + level / 2, c - 1)) * se
    return ClusteredMean(mean, se, mean - half, mean + half, n, c)


def paired_difference(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    clusters: Sequence[Hashable] | None = None,
    level: float = LEVEL,
) -> ClusteredMean:
    """``first`` minus ``second`` where both were measured on the same items (two models, two conditions), row by
    row: the mean difference with its clustered interval (:func:`clustered_mean` of the per-item differences).
    Pairing removes the items' shared difficulty, so the interval is narrower than that of two separate means."""
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired values must align item by item: {a.size} and {b.size} values")
    return clustered_mean(a - b, clusters, level)


def design_effect(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable]) -> float:
    """How much clustering inflates the variance of the mean: (clustered SE / independent SE)^2 (1 = none)."""
    x = np.asarray(values, dtype=float)
    clustered = clustered_mean(x, clusters).se
    independent = clustered_mean(x).se
    return float((clustered / independent) ** 2) if independent > 0 else float("nan")


def min_detectable_difference(
    n: int, p: float = 0.5, *, design: float = 1.0, level: float = LEVEL, power: float = 0.8
) -> float:
    """The smallest difference between two accuracies near ``p``, each over ``n`` items, that a two-sided test at
    ``level`` finds with probability ``power``: (z_{1-a/2} + z_power) sqrt(2 p (1 - p) design / n), ``design`` the
    design effect of clustering. The worst case p = 0.5 unless given. NaN for n = 0."""
    if n <= 0:
        return float("nan")
    z = statistics.NormalDist()
    return float((z.inv_cdf(0.5 + level / 2) + z.inv_cdf(power)) * math.sqrt(2 * p * (1 - p) * design / n))


def accuracy_intervals(
    hits: Sequence[float] | np.ndarray, clusters: Sequence[Hashable] | None = None, level: float = LEVEL
) -> dict[str, float]:
    """An accuracy over ``hits`` (one 0/1 -- or a unit's hit rate -- per observation) with its two intervals side by
    side, under the column names every table uses: ``ci95_low`` / ``ci95_high`` the exact (Clopper-Pearson) interval,
    which takes the ``n`` observations as independent draws; ``clustered_low`` / ``clustered_high`` the cluster-robust
    interval of :func:`clustered_mean` over the ``n_clusters`` sampled units (``clusters``; None: each observation its
    own unit); the ``design_effect`` of that clustering (NaN where the hits do not vary: it cannot be measured); and
    the ``min_detectable_difference`` between two such accuracies at this n (p = 0.5, the worst case, inflated by
    the design effect, or where that is unmeasurable by its upper bound, the mean cluster size n / n_clusters)."""
    x = np.asarray(hits, dtype=float)
    n = int(x.size)
    low, high = exact_interval(float(x.sum()), n, level)
    clustered = clustered_mean(x, clusters, level)
    design = design_effect(x, clusters) if clusters is not None else (1.0 if n > 1 else float("nan"))
    bound = n / clustered.n_clusters if clustered.n_clusters else float("nan")
    return {"accuracy": clustered.mean, "n": n, "ci95_low": low, "ci95_high": high,
            "clustered_low": clustered.low, "clustered_high": clustered.high, "n_clusters": clustered.n_clusters,
            "design_effect": design,
            "min_detectable_difference": min_detectable_difference(n, design=bound if math.isnan(design) else design)}


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
