"""The statistics reviewers ask for (Miller 2024): intervals clustered by the sampled unit, paired differences, the
minimum detectable difference, and t intervals for means over a handful of seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from choicelab.stats import (
    Z95,
    clustered_mean,
    design_effect,
    exact_interval,
    mean_se,
    min_detectable_difference,
    paired_difference,
    t_interval,
)


def test_with_every_observation_its_own_unit_the_clustered_se_is_the_ordinary_one():
    x = np.random.default_rng(0).integers(0, 2, 60).astype(float)
    assert clustered_mean(x).se == pytest.approx(mean_se(x)[1], rel=1e-12)
    assert clustered_mean(x, clusters=list(range(60))).se == pytest.approx(mean_se(x)[1], rel=1e-12)


def test_copies_of_one_answer_count_once_a_cluster():
    """Five identical answers per template say no more than one: the SE is that of the 12 template means."""
    means = np.random.default_rng(1).random(12)
    values = np.repeat(means, 5)
    result = clustered_mean(values, clusters=np.repeat(np.arange(12), 5))
    assert result.se == pytest.approx(mean_se(means)[1], rel=1e-12)
    assert (result.n, result.n_clusters) == (60, 12)
    assert result.high - result.low == pytest.approx(2 * sp.t.ppf(0.975, 11) * result.se)
    assert design_effect(values, np.repeat(np.arange(12), 5)) > 4


def test_the_clustered_interval_covers_the_truth_where_the_exact_one_does_not():
    """Questions drawn from templates of differing difficulty: over 400 simulated benchmarks the clustered interval
    covers the true accuracy about 95 % of the time, the exact binomial one (items taken as independent) far less."""
    rng = np.random.default_rng(20261128)
    covered_clustered = covered_exact = 0
    for _ in range(400):
        difficulty = rng.beta(2, 2, size=20)  # 20 templates, the population mean is 0.5
        templates = np.repeat(np.arange(20), 10)
        correct = (rng.random(200) < difficulty[templates]).astype(float)
        result = clustered_mean(correct, templates)
        covered_clustered += result.low <= 0.5 <= result.high
        low, high = exact_interval(correct.sum(), correct.size)
        covered_exact += low <= 0.5 <= high
    assert 0.91 <= covered_clustered / 400 <= 0.99
    assert covered_exact / 400 < 0.85


def test_pairing_removes_the_items_shared_difficulty():
    rng = np.random.default_rng(3)
    easy = rng.random(300) < 0.5
    a = (easy | (rng.random(300) < 0.2)).astype(float)
    b = (easy | (rng.random(300) < 0.1)).astype(float)
    paired = paired_difference(a, b)
    unpaired_se = math.hypot(mean_se(a)[1], mean_se(b)[1])
    assert paired.mean == pytest.approx(a.mean() - b.mean())
    assert paired.se < 0.8 * unpaired_se
    assert paired_difference(a, a).se == 0.0
    with pytest.raises(ValueError, match="align item by item"):
        paired_difference(a, b[:-1])


def test_a_mean_over_three_seeds_uses_t_not_196_se():
    mean, low, high = t_interval([0.61, 0.64, 0.70])
    _, se = mean_se([0.61, 0.64, 0.70])
    assert high - mean == pytest.approx(sp.t.ppf(0.975, 2) * se)
    assert high - mean > 2 * Z95 * se
    assert math.isnan(t_interval([0.5])[1])


def test_the_minimum_detectable_difference_shrinks_with_n_and_grows_with_clustering():
    mdd = min_detectable_difference(100)
    assert mdd == pytest.approx((sp.norm.ppf(0.975) + sp.norm.ppf(0.8)) * math.sqrt(0.5 / 100))
    assert min_detectable_difference(400) == pytest.approx(mdd / 2)
    assert min_detectable_difference(100, design=4) == pytest.approx(2 * mdd)
    assert pytest.approx(sp.norm.ppf(0.975)) == Z95


def test_an_accuracy_carries_its_exact_and_its_clustered_interval_side_by_side():
    """Ten items each asked six times with the same answer: the exact interval believes 60 draws, the clustered one
    knows there are ten, and the smallest detectable difference grows with the design effect."""
    from choicelab.stats import accuracy_intervals

    per_item = np.array([1, 1, 1, 0, 1, 0, 1, 1, 0, 1], dtype=float)
    hits, items = np.repeat(per_item, 6), np.repeat(np.arange(10), 6)
    row = accuracy_intervals(hits, items)
    assert (row["n"], row["n_clusters"]) == (60, 10)
    assert (row["ci95_low"], row["ci95_high"]) == exact_interval(hits.sum(), 60)
    assert row["clustered_high"] - row["clustered_low"] > 2 * (row["ci95_high"] - row["ci95_low"])
    assert row["design_effect"] > 5
    assert row["min_detectable_difference"] > min_detectable_difference(60)
    alone = accuracy_intervals(per_item)
    assert (alone["n_clusters"], alone["design_effect"]) == (10, 1.0)

    always = accuracy_intervals(np.ones(60), items)  # no variance: the design effect cannot be measured ...
    assert np.isnan(always["design_effect"])  # ... and the detectable difference takes its bound, 6 per cluster
    assert always["min_detectable_difference"] == pytest.approx(min_detectable_difference(60, design=6.0))
