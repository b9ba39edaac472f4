"""Metrics of the bets study: standard and threshold methods, belief-conditioned accuracy, the paper's p-values.

Pure numpy, no torch; the z-test and binomial SE are :mod:`choicelab.stats`'. Conventions (spec ``bets.md``):

* Standard method: argmax of the raw logits (first index on exact ties, numpy's rule).
* Threshold method: the predicted set is every choice whose sigmoid(raw logit) is strictly above t. t is tuned on
  the dev split over the grid 0.00, 0.01, ..., 1.00, per model and ground truth; when several thresholds reach the
  best dev accuracy the median of the tied thresholds is used (numpy's median, so an even-sized tie set gives the
  midpoint of its middle pair).
* Significance: one-sided z-test against the random baseline, exactly statsmodels'
  ``ztest(correct, value=p0, alternative="larger")`` on the 0/1 correctness vector (sample sd, ddof=1), alpha .05.
* Random baselines are derived from the label sets: the chance that a uniformly random one of the 8 prediction sets is
  correct (Normal 1/8, Weak Normal 1/4, Weak 5/8, Strict 1/8, Positive Gain 1/4, Non-Negative Gain 1/4), and 1/k for
  the standard method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from choicelab.stats import ztest_pvalue
from choicelab.studies.bets.ground_truths import ALL_SETS, LETTERS

ALPHA = 0.05
THRESHOLD_GRID: tuple[float, ...] = tuple(round(k / 100, 2) for k in range(101))


def sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=float)))


def standard_predictions(logits: np.ndarray) -> np.ndarray:
    """Index of the highest raw logit per question (rows = questions, columns = choices)."""
    return np.argmax(np.asarray(logits, dtype=float), axis=1)


def threshold_sets(sigmoids: np.ndarray, threshold: float) -> list[str]:
    """The predicted set per question: letters of the choices whose sigmoid is strictly above ``threshold``."""
    above = np.asarray(sigmoids, dtype=float) > threshold
    return ["".join(LETTERS[i] for i in np.flatnonzero(row)) for row in above]


def set_correct(predicted: Sequence[str], label_sets: Sequence[Sequence[str]]) -> np.ndarray:
    """1 where the predicted set is one of the question's correct sets."""
    return np.array([p in set(labels) for p, labels in zip(predicted, label_sets, strict=True)], dtype=int)


def tune_threshold(sigmoids: np.ndarray, label_sets: Sequence[Sequence[str]]) -> tuple[float, float]:
    """The dev-tuned threshold and its dev accuracy: best accuracy on the grid, median of tied thresholds."""
    if len(label_sets) == 0:
        raise ValueError("threshold tuning needs at least one dev question")
    accuracies = np.array([set_correct(threshold_sets(sigmoids, t), label_sets).mean() for t in THRESHOLD_GRID])
    best = accuracies.max()
    tied = [t for t, a in zip(THRESHOLD_GRID, accuracies, strict=True) if a == best]
    return float(np.median(tied)), float(best)


def random_set_baseline(label_sets: Sequence[Sequence[str]]) -> float:
    """Expected accuracy of picking one of the 8 prediction sets uniformly at random."""
    if not label_sets:
        return float("nan")
    return float(np.mean([len(set(s)) / len(ALL_SETS) for s in label_sets]))


def pvalue_from_accuracy(accuracy_percent: float, n: int, p0: float) -> float:
    """The z-test p-value of an accuracy reported as a percentage of ``n`` questions (x = round(acc * n / 100))."""
    hits = round(accuracy_percent * n / 100)
    return ztest_pvalue([1] * hits + [0] * (n - hits), p0)


def belief_of(prediction: int, relations: Sequence[str]) -> str:
    """The value belief stated by the chosen choice of a value question ("h>l", "l>h" or "h=l")."""
    return relations[prediction]


def belief_conditioned_correct(
    predictions: Sequence[int], standard_by_belief: Sequence[dict[str, int]], beliefs: Sequence[str]
) -> np.ndarray:
    """1 where the bet prediction is the optimal choice under the model's own belief about the two items."""
    return np.array(
        [int(p == labels[b]) for p, labels, b in zip(predictions, standard_by_belief, beliefs, strict=True)], dtype=int
    )


def format_pvalue(p: float) -> str:
    """The paper's p-value style: '<.001', '.392', '1.00'."""
    if math.isnan(p):
        return "n/a"
    if p < 0.001:
        return "<.001"
    if p >= 0.995:
        return "1.00"
    return f"{p:.3f}".lstrip("0")


def paper_pvalue_agrees(ours: float, printed: str, tolerance: float = 0.001) -> bool:
    """Whether our p-value matches the paper's printed one ('<.001', '.392', '1.00') within ``tolerance``."""
    printed = printed.strip().replace(" ", "")
    if printed.startswith("<"):
        return ours < float(printed[1:]) + tolerance / 2
    return abs(ours - float(printed)) <= tolerance + 1e-12
