"""What a job's models computed: tokens run and estimated FLOPs, counted by a hook on every model the loaders return.

Per forward: ``tokens`` = input positions run (padding included: it is computed), ``real_tokens`` = positions the
attention mask keeps, ``logit_positions`` = positions projected onto the vocabulary (the engine keeps few).
FLOPs are the usual dense estimate: 2 x (parameters outside the embeddings and the LM head, as the model holds them at
that call: a fine-tune's frozen layers replayed from a cache are swapped out and not counted; the one pass that fills
the cache calls those layers directly and is not counted either, a small undercount) per position, plus
2 x (LM head parameters) per logit position, times 3 for a training forward (the backward pass costs two more).
Attention over the cache and MoE routing are not modelled: for a mixture of experts every expert's parameters are
counted, an upper bound. ``choicelab.workflow.log_to`` writes the job's totals to its log (``choicelab usage:``
line, JSON), which bench/workflow.py reads next to the machine's measured matmul peak.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import torch

USAGE_PREFIX = "choicelab usage: "
_lock = threading.Lock()
_totals: dict[str, dict[str, float]] = {}


def _parameter_split(model: torch.nn.Module) -> tuple[int, int]:
    """(body parameters, LM head parameters) of ``model``; embeddings count in neither."""
    total = sum(p.numel() for p in model.parameters())
    embed = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    embed_params = sum(p.numel() for p in embed.parameters()) if embed is not None else 0
    head_params = sum(p.numel() for p in head.parameters()) if head is not None else 0
    tied = embed is not None and head is not None and getattr(head, "weight", None) is getattr(embed, "weight", None)
    body = total - embed_params - (0 if tied else head_params)
    return max(body, 0), head_params


def track(model: torch.nn.Module, name: str) -> torch.nn.Module:
    """Count what ``model`` computes under ``name`` (once per model object); returns the model."""
    if getattr(model, "_choicelab_usage", None):
        return model
    _, head = _parameter_split(model)
    base = getattr(model, "base_model", model)  # the transformer; embeddings of texts call it directly

    def entry() -> dict[str, float]:
        return _totals.setdefault(name, dict.fromkeys(
            ("forward_calls", "tokens", "real_tokens", "logit_positions", "train_tokens", "flops"), 0))

    def count_body(module: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        embeds = kwargs.get("inputs_embeds")
        if ids is not None:
            tokens = ids.numel()
        elif embeds is not None:
            tokens = embeds.numel() // embeds.shape[-1]
        else:
            return
        mask = kwargs.get("attention_mask")
        real = int(mask[..., -ids.shape[-1]:].sum()) if mask is not None and ids is not None else tokens
        training = torch.is_grad_enabled() and module.training
        # counted at each call: layers swapped out (frozen layers replayed from a cache) do not run
        body = _parameter_split(model)[0]
        with _lock:
            totals = entry()
            totals["forward_calls"] += 1
            totals["tokens"] += tokens
            totals["real_tokens"] += real
            totals["train_tokens"] += tokens if training else 0
            totals["flops"] += (3 if training else 1) * 2.0 * body * tokens

    def count_head(module: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        logits = getattr(output, "logits", None)
        if logits is None:
            return
        positions = logits.numel() // logits.shape[-1]
        training = torch.is_grad_enabled() and module.training
        with _lock:
            totals = entry()
            totals["logit_positions"] += positions
            totals["flops"] += (3 if training else 1) * 2.0 * head * positions

    base.register_forward_hook(count_body, with_kwargs=True)
    if base is not model and head:
        model.register_forward_hook(count_head, with_kwargs=True)
    model._choicelab_usage = True
    return model


def usage() -> dict[str, dict[str, float]]:
    """Totals per model name since the process started."""
    with _lock:
        return {name: dict(entry) for name, entry in _totals.items()}


def usage_line(seconds: float, threads: int | None) -> str | None:
    """The log line of a job's usage (None when no model ran)."""
    totals = usage()
    if not totals:
        return None
    return USAGE_PREFIX + json.dumps({"seconds": round(seconds, 3), "threads": threads, "models": totals},
                                     sort_keys=True)
