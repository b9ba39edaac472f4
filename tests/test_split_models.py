"""Models bigger than one device: loaded with a device map (here on CPU, part offloaded to disk), they score, sample
and embed as the same model in one piece; out of memory, the engine halves its token budget and retries."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import torch

from choicelab.lm import loading
from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive
from choicelab.lm.embed import embed_texts
from choicelab.lm.generate import sample
from choicelab.lm.loading import load_causal, placement
from choicelab.lm.prepare import prepare_model

CONTEXT = "A die has 6 faces. The die is equally likely to land on any of its faces. The die lands on face number"
REQUESTS = [
    ContinuationRequest(f"r{i}", ctx, cont)
    for i, (ctx, cont) in enumerate(
        [(CONTEXT, " 1"), (CONTEXT, " 12"), (CONTEXT + " 3.", " The sum is"), ("Answer: A or B?", " B"), ("", "Hello")]
    )
]
# Layer 1 and the LM head live on "disk" (accelerate offloads them and streams them in per forward).
OFFLOADED = {"model.embed_tokens": "cpu", "model.rotary_emb": "cpu", "model.layers.0": "cpu", "model.layers.1": "disk",
             "model.norm": "cpu", "lm_head": "disk"}


@pytest.fixture(scope="module")
def whole_and_split(tmp_path_factory):
    root = tmp_path_factory.mktemp("split")
    prepare_model("whole", {"kind": "causal", "source": "random:llama"}, root / "whole", seed=0)
    prepare_model("split", {"kind": "causal", "source": "random:llama", "device_map": OFFLOADED}, root / "split",
                  seed=0)
    whole, tokenizer, _ = load_causal(root / "whole", device="cpu")
    split, _, meta = load_causal(root / "split", device="cpu")
    return whole, split, tokenizer, meta


def test_the_split_model_is_really_split(whole_and_split):
    _, split, _, meta = whole_and_split
    assert meta["device_map"] == OFFLOADED
    assert split.hf_device_map["lm_head"] == "disk" and split.lm_head.weight.device.type == "meta"


def test_a_split_model_scores_as_the_whole_one(whole_and_split):
    whole, split, tokenizer, _ = whole_and_split
    naive = score_naive(whole, tokenizer, REQUESTS, terminal_excluded_ids=[3, 4])
    for budget in (32, 4096):
        engine = CausalScorer(split, tokenizer, max_batch_tokens=budget).score(REQUESTS, terminal_excluded_ids=[3, 4])
        for a, b in zip(engine, naive, strict=True):
            assert a.token_ids == b.token_ids
            assert np.allclose(a.token_logprobs, b.token_logprobs, atol=1e-5, rtol=0)
            assert abs(a.terminal_logprob - b.terminal_logprob) <= 1e-5


def test_a_split_model_samples_and_embeds_as_the_whole_one(whole_and_split):
    whole, split, tokenizer, _ = whole_and_split
    prompts = [("a", CONTEXT), ("b", "Hello there")]
    for temperature in (0.0, 0.9):
        a = sample(whole, tokenizer, prompts, max_new_tokens=5, temperature=temperature, seed=3)
        b = sample(split, tokenizer, prompts, max_new_tokens=5, temperature=temperature, seed=3)
        assert [g.token_ids for g in a] == [g.token_ids for g in b]
    texts = ["one text", "another, longer text"]
    assert np.allclose(embed_texts(whole, tokenizer, texts, kind="causal"),
                       embed_texts(split, tokenizer, texts, kind="causal"), atol=1e-5)


def test_several_visible_gpus_split_the_model_automatically(monkeypatch):
    meta = {"name": "llama-2-70b", "device_map": None}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)  # a job with gpu: 4 sees four
    assert placement(meta, "auto") == {"device_map": "auto"}
    assert placement(meta, "cpu") == {}
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert placement(meta, "auto") == {"device_map": {"": "cuda"}}  # one GPU: loaded straight onto it
    assert placement({"name": "m", "device_map": "auto"}, "auto") == {"device_map": "auto"}


def test_out_of_memory_halves_the_budget_retries_and_logs(whole_and_split, caplog):
    whole, _, tokenizer, _ = whole_and_split
    reference = CausalScorer(whole, tokenizer, max_batch_tokens=4096).score(REQUESTS)
    forward = whole.forward
    failures = []

    def tight_memory(*args, **kwargs):  # a device that holds at most 60 tokens per forward
        ids = kwargs["input_ids"]
        if ids.numel() > 60:
            failures.append(ids.numel())
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return forward(*args, **kwargs)

    scorer = CausalScorer(whole, tokenizer, max_batch_tokens=4096)
    scorer.model = whole
    whole.forward = tight_memory
    try:
        with caplog.at_level(logging.WARNING, logger="choicelab.lm.causal"):
            scores = scorer.score(REQUESTS)
    finally:
        del whole.forward
    assert failures and scorer.oom_retries >= 1 and scorer.max_batch_tokens < 4096
    assert "token budget halved" in caplog.text
    for a, b in zip(scores, reference, strict=True):
        assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-6)


def test_out_of_memory_on_a_single_context_fails_with_the_fix(whole_and_split):
    whole, _, tokenizer, _ = whole_and_split

    def no_memory(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory")

    whole.forward = no_memory
    try:
        with pytest.raises(RuntimeError, match="raise 'gpu:'"):
            CausalScorer(whole, tokenizer, max_batch_tokens=4096).score(REQUESTS[:1])
    finally:
        del whole.forward


def test_input_device_is_where_the_embeddings_run(whole_and_split):
    whole, split, _, _ = whole_and_split
    assert loading.input_device(whole) == torch.device("cpu") == loading.input_device(split)


def test_sampling_out_of_memory_splits_the_batch_with_the_same_tokens(whole_and_split, caplog):
    whole, _, tokenizer, _ = whole_and_split
    prompts = [("a", CONTEXT), ("b", "Hello there"), ("c", "Answer: A or B?"), ("d", "One")]
    reference = sample(whole, tokenizer, prompts, max_new_tokens=4, temperature=0.9, seed=5)
    forward = whole.forward

    def one_row_at_a_time(*args, **kwargs):  # a device that holds one prompt per forward
        if kwargs["input_ids"].shape[0] > 1:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return forward(*args, **kwargs)

    whole.forward = one_row_at_a_time
    try:
        with caplog.at_level(logging.WARNING, logger="choicelab.lm.generate"):
            got = sample(whole, tokenizer, prompts, max_new_tokens=4, temperature=0.9, seed=5)
    finally:
        del whole.forward
    assert [g.token_ids for g in got] == [g.token_ids for g in reference]
    assert "split in two" in caplog.text
