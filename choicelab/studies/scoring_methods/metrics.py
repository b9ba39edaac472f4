"""Scores, choices and fit measures of the scoring-methods study (Tsvilodub et al.). Pure Python + numpy/pandas.

Notation: I = the item prompt (task T, context C, question Q), I0 = the prior prompt (string scoring: T only; label
scoring: T + the labelled options). Token log-probabilities ``lp`` of an option o are log P(o_t | prompt, o_<t).

String scores (``STRING_SCORES``), all "higher is better":

=====================  ====================================================  =========================================
name                   formula                                               paper
=====================  ====================================================  =========================================
``option_logprob``     sum_t lp_t = log P(o|I) (argmax = argmax of the        (1) option probability P(o|I)
                       product of token probabilities)
``mean_token_prob``    (1/|o|) sum_t exp(lp_t) (arithmetic mean)              (2) average option probability
``mean_token_logprob`` (1/|o|) sum_t lp_t                                     (3) average negative surprisal
``prior_corrected``    log P(o|I) - log P(o|I0)  (= log of the ratio)          (4) prior-corrected P(o|I) / P(o|I0)
``surprisal_reduction`` S(o|I0) / S(o|I), S = -sum_t lp_t                     (5) surprisal reduction factor
=====================  ====================================================  =========================================

Label scores (``LABEL_SCORES``): the same (1), (4), (5) with o = the option's label ("A" / "1") and
I0 = T + labelled options (``label_logprob``, ``label_prior_corrected``, ``label_surprisal_reduction``).
Rating: E[r] = sum_r r * softmax_r(log P(rating r)), r = 1..5. Embedding: cosine(E(I), E(o)).

Choices are the argmax; ties (values within ``TIE_RTOL`` relative) are broken by a seeded random choice whose
seed is derived from (seed, key) (:func:`choicelab.stats.derived_seed`), and the number of tied options is
recorded. Free generations are classified with :func:`choicelab.studies.scoring_methods.coder.code_generations`.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from choicelab.stats import derived_seed

STRING_SCORES = ("option_logprob", "mean_token_prob", "mean_token_logprob", "prior_corrected", "surprisal_reduction")
LABEL_SCORES = ("label_logprob", "label_prior_corrected", "label_surprisal_reduction")
RATING_POINTS = (1, 2, 3, 4, 5)
LABEL_SETS = {"alpha": tuple(string.ascii_uppercase), "numeric": tuple(str(k) for k in range(1, 27))}
TIE_RTOL = 1e-12
P_CLIP = (1e-3, 1 - 1e-3)
AUTHORS_P_CLIP = (1e-9, 1 - 1e-9)  # the authors' analysis (LLM_link analysis/testing-stats.R); a sensitivity column
UNCLASSIFIED = -1

# -- string and label scores -------------------------------------------------------------------------------------


def _check_tokens(lp: Sequence[float]) -> None:
    if len(lp) == 0:
        raise ValueError("an option must have at least one scored token")


def option_logprob(lp: Sequence[float]) -> float:
    """(1) log P(o|I) = sum of the token log-probabilities."""
    _check_tokens(lp)
    return math.fsum(lp)


def mean_token_prob(lp: Sequence[float]) -> float:
    """(2) arithmetic mean of the token probabilities."""
    _check_tokens(lp)
    return math.fsum(math.exp(x) for x in lp) / len(lp)


def mean_token_logprob(lp: Sequence[float]) -> float:
    """(3) mean token log-probability (average negative surprisal)."""
    _check_tokens(lp)
    return math.fsum(lp) / len(lp)


def prior_corrected(lp: Sequence[float], prior_lp: Sequence[float]) -> float:
    """(4) log [P(o|I) / P(o|I0)] = log P(o|I) - log P(o|I0)."""
    return option_logprob(lp) - option_logprob(prior_lp)


def surprisal(lp: Sequence[float]) -> float:
    """S(o|prompt) = -sum of the token log-probabilities (0 only if every token has probability 1)."""
    return -option_logprob(lp)


def surprisal_reduction(lp: Sequence[float], prior_lp: Sequence[float]) -> float:
    """(5) S(o|I0) / S(o|I): > 1 when the context lowers the option's surprisal. +inf when S(o|I) = 0."""
    conditional = surprisal(lp)
    prior = surprisal(prior_lp)
    if conditional == 0.0:
        return math.inf if prior > 0 else 1.0
    return prior / conditional


