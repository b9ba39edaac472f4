"""Benchmark: CPU seconds of multiple-choice fine-tuning per optimizer step, whole encoder vs frozen bottom layers.

Fine-tunes the materialized embedded encoder (default ``results/models/minilm-l6``) on the same SocialIQA train
questions of the data mirror, once per ``--frozen`` setting (0 = every layer trained, as the paper; k = embeddings and
the bottom k layers fixed and encoded once, ``choicelab.lm.encoder.fine_tune_mc(frozen_layers=k)``), and prints the
process CPU seconds (not wall time: the shared machine's load changes wall time, not the work) of the whole call and
per step, beside the steps/s. Dev evaluations every ``--eval-every`` steps (default: once, at the end of the epoch)
on ``--dev`` held-out questions. ``--qset bet_dice`` (or ``value_CV`` ...) trains on a bets question set instead of
``--benchmark`` (its train questions, dev = the set's dev questions), as the bets task stages do.

Usage: python bench/finetune.py [--model results/models/minilm-l6] [--items 160] [--frozen 0 4] [--max-length 64]
       python bench/finetune.py --qset bet_dice --items 416 --dev 100 --eval-every 13 --frozen 0 4
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(REPO / "results" / "models" / "minilm-l6"))
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--benchmark", default="siqa")
    parser.add_argument("--items", type=int, default=160)
    parser.add_argument("--dev", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=64)
    parser.add_argument("--frozen", type=int, nargs="+", default=[0, 4])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--qset", default=None, help="a bets question set (bet_dice, value_CV, ...)")
    parser.add_argument("--eval-every", type=int, default=None)
    parser.add_argument("--freeze-word-embeddings", action="store_true")
    args = parser.parse_args(argv)

    import torch

    from choicelab.lm.encoder import fine_tune_mc
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.mc.commonsense import load_benchmark

    torch.set_num_threads(args.threads)
    if args.qset:
        from choicelab.studies.bets.items import question_set

        train = question_set(args.qset, "train")[: args.items]
        dev = question_set(args.qset, "dev")[: args.dev]
    else:
        items = load_benchmark(args.benchmark, "train", args.mirror)
        train, dev = items[: args.items], items[args.items : args.items + args.dev]
    print(f"{args.qset or args.benchmark}: {len(train)} train, {len(dev)} dev questions, batch {args.batch_size}, "
          f"max_length {args.max_length}, {args.threads} thread(s)")
    print(f"{'frozen layers':>13} {'steps':>6} {'evals':>6} {'CPU s':>8} {'CPU s/step':>11} {'vs whole':>9}")
    base = None
    for frozen in args.frozen:
        model, tokenizer, _ = load_encoder_mc(args.model, seed=0, device="cpu")
        start = time.process_time()
        result = fine_tune_mc(model, tokenizer, train, dev, learning_rate=3e-4, batch_size=args.batch_size,
                              max_epochs=1, seed=0, max_length=args.max_length, frozen_layers=frozen,
                              eval_every_steps=args.eval_every, freeze_word_embeddings=args.freeze_word_embeddings,
                              log=lambda _: None)
        cpu = time.process_time() - start
        per_step = cpu / result.steps
        base = base or per_step
        print(f"{frozen:>13} {result.steps:>6} {len(result.history):>6} {cpu:8.1f} {per_step:11.2f} "
              f"{base / per_step:8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
