"""The context/continuation token boundary, as documented in choicelab.lm.tokenization."""

from __future__ import annotations

from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.lm.tokenization import RequestEncoder


def test_trailing_space_of_the_context_moves_to_the_continuation(tiny_llama):
    _, tokenizer = tiny_llama
    encoder = RequestEncoder(tokenizer)
    with_space, = encoder.encode(["The die lands on face number "], ["12"])
    without, = encoder.encode(["The die lands on face number"], [" 12"])
    assert with_space == without
    assert tokenizer.decode(list(without.continuation_ids)) == " 12"


def test_canonical_split_uses_the_joint_encoding(tiny_llama):
    _, tokenizer = tiny_llama
    enc, = RequestEncoder(tokenizer).encode(["The quick brown"], [" fox jumps"])
    joint = tokenizer("The quick brown fox jumps", add_special_tokens=False)["input_ids"]
    assert list(enc.context_ids) + list(enc.continuation_ids) == joint
    assert not enc.boundary_merged


def test_a_token_spanning_the_boundary_is_flagged_and_the_continuation_encoded_alone(tiny_llama):
    _, tokenizer = tiny_llama
    # "Hel" + "lo" merges into tokens covering both sides in the joint text "Hello".
    joint = tokenizer("Hello", add_special_tokens=False)["input_ids"]
    ctx = tokenizer("Hel", add_special_tokens=False)["input_ids"]
    assert joint[: len(ctx)] != ctx, "test premise: the tokenizer merges across the boundary"
    enc, = RequestEncoder(tokenizer).encode(["Hel"], ["lo"])
    assert enc.boundary_merged
    assert list(enc.context_ids) == ctx
    assert list(enc.continuation_ids) == tokenizer("lo", add_special_tokens=False)["input_ids"]


def test_empty_context_starts_from_the_prefix_token(tiny_llama):
    _, tokenizer = tiny_llama
    enc, = RequestEncoder(tokenizer).encode([""], ["Hello"])
    assert enc.context_ids == (tokenizer.bos_token_id,)
    score, = CausalScorer(*tiny_llama).score([ContinuationRequest("e", "", "Hello")])
    assert score.n_tokens == len(tokenizer("Hello", add_special_tokens=False)["input_ids"])


def test_bos_is_prepended_when_the_model_adds_it_by_default(tiny_llama):
    _, tokenizer = tiny_llama
    enc, = RequestEncoder(tokenizer, add_bos=True).encode(["Hi there"], [" you"])
    assert enc.context_ids[0] == tokenizer.bos_token_id
    plain, = RequestEncoder(tokenizer, add_bos=False).encode(["Hi there"], [" you"])
    assert plain.context_ids == enc.context_ids[1:]


def test_a_context_that_already_starts_with_bos_text_is_not_given_a_second_bos(tiny_llama):
    _, tokenizer = tiny_llama
    enc, = RequestEncoder(tokenizer, add_bos=True).encode(["<bos>User: hi"], [" there"])
    assert enc.context_ids[0] == tokenizer.bos_token_id
    assert enc.context_ids[1] != tokenizer.bos_token_id
