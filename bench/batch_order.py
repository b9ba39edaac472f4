"""Benchmark: what a recipe's ``batch_order`` (choicelab.lm.recipe.Recipe) does to the embedded default's fine-tunes.

``padding`` (no training; exact, whatever the machine's load): per fine-tune job kind of ``config.yaml`` (the bets
default stage, each bets task stage, each probes benchmark), the training items tokenized as the job tokenizes them
and each epoch's batches drawn by the training loop's own code (``choicelab.lm.encoder.epoch_batches``, every seed):
the share of the trained token positions that are padding, under ``shuffled`` (the paper's order) and ``by_length``,
and the ratio of trained positions (the training FLOPs ratio: the body's FLOPs grow with the positions run).

``seeds`` (trains; slow): one job kind, every seed, under both orders, printing per seed the kept dev accuracy, the
competence gate (``choicelab.mc.competence.judge``: probes on the gate items against chance and the untrained head;
a bets task stage on its test questions against chance and its default checkpoint), the job's CPU seconds, its
useful FLOPs (non-padding) and their share of the one-thread matmul peak (choicelab.lm.usage) per wall second at
torch's threads and per CPU second; seconds and shares are indicative on a shared machine, the rest is not.

Usage: python bench/batch_order.py padding [--benchmarks-dir DIR]
       python bench/batch_order.py seeds --job probes:piqa|bets:bet_coin [--benchmarks-dir DIR] [--out DIR]
                                        [--seeds 1234 ...] [--orders shuffled by_length]
                                        [--recipe frozen_layers=6 learning_rate=1e-3 ...]
``--recipe`` changes fields of the configured recipe (``choicelab.lm.recipe.Recipe``) for every order: a candidate
recipe checked over the seeds before it goes into config.yaml.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ORDERS = ("shuffled", "by_length")


def default_config() -> dict:
    from choicelab.config import load_config_file, validate_config

    config = load_config_file(REPO / "config.yaml")
    validate_config(config)
    return config


def encoder_dir(config: dict, name: str, out: Path) -> Path:
    """The configured encoder ``name``, prepared once under ``out``."""
    from choicelab.lm.prepare import prepare_model

    folder = out / "models" / name
    if not (folder / "model.json").exists():
        prepare_model(name, config["models"][name], folder, seed=0)
    return folder


def jobs(config: dict, benchmarks_dir: Path, seed: int) -> dict[str, tuple]:
    """Every fine-tune job kind of the config: name -> (train items, dev items, recipe) for ``seed``, as its rule
    builds them (the bets task stages start from the default checkpoint: only their items and recipe matter here)."""
    from choicelab.config import command_data_root
    from choicelab.mc.items import read_items
    from choicelab.studies import study_settings
    from choicelab.studies.bets.items import question_set
    from choicelab.studies.bets.stages import (
        default_stage_items,
        default_stage_recipe,
        task_stage_items,
        task_stage_recipe,
        task_stages,
    )
    from choicelab.studies.probes.items import train_roles
    from choicelab.studies.probes.jobs import finetune_recipe

    bets = study_settings(config, "bets")
    stage = bets.default_stage
    train, dev, _ = default_stage_items(stage.data, command_data_root(config["data_mirror"], "the bets default stage"),
                                        train_size=stage.train_size,
                                        dev_size=stage.dev_size, seed=seed)
    out = {"bets:default": (train, dev, default_stage_recipe(stage, bets.input_format, seed))}
    for qset in task_stages(bets):
        train, _ = task_stage_items(qset, question_set(qset, "train"), bets.task_stage.train_size, seed)
        out[f"bets:{qset}"] = (train, question_set(qset, "dev"), task_stage_recipe(bets.task_stage,
                                                                                    bets.input_format, seed))
    for benchmark in config["studies"]["probes"]["benchmarks"]:
        path = benchmarks_dir / f"{benchmark}.train.parquet"
        if path.exists():
            fit, heldout = train_roles(read_items(path))
            out[f"probes:{benchmark}"] = (fit, heldout, finetune_recipe(config["studies"]["probes"]["finetune"], seed))
    return out


def trained_positions(tokenizer, train, recipe) -> tuple[int, int]:
    """(padded, real) token positions of every training step of ``recipe`` on ``train``, batches drawn as the
    training loop draws them (its rng, its step limit)."""
    from choicelab.lm.encoder import _groups_by_choice_count, _tokenize_once, epoch_batches

    encoded = _tokenize_once(tokenizer, train, recipe.input_format, recipe.max_length)
    lengths = [[len(choice["input_ids"]) for choice in row] for row in encoded.rows]
    widths = [max(row) for row in lengths]
    groups = _groups_by_choice_count(len(row) for row in lengths)
    steps_per_epoch = sum(math.ceil(len(ix) / recipe.batch_size) for ix in groups.values())
    steps_left = int(math.ceil(steps_per_epoch * recipe.max_epochs))
    rng = random.Random(recipe.seed)
    padded = real = 0
    while steps_left > 0:
        for batch in epoch_batches(groups, widths, recipe.batch_size, recipe.batch_order, rng)[:steps_left]:
            padded += len(batch) * len(lengths[batch[0]]) * max(widths[i] for i in batch)
            real += sum(sum(lengths[i]) for i in batch)
            steps_left -= 1
    return padded, real


def padding_main(args: argparse.Namespace) -> int:
    from choicelab.lm.loading import load_encoder_mc

    config = default_config()
    seeds = config["studies"]["bets"]["seeds"]
    probes_seeds = config["studies"]["probes"]["seeds"]
    model = config["studies"]["probes"]["models"][0]
    _, tokenizer, _ = load_encoder_mc(encoder_dir(config, model, Path(args.out)), seed=0, device="cpu")
    totals: dict[str, dict[str, list[int]]] = {}
    for seed in sorted(set(seeds) | set(probes_seeds)):
        for name, (train, _, recipe) in jobs(config, Path(args.benchmarks_dir), seed).items():
            if seed not in (probes_seeds if name.startswith("probes:") else seeds):
                continue
            for order in ORDERS:
                padded, real = trained_positions(tokenizer, train, replace(recipe, batch_order=order))
                entry = totals.setdefault(name, {}).setdefault(order, [0, 0])
                entry[0] += padded
                entry[1] += real
    print(f"config.yaml fine-tunes, {model}'s tokenizer, seeds {seeds} (probes {probes_seeds}); trained positions "
          "over every step of every seed (early stopping cuts both orders alike)")
    print(f"{'job':<20} {'padding shuffled':>17} {'padding by_length':>18} {'positions after/before':>23}")
    for name, entry in totals.items():
        (before, real), (after, _) = entry["shuffled"], entry["by_length"]
        print(f"{name:<20} {1 - real / before:17.1%} {1 - real / after:18.1%} {after / before:23.2f}")
    return 0


def gate_of(meta: dict, subject: str):
    from choicelab.mc.competence import judge

    training = meta["training"]
    n = training["evaluation_items"]
    return judge(round(training["evaluation_accuracy"] * n), n, training["evaluation_chance"],
                 control_accuracy=training["initial_evaluation_accuracy"], control_items=n, subject=subject)


def seeds_main(args: argparse.Namespace) -> int:
    """Every seed of one job kind under both orders, trained as its rule trains them (probes: every seed in one job
    sharing the frozen encodings; bets: one job per seed): dev accuracy, gate, CPU seconds, useful FLOPs' share."""
    import torch

    from choicelab.lm import usage
    from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoints

    config = default_config()
    kind, _, name = args.job.partition(":")
    seeds = args.seeds or config["studies"][kind]["seeds"]
    base = encoder_dir(config, config["studies"][kind]["models"][0], Path(args.out))
    groups = [seeds] if kind == "probes" else [[seed] for seed in seeds]
    print(f"{args.job}: seeds {seeds}; orders {ORDERS}; CPU seconds indicative only (shared machine)")
    print(f"{'order':<10} {'seed':>5} {'steps':>6} {'dev acc':>8} {'gate acc':>9} {'chance':>7} {'control':>8} "
          f"{'verdict':<34} {'job CPU s':>9} {'useful GFLOP':>12} {'share wall':>10} {'share CPU':>9}")
    for order in args.orders:
        for group in groups:
            train, dev, recipe = jobs(config, Path(args.benchmarks_dir), group[0])[args.job]
            evaluation, start_dir = gate_items(kind, name, config, args, group[0], base)
            before = sum(e["useful_flops"] for e in usage.usage().values())
            cpu, wall = time.process_time(), time.perf_counter()
            metas = fine_tune_checkpoints(start_dir, TrainingData(train, dev, evaluation=evaluation),
                                          replace(recipe, batch_order=order, **args.recipe),
                                          {seed: CheckpointOut(Path(args.out) / order / f"{name}{seed}",
                                                               f"{name}{seed}") for seed in group},
                                          device="cpu", log=lambda _: None)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            useful = sum(e["useful_flops"] for e in usage.usage().values()) - before
            peak = usage.one_thread_peak()
            share = usage.peak_share(useful, wall, torch.get_num_threads(), peak)  # of the threads' peak
            share_cpu = usage.peak_share(useful, cpu, 1, peak)  # per CPU second: less sensitive to other load
            for seed, meta in zip(group, metas, strict=True):
                gate, training = gate_of(meta, kind), meta["training"]
                print(f"{order:<10} {seed:>5} {training['steps']:>6} {training['best_dev_accuracy']:8.3f} "
                      f"{gate.accuracy:9.3f} {gate.chance:7.3f} {gate.control_accuracy:8.3f} "
                      f"{gate.verdict[:34]:<34} {cpu:9.1f} {useful / 1e9:12.0f} {share:10.1%} {share_cpu:9.1%}",
                      flush=True)
    return 0


