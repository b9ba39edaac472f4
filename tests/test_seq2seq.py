"""Encoder-decoder scoring (FLAN-T5's path): the batched engine equals a naive one-at-a-time loop; the default
masked pseudo-likelihood is the authors' word-wise one (LLM_link utils.get_mlm_pl + mask_and_sum, what their
reported FLAN-T5 results hold: one value per word), the token-wise one (get_mlm_token_pl) a named variant; labels
and ratings go through the same masked path; embeddings are the authors' (encoder last token / decoder last state).
A tiny random T5 checks the mechanics; the real FLAN-T5-XL is not available offline."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from choicelab.lm.causal import ContinuationRequest
from choicelab.lm.seq2seq import (
    Seq2SeqScorer,
    build_examples,
    embed_prompt_options,
    pll_examples,
    pll_word_examples,
    score_naive,
    sentinel_ids,
)
from conftest import tiny_t5

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


def test_each_option_word_is_masked_with_the_sentinel_and_its_tokens_summed_where_the_decoder_writes_them():
    eos, m0, m1 = 2, 100, 101
    words = [[10, 11], [12], [13, 14]]
    masked = [([], [12, 13, 14]), ([10, 11], [13, 14]), ([10, 11, 12], [])]
    first, middle, last = pll_word_examples(0, [7, 8], words, masked, eos, (m0, m1))
    assert (first.input_ids, first.labels, first.scored) == ((7, 8, m0, 12, 13, 14, eos), (10, 11, m0, eos), (0, 1))
    assert (middle.input_ids, middle.labels) == ((7, 8, 10, 11, m0, 13, 14, eos), (m0, 12, m1, eos))
    assert middle.scored == (1,)
    assert (last.input_ids, last.labels, last.scored) == ((7, 8, 10, 11, 12, m0, eos), (m0, 13, 14, eos), (1, 2))
    assert first.summed and middle.summed and last.summed
    (single,) = pll_word_examples(0, [7], [[10, 11]], [([], [])], eos, (m0, m1))  # one word: mask, then the word
    assert (single.input_ids, single.labels, single.scored) == ((7, m0, eos), (m0, 10, 11, eos), (1, 2))


def test_a_word_value_is_the_authors_mask_and_sum_of_its_label_tokens(t5):
    """mask_and_sum: log-softmax of the decoder at every label position, the sentinels and </s> dropped, the rest
    summed; here computed directly from the model for each word of a three-word option."""
    model, tokenizer = t5
    request = REQUESTS[0]
    (score,) = Seq2SeqScorer(model, tokenizer, mode="pll").score([request])
    examples = build_examples(tokenizer, [request], "pll")
    special = {*sentinel_ids(tokenizer), tokenizer.eos_token_id}
    expected = []
    for e in examples:
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([e.input_ids]), labels=torch.tensor([e.labels])).logits[0]
        logprobs = torch.log_softmax(logits, -1)
        expected.append(sum(float(logprobs[j, t]) for j, t in enumerate(e.labels) if t not in special))
    assert len(score.token_logprobs) == len(request.continuation.split()) == 4
    assert score.token_logprobs == pytest.approx(expected, abs=1e-5)


def test_every_option_of_the_items_gets_one_value_per_word_as_in_the_authors_flan_t5_files(t5, data_mirror):
    """The authors' stored FLAN-T5-XL string scores (LLM_link 2cfc6522, results/log_probs/flan-t5-xl/seed0/
    string_scores) hold len(option.split()) values in token_cond_log_probs and null_prior_token_log_probs for 641
    of 641 option rows; the default masked path gives exactly that many for every option of the 169 items, and one
    for each label and rating number (the 6,410 label and 2,564 rating rows of their files hold one each)."""
    from choicelab.studies.scoring_methods import items as pr
    from choicelab.studies.scoring_methods import metrics as sm

    _, tokenizer = t5
    options = [o for item in pr.load_items(data_mirror) for o in item.options]
    assert len(options) == 641
    requests = [ContinuationRequest(str(k), "Your answer:", " " + o) for k, o in enumerate(options)]
    counts = [0] * len(options)
    for e in build_examples(tokenizer, requests, "pll"):
        counts[e.request] += 1
    assert counts == [len(o.split()) for o in options]
    short = [" A", " 3", *(" " + str(r) for r in sm.RATING_POINTS)]
    assert len(build_examples(tokenizer, [ContinuationRequest("l", "Your answer:", s) for s in short], "pll")) == len(
        short
    )


def test_each_option_token_is_masked_with_the_sentinel_and_scored_where_the_decoder_writes_it():
    eos, m0, m1 = 2, 100, 101
    first, middle, last = pll_examples(0, [7, 8], [10, 11, 12], eos, (m0, m1))
    assert (first.input_ids, first.labels, first.scored) == ((7, 8, m0, 11, 12, eos), (10, m0, eos), (0,))
    assert (middle.input_ids, middle.labels, middle.scored) == ((7, 8, 10, m0, 12, eos), (m0, 11, m1, eos), (1,))
    assert (last.input_ids, last.labels, last.scored) == ((7, 8, 10, 11, m0), (m0, 12, eos), (1,))  # no </s> input
    (single,) = pll_examples(0, [7], [10], eos, (m0, m1))
    assert (single.input_ids, single.labels) == ((7, m0, eos), (10, m0, eos))


@pytest.mark.parametrize("mode", ["pll", "pll_token", "decoder"])
def test_batched_engine_equals_the_naive_loop(t5, mode):
    model, tokenizer = t5
    batched = Seq2SeqScorer(model, tokenizer, mode=mode, max_batch_tokens=64).score(REQUESTS)
    naive = score_naive(model, tokenizer, REQUESTS, mode)
    for request, got, want in zip(REQUESTS, batched, naive, strict=True):
        assert got.id == want.id == request.id and got.token_ids == want.token_ids
        assert got.token_logprobs == pytest.approx(want.token_logprobs, abs=1e-5)
        n_tokens = len(tokenizer(request.continuation.lstrip(), add_special_tokens=False).input_ids)
        assert len(got.token_logprobs) == (len(request.continuation.split()) if mode == "pll" else n_tokens)


def test_the_word_wise_and_token_wise_masking_differ_on_a_multi_token_option(t5):
    model, tokenizer = t5
    (word,) = Seq2SeqScorer(model, tokenizer, mode="pll").score([REQUESTS[0]])
    (token,) = Seq2SeqScorer(model, tokenizer, mode="pll_token").score([REQUESTS[0]])
    assert len(word.token_logprobs) < len(token.token_logprobs)
    assert word.sum_logprob != pytest.approx(token.sum_logprob, abs=1e-3)
    with pytest.raises(ValueError, match="mode"):
        Seq2SeqScorer(model, tokenizer, mode="wordwise")


def test_embeddings_are_the_encoders_last_token_and_the_decoders_last_state(t5):
    """LLM_link compare_embeddings.py: model(input_ids=prompt + </s>, labels=option + </s>); the prompt's vector is
    encoder_last_hidden_state[:, -1], the option's decoder_hidden_states[-1][:, -1]."""
    model, tokenizer = t5
    prompt, options = "The cat sat on the mat. Your answer:", ["the dog barked loudly", "yes", "B"]
    ((prompt_vector, option_vectors),) = embed_prompt_options(model, tokenizer, [(prompt, options)], batch_size=2)
    eos = tokenizer.eos_token_id
    encoder = torch.tensor([tokenizer(prompt, add_special_tokens=False).input_ids + [eos]])
    for option, got in zip(options, option_vectors, strict=True):
        labels = torch.tensor([tokenizer(option, add_special_tokens=False).input_ids + [eos]])
        with torch.no_grad():
            out = model(input_ids=encoder, labels=labels, output_hidden_states=True)
        assert prompt_vector == pytest.approx(out.encoder_last_hidden_state[0, -1].numpy(), abs=1e-5)
        assert got == pytest.approx(out.decoder_hidden_states[-1][0, -1].numpy(), abs=1e-5)
    assert option_vectors.shape == (3, model.config.d_model)


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
    assert len(build_examples(tokenizer, REQUESTS[:1], "pll_token")) == len(
        tokenizer(REQUESTS[0].continuation.lstrip(), add_special_tokens=False).input_ids
    )
    assert len(build_examples(tokenizer, REQUESTS[:1], "pll")) == len(REQUESTS[0].continuation.split())


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
    scorer = Seq2SeqScorer(model, tokenizer, mode=plan.seq2seq_scoring, max_batch_tokens=4096)
    rows = scoring.score_all(scorer, items, model="t5", plan=plan)
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
    # labels and ratings go through the same masked path (the authors' rating script calls the same scoring)
    label = scores[(scores["item_id"] == irony.item_id) & (scores["method"] == "label")
                   & (scores["score"] == "label_logprob") & (scores["label_set"] == "alpha")].iloc[0]
    (label_lp,) = Seq2SeqScorer(model, tokenizer, mode="pll").score(
        [ContinuationRequest("l", label.context, " " + sm.labels_for(len(irony.options), "alpha")[label.position])]
    )
    assert label.value == pytest.approx(label_lp.sum_logprob, abs=1e-4)
    rating = scores[(scores["item_id"] == irony.item_id) & (scores["score"] == "rating_number")
                    & (scores["option_index"] == 0)].iloc[0]
    numbers = Seq2SeqScorer(model, tokenizer, mode="pll").score(
        [ContinuationRequest(str(r), rating.context, f" {r}") for r in sm.RATING_POINTS]
    )
    assert rating.value == pytest.approx(sm.rating_expectation([n.sum_logprob for n in numbers]), abs=1e-4)
    # embeddings: cosine of the authors' encoder-last-token and decoder-last-state vectors
    ((p, o),) = embed_prompt_options(model, tokenizer, [(prompts.string_prompt(irony), irony.options)])
    cosine = scores[(scores["item_id"] == irony.item_id) & (scores["method"] == "embedding")]
    assert cosine.sort_values("option_index")["value"].tolist() == pytest.approx(
        [sm.cosine(p, v) for v in o], abs=1e-5
    )
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
    meta = materialize(spec, tmp_path / "t5", seed=0)
    assert (meta["kind"], meta["architecture"]) == ("seq2seq", "T5ForConditionalGeneration")
    loaded, loaded_tokenizer, _ = load_seq2seq(tmp_path / "t5", device="cpu")
    (a,) = Seq2SeqScorer(loaded, loaded_tokenizer, mode="pll").score(REQUESTS[:1])
    (b,) = Seq2SeqScorer(model, tokenizer, mode="pll").score(REQUESTS[:1])
    assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-6)
    with pytest.raises(ValueError, match="seq2seq model"):
        load_causal(tmp_path / "t5", device="cpu")


