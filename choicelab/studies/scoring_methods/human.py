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

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from choicelab.stats import accuracy_intervals, exact_interval
from choicelab.studies.scoring_methods.coder import (
    HAND_CODE_COLUMNS,
    HAND_CODED_DIR,
    normalize_hand_code,
    read_generations_csv,
)
from choicelab.studies.scoring_methods.items import (
    CONDITIONS,
    MAXIMS_EXCLUDED_ITEM,
    N_ITEMS,
    check_condition,
    coherence_key,
    fj_options,
)
from choicelab.studies.scoring_methods.sources import human_file, source_path

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
    intervals = pd.DataFrame([responses_intervals(group) for _, group in per_item.groupby("condition", sort=False)])
    return out.assign(accuracy=out["k"] / out["n"], n_counts="responses").join(intervals)


def responses_intervals(per_item: pd.DataFrame) -> dict[str, float]:
    """The human accuracy over the responses of ``per_item`` (k target choices of n responses per item) with its
    exact 95 % interval, which takes every response as an independent draw, and its interval clustered by item
    (participants answer the same items: :func:`choicelab.stats.accuracy_intervals`)."""
    hits = np.concatenate([np.r_[np.ones(int(k)), np.zeros(int(n) - int(k))]
                           for k, n in zip(per_item["k"], per_item["n"], strict=True)])
    items = np.repeat(per_item["item_id"].to_numpy(), per_item["n"].astype(int).to_numpy())
    row = accuracy_intervals(hits, items.tolist())
    return {key: row[key] for key in ("ci95_low", "ci95_high", "clustered_low", "clustered_high", "design_effect",
                                      "min_detectable_difference")}


# -- the authors' hand codes of free generations ---------------------------------------------------------------------
#
# LLM_link ``results/free/<model>/seed<k>/temperature<tt>/*_annotated*.csv`` (data mirror, README "Hand-coded free
# generations"): one file per (model, sampling seed, temperature, condition), one generation per item, coded by hand.
# Not every file is what its place says. :func:`hand_code_report` checks each file and gives it a status; only files
# whose status is in :data:`HAND_CODE_USED` are read by :func:`read_hand_coded` (agreement, free-generation accuracy).

HAND_CODE_STATUSES = {
    "ok": "one generation per item of the condition, seed column = folder seed",
    "incomplete": "one generation per item, but fewer items than the condition has (the rows are used)",
    "duplicate": "byte-identical to another file whose seed column matches its folder; this copy's seed column "
    "names another seed than its folder (not used: the same generations would count twice)",
    "seed_mismatch": "the seed column names another seed than the folder (not used: which run it is is unknown)",
    "interleaved": "items occur more than once: two runs' rows interleaved in one file, so a row's run and whether "
    "its code belongs to its response are unknown (not used)",
}
HAND_CODE_USED = ("ok", "incomplete")


def _hand_code_paths(root: str | Path) -> list[Path]:
    base = Path(root) / HAND_CODED_DIR
    files = sorted(base.glob("*/seed*/temperature*/*.csv"))
    if not files:
        raise FileNotFoundError(
            f"no hand-coded generations under {base}: set CHOICELAB_DATA_MIRROR / --data-mirror to a folder laid out "
            "like ../shared/data (see its README, 'Hand-coded free generations')"
        )
    return files


def _read_hand_code_file(path: Path, rel: Path) -> pd.DataFrame:
    """One hand-coded file as rows (model, seed, temperature from the folders), failing with the file and row on
    anything that cannot be read as a hand code of a known item."""
    frame = read_generations_csv(path)
    missing = [c for c in ("phenomenon", "item_id", "response", "seed") if c not in frame.columns]
    columns = [c for c in HAND_CODE_COLUMNS if c in frame.columns]
    if missing or not columns:
        lacking = f"columns {missing} missing" if missing else f"no hand-code column (one of {HAND_CODE_COLUMNS})"
        raise ValueError(
            f"{path}: {lacking}; a hand-coded generations file needs phenomenon, item_id, seed, response and a "
            "code column"
        )
    phenomenon = frame["phenomenon"].str.strip()
    for row, (ph, item, code) in enumerate(zip(phenomenon, frame["item_id"], frame[columns[0]], strict=True), start=1):
        where = f"{path}, data row {row} (item_id {item})"
        if ph not in N_ITEMS:
            raise ValueError(f"{where}: unknown phenomenon {ph!r}; known: {sorted(N_ITEMS)}. Fix or remove the row.")
        if not str(item).strip().isdigit():
            raise ValueError(f"{where}: item_id {item!r} is not an LLM_link item number. Fix or remove the row.")
        if not str(code).strip():
            raise ValueError(f"{where}: empty hand code in {columns[0]!r}. Code the row or remove it.")
    parts = rel.parts
    return pd.DataFrame(
        {
            "model": parts[0],
            "model_name": frame.get("model_name", pd.Series([parts[0]] * len(frame))),
            "phenomenon": phenomenon,
            "item_id": frame["item_id"].astype(int),
            "temperature": parts[2].removeprefix("temperature"),
            "seed": int(parts[1].removeprefix("seed")),
            "seed_column": frame["seed"].str.strip(),
            "response": frame["response"],
            "hand_code": [normalize_hand_code(p, c) for p, c in zip(phenomenon, frame[columns[0]], strict=True)],
            "annotator": columns[0],
            "file": str(rel),
            "row": range(1, len(frame) + 1),
        }
    )