def string_scores(lp: Sequence[float], prior_lp: Sequence[float]) -> dict[str, float]:
    """All five string scores of one option from its token log-probs given I and given I0."""
    return {
        "option_logprob": option_logprob(lp),
        "mean_token_prob": mean_token_prob(lp),
        "mean_token_logprob": mean_token_logprob(lp),
        "prior_corrected": prior_corrected(lp, prior_lp),
        "surprisal_reduction": surprisal_reduction(lp, prior_lp),
    }


def label_scores(lp: Sequence[float], prior_lp: Sequence[float]) -> dict[str, float]:
    """Label scores (1), (4), (5) of one label from its token log-probs given I and given I0 = T + labelled options.

    (2) and (3) are not computed: for a label they carry no information beyond (1) (the paper's argument)."""
    return {
        "label_logprob": option_logprob(lp),
        "label_prior_corrected": prior_corrected(lp, prior_lp),
        "label_surprisal_reduction": surprisal_reduction(lp, prior_lp),
    }


def rating_expectation(rating_logprobs: Sequence[float], points: Sequence[float] = RATING_POINTS) -> float:
    """sum_r r * softmax(rating log-probs)_r: the probability-weighted mean rating (1..5)."""
    if len(rating_logprobs) != len(points):
        raise ValueError(f"need one log-prob per rating point ({len(points)}), got {len(rating_logprobs)}")
    values = np.asarray(rating_logprobs, dtype=float)
    weights = np.exp(values - values.max())
    weights /= weights.sum()
    return float(np.dot(weights, np.asarray(points, dtype=float)))


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity; 0 when either vector is zero (as the authors' code)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(np.dot(x, y) / norm) if norm > 0 else 0.0


# -- choices, ties, permutations ------------------------------------------------------------------------------------


def tied_maxima(values: Sequence[float], rtol: float = TIE_RTOL) -> list[int]:
    """Indices whose value equals the maximum up to ``rtol`` (relative to max(1, |values|)). NaN never wins."""
    array = np.asarray(values, dtype=float)
    if array.size == 0 or np.all(np.isnan(array)):
        raise ValueError("cannot choose from an empty or all-NaN score vector")
    top = np.nanmax(array)
    if math.isinf(top):
        return [i for i, v in enumerate(array) if v == top]
    tolerance = rtol * max(1.0, abs(top))
    return [i for i, v in enumerate(array) if not math.isnan(v) and top - v <= tolerance]


def choose(values: Sequence[float], seed: int, key: str, rtol: float = TIE_RTOL) -> tuple[int, int]:
    """(argmax, number of options tied at the max); ties broken by a random choice seeded from (seed, key)."""
    tied = tied_maxima(values, rtol)
    if len(tied) == 1:
        return tied[0], 1
    return random.Random(derived_seed(seed, key)).choice(tied), len(tied)


def option_order(n: int, seed: int, key: str) -> tuple[int, ...]:
    """A seeded permutation of n options for one item: ``order[j]`` = the original index shown at position j."""
    order = list(range(n))
    random.Random(derived_seed(seed, f"order:{key}")).shuffle(order)
    return tuple(order)


def present(options: Sequence[str], order: Sequence[int]) -> list[str]:
    """The options in presentation order."""
    return [options[k] for k in order]


def inverse_order(order: Sequence[int]) -> tuple[int, ...]:
    """``inv[original] = position``; ``present(present(x, order), inverse_order(order)) == x``."""
    inverse = [0] * len(order)
    for position, original in enumerate(order):
        inverse[original] = position
    return tuple(inverse)


def labels_for(n: int, label_set: str) -> tuple[str, ...]:
    """The first n labels of ``label_set`` ("alpha": A, B, ...; "numeric": 1, 2, ...)."""
    if label_set not in LABEL_SETS:
        raise ValueError(f"unknown label set {label_set!r}; use one of {sorted(LABEL_SETS)}")
    if n > len(LABEL_SETS[label_set]):
        raise ValueError(f"{n} options but only {len(LABEL_SETS[label_set])} {label_set} labels")
    return LABEL_SETS[label_set][:n]


def label_permutations(seeds: Sequence[int], label_sets: Sequence[str] = ("alpha", "numeric")) -> list[tuple[int, str]]:
    """The (option-order seed, label set) grid of label scoring: 5 seeds x 2 label sets in the paper."""
    return [(seed, label_set) for seed in seeds for label_set in label_sets]


# -- accuracy and goodness of fit ---------------------------------------------------------------------------------

CHOICE_KEYS = ("benchmark", "condition", "model", "method", "score", "label_set", "variant", "seed")


def choices_from_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per scored item version (``CHOICE_KEYS`` + item_id) from the per-option score table.

    Columns: the keys, item_id, n_options, chosen (original index; -1 = unclassified), target, is_target, n_tied,
    classified_by."""
    keys = [*CHOICE_KEYS, "item_id"]
    frame = scores.sort_values([*keys, "option_index"])
    grouped = frame.groupby(keys, sort=True, dropna=False)
    chosen = frame[frame["chosen"]].set_index(keys)["option_index"]
    target = frame[frame["is_target"]].groupby(keys, dropna=False)["option_index"].first()
    out = pd.DataFrame(
        {
            "n_options": grouped.size(),
            "n_tied": grouped["n_tied"].max(),
            "classified_by": grouped["classified_by"].first(),
        }
    )
    out["chosen"] = chosen.reindex(out.index).fillna(UNCLASSIFIED).astype(int)
    out["target"] = target.reindex(out.index).astype(int)
    out["is_target"] = out["chosen"] == out["target"]
    return out.reset_index()


def binomial_loglik(k: int, n: int, p: float, clip: tuple[float, float] = P_CLIP) -> float:
    """log Binomial(k | n, p) with p clipped to ``clip`` (includes the log binomial coefficient, like R's dbinom)."""
    return float(stats.binom.logpmf(int(k), int(n), float(min(max(p, clip[0]), clip[1]))))


def human_loglik(
    model_rates: pd.DataFrame,
    human: pd.DataFrame,
    by: Sequence[str] = ("model", "method", "score"),
    clip: tuple[float, float] = P_CLIP,
) -> pd.DataFrame:
    """Log-likelihood of the human data per group, summed over conditions.

    ``model_rates``: choice rows (``choices_from_scores``) or any frame with ``condition``, the ``by`` columns and
    ``is_target``; the model's target rate p per (group, condition) pools every item version (items x seeds x label
    sets). ``human``: per condition ``k`` (target choices) and ``n`` (responses). Conditions missing from either side
    are left out and counted in ``n_conditions``. Columns: the keys, loglik, n_conditions, accuracy (pooled target
    rate over all item versions of the group: k of n), mean_condition_accuracy."""
    per_condition = model_rates.groupby([*by, "condition"], sort=True).agg(
        p=("is_target", "mean"), k_model=("is_target", "sum"), n_model=("is_target", "size")
    )
    per_condition = per_condition.reset_index().merge(human[["condition", "k", "n"]], on="condition", how="inner")
    per_condition["loglik"] = [
        binomial_loglik(k, n, p, clip)
        for k, n, p in zip(per_condition["k"], per_condition["n"], per_condition["p"], strict=True)
    ]
    out = per_condition.groupby(list(by), sort=True).agg(
        loglik=("loglik", "sum"),
        n_conditions=("condition", "size"),
        k_model=("k_model", "sum"),
        n_model=("n_model", "sum"),
        mean_condition_accuracy=("p", "mean"),
    )
    out["accuracy"] = out["k_model"] / out["n_model"]
    return out.rename(columns={"k_model": "k", "n_model": "n"}).reset_index()


def delta_loglik(table: pd.DataFrame) -> pd.DataFrame:
    """Adds ``delta_loglik`` = loglik - the worst row's loglik (so every delta is >= 0)."""
    return table.assign(delta_loglik=table["loglik"] - float(table["loglik"].min()))
