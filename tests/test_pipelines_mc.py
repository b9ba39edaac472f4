"""Generic multiple-choice scoring into logit-dump rows (sequence, letter and encoder methods)."""

from __future__ import annotations

import math

import pytest

from choicelab.dumps import rows_to_table
from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive
from choicelab.mc.items import MCItem
from choicelab.mc.scoring import letter_prompt, score_encoder, score_letters, score_sequences

ITEMS = [
    MCItem("toy", "dev", "q1", "The sky is", ("blue", "green", "made of cheese"), 0),
    MCItem("toy", "dev", "q2", "", ("yes", "no"), 1),
]


def test_sequence_scores_are_the_engine_sum_logprob_and_probs_renormalize(tiny_llama):
    model, tokenizer = tiny_llama
    rows = score_sequences(CausalScorer(model, tokenizer), ITEMS, study="probes", model="tiny")
    assert len(rows) == 5
    naive = score_naive(model, tokenizer, [ContinuationRequest("x", "The sky is", " green")])[0]
    assert rows[1].score == pytest.approx(naive.sum_logprob, abs=1e-5)
    assert math.fsum(r.prob for r in rows[:3]) == pytest.approx(1.0)
    assert [r.is_label for r in rows] == [True, False, False, False, True]
    rows_to_table(rows)  # conforms to the dump schema


def test_letter_prompt_lists_options_with_letters():
    assert letter_prompt(ITEMS[0]) == "The sky is\nA. blue\nB. green\nC. made of cheese\nAnswer:"


def test_letter_scores_cover_exactly_the_item_letters(tiny_llama):
    rows = score_letters(CausalScorer(*tiny_llama), ITEMS, study="steer", model="tiny")
    assert [r.option_id for r in rows] == [0, 1, 2, 0, 1]
    assert all(r.method == "letter_prob" for r in rows)
    assert math.fsum(r.prob for r in rows[3:]) == pytest.approx(1.0)


def test_encoder_rows_carry_raw_logits(tiny_bert):
    model, tokenizer = tiny_bert
    rows = score_encoder(model, tokenizer, ITEMS, study="bets", model="tiny-bert")
    assert len(rows) == 5 and all(r.method == "mc_logit" and r.token_ids == () for r in rows)
    top = max(rows[:3], key=lambda r: r.score)
    assert top.prob == max(r.prob for r in rows[:3])
