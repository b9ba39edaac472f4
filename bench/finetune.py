"""Benchmark: CPU seconds of multiple-choice fine-tuning per optimizer step, whole encoder vs frozen bottom layers.

Fine-tunes the materialized embedded encoder (default ``results/models/minilm-l6``) on the same SocialIQA train
questions of the data mirror, once per ``--frozen`` setting (0 = every layer trained, as the paper; k = embeddings and
the bottom k layers fixed and encoded once, ``choicelab.lm.recipe.Recipe.frozen_layers``), and prints the
process CPU seconds (not wall time: the shared machine's load changes wall time, not the work) of the whole call and
per step, beside the steps/s. Dev evaluations every ``--eval-every`` steps (default: once, at the end of the epoch)
on ``--dev`` held-out questions. ``--qset bet_dice`` (or ``value_CV`` ...) trains on a bets question set instead of
``--benchmark`` (its train questions, dev = the set's dev questions), as the bets task stages do.

``--seeds N`` measures instead what sharing the seed-independent work saves a probes fine-tune job: the checkpoints
of N seeds of one benchmark (the probes_finetune job's own inputs, ``--benchmarks-dir``: ``<benchmark>.train`` and
``.gate`` parquet files, cut to ``--scale`` of their items) trained the ``--mode`` way: ``per-seed`` =
``fine_tune_checkpoint`` once per seed (one job per seed, each loading the model and encoding every item; run it with
PYTHONPATH of an older checkout to measure that code), ``shared`` = ``fine_tune_checkpoints`` (one job, the frozen
encodings computed once). It prints the CPU seconds of each seed and in all, and each checkpoint's weights sha256
and gate accuracies, so two modes' checkpoints can be compared.

``--score-probed FILE --checkpoints DIR...`` measures the probes_score side: the checkpoints' logits on the probed
items of FILE, each checkpoint whole (one job per seed) vs the checkpoints sharing their frozen bottom
(``checkpoints_mc_logits``); it prints the CPU seconds of both, the largest logit difference and how many items'
top choice differ.

Usage: python bench/finetune.py [--model results/models/minilm-l6] [--items 160] [--frozen 0 4] [--max-length 64]
       python bench/finetune.py --qset bet_dice --items 416 --dev 100 --eval-every 13 --frozen 0 4
       python bench/finetune.py --seeds 3 --mode shared --benchmark siqa --benchmarks-dir results/probes/benchmarks \
           --scale 0.2 --out /tmp/bench-ckpts
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
    parser.add_argument("--seeds", type=int, default=None, help="measure N seeds of one probes job (see above)")
    parser.add_argument("--mode", choices=("per-seed", "shared"), default="shared")
    parser.add_argument("--benchmarks-dir", default=str(REPO / "results" / "probes" / "benchmarks"))
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the job's fit, held-out and gate items")
    parser.add_argument("--out", default="/tmp/bench-finetune-seeds")
    parser.add_argument("--score-probed", default=None, help="a probed items file (probes_score's input)")
    parser.add_argument("--checkpoints", nargs="*", default=[])
    args = parser.parse_args(argv)
    if args.score_probed:
        return score_main(args)
    if args.seeds:
        return seeds_main(args)

    import torch

    from choicelab.lm.encoder import fine_tune_mc
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.lm.recipe import Recipe
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
        recipe = Recipe(learning_rate=3e-4, batch_size=args.batch_size, max_epochs=1, seed=0, input_format="pair",
                        max_length=args.max_length, frozen_layers=frozen, eval_every_steps=args.eval_every,
                        freeze_word_embeddings=args.freeze_word_embeddings)
        result = fine_tune_mc(model, tokenizer, train, dev, recipe, log=lambda _: None)
        cpu = time.process_time() - start
        per_step = cpu / result.steps
        base = base or per_step
        print(f"{frozen:>13} {result.steps:>6} {len(result.history):>6} {cpu:8.1f} {per_step:11.2f} "
              f"{base / per_step:8.2f}x")
    return 0


def seeds_main(args: argparse.Namespace) -> int:
    """CPU seconds of ``args.seeds`` probes checkpoints of one benchmark, per seed or shared (module docstring)."""
    import torch

    from choicelab.config import load_config_file, validate_config
    from choicelab.mc import finetune
    from choicelab.mc.items import read_items
    from choicelab.studies.probes.items import train_roles
    from choicelab.studies.probes.jobs import finetune_recipe

    torch.set_num_threads(args.threads)
    config = load_config_file(REPO / "config.yaml")  # the embedded default's recipe
    validate_config(config)
    recipe = config["studies"]["probes"]["finetune"]
    folder = Path(args.benchmarks_dir)
    fit, heldout = train_roles(read_items(folder / f"{args.benchmark}.train.parquet"))
    gate = read_items(folder / f"{args.benchmark}.gate.parquet")
    fit, heldout, gate = (items[: max(1, round(len(items) * args.scale))] for items in (fit, heldout, gate))
    seeds = [1234 + i for i in range(args.seeds)]
    params = finetune_recipe(recipe, seeds[0])
    print(f"{args.benchmark}: {len(fit)} fit, {len(heldout)} held-out, {len(gate)} gate questions; recipe {recipe}; "
          f"seeds {seeds}; mode {args.mode}; {args.threads} thread(s); choicelab from {finetune.__file__}")
    out = Path(args.out) / args.mode
    start = time.process_time()
    if args.mode == "shared" and hasattr(finetune, "fine_tune_checkpoints"):
        metas = finetune.fine_tune_checkpoints(args.model, finetune.TrainingData(fit, heldout, evaluation=gate), params,
                                               {s: finetune.CheckpointOut(out / f"seed{s}", f"seed{s}") for s in seeds},
                                               device="cpu", log=lambda _: None)
        seconds = [float("nan")] * len(seeds)
    elif args.mode == "shared":
        raise SystemExit(f"{finetune.__file__} has no fine_tune_checkpoints: run --mode per-seed with that checkout")
    else:
        from dataclasses import replace

        metas, seconds = [], []
        for seed in seeds:
            began = time.process_time()
            metas.append(finetune.fine_tune_checkpoint(args.model, finetune.TrainingData(fit, heldout, evaluation=gate),
                                                       replace(params, seed=seed),
                                                       finetune.CheckpointOut(out / f"seed{seed}", f"seed{seed}"),
                                                       device="cpu"))
            seconds.append(time.process_time() - began)
    cpu = time.process_time() - start
    for seed, meta, sec in zip(seeds, metas, seconds, strict=True):
        t = meta["training"]
        print(f"seed {seed}: {sec:7.1f} CPU s, weights {meta['weights_sha256'][:16]}, steps {t['steps']}, best dev "
              f"{t['best_dev_accuracy']:.4f}, gate before {t['initial_evaluation_accuracy']:.4f} after "
              f"{t['evaluation_accuracy']:.4f}")
    print(f"mode {args.mode}: {cpu:.1f} CPU s for {len(seeds)} seeds ({cpu / len(seeds):.1f} per seed)")
    return 0


def score_main(args: argparse.Namespace) -> int:
    """CPU seconds of scoring probed items with several seed checkpoints: whole vs shared bottom (module docstring)."""
    import numpy as np
    import torch

    from choicelab.lm.encoder import mc_logits
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.mc.finetune import checkpoints_mc_logits
    from choicelab.mc.items import read_items

    torch.set_num_threads(args.threads)
    items = read_items(args.score_probed)
    items = items[: max(1, round(len(items) * args.scale))]
    print(f"{len(items)} probed items ({sum(len(i.choices) for i in items)} choices), {len(args.checkpoints)} "
          f"checkpoints, max_length {args.max_length}, {args.threads} thread(s)")
    start = time.process_time()
    whole = []
    for folder in args.checkpoints:
        model, tokenizer, _ = load_encoder_mc(folder, seed=0, device="cpu")
        whole.append(mc_logits(model, tokenizer, items, max_length=args.max_length))
    whole_cpu = time.process_time() - start
    start = time.process_time()
    shared = checkpoints_mc_logits(args.checkpoints, items, input_format="pair", max_length=args.max_length,
                                   device="cpu")
    shared_cpu = time.process_time() - start
    diff = max(float(np.max(np.abs(np.concatenate(a) - np.concatenate(b)))) for a, b in zip(whole, shared, strict=True))
    flips = sum(int(np.argmax(x)) != int(np.argmax(y)) for a, b in zip(whole, shared, strict=True)
                for x, y in zip(a, b, strict=True))
    print(f"whole per checkpoint: {whole_cpu:.1f} CPU s; shared bottom: {shared_cpu:.1f} CPU s "
          f"({whole_cpu / shared_cpu:.2f}x); largest logit difference {diff:.2e}; top choice differs in {flips} of "
          f"{len(items) * len(args.checkpoints)} item scorings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