def gate_items(kind: str, name: str, config: dict, args: argparse.Namespace, seed: int, base: Path):
    """(gate items, the folder training starts from): probes, the benchmark's gate items and the base encoder; a bets
    task stage, its test questions and the seed's default checkpoint (trained here once per seed; the control, scored
    before training, is that default checkpoint, as in the bets gate)."""
    from choicelab.mc.items import read_items

    if kind == "probes":
        return read_items(Path(args.benchmarks_dir) / f"{name}.gate.parquet"), base
    from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
    from choicelab.studies.bets.items import question_set

    default = Path(args.out) / f"default{seed}"
    if not (default / "model.json").exists():
        train, dev, recipe = jobs(config, Path(args.benchmarks_dir), seed)["bets:default"]
        fine_tune_checkpoint(base, TrainingData(train, dev), recipe, CheckpointOut(default, f"default{seed}"),
                             device="cpu")
    return question_set(name, "test"), default


def recipe_overrides(pairs: list[str]) -> dict:
    """``["frozen_layers=6", "learning_rate=1e-3"]`` -> ``{"frozen_layers": 6, "learning_rate": 0.001}``."""
    import yaml

    from choicelab.lm.recipe import Recipe

    fields = set(Recipe.__dataclass_fields__)
    overrides = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in fields:
            raise SystemExit(f"--recipe {pair!r}: expected FIELD=VALUE with FIELD one of {sorted(fields)}")
        loaded = yaml.safe_load(value)
        try:  # YAML 1.1 reads "1e-3" as a string
            overrides[name] = float(loaded) if isinstance(loaded, str) else loaded
        except ValueError:
            overrides[name] = loaded
    return overrides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["padding", "seeds"])
    parser.add_argument("--job", default="probes:piqa", help="seeds: probes:<benchmark> or bets:<question set>")
    parser.add_argument("--benchmarks-dir", default=str(REPO / "results" / "probes" / "benchmarks"),
                        help="the probes benchmark files of a config.yaml run (rule probes_benchmark)")
    parser.add_argument("--out", default="/tmp/bench-batch-order")
    parser.add_argument("--seeds", type=int, nargs="*", help="seeds: these instead of the config's")
    parser.add_argument("--orders", nargs="+", choices=ORDERS, default=list(ORDERS), help="seeds: these orders")
    parser.add_argument("--recipe", nargs="*", default=[], metavar="FIELD=VALUE",
                        help="seeds: recipe fields changed for every order (values read as YAML)")
    args = parser.parse_args(argv)
    args.recipe = recipe_overrides(args.recipe)
    return padding_main(args) if args.mode == "padding" else seeds_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