def hand_code_report(root: str | Path) -> pd.DataFrame:
    """See :func:`checked_hand_codes` (the report alone)."""
    return checked_hand_codes(root)[0]


def checked_hand_codes(root: str | Path) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """(the report, the rows of every file by file). The report has one row per hand-coded file: file, model, seed,
    temperature, phenomenon, rows, items (distinct), expected items, sha256, status (:data:`HAND_CODE_STATUSES`),
    reason (what was found, naming rows and files) and used.

    Checks, in this order: byte-identical copies (the copy whose seed column matches its folder is kept), a seed
    column naming another seed than the folder, items occurring more than once (interleaved runs), fewer items than
    the condition has. Unknown phenomena, item ids that are not numbers and empty codes fail, naming file and row."""
    base = Path(root) / HAND_CODED_DIR
    records = []
    for path in _hand_code_paths(root):
        rel = path.relative_to(base)
        rows = _read_hand_code_file(path, rel)
        counts = rows["item_id"].value_counts()
        phenomena = sorted(set(rows["phenomenon"]))
        seeds = sorted(set(rows["seed_column"]))
        records.append(
            {
                "file": str(rel),
                "model": rel.parts[0],
                "seed": int(rel.parts[1].removeprefix("seed")),
                "temperature": rel.parts[2].removeprefix("temperature"),
                "phenomenon": ",".join(phenomena),
                "rows": len(rows),
                "items": int(counts.size),
                "expected_items": sum(N_ITEMS[p] for p in phenomena),
                "seed_column": ",".join(seeds),
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "_repeated": counts[counts > 1],
                "_rows": rows,
            }
        )
    by_hash: dict[str, list[dict]] = {}
    for r in records:
        by_hash.setdefault(r["sha256"], []).append(r)
    for r in records:
        twins = [t for t in by_hash[r["sha256"]] if t is not r]
        own_seed = r["seed_column"] == str(r["seed"])
        if twins and not own_seed and any(t["seed_column"] == str(t["seed"]) for t in twins):
            keeper = next(t for t in twins if t["seed_column"] == str(t["seed"]))
            r["status"], r["reason"] = "duplicate", (
                f"byte-identical to {keeper['file']}; seed column {r['seed_column']} in folder seed{r['seed']}"
            )
        elif not own_seed:
            r["status"], r["reason"] = "seed_mismatch", f"seed column {r['seed_column']} in folder seed{r['seed']}"
        elif len(r["_repeated"]):
            rows = r["_rows"]
            first = int(r["_repeated"].index[0])
            at = rows.loc[rows["item_id"] == first, "row"].tolist()
            r["status"], r["reason"] = "interleaved", (
                f"{len(r['_repeated'])} items occur more than once (item {first} at rows {at}); "
                f"{r['rows']} rows for {r['items']} items"
            )
        elif r["items"] < r["expected_items"]:
            r["status"], r["reason"] = "incomplete", f"{r['items']} of {r['expected_items']} items"
        else:
            r["status"], r["reason"] = "ok", ""
        r["used"] = r["status"] in HAND_CODE_USED
    columns = ["file", "model", "seed", "temperature", "phenomenon", "rows", "items", "expected_items",
               "seed_column", "sha256", "status", "reason", "used"]
    out = pd.DataFrame([{k: r[k] for k in columns} for r in records], columns=columns)
    return out, {r["file"]: r["_rows"] for r in records}


def read_hand_coded(root: str | Path, *, include_unused: bool = False) -> pd.DataFrame:
    """The authors' hand-coded generations of the files :func:`hand_code_report` accepts (``include_unused``: every
    file, with its status, for inspecting the rejected ones).

    Columns: model (folder: llama2, flan-t5-xl), model_name, phenomenon, item_id, temperature (folder: 01, 09), seed
    (folder), seed_column, response, hand_code (normalized with ``coder.HAND_CODE_ALIASES``), annotator (the column it
    came from), file, row (1-based data row of the file), status."""
    report, rows = checked_hand_codes(root)
    frames = [
        rows[f].assign(status=s)
        for f, s, used in zip(report["file"], report["status"], report["used"], strict=True)
        if used or include_unused
    ]
    return pd.concat(frames, ignore_index=True)


def temperature_variant(folder: str) -> str:
    """A hand-code folder's temperature (``01``, ``09``) as the free method's variant (``tau=0.1``, ``tau=0.9``)."""
    return f"tau={int(folder) / 10:g}"


def hand_free_accuracy(hand: pd.DataFrame) -> pd.DataFrame:
    """The authors' free-generation accuracy from their hand codes (:func:`read_hand_coded`: only the files the
    loader accepts): per model_name (the hub name in the files, e.g. ``meta-llama/Llama-2-7b-hf``), condition and
    variant (``tau=0.1``), k target codes of n generations (every seed pooled), the accuracy and an exact 95 %
    interval."""
    frame = hand.assign(variant=hand["temperature"].map(temperature_variant), is_target=hand["hand_code"] == "target")
    out = frame.groupby(["model_name", "phenomenon", "variant"], as_index=False).agg(
        k=("is_target", "sum"), n=("is_target", "size"), seeds=("seed", "nunique")
    )
    out = out.rename(columns={"phenomenon": "condition"})
    bounds = [exact_interval(int(k), int(n)) for k, n in zip(out["k"], out["n"], strict=True)]
    return out.assign(
        k=out["k"].astype(int),
        accuracy=out["k"] / out["n"],
        ci_low=[b[0] for b in bounds],
        ci_high=[b[1] for b in bounds],
    )
