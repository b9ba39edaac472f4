"""Next-token distributions over candidate strings: chain rule, terminal factor, renormalization."""

from __future__ import annotations

import math

import pytest

from choicelab.lm.candidates import candidate_distributions, digit_continuation_ids
from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive


def test_digits_are_split_so_numbers_are_multi_token(tiny_llama):
    _, tokenizer = tiny_llama
    assert len(tokenizer(" 12", add_special_tokens=False)["input_ids"]) > len(
        tokenizer(" 1", add_special_tokens=False)["input_ids"]
    )


def test_number_boundary_keeps_the_mass_of_12_away_from_1(tiny_llama):
    model, tokenizer = tiny_llama
    scorer = CausalScorer(model, tokenizer)
    digits = digit_continuation_ids(tokenizer)
    context = "The die lands on face number"
    dist, = candidate_distributions(scorer, [context], [["1", "12"]], terminal_excluded_ids=digits)
    ref = score_naive(model, tokenizer,
                      [ContinuationRequest("a", context, " 1"), ContinuationRequest("b", context, " 12")],
                      terminal_excluded_ids=digits)
    # P(" 1" and the number ends) = P(" 1") * (1 - P(next is a digit | " 1"))
    assert dist.logprobs[0] == pytest.approx(ref[0].sum_logprob + ref[0].terminal_logprob, abs=1e-5)
    assert dist.logprobs[1] == pytest.approx(ref[1].sum_logprob + ref[1].terminal_logprob, abs=1e-5)
    p_one_prefix = math.exp(ref[0].sum_logprob)
    # Without the terminal factor " 1" would also carry the probability of " 12", " 13", ...
    assert dist.raw_probs[0] < p_one_prefix
    assert dist.raw_probs[0] + dist.raw_probs[1] <= p_one_prefix + 1e-9


def test_probs_renormalize_over_the_candidates_and_coverage_is_the_raw_mass(tiny_llama):
    scorer = CausalScorer(*tiny_llama)
    dist, = candidate_distributions(scorer, ["Correct Answer:"], [["A", "B", "C", "D"]])
    assert math.fsum(dist.probs) == pytest.approx(1.0)
    assert dist.coverage == pytest.approx(math.fsum(dist.raw_probs))
    assert 0 < dist.coverage < 1
    ratio = dist.raw_probs[0] / dist.raw_probs[1]
    assert dist.probs[0] / dist.probs[1] == pytest.approx(ratio)


def test_first_token_probability_is_kept_beside_the_chain_rule(tiny_llama):
    scorer = CausalScorer(*tiny_llama)
    dist, = candidate_distributions(scorer, ["The sum is"], [["10", "11"]])
    assert all(f >= math.exp(lp) for f, lp in zip(dist.first_token_probs, dist.logprobs, strict=True))


def test_duplicate_candidates_are_rejected(tiny_llama):
    with pytest.raises(ValueError, match="not unique"):
        candidate_distributions(CausalScorer(*tiny_llama), ["x"], [["A", "A"]])
