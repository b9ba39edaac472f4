"""The trained free-generation coder validated leave-one-model-out on the authors' hand codes.

For each hand-coded model (Llama-2-7B, FLAN-T5-XL) a coder is fine-tuned from ``--base`` on the other model's hand
codes only (:func:`choicelab.studies.scoring_methods.code_free.leave_one_model_out`: early stopping and the
``error`` threshold on held-out items of the training model), then codes the held-out model's generations. Prints
both measures per phenomenon (exact option, target vs not, with kappas) per held-out model, beside the two authors'
agreement (docs/scoring_methods.md, "The human ceiling").

    python bench/trained_coder.py --data-mirror ../shared/data --base results/models/minilm-l6 --work /tmp/coders

The recipe is the config's (``--config``, default config.yaml); ``--learning-rate`` etc. replace its values. Per
held-out model it also prints the classifier's ceiling (the agreement if every answer the classifier decides were
coded as by hand, the rules' codes kept: :func:`~choicelab.studies.scoring_methods.trained_coder.classifier_ceiling`)
and, with ``--goal-kappa K`` (e.g. the two authors' target-vs-not kappa), the target-vs-not agreement the
classifier's answers need for a target-vs-not kappa of K (:func:`~choicelab.studies.scoring_methods.trained_coder.
needed_open_agreement`). ``--coded FILE`` reads the coded generations a former run wrote (``--out``) instead of
training.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from free_coding import markdown  # noqa: E402

from choicelab.config import load_config_file, validate_config  # noqa: E402
from choicelab.studies import study_settings  # noqa: E402
from choicelab.studies.scoring_methods import coder as fc  # noqa: E402
from choicelab.studies.scoring_methods.code_free import Folds, leave_one_model_out  # noqa: E402
from choicelab.studies.scoring_methods.human import read_hand_coded  # noqa: E402
from choicelab.studies.scoring_methods.trained_coder import (  # noqa: E402
    CoderRecipe,
    agreement_intervals,
    classifier_ceiling,
    needed_open_agreement,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-mirror", default=os.environ.get("CHOICELAB_DATA_MIRROR", "../shared/data"))
    parser.add_argument("--base", help="the encoder folder the coder starts from (model.json)")
    parser.add_argument("--work", help="where the two fold checkpoints go")
    parser.add_argument("--reuse", action="store_true", help="keep a fold checkpoint that is already there")
    parser.add_argument("--out", help="write the coded generations here (CSV)")
    parser.add_argument("--coded", help="the coded generations of a former run (its --out) instead of training")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap rounds of the overall intervals")
    parser.add_argument("--goal-kappa", type=float,
                        help="print the agreement the classifier's answers need for this target-vs-not kappa")
    parser.add_argument("--held-out", nargs="+", help="only these models' folds (default: every hand-coded model's)")
    parser.add_argument("--config", default="config.yaml",
                        help="the recipe is this config's studies.scoring_methods.coder.train (schema defaults filled)")
    kinds = {"float": float, "int": int, "bool": lambda text: {"1": True, "true": True, "0": False,
                                                                "false": False}[text.lower()]}
    for field in dataclasses.fields(CoderRecipe):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=kinds[str(field.type)],
                            help="instead of the config's value")
    args = parser.parse_args()
    config = load_config_file(args.config)
    validate_config(config)
    recipe = dataclasses.replace(study_settings(config, "scoring_methods").coder.train, **{
        f.name: getattr(args, f.name) for f in dataclasses.fields(CoderRecipe) if getattr(args, f.name) is not None})
    if args.coded:
        coded = pd.read_csv(args.coded, dtype={"hand_code": str, "coded_option": str}, keep_default_na=False)
    elif not (args.base and args.work):
        parser.error("training the fold coders needs --base and --work (or read a former run's --coded FILE)")
    else:
        hand = read_hand_coded(args.data_mirror)
        coded = leave_one_model_out(hand, args.data_mirror, args.base, recipe,
                                    Folds(args.work, reuse=args.reuse, held_out=args.held_out))
    if args.out:
        coded.to_csv(args.out, index=False)
    pd.set_option("display.width", 200)
    print(f"coded generations of {args.coded}" if args.coded else f"recipe: {recipe}")
    for model, group in coded.groupby("model"):
        table = fc.agreement_table(group)
        print(f"\n== {model} (HELD OUT; trained on {group['trained_on'].iloc[0]}): {len(group)} generations")
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(markdown(table))
        intervals = agreement_intervals(group, rounds=args.bootstrap, seed=0)
        print(f"95 % bootstrap intervals ({args.bootstrap} rounds, generations resampled): " + ", ".join(
            f"{k} {low:.3f}-{high:.3f}" for k, (low, high) in
            ((k, intervals[k]) for k in ("target_kappa", "agreement", "kappa"))))
        print("rules:", group["coding_rule"].value_counts().to_dict())
        collapse = {c: "non-target option" for c in set(group["hand_code"]) | set(group["coded_option"])
                    if c not in ("target", fc.ERROR)}
        print(fc.confusion(group, collapse).to_string())
        opened = group[group["coding_rule"] == "classifier"]
        print("classifier-coded only:", fc.agreement_table(opened).iloc[-1][
            ["n", "target_agreement", "target_kappa", "agreement", "kappa"]].to_dict())
        ceiling = classifier_ceiling(group)
        print("ceiling (the classifier's answers coded as by hand, the rules' codes kept):")
        print(ceiling[["phenomenon", "n", "target_kappa", "agreement", "kappa"]].to_string(
            index=False, float_format=lambda v: f"{v:.3f}"))
        if args.goal_kappa is not None:
            print(f"target-vs-not agreement the classifier's {len(opened)} answers need for target kappa "
                  f"{args.goal_kappa}: {needed_open_agreement(group, args.goal_kappa):.3f} (nan: out of reach)")


if __name__ == "__main__":
    main()
