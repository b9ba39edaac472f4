"""What a job's models computed: tokens run and estimated FLOPs, counted by a hook on every model the loaders return.

Per forward: ``tokens`` = input positions run (padding included: it is computed), ``real_tokens`` = positions the
attention mask keeps, ``logit_positions`` = positions projected onto the vocabulary (the engine keeps few).
FLOPs are the usual dense estimate: 2 x (parameters outside the embeddings and the LM head, as the model holds them at
that call: a fine-tune's frozen layers replayed from a cache are swapped out and not counted; the one pass that fills
the cache calls those layers directly and is not counted either, a small undercount) per position, plus
2 x (LM head parameters) per logit position, times 3 for a training forward (the backward pass costs two more).
``useful_flops`` counts the body's FLOPs on real (non-padding) positions only: the work the job needed.
Attention over the cache and MoE routing are not modelled: for a mixture of experts every expert's parameters are
counted, an upper bound. ``choicelab.workflow.log_to`` writes the job's totals to its log (``choicelab usage:``
line, JSON) with the machine's measured one-thread fp32 matmul peak (:func:`one_thread_peak`, measured once per
machine and cached) and the share of it the job's useful FLOPs reached (``useful_share_of_peak``: useful FLOP/s over
threads x the one-thread peak); bench/workflow.py ranks the jobs by it.
"""

from __future__ import annotations

import json
import os
import platform
import threading
import time
from pathlib import Path
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
            ("forward_calls", "tokens", "real_tokens", "logit_positions", "train_tokens", "flops", "useful_flops"), 0))

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
            totals["useful_flops"] += (3 if training else 1) * 2.0 * body * real

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
            totals["useful_flops"] += (3 if training else 1) * 2.0 * head * positions  # kept positions are real

    base.register_forward_hook(count_body, with_kwargs=True)
    if base is not model and head:
        model.register_forward_hook(count_head, with_kwargs=True)
    model._choicelab_usage = True
    return model


def usage() -> dict[str, dict[str, float]]:
    """Totals per model name since the process started."""
    with _lock:
        return {name: dict(entry) for name, entry in _totals.items()}


PEAK_MATRIX = 2048  # the side of the square fp32 matrices the peak is timed on: large enough to be compute-bound
PEAK_REPEATS = 5  # timed products; the fastest counts (another process's burst slows some, none speeds one up)


def peak_cache() -> Path:
    """Where the measured peak is kept: ``$CHOICELAB_PEAK_CACHE``, else ``<user cache>/choicelab/matmul_peak.json``."""
    if os.environ.get("CHOICELAB_PEAK_CACHE"):
        return Path(os.environ["CHOICELAB_PEAK_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "choicelab" / "matmul_peak.json"


def _machine() -> str:
    """What the peak depends on: the CPU model, the core count and the torch build."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        model = names[0] if names else model
    return f"{model} | {os.cpu_count()} cpus | torch {torch.__version__}"


def measure_one_thread_peak(n: int = PEAK_MATRIX, repeats: int = PEAK_REPEATS) -> float:
    """FLOP/s of one thread on an ``n`` x ``n`` fp32 matmul: 2 n^3 over the fastest of ``repeats`` products."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a, b = torch.randn(n, n), torch.randn(n, n)
        a @ b  # warm-up
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - start)
    finally:
        torch.set_num_threads(previous)
    return 2.0 * n**3 / best


def one_thread_peak() -> float:
    """This machine's one-thread fp32 matmul peak (FLOP/s): measured once (:func:`measure_one_thread_peak`) and
    cached per machine in :func:`peak_cache`; remove the file to measure again (say on an idle machine)."""
    path, machine = peak_cache(), _machine()
    cached = json.loads(path.read_text()) if path.exists() else {}
    if machine not in cached:
        cached[machine] = {"flops_per_second": measure_one_thread_peak(), "matrix": PEAK_MATRIX,
                           "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cached, indent=1, sort_keys=True))
        tmp.replace(path)
    return float(cached[machine]["flops_per_second"])


def peak_share(useful_flops: float, seconds: float, threads: int | None, peak: float) -> float:
    """The share of ``threads`` x the one-thread ``peak`` that ``useful_flops`` in ``seconds`` reached."""
    return useful_flops / seconds / ((threads or 1) * peak) if seconds > 0 and peak > 0 else 0.0


def usage_line(seconds: float, threads: int | None) -> str | None:
    """The log line of a job's usage (None when no model ran): per model its counts, and for the job its useful
    FLOPs' share of the machine's one-thread matmul peak times its threads."""
    totals = usage()
    if not totals:
        return None
    peak = one_thread_peak()
    useful = sum(entry["useful_flops"] for entry in totals.values())
    return USAGE_PREFIX + json.dumps({"seconds": round(seconds, 3), "threads": threads, "models": totals,
                                      "one_thread_peak_flops": peak,
                                      "useful_share_of_peak": round(peak_share(useful, seconds, threads, peak), 4)},
                                     sort_keys=True)
