"""The token budget of a scoring batch: a fixed number, or ``auto``, sized from the device's free memory.

A batch of the scoring engine holds at most ``max_batch_tokens`` tokens (rows x longest row). On a CPU the budget
barely matters for speed and 4,096 is the measured default. On a GPU a small budget leaves most of the device idle
(issue 28: 4,096 tokens ran a 1B model at 0.8x lm-eval's speed, 32,768 at 1.7x), and the right number depends on the
card and the model, so ``auto`` computes it when the scorer is built:

    budget = AUTO_MEMORY_SHARE * free device memory / estimated bytes per token

rounded down to a multiple of 1,024 and kept within [``AUTO_MIN_TOKENS``, ``AUTO_MAX_TOKENS``]. The bytes per token
count the KV cache the engine keeps (keys and values of every layer, ``KV_COPIES`` times: a prefix's cache is copied
to the contexts and continuations that extend it) and the largest transient activations of one layer (the MLP's
intermediate tensors and a few hidden-size tensors). The estimate is deliberately generous; when it is still too
small, the engine's out-of-memory handling halves the budget and retries (logged), and results never depend on the
budget.
"""

from __future__ import annotations

from typing import Any

AUTO = "auto"
CPU_BUDGET = 4096
AUTO_MEMORY_SHARE = 0.5
AUTO_MIN_TOKENS = 4096
AUTO_MAX_TOKENS = 262144
KV_COPIES = 5  # a context's cache and its copy for each of 4 options
ACTIVATION_TENSORS = (3, 6)  # intermediate-size and hidden-size tensors alive at once in one layer's forward


def bytes_per_token(config: Any, dtype_bytes: int) -> int:
    """Estimated device bytes one batch token costs a forward of a model with this (transformers) config."""
    text = getattr(config, "text_config", None) or config
    hidden = int(getattr(text, "hidden_size", None) or getattr(text, "d_model", 0) or 0)
    layers = int(getattr(text, "num_hidden_layers", None) or getattr(text, "num_layers", 0) or 0)
    heads = int(getattr(text, "num_attention_heads", None) or getattr(text, "num_heads", 0) or 1)
    kv_heads = int(getattr(text, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(text, "head_dim", None) or (hidden // heads if heads else 0))
    intermediate = int(getattr(text, "intermediate_size", None) or getattr(text, "d_ff", 0) or 4 * hidden)
    if not hidden or not layers:
        raise ValueError(f"cannot size an auto token budget: the model config ({type(config).__name__}) names no "
                         "hidden size or layer count; set engine.max_batch_tokens to a number")
    kv = 2 * layers * kv_heads * head_dim * dtype_bytes * KV_COPIES
    activations = (ACTIVATION_TENSORS[0] * intermediate + ACTIVATION_TENSORS[1] * hidden) * max(dtype_bytes, 4)
    return kv + activations


def free_device_memory(device: Any) -> int:
    """Free bytes on a CUDA device (torch.cuda.mem_get_info)."""
    import torch

    free, _total = torch.cuda.mem_get_info(device)
    return int(free)


def token_budget(model: Any, setting: int | str) -> int:
    """``setting`` as the engine's token budget: an int is used as given; ``auto`` is sized from the free memory of
    the model's input device (``CPU_BUDGET`` on a CPU). Anything else is refused naming the key."""
    if isinstance(setting, bool) or not (isinstance(setting, int) or setting == AUTO):
        raise ValueError(f"engine.max_batch_tokens must be a number of tokens (>= 16) or 'auto', not {setting!r}")
    if isinstance(setting, int):
        if setting < 16:
            raise ValueError(f"engine.max_batch_tokens must be at least 16 tokens, not {setting}")
        return setting
    from choicelab.lm.loading import input_device

    device = input_device(model)
    if device.type != "cuda":
        return CPU_BUDGET
    dtype_bytes = next(model.parameters()).element_size()
    per_token = bytes_per_token(model.config, dtype_bytes)
    budget = int(AUTO_MEMORY_SHARE * free_device_memory(device) // per_token) // 1024 * 1024
    return max(AUTO_MIN_TOKENS, min(AUTO_MAX_TOKENS, budget))


def is_out_of_memory(error: BaseException) -> bool:
    """A device out-of-memory error (torch's ``OutOfMemoryError``, named so this module needs no torch, or the message
    other backends raise)."""
    return type(error).__name__ == "OutOfMemoryError" or "out of memory" in str(error).lower()
