"""The engine's token budget: a number as given, or ``auto``, sized from the GPU's free memory (4096 on a CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from choicelab.config import ConfigError, validate_schema
from choicelab.lm import budget
from choicelab.lm.causal import CausalScorer, ContinuationRequest


def test_a_number_is_the_budget_and_auto_on_a_cpu_is_the_cpu_default(tiny_llama):
    model, tokenizer = tiny_llama
    assert CausalScorer(model, tokenizer, max_batch_tokens=777).max_batch_tokens == 777
    assert CausalScorer(model, tokenizer, max_batch_tokens="auto").max_batch_tokens == budget.CPU_BUDGET


@pytest.mark.parametrize("bad", ["fast", 8, True, 1.5])
def test_a_bad_budget_is_refused_naming_the_key(tiny_llama, bad):
    model, tokenizer = tiny_llama
    with pytest.raises(ValueError, match="engine.max_batch_tokens"):
        CausalScorer(model, tokenizer, max_batch_tokens=bad)


def test_auto_on_a_gpu_grows_with_free_memory_and_shrinks_with_the_model(tiny_llama, monkeypatch):
    model, _ = tiny_llama
    monkeypatch.setattr("choicelab.lm.loading.input_device", lambda m: torch.device("cuda", 0))
    per_token = budget.bytes_per_token(model.config, 4)
    config = model.config
    # keys and values of every layer, five copies, plus one layer's transient activations
    kv = 2 * config.num_hidden_layers * config.num_key_value_heads * config.head_dim * 4 * budget.KV_COPIES
    assert per_token == kv + (3 * config.intermediate_size + 6 * config.hidden_size) * 4
    free = 40 * 1024 * 1024 * per_token  # room for ~40M tokens at the memory share: clamped to the maximum
    monkeypatch.setattr(budget, "free_device_memory", lambda device: free)
    assert budget.token_budget(model, "auto") == budget.AUTO_MAX_TOKENS
    monkeypatch.setattr(budget, "free_device_memory", lambda device: 20_000 * per_token)
    assert budget.token_budget(model, "auto") == 9216  # 0.5 x 20,000 tokens, rounded down to a multiple of 1024
    monkeypatch.setattr(budget, "free_device_memory", lambda device: 10 * per_token)
    assert budget.token_budget(model, "auto") == budget.AUTO_MIN_TOKENS  # OOM halving takes over below this


def test_the_budget_does_not_change_the_scores(tiny_llama):
    model, tokenizer = tiny_llama
    requests = [ContinuationRequest(f"q{i}-{k}", f"Question {i}: which one fits best here?", f" option {k}")
                for i in range(6) for k in range(4)]
    small = CausalScorer(model, tokenizer, max_batch_tokens=32).score(requests)
    auto = CausalScorer(model, tokenizer, max_batch_tokens="auto").score(requests)
    for a, b in zip(small, auto, strict=True):
        assert a.id == b.id and a.sum_logprob == pytest.approx(b.sum_logprob, abs=1e-5)


def test_the_config_takes_a_number_or_auto_and_names_anything_else():
    config = yaml.safe_load((Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml").read_text())
    config["engine"]["max_batch_tokens"] = "auto"
    validate_schema(config)
    config["engine"]["max_batch_tokens"] = "fast"
    with pytest.raises(ConfigError, match="max_batch_tokens"):
        validate_schema(config)
