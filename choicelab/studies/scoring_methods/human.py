"""Human data of the pragmatics items (Hu, Floyd et al.): every participant's choice, counts per option and item, and
the accuracy per condition.

Human accuracy per condition (:func:`human_condition_accuracy`) = target choices / responses over **all** rows of
``Human_<Ph>.csv``. This reproduces every value in the paper to three decimals: coherence .857, deceits .842, humour
.847, indirect speech .886, irony .919, maxims .796, metaphor .897 (:data:`PAPER_HUMAN_ACCURACY`). Maxims .796 needs the
original item 13, which is absent from the language-model materials; over the 19 scored maxims items the human
accuracy is .808 (``items="scored"``). The authors' own analysis (LLM_link ``analysis/testing-stats.R``) also pools all
rows per condition, so ``items="all"`` is the default for the log-likelihood too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from choicelab.studies.scoring_methods.items import (
    CONDITIONS,
    MAXIMS_EXCLUDED_ITEM,
    check_condition,
    coherence_key,
    fj_options,
)
from choicelab.studies.scoring_methods.sources import HUMAN_PROPORTIONS_FILE, human_file, source_path

# Human accuracy per condition as printed in the paper (Fig. 2 / text of the spec).
PAPER_HUMAN_ACCURACY = {
    "coherence": 0.857,
    "deceits": 0.842,
    "humour": 0.847,
    "indirect_speech": 0.886,
    "irony": 0.919,
    "maxims": 0.796,
    "metaphor": 0.897,
}


def human_responses(root: str | Path, condition: str) -> pd.DataFrame:
    """The raw responses of one condition: participant, item_number, correct, option_number (1-based, original)."""
    check_condition(condition)
    raw = pd.read_csv(source_path(root, human_file(condition)))
    if condition == "coherence":
        option = raw["OptionChosen"].map({"Coherent": 1, "Incoherent": 2})
    else:
        option = raw["OptionChosen"].str.extract(r"^Answer(\d+)$", expand=False).astype(float)
    if option.isna().any():
        bad = sorted(raw.loc[option.isna(), "OptionChosen"].astype(str).unique())
        raise ValueError(f"{condition}: unexpected OptionChosen values {bad}")
    return pd.DataFrame(
        {
            "condition": condition,
            "participant": raw["pKey"].astype(int),
            "item_number": raw["itemNum"].astype(int),
            "correct": raw["Correct"].astype(int),
            "option_number": option.astype(int),
        }
    )


def _option_types(root: str | Path, condition: str) -> dict[tuple[int, int], tuple[str, bool]]:
    """(item, option number) -> (type, is target) for every original item, including maxims item 13."""
    if condition == "coherence":
        out = {}
        for number, correct in coherence_key(root).items():
            out[(number, 1)] = ("Coherent", correct == "Coherent")
            out[(number, 2)] = ("Incoherent", correct == "Incoherent")
        return out
    return {
        (item, k): (kind, kind == "CorrectNonLiteral")
        for item, options in fj_options(root, condition).items()
        for k, (_, kind) in options.items()
    }


def human_choice_counts(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> pd.DataFrame:
    """Per item and option: how many participants chose it, of how many responses, with type and target flag.

    Columns: condition, item_number, item_id, option_number, option_type, is_target, count, n, scored (False only for
    maxims item 13, which the language-model materials leave out). Options nobody chose have count 0."""
    frames = []
    for condition in conditions:
        responses = human_responses(root, condition)
        counts = responses.groupby(["item_number", "option_number"]).size()
        totals = responses.groupby("item_number").size()
        records = []
        for (item, k), (kind, is_target) in sorted(_option_types(root, condition).items()):
            records.append(
                {
                    "condition": condition,
                    "item_number": item,
                    "item_id": f"{condition}-{item:02d}",
                    "option_number": k,
                    "option_type": kind,
                    "is_target": is_target,
                    "count": int(counts.get((item, k), 0)),
                    "n": int(totals.get(item, 0)),
                    "scored": not (condition == "maxims" and item == MAXIMS_EXCLUDED_ITEM),
                }
            )
        frames.append(pd.DataFrame.from_records(records))
    return pd.concat(frames, ignore_index=True)


def human_item_counts(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> pd.DataFrame:
    """Per item: k target choices of n responses (and the accuracy k / n)."""
    counts = human_choice_counts(root, conditions)
    target = counts[counts["is_target"]]
    out = target.groupby(["condition", "item_number", "item_id", "scored"], as_index=False).agg(
        k=("count", "sum"), n=("n", "first")
    )
    return out.assign(accuracy=out["k"] / out["n"])


def human_condition_accuracy(
    root: str | Path, items: str = "all", conditions: Iterable[str] = CONDITIONS
) -> pd.DataFrame:
    """Per condition: k target choices of n responses and the accuracy.

    ``items="all"`` pools every response of ``Human_<Ph>.csv`` (reproduces the paper's values, see the module
    docstring); ``items="scored"`` leaves out maxims item 13 (not in the language-model materials)."""
    if items not in {"all", "scored"}:
        raise ValueError("items must be 'all' or 'scored'")
    per_item = human_item_counts(root, conditions)
    if items == "scored":
        per_item = per_item[per_item["scored"]]
    out = per_item.groupby("condition", as_index=False, sort=False).agg(
        k=("k", "sum"), n=("n", "sum"), n_items=("item_number", "count")
    )
    return out.assign(accuracy=out["k"] / out["n"])


def llm_link_proportions(root: str | Path) -> pd.DataFrame:
    """LLM_link's per-item, per-option-type human proportions (6 conditions; no coherence), for cross-checks."""
    frame = pd.read_csv(source_path(root, HUMAN_PROPORTIONS_FILE))
    names = {
        "Humor": "humour",
        "Irony": "irony",
        "IndirectSpeech": "indirect_speech",
        "Deceits": "deceits",
        "Maxims": "maxims",
        "Metaphor": "metaphor",
    }
    return frame.assign(condition=frame["phenomenon"].map(names))
