"""Agreement of the automatic free-generation coder with the paper authors' hand codes.

Reads the hand-coded generations (LLM_link ``results/free/{llama2,flan-t5-xl}``, under the data mirror), codes them
with :func:`choicelab.coding.code_free_frame` (the library's one coder) and prints agreement per condition and overall,
the majority-class baseline, Cohen's kappa and the confusion matrix, per model. With ``--fit MODEL`` the similarity
threshold and answer length are chosen on MODEL's generations only and then measured on the other model's.

    python bench/free_coding.py --data-mirror ../shared/data --embedder results/models/minilm-l6 [--fit llama2]
"""

from __future__ import annotations

import argparse
import os

import pandas as pd

from choicelab.coding import code_free_frame, load_embedder
from choicelab.metrics import free_coding as fc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-mirror", default=os.environ.get("CHOICELAB_DATA_MIRROR", "../shared/data"))
    parser.add_argument("--embedder", required=True, help="a sentence-encoder folder (e.g. results/models/minilm-l6)")
    parser.add_argument("--fit", choices=["llama2", "flan-t5-xl"], help="choose the thresholds on this model only")
    parser.add_argument("--out", help="write the coded generations here (CSV)")
    args = parser.parse_args()
    hand = fc.read_hand_coded(args.data_mirror)
    embed = load_embedder(args.embedder)
    cache: dict[str, object] = {}

    def cached(texts):
        import numpy as np

        missing = [t for t in texts if t not in cache]
        if missing:
            for t, v in zip(missing, embed(missing), strict=True):
                cache[t] = v
        return np.stack([cache[t] for t in texts])

    settings = {"min_similarity": fc.MIN_SIMILARITY, "sentences": fc.ANSWER_SENTENCES}
    if args.fit:
        dev = hand[hand["model"] == args.fit]
        best = None
        for sentences in (1, 2, 3):
            for threshold in [round(0.05 * k, 2) for k in range(2, 13)]:
                coded = code_free_frame(dev, args.data_mirror, cached, min_similarity=threshold, sentences=sentences)
                agreement = float((coded["coded_option"] == coded["hand_code"]).mean())
                print(f"fit on {args.fit}: sentences={sentences} min_similarity={threshold:.2f} -> {agreement:.3f}")
                if best is None or agreement > best[0]:
                    best = (agreement, {"min_similarity": threshold, "sentences": sentences})
        settings = best[1]
        print(f"chosen on {args.fit}: {settings} (agreement there {best[0]:.3f})")
    coded = code_free_frame(hand, args.data_mirror, cached, **settings)
    if args.out:
        coded.to_csv(args.out, index=False)
    pd.set_option("display.width", 200)
    for model, group in coded.groupby("model"):
        role = "" if not args.fit else (" (DEVELOPMENT)" if model == args.fit else " (HELD OUT)")
        print(f"\n== {model}{role}: {len(group)} generations, settings {settings}")
        print(fc.agreement_table(group).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(fc.agreement_table(group, by=("temperature",)).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        target_only = {c: "non-target option" for c in group["hand_code"].unique() if c not in ("target", fc.ERROR)}
        target_only.update({c: "non-target option" for c in group["coded_option"].unique() if c not in ("target", fc.ERROR)})
        print(fc.confusion(group, target_only).to_string())
        print("rules:", group["coding_rule"].value_counts().to_dict())
        text = group["response"].str.strip().str.lower().str.replace(r"\s+", " ", regex=True)
        distinct = group.assign(_text=text).drop_duplicates(["phenomenon", "item_id", "_text", "hand_code"])
        print(f"distinct (item, response, hand code): {fc.agreement_table(distinct).iloc[-1][['n', 'agreement', 'majority_baseline']].to_dict()}")


if __name__ == "__main__":
    main()
