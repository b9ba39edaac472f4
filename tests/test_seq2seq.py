"""Encoder-decoder scoring (FLAN-T5's path): the batched engine equals a naive one-at-a-time loop, and the masked
pseudo-likelihood masks exactly the authors' way (LLM_link utils.get_mlm_token_pl)."""

from __future__ import annotations

import pytest
import torch

from choicelab.lm.causal import ContinuationRequest
from choicelab.lm.seq2seq import Seq2SeqScorer, build_examples, pll_examples, score_naive, sentinel_ids, tiny_t5

REQUESTS = [
    ContinuationRequest("a", "The cat sat on the mat. Your answer:", " the dog barked loudly"),
    ContinuationRequest("b", "A short context. Your answer:", " yes"),
    ContinuationRequest("c", "Another, much longer context about a river and a bridge. Your answer:", " B"),
    ContinuationRequest("d", "The cat sat on the mat. Your answer:", " the cat"),
]


@pytest.fixture(scope="module")
def t5():
    torch.set_num_threads(1)
    return tiny_t5(seed=0)


def test_each_option_token_is_masked_with_the_sentinel_and_scored_where_the_decoder_writes_it():
    eos, m0, m1 = 2, 100, 101
    first, middle, last = pll_examples(0, [7, 8], [10, 11, 12], eos, (m0, m1))
    assert (first.input_ids, first.labels, first.scored) == ((7, 8, m0, 11, 12, eos), (10, m0, eos), (0,))
    assert (middle.input_ids, middle.labels, middle.scored) == ((7, 8, 10, m0, 12, eos), (m0, 11, m1, eos), (1,))
    assert (last.input_ids, last.labels, last.scored) == ((7, 8, 10, 11, m0), (m0, 12, eos), (1,))  # no </s> input
    (single,) = pll_examples(0, [7], [10], eos, (m0, m1))
    assert (single.input_ids, single.labels) == ((7, m0, eos), (10, m0, eos))


@pytest.mark.parametrize("mode", ["pll", "decoder"])
def test_batched_engine_equals_the_naive_loop(t5, mode):
    model, tokenizer = t5
    batched = Seq2SeqScorer(model, tokenizer, mode=mode, max_batch_tokens=64).score(REQUESTS)
    naive = score_naive(model, tokenizer, REQUESTS, mode)
    for request, got, want in zip(REQUESTS, batched, naive, strict=True):
        assert got.id == want.id == request.id and got.token_ids == want.token_ids
        assert got.token_logprobs == pytest.approx(want.token_logprobs, abs=1e-5)
        assert len(got.token_logprobs) == len(
            tokenizer(request.continuation.lstrip(), add_special_tokens=False).input_ids
        )


def test_decoder_mode_is_the_conditional_likelihood_of_the_whole_continuation(t5):
    model, tokenizer = t5
    (score,) = Seq2SeqScorer(model, tokenizer, mode="decoder").score([REQUESTS[0]])
    enc = tokenizer(REQUESTS[0].context, add_special_tokens=False).input_ids + [tokenizer.eos_token_id]
    target = tokenizer(REQUESTS[0].continuation.lstrip(), add_special_tokens=False).input_ids
    with torch.no_grad():
        loss = model(input_ids=torch.tensor([enc]), labels=torch.tensor([target])).loss  # mean NLL over the tokens
    assert score.sum_logprob == pytest.approx(-float(loss) * len(target), abs=1e-4)


def test_pll_needs_sentinels(t5):
    from choicelab.lm.tiny import tiny_tokenizer

    with pytest.raises(ValueError, match="sentinel"):
        sentinel_ids(tiny_tokenizer(kind="causal"))
    model, tokenizer = t5
    assert len(build_examples(tokenizer, REQUESTS[:1], "pll")) == len(
        tokenizer(REQUESTS[0].continuation.lstrip(), add_special_tokens=False).input_ids
    )


def test_every_scoring_method_runs_on_a_seq2seq_model(t5, data_mirror, tmp_path):
    from choicelab.studies.scoring_methods import items as pr
    from choicelab.studies.scoring_methods import metrics as sm
    from choicelab.studies.scoring_methods import prompts, score_table, scoring

    model, tokenizer = t5
    items = prompts.from_pragmatics(
        [it for it in pr.load_items(data_mirror) if it.item_id in ("coherence-21", "irony-01")]
    )
    plan = scoring.MethodPlan(methods=scoring.METHODS, label_seeds=(0,), label_sets=("alpha", "numeric"),
                              scales=("likely",), temperatures=(0.9,), generation_seeds=(0,), max_new_tokens=6)
    rows = scoring.score_all(model, tokenizer, items, model="t5", kind="seq2seq", plan=plan, max_batch_tokens=4096)
    score_table.write_scores(tmp_path / "scores.parquet", rows, '{"rule": "test"}')
    scores = score_table.read_scores(tmp_path / "scores.parquet").to_pandas()
    assert set(scores["method"]) == set(scoring.METHODS)
    # string scores are the five formulas applied to the masked pseudo-log-likelihoods given I and I0
    irony = next(it for it in items if it.condition == "irony")
    given_i, given_i0 = Seq2SeqScorer(model, tokenizer, mode="pll").score([
        ContinuationRequest("i", prompts.string_prompt(irony), " " + irony.options[0]),
        ContinuationRequest("i0", prompts.string_prior_prompt(irony), " " + irony.options[0]),
    ])
    expected = sm.string_scores(given_i.token_logprobs, given_i0.token_logprobs)
    mine = scores[(scores["item_id"] == irony.item_id) & (scores["method"] == "string") & (scores["option_index"] == 0)]
    for row in mine.itertuples():
        assert row.value == pytest.approx(expected[row.score], rel=1e-4, abs=1e-4)
    assert (mine["context"] == prompts.string_prompt(irony)).all()
    # `choicelab show` prints the prompt each version saw
    from choicelab.show import show_item

    assert prompts.string_prompt(irony) in show_item(tmp_path / "scores.parquet", irony.item_id)


def test_a_seq2seq_model_is_materialized_and_loaded_by_its_kind(t5, tmp_path):
    from choicelab.lm.loading import load_causal, load_seq2seq
    from choicelab.lm.registry import materialize, parse_model_spec

    model, tokenizer = t5
    model.save_pretrained(tmp_path / "src", safe_serialization=True)
    tokenizer.save_pretrained(tmp_path / "src")
    spec = parse_model_spec("t5", {"kind": "seq2seq", "source": f"path:{tmp_path / 'src'}"})
    meta = materialize(spec, tmp_path / "t5")
    assert (meta["kind"], meta["architecture"]) == ("seq2seq", "T5ForConditionalGeneration")
    loaded, loaded_tokenizer, _ = load_seq2seq(tmp_path / "t5", device="cpu")
    (a,) = Seq2SeqScorer(loaded, loaded_tokenizer, mode="pll").score(REQUESTS[:1])
    (b,) = Seq2SeqScorer(model, tokenizer, mode="pll").score(REQUESTS[:1])
    assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-6)
    with pytest.raises(ValueError, match="seq2seq model"):
        load_causal(tmp_path / "t5", device="cpu")
