"""Agreement of the automatic free-generation coder with the paper authors' hand codes.

Reads the hand-coded generations (LLM_link ``results/free/{llama2,flan-t5-xl}``, under the data mirror), codes them
with :func:`choicelab.studies.scoring_methods.code_free.code_free_frame` (the library's one coder) and prints agreement
per condition and overall, the majority-class baseline, Cohen's kappa and the confusion matrix, per model, with the
shipped settings. With
``--fit MODEL`` the similarity threshold and the prototype weight are chosen on MODEL's generations only and then
measured on the other model's (held out). ``--with-examples`` runs the rejected variant in which hand-coded answers
vote (another model's hand codes; in a fit, MODEL's own, leaving out each generation's own item and answer).
``--annotators DIR`` adds the agreement of the two annotators with each other on generations both coded
(docs/scoring_methods.md says where those files come from).

    python bench/free_coding.py --data-mirror ../shared/data --embedder results/models/minilm-l6 [--fit llama2]
"""

from __future__ import annotations

import argparse
import os

import pandas as pd

from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods.code_free import code_free_frame, hand_coded_examples, load_embedder
from choicelab.studies.scoring_methods.human import hand_code_report, read_hand_coded


def markdown(table: pd.DataFrame) -> str:
    """The docs' agreement table: both measures per condition."""
    rows = ["| condition | n | target vs not: agreement | kappa | exact option: agreement (SE) | kappa | "
            "majority class (share) | target rate: hand / coder |", "|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        name = str(r.phenomenon).replace("_", " ")
        name = f"**{name}**" if name == "all" else name
        rows.append(f"| {name} | {r.n} | {r.target_agreement:.3f} | {r.target_kappa:.2f} | {r.agreement:.3f} "
                    f"({r.se:.3f}) | {r.kappa:.2f} | {str(r.majority_class).replace('_', ' ')} "
                    f"({r.majority_baseline:.3f}) | {r.hand_target_rate:.3f} / {r.coded_target_rate:.3f} |")
    return "\n".join(rows)


def ensemble(embedders: list) -> object:
    """texts -> the encoders' unit vectors side by side, each scaled by 1/sqrt(k): a dot product of two such vectors
    is the mean of the k encoders' cosines (one encoder: its own vectors)."""
    import numpy as np

    if len(embedders) == 1:
        return embedders[0]

    def embed(texts):
        parts = []
        for one in embedders:
            vectors = np.asarray(one(texts), dtype=float)
            parts.append(vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None))
        return np.hstack(parts) / np.sqrt(len(parts))

    return embed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-mirror", default=os.environ.get("CHOICELAB_DATA_MIRROR", "../shared/data"))
    parser.add_argument(
        "--embedder", required=True, nargs="+",
        help="a sentence-encoder folder (e.g. results/models/minilm-l6); several folders: an ensemble, each "
        "encoder's unit vectors concatenated and scaled by 1/sqrt(k), so that a cosine is the mean of the encoders' "
        "cosines (docs/scoring_methods.md: MiniLM + all-mpnet-base-v2)",
    )
    parser.add_argument(
        "--judge", help="a causal model folder (results/models/<name>): code with it as an LLM judge instead of the "
        "embeddings (settings fits do not apply; the rules of steps 1-2 and coherence still do)",
    )
    parser.add_argument("--fit", choices=["llama2", "flan-t5-xl"], help="choose the settings on this model only")
    parser.add_argument("--out", help="write the coded generations here (CSV)")
    parser.add_argument("--criterion", choices=["target", "exact"], default="target",
                        help="what --fit maximizes: target-vs-not kappa (default) or exact-option agreement")
    parser.add_argument("--target-biases", type=float, nargs="+", default=[0.0],
                        help="target_bias values --fit tries (default: 0 only)")
    parser.add_argument("--report", help="write the hand-code files' report (status of every file) here (CSV)")
    parser.add_argument(
        "--with-examples", action="store_true",
        help="the rejected variant: hand-coded examples vote (weight 2, cosine-weighted; the fit tries 0 and 2)",
    )
    parser.add_argument(
        "--annotators",
        help="a folder of generations coded by both annotators (annotation_tsvilodub and annotation_wang): print their "
        "agreement with each other (the human ceiling) and the coder's with each (with --with-examples the coder "
        "uses the Llama-2 hand codes only: held out)",
    )
    args = parser.parse_args()
    report = hand_code_report(args.data_mirror)
    print("hand-code files:", report["status"].value_counts().to_dict())
    print(report.loc[~report["status"].eq("ok"), ["file", "status", "reason", "used"]].to_string(index=False))
    if args.report:
        report.to_csv(args.report, index=False)
    hand = read_hand_coded(args.data_mirror)
    embed = ensemble([load_embedder(folder) for folder in args.embedder])
    judge = None
    if args.judge:
        from choicelab.studies.scoring_methods.code_free import load_judge

        judge = load_judge(args.judge)
        if args.fit or args.with_examples:
            parser.error("--judge codes without fitted settings or examples: leave out --fit and --with-examples")
    cache: dict[str, object] = {}

    def cached(texts):
        import numpy as np

        missing = [t for t in texts if t not in cache]
        if missing:
            for t, v in zip(missing, embed(missing), strict=True):
                cache[t] = v
        return np.stack([cache[t] for t in texts])

    settings = {
        "judge": judge,
        "min_similarity": fc.MIN_SIMILARITY, "sentences": fc.ANSWER_SENTENCES,
        "prototype_weight": fc.PROTOTYPE_WEIGHT, "example_weight": fc.EXAMPLE_WEIGHT, "target_bias": fc.TARGET_BIAS,
        "min_example_similarity": fc.MIN_EXAMPLE_SIMILARITY, "weighted_votes": fc.WEIGHTED_VOTES,
    }
    if args.with_examples:
        settings["example_weight"] = 2.0

    def code(frame, examples, chosen, **extra):
        """``frame`` coded with the settings ``chosen`` (and ``extra``), its judge or the cached embeddings."""
        given = {**chosen, **extra}
        coder = fc.FreeCoder(embed=cached, judge=given.pop("judge"))
        return code_free_frame(frame, args.data_mirror, coder, examples=examples, settings=fc.CoderSettings(**given))

    if args.fit:
        dev = hand[hand["model"] == args.fit]
        dev_examples = hand_coded_examples(dev)
        best = None
        grid = [(t, w, e, b) for t in (0.15, 0.2, 0.3, 0.4) for w in (0.0, 0.5, 1.0, 2.0, 4.0)
                for e in ((0.0, 2.0) if args.with_examples else (0.0,)) for b in args.target_biases]
        for threshold, prototype_weight, example_weight, bias in grid:
            trial = {**settings, "min_similarity": threshold, "sentences": 1, "prototype_weight": prototype_weight,
                     "example_weight": example_weight, "target_bias": bias}
            # the dev model's own examples, less the generation's own (item, answer): leave-one-out
            coded = code(dev, dev_examples, trial, exclude_identical=True)
            summary = fc.agreement_table(coded).iloc[-1]
            criterion = float(summary["target_kappa" if args.criterion == "target" else "agreement"])
            print(f"fit on {args.fit}: {trial} -> target kappa {summary['target_kappa']:.3f}, "
                  f"exact {summary['agreement']:.3f}")
            if best is None or criterion > best[0]:
                best = (criterion, trial)
        settings = best[1]
        print(f"chosen on {args.fit} by {args.criterion}: {settings} ({best[0]:.3f} there, leave-one-out)")
        examples = dev_examples
        coded = code(hand, examples, settings)
        # the dev model's own rows again leave-one-out (its row in the printout is development, not held out)
        own = code(dev, examples, settings, exclude_identical=True)
        coded.loc[coded["model"] == args.fit, own.columns] = own.values
    else:
        # the shipped settings; examples (only used with --with-examples) are the other model's hand codes
        coded = pd.concat(
            [
                code(group, hand_coded_examples(hand[hand["model"] != model]), settings)
                for model, group in hand.groupby("model")
            ]
        )
    if args.out:
        coded.to_csv(args.out, index=False)
    if args.annotators:
        from pathlib import Path

        double = fc.read_double_coded(sorted(Path(args.annotators).glob("*.csv")))
        held_out = code(double, hand_coded_examples(hand[hand["model"] == "llama2"]), settings)
        for name, a, b in (("tsvilodub vs wang", double["tsvilodub"], double["wang"]),
                           ("coder vs tsvilodub", held_out["coded_option"], double["tsvilodub"]),
                           ("coder vs wang", held_out["coded_option"], double["wang"])):
            table = fc.agreement_table(double.assign(coded_option=a.values, hand_code=b.values))
            print(f"\n== {name} ({len(double)} generations coded by both)")
            print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
            print(markdown(table))
    pd.set_option("display.width", 200)
    for model, group in coded.groupby("model"):
        role = "" if not args.fit else (" (DEVELOPMENT)" if model == args.fit else " (HELD OUT)")
        print(f"\n== {model}{role}: {len(group)} generations, settings {settings}")
        print(fc.agreement_table(group).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(markdown(fc.agreement_table(group)))
        print(fc.agreement_table(group, by=("temperature",)).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        target_only = {c: "non-target option" for c in group["hand_code"].unique() if c not in ("target", fc.ERROR)}
        target_only.update(
            {c: "non-target option" for c in group["coded_option"].unique() if c not in ("target", fc.ERROR)}
        )
        print(fc.confusion(group, target_only).to_string())
        print("rules:", group["coding_rule"].value_counts().to_dict())
        text = group["response"].str.strip().str.lower().str.replace(r"\s+", " ", regex=True)
        distinct = group.assign(_text=text).drop_duplicates(["phenomenon", "item_id", "_text", "hand_code"])
        print(
            "distinct (item, response, hand code): "
            f"{fc.agreement_table(distinct).iloc[-1][['n', 'agreement', 'majority_baseline']].to_dict()}"
        )


if __name__ == "__main__":
    main()
