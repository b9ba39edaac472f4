"""How consistent are the authors' hand codes with themselves? Two measurements on word-for-word identical free
generations (same model, condition and item, whitespace folded) that occur in more than one hand-coded file (another
seed or temperature): a coder that reads the generation must give them one code.

1. **The best any coder can do.** Give each group of identical generations its majority hand code: the exact
   agreement and target-vs-not kappa of that coder with the hand codes, per model and condition. No coder whose
   output depends only on the item and the generation can do better.
2. **Are codes shifted against their rows?** For each file and shift s, the share of rows whose hand code equals the
   code most other files give the generation s rows further down (more than half of them). A file whose codes belong
   to its rows peaks at s = 0; a file shifted by one row peaks at s = +-1. (A shift common to all copies of the same
   generations cannot be seen this way.)

    python bench/hand_code_consistency.py --data-mirror ../shared/data
"""

from __future__ import annotations

import argparse

import pandas as pd

from choicelab.studies.scoring_methods.coder import cohen_kappa
from choicelab.studies.scoring_methods.human import read_hand_coded

KEY = ["phenomenon", "item_id", "text"]


def with_texts(hand: pd.DataFrame) -> pd.DataFrame:
    """The hand codes with each generation's text, whitespace folded: the key of identical generations."""
    return hand.assign(text=hand["response"].astype(str).str.replace(r"\s+", " ", regex=True).str.strip())


def with_majority(hand: pd.DataFrame) -> pd.DataFrame:
    """The hand codes with ``majority``: the code most often given to the generation's group of identical ones (of
    the same model, condition and item); a generation coded once keeps its own code."""
    majority = hand.groupby(["model", *KEY])["hand_code"].agg(lambda c: c.value_counts().index[0])
    sizes = hand.groupby(["model", *KEY])["hand_code"].transform("size")
    return hand.join(majority.rename("majority"), on=["model", *KEY]).assign(repeated=sizes > 1)


def target_kappa(coded: pd.DataFrame) -> float:
    """Target-vs-not kappa of the majority codes against the hand codes."""
    return cohen_kappa(list((coded["hand_code"] == "target").astype(str)),
                       list((coded["majority"] == "target").astype(str)))


def best_coder(coded: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group of ``by``: coded generations, those repeated in another file, the exact agreement and target-vs-not
    kappa of the coder that gives every group of identical generations its majority code (:func:`with_majority`)."""
    return pd.DataFrame([{**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)), "n": len(g),
                          "repeated": int(g["repeated"].sum()),
                          "exact": float((g["majority"] == g["hand_code"]).mean()), "target_kappa": target_kappa(g)}
                         for key, g in coded.groupby(by, sort=True)])


def _strict_majority(codes: pd.Series) -> str | None:
    """The code more than half of ``codes`` give, else None."""
    counts = codes.value_counts()
    return counts.index[0] if counts.iloc[0] * 2 > len(codes) else None


def shift_agreement(hand: pd.DataFrame, shifts: tuple[int, ...] = (-1, 0, 1)) -> pd.DataFrame:
    """Per file and shift s: rows compared (the generation s rows down occurs in other files, more than half of which
    code it alike) and how many of them carry that code."""
    rows = []
    for file, g in hand.groupby("file", sort=True):
        g = g.sort_values("row").reset_index(drop=True)
        model, phenomenon = g["model"].iloc[0], g["phenomenon"].iloc[0]
        others = hand[(hand["model"] == model) & (hand["phenomenon"] == phenomenon) & (hand["file"] != file)]
        agreed = others.groupby(["item_id", "text"])["hand_code"].agg(_strict_majority).dropna()
        record = {"file": file, "model": model, "phenomenon": phenomenon}
        for s in shifts:
            pairs = [(g["hand_code"].iloc[i], agreed.get((g["item_id"].iloc[i + s], g["text"].iloc[i + s])))
                     for i in range(max(0, -s), min(len(g), len(g) - s))]
            pairs = [(code, ref) for code, ref in pairs if ref is not None]
            record[f"n{s:+d}"], record[f"agree{s:+d}"] = len(pairs), sum(code == ref for code, ref in pairs)
        rows.append(record)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-mirror", required=True, help="folder laid out like ../shared/data")
    args = parser.parse_args()
    hand = with_texts(read_hand_coded(args.data_mirror))
    coded = with_majority(hand)
    pd.set_option("display.width", 200)
    print("1. The best coder of identical generations (each group its majority hand code)")
    print(best_coder(coded, ["model"]).round(3).to_string(index=False))
    print(best_coder(coded, ["model", "phenomenon"]).round(3).to_string(index=False))
    print("\n2. Hand codes against the code most other files give the generation, by row shift (model, condition)")
    shifts = shift_agreement(hand)
    pooled = shifts.groupby(["model", "phenomenon"])[[c for c in shifts.columns if c[:1] in "na"]].sum()
    for s in ("-1", "+0", "+1"):
        pooled[f"share{s}"] = (pooled[f"agree{s}"] / pooled[f"n{s}"]).round(3)
    print(pooled[["n+0", "share-1", "share+0", "share+1"]].to_string())
    shifted = (shifts["agree-1"] > shifts["agree+0"]) | (shifts["agree+1"] > shifts["agree+0"])
    peaked = shifts[(shifts["n+0"] >= 5) & shifted]
    print(f"files (>= 5 rows compared) whose agreement is higher at a shift of one row than at none: {len(peaked)}")
    if len(peaked):
        print(peaked[["file", "n+0", "agree-1", "agree+0", "agree+1"]].to_string(index=False))


if __name__ == "__main__":
    main()