def test_the_token_wise_variant_is_chosen_by_the_plan(t5, data_mirror):
    from choicelab.studies.scoring_methods import items as pr
    from choicelab.studies.scoring_methods import prompts, scoring

    model, tokenizer = t5
    items = prompts.from_pragmatics([it for it in pr.load_items(data_mirror) if it.item_id == "irony-01"])
    values = {}
    for mode in ("pll", "pll_token"):
        plan = scoring.MethodPlan(methods=("string",), label_seeds=(0,), label_sets=("alpha",), scales=("likely",),
                                  temperatures=(0.1,), generation_seeds=(0,), max_new_tokens=1, seq2seq_scoring=mode)
        scorer = Seq2SeqScorer(model, tokenizer, mode=mode, max_batch_tokens=4096)
        rows = scoring.score_all(scorer, items, model="t5", plan=plan)
        values[mode] = [r.value for r in rows if r.score == "option_logprob"]
        (expected,) = Seq2SeqScorer(model, tokenizer, mode=mode).score(
            [ContinuationRequest("o", prompts.string_prompt(items[0]), " " + items[0].options[0])]
        )
        assert values[mode][0] == pytest.approx(expected.sum_logprob, abs=1e-4)
    assert values["pll"] != pytest.approx(values["pll_token"], abs=1e-3)
    with pytest.raises(ValueError, match=r"scores in mode 'pll_token', the plan in 'pll'"):
        scoring.score_all(Seq2SeqScorer(model, tokenizer, mode="pll_token"), items, model="t5",
                          plan=dataclasses.replace(plan, seq2seq_scoring="pll"))
    with pytest.raises(ValueError, match="seq2seq_scoring"):
        scoring.MethodPlan(methods=("string",), label_seeds=(0,), label_sets=("alpha",), scales=("likely",),
                           temperatures=(0.1,), generation_seeds=(0,), max_new_tokens=1, seq2seq_scoring="words")
