"""Each job reports what its models computed (tokens, estimated FLOPs), so bench/workflow.py can show waste."""

from __future__ import annotations

import json

import torch

from choicelab.lm.causal import ContinuationRequest, score_naive
from choicelab.lm.encoder import fine_tune_mc
from choicelab.lm.recipe import Recipe
from choicelab.lm.tiny import tiny_model
from choicelab.lm.tokenization import RequestEncoder
from choicelab.lm.usage import USAGE_PREFIX, _parameter_split, track, usage
from choicelab.mc.items import MCItem
from choicelab.workflow import log_to


def test_a_forward_counts_its_tokens_and_dense_flops():
    model, tokenizer = tiny_model("llama", seed=0)
    track(model, "usage-llama")
    request = ContinuationRequest("a", "The die lands on face number", " 12")
    encoded = RequestEncoder(tokenizer).encode([request.context], [request.continuation])[0]
    n = len(encoded.context_ids) + len(encoded.continuation_ids)  # one naive forward over all of them
    score_naive(model, tokenizer, [request])
    counted = usage()["usage-llama"]
    body, head = _parameter_split(model)
    assert head == model.lm_head.weight.numel() and 0 < body < sum(p.numel() for p in model.parameters())
    assert counted["tokens"] == counted["real_tokens"] == counted["logit_positions"] == n
    assert counted["flops"] == 2.0 * body * n + 2.0 * head * n and counted["train_tokens"] == 0


def test_a_training_step_counts_three_times_the_forward():
    model, tokenizer = tiny_model("bert", seed=0)
    track(model, "usage-bert")
    items = [MCItem("t", "train", str(i), f"Question {i}?", ("yes", "no"), i % 2) for i in range(2)]
    fine_tune_mc(model, tokenizer, items, items,
                 Recipe(learning_rate=1e-3, batch_size=2, max_epochs=1, seed=0, max_length=16, input_format="pair"),
                 log=lambda _: None)
    counted = usage()["usage-bert"]
    body, _ = _parameter_split(model)
    train, evaluated = counted["train_tokens"], counted["tokens"] - counted["train_tokens"]
    assert train > 0 and evaluated > 0  # one training batch, then the dev evaluation
    assert counted["flops"] == 3 * 2.0 * body * train + 2.0 * body * evaluated


def test_frozen_layers_replayed_from_a_cache_are_not_counted():
    from choicelab.lm.encoder import encoder_layers

    model, tokenizer = tiny_model("bert", seed=0)
    track(model, "usage-bert-frozen")
    layer_params = sum(p.numel() for p in encoder_layers(model)[0].parameters())
    body, _ = _parameter_split(model)
    items = [MCItem("t", "train", str(i), f"Question {i}?", ("yes", "no"), i % 2) for i in range(2)]
    fine_tune_mc(model, tokenizer, items, items,
                 Recipe(learning_rate=1e-3, batch_size=2, max_epochs=1, seed=0, max_length=16, frozen_layers=1,
                        input_format="pair"),
                 log=lambda _: None)
    counted = usage()["usage-bert-frozen"]
    train, evaluated = counted["train_tokens"], counted["tokens"] - counted["train_tokens"]
    # the training step and the dev evaluation run the top layer only: the bottom one is replayed from its cache
    assert train > 0 and evaluated > 0 and counted["forward_calls"] == 2
    assert counted["flops"] == 3 * 2.0 * (body - layer_params) * train + 2.0 * (body - layer_params) * evaluated


def test_the_job_log_ends_with_its_usage(tmp_path, monkeypatch):
    monkeypatch.setenv("CHOICELAB_PEAK_CACHE", str(tmp_path / "peak.json"))  # the machine's cache is left alone
    model, tokenizer = tiny_model("llama", seed=0)
    track(model, "usage-job")
    with log_to(str(tmp_path / "job.log"), threads=torch.get_num_threads()):
        score_naive(model, tokenizer, [ContinuationRequest("a", "Hello", " world")])
    line = [x for x in (tmp_path / "job.log").read_text().splitlines() if x.startswith(USAGE_PREFIX)][-1]
    record = json.loads(line[len(USAGE_PREFIX):])
    assert record["models"]["usage-job"]["tokens"] > 0 and record["seconds"] >= 0


def test_useful_flops_count_only_the_positions_the_attention_mask_keeps():
    """Items of different lengths in one batch are padded to the longest: every position costs FLOPs, but only the
    real ones are useful."""
    from choicelab.lm.encoder import mc_logits

    model, tokenizer = tiny_model("bert", seed=0)
    track(model, "usage-bert-padding")
    items = [MCItem("t", "dev", "0", "Short?", ("yes", "no"), 0),
             MCItem("t", "dev", "1", "A much longer question with many more words in it?", ("yes", "no"), 1)]
    mc_logits(model, tokenizer, items, max_length=64)
    counted = usage()["usage-bert-padding"]
    body, _ = _parameter_split(model)
    assert counted["real_tokens"] < counted["tokens"]
    assert counted["useful_flops"] == 2.0 * body * counted["real_tokens"]
    assert counted["flops"] == 2.0 * body * counted["tokens"]


def test_the_one_thread_peak_is_measured_once_per_machine_and_cached(tmp_path, monkeypatch):
    from choicelab.lm import usage as module

    calls = []
    monkeypatch.setenv("CHOICELAB_PEAK_CACHE", str(tmp_path / "peak.json"))
    monkeypatch.setattr(module, "measure_one_thread_peak", lambda: calls.append(1) or 5.0e10)
    assert module.one_thread_peak() == module.one_thread_peak() == 5.0e10
    assert calls == [1]
    assert json.loads((tmp_path / "peak.json").read_text())[module._machine()]["flops_per_second"] == 5.0e10


def test_a_real_one_thread_matmul_peak_is_a_positive_rate():
    from choicelab.lm.usage import measure_one_thread_peak

    assert 0 < measure_one_thread_peak(n=128, repeats=2) < float("inf")


def test_the_usage_line_gives_the_useful_share_of_the_peak_at_the_jobs_threads(tmp_path, monkeypatch):
    """share = useful FLOPs / seconds / (threads x one-thread peak)."""
    from choicelab.lm import usage as module

    monkeypatch.setenv("CHOICELAB_PEAK_CACHE", str(tmp_path / "peak.json"))
    monkeypatch.setattr(module, "measure_one_thread_peak", lambda: 1.0e9)
    model, tokenizer = tiny_model("llama", seed=0)
    track(model, "usage-share")
    score_naive(model, tokenizer, [ContinuationRequest("a", "Hello", " world")])
    record = json.loads(module.usage_line(seconds=2.0, threads=2)[len(USAGE_PREFIX):])
    useful = sum(entry["useful_flops"] for entry in record["models"].values())
    assert record["one_thread_peak_flops"] == 1.0e9
    assert record["useful_share_of_peak"] == round(useful / 2.0 / (2 * 1.0e9), 4) > 0
