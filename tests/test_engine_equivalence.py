"""The engine gives the same per-token log-probs as one naive full forward per request (within
``logprob_tolerance``: 1e-5 for these fp32 models on a CPU), whatever the contexts, continuations, sharing and batch
size."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from choicelab.lm.causal import CausalScorer, ContinuationRequest, logprob_tolerance, score_naive

TOL = logprob_tolerance(torch.float32, "cpu")

ALPHABET = st.sampled_from(list("abcdefghij klmnop 0123456789 .,!?\t\néü東京🙂"))
texts = st.text(alphabet=ALPHABET, min_size=0, max_size=40)
continuation_texts = st.text(alphabet=ALPHABET, min_size=1, max_size=40)  # an empty continuation is refused


def _assert_same(engine, naive):
    assert [s.id for s in engine] == [s.id for s in naive]
    for a, b in zip(engine, naive, strict=True):
        assert a.token_ids == b.token_ids
        assert len(a.token_logprobs) == len(b.token_logprobs)
        for x, y in zip(a.token_logprobs, b.token_logprobs, strict=True):
            assert abs(x - y) <= TOL
        if a.terminal_logprob is not None:
            assert abs(a.terminal_logprob - b.terminal_logprob) <= TOL


@pytest.mark.parametrize("family", ["tiny_llama", "tiny_gemma3"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contexts=st.lists(texts, min_size=1, max_size=4),
    continuations=st.lists(continuation_texts, min_size=1, max_size=5),
    batch_tokens=st.sampled_from([16, 64, 4096]),
)
def test_engine_matches_naive_forward_on_random_requests(request, family, contexts, continuations, batch_tokens):
    model, tokenizer = request.getfixturevalue(family)
    requests = [
        ContinuationRequest(f"{i}-{j}", ctx, cont)
        for i, ctx in enumerate(contexts)
        for j, cont in enumerate(continuations)
    ]
    engine = CausalScorer(model, tokenizer, max_batch_tokens=batch_tokens).score(
        requests, terminal_excluded_ids=[3, 4, 50]
    )
    naive = score_naive(model, tokenizer, requests, terminal_excluded_ids=[3, 4, 50])
    _assert_same(engine, naive)


@pytest.mark.parametrize("family", ["tiny_llama", "tiny_gemma3"])
def test_results_do_not_depend_on_batch_size(request, family):
    model, tokenizer = request.getfixturevalue(family)
    long_context = "A die has 6 faces. The die is equally likely to land on any of its faces. " * 3
    requests = [
        ContinuationRequest(f"r{i}", ctx, cont)
        for i, (ctx, cont) in enumerate(
            [(long_context, " 1"), (long_context, " 12"), ("Short", " one two three"), ("", "Hello"), ("x", " y")]
        )
    ]
    reference = CausalScorer(model, tokenizer, max_batch_tokens=1 << 20).score(requests)
    for budget in (16, 40, 200, 1000):
        _assert_same(CausalScorer(model, tokenizer, max_batch_tokens=budget).score(requests), reference)


def test_results_come_back_in_request_order_with_shared_contexts(tiny_llama):
    model, tokenizer = tiny_llama
    requests = [ContinuationRequest(str(i), ["ctx b", "ctx a"][i % 2], f" option {i}") for i in range(7)]
    scores = CausalScorer(model, tokenizer).score(requests)
    assert [s.id for s in scores] == [r.id for r in requests]


def test_context_longer_than_the_window_fails_with_a_clear_message(tiny_llama):
    model, tokenizer = tiny_llama
    scorer = CausalScorer(model, tokenizer)
    scorer.max_length = 10
    with pytest.raises(ValueError, match="longer than the model's context window"):
        scorer.score([ContinuationRequest("long", "word " * 30, " end")])


PREAMBLE = "You are given a scenario and a question. Answer with one letter. Scenario: a die has six faces and "


@pytest.mark.parametrize("family", ["tiny_llama", "tiny_gemma3"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tails=st.lists(texts, min_size=1, max_size=6),
    continuations=st.lists(continuation_texts, min_size=1, max_size=3),
    batch_tokens=st.sampled_from([24, 80, 4096]),
)
def test_contexts_sharing_a_long_prefix_score_as_if_run_whole(request, family, tails, continuations, batch_tokens):
    """Prefix sharing on (the tiny Gemma 3 has an 8-token sliding window, shorter than the shared prefix): the same
    numbers as a naive forward, including a context that is exactly the shared prefix of the others."""
    model, tokenizer = request.getfixturevalue(family)
    contexts = [PREAMBLE, *(PREAMBLE + tail for tail in tails), "Unrelated short context"]
    requests = [
        ContinuationRequest(f"{i}-{j}", ctx, cont)
        for i, ctx in enumerate(contexts)
        for j, cont in enumerate(continuations)
    ]
    engine = CausalScorer(model, tokenizer, max_batch_tokens=batch_tokens).score(requests, terminal_excluded_ids=[3, 4])
    naive = score_naive(model, tokenizer, requests, terminal_excluded_ids=[3, 4])
    _assert_same(engine, naive)


def _tokens_run(model, scorer, requests):
    seen = []
    handle = model.register_forward_pre_hook(
        lambda _module, _args, kwargs: seen.append(
            int(kwargs["attention_mask"][:, -kwargs["input_ids"].shape[1]:].sum())
        ),
        with_kwargs=True,
    )
    try:
        scorer.score(requests)
    finally:
        handle.remove()
    return sum(seen)


def test_a_prefix_shared_by_many_contexts_is_run_once(tiny_llama):
    model, tokenizer = tiny_llama
    requests = [ContinuationRequest(str(k), PREAMBLE * 2 + f"option {k} is", " right") for k in range(6)]
    shared = _tokens_run(model, CausalScorer(model, tokenizer), requests)
    unshared = _tokens_run(model, CausalScorer(model, tokenizer, share_prefixes=False), requests)
    prefix = len(tokenizer(PREAMBLE * 2)["input_ids"])
    assert unshared - shared >= 5 * (prefix - 2)
    _assert_same(CausalScorer(model, tokenizer).score(requests), score_naive(model, tokenizer, requests))


def test_prefix_groups_keep_neighbours_only_while_sharing_saves_tokens():
    from choicelab.lm.causal import shared_prefix_groups

    item = (1, 5, 5, 5, 5, 5, 5, 5, 5, 5)
    contexts = sorted([item + (7,), item + (8,), item + (9, 9), (1, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6), (2, 3)])
    groups = shared_prefix_groups(contexts, min_shared=4)
    assert [(g.length, len(g.contexts)) for g in groups] == [(10, 3), (11, 1), (2, 1)]
    assert [len(g.contexts) for g in shared_prefix_groups(contexts, None)] == [1, 1, 1, 1, 1]
    # every context is in exactly one group, in sorted order
    assert [c for g in groups for c in g.contexts] == contexts


def test_tolerances_follow_the_arithmetic_of_dtype_and_device():
    assert logprob_tolerance(torch.float32, "cpu") == 1e-5
    assert logprob_tolerance(torch.float32, "cuda:0") > 2.1e-5  # the fp32 difference seen on an H100
    assert logprob_tolerance(torch.float32, "cpu") < logprob_tolerance(torch.float16, "cuda") < logprob_tolerance(
        torch.bfloat16, "cuda"
    )


def test_an_older_transformers_is_refused_naming_both_versions():
    from choicelab.lm.causal import MIN_TRANSFORMERS, check_transformers_version

    with pytest.raises(RuntimeError, match=rf"transformers >= {MIN_TRANSFORMERS}.*transformers 4\.57\.1"):
        check_transformers_version("4.57.1")
    check_transformers_version(MIN_TRANSFORMERS)

