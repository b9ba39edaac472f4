"""Reanalysis of the authors' released model outputs (LLM_link ``results/``), by the authors' selection rules.

A folder laid out like LLM_link's ``results/`` holds any subset of ``log_probs/``, ``rating/``,
``embedding_similarity/`` and ``free/``, each with one folder per model (any name). Every score is recomputed with
the study's formulas (:mod:`choicelab.studies.scoring_methods.metrics`) from the per-token log-probabilities (string,
label, rating) or the per-option similarities (embedding); the authors' precomputed columns are only checked against
ours (:func:`column_checks`, one row per file and column). Free generations are read through their hand codes.

The selection rules are the authors' (LLM_link @ 2cfc6522, ``analysis/``; docs/scoring_methods.md, "Reanalysis of
the authors' outputs", gives each rule with its file):

* ``string_score``: ``log_probs/<m>/seed*/string_scores/label_alpha/``; the authors' ``mean_sentence_surprisal``
  (our ``mean_token_logprob``) over the scored text ``options``, whose type is ``option_names``.
* ``label_score``: ``log_probs/<m>/seed*/label_scores/label_alpha/``; ``sentence_surprisal`` (our
  ``option_logprob`` of the label); the label ``options`` names the option shown there, ``shuffled_option_names``.
* ``rating``: ``rating/<m>/*_rating_scale-<scale>_*.csv`` with the authors' scale of the model
  (:data:`AUTHORS_RATING_SCALES`; any other model: every scale, each its own row); E[r] from the summed
  token log-probabilities of each rating point (``metrics.rating_expectation``), argmax over the options.
* ``embedding``: ``embedding_similarity/<m>/``; argmax of ``cosine_sims`` over the shown options
  (``shuffled_option_names``).
* ``free``: every ``*_annotated*.csv`` under ``free/<m>/``; the code is ``response_option``, else
  ``annotation_tsvilodub``, else ``annotation_wang``; rows without a code are left out; rows whose ``temperature``
  column is 0.1; the share coded ``target``.

Every file found counts, as the authors' analysis read every file it found (a file byte-identical to another is
read all the same and reported in ``files``); an item version is an item of one file; ties of the argmax are
broken by ``metrics.choose`` (seeded) and counted in ``n_tied``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from choicelab.artifacts import Built
from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt
from choicelab.studies.scoring_methods import metrics as sm

METHOD_FOLDERS = ("log_probs", "rating", "embedding_similarity", "free")
AUTHORS_RATING_SCALES = {  # analysis/analysis_rating_wang.ipynb, the cell subsetting df_no_scale
    "google/flan-t5-xl": "likely",
    "gpt-3.5-turbo-instruct": "possible",
    "meta-llama/Llama-2-7b-hf": "appropriate",
    "text-davinci-002": "possible",
}
FREE_TEMPERATURE = 0.1  # analysis/analysis_free_wang.ipynb: df_annotated[df_annotated['temperature'] == 0.1]
FREE_CODE_COLUMNS = ("response_option", "annotation_tsvilodub", "annotation_wang")
CHECK_RTOL = 1e-6
KEYS = ("model_name", "phenomenon", "metric")
ITEM_VERSION = ["model_name", "phenomenon", "seed", "file", "item_id"]  # an item as one file holds it

# (authors' score name, our formula from the per-token log-probs lp, null-prompt log-probs prior)
AUTHORS_SCORES: dict[str, Callable[[list[float], list[float]], float]] = {
    "sentence_cond_probs": lambda lp, prior: sm.option_logprob(lp),  # the product of probabilities, as a log
    "mean_sentence_cond_probs": lambda lp, prior: sm.mean_token_prob(lp),
    "sentence_surprisal": lambda lp, prior: sm.option_logprob(lp),
    "mean_sentence_surprisal": lambda lp, prior: sm.mean_token_logprob(lp),
    "sentence_mi": lambda lp, prior: sm.prior_corrected(lp, prior),  # the authors store exp() of it
    "surprisal_decrease_ratio": lambda lp, prior: sm.surprisal_reduction(lp, prior),
}
# The authors' stored column, as our value transformed to the column's scale (for the checks).
STORED_COLUMNS: dict[str, tuple[str, Callable[[float], float]]] = {
    "sentence_cond_probs": ("sentence_cond_probs", math.exp),
    "mean_sentence_cond_probs": ("mean_sentence_cond_probs", float),
    "sentence_surprisal": ("sentence_surprisal", float),
    "mean_sentence_surprisal": ("mean_sentence_surprisal", float),
    "sentence_mi": ("sentence_mi", math.exp),
    "surprisal_decrease_ratio": ("sentence_mi_surprisal", lambda v: 1.0 / v if v else math.inf),
}
SELECTED_SCORE = {"string_score": "mean_sentence_surprisal", "label_score": "sentence_surprisal"}
LOG_PROB_COLUMNS = ("model_name", "seed", "item_id", "phenomenon", "options", "option_names",
                    "shuffled_option_names", "token_cond_log_probs", "null_prior_token_log_probs")
RATING_COLUMNS = ("model_name", "seed", "item_id", "phenomenon", "option_names", "scale", "token_cond_log_probs",
                  "weighted_options", "chosen_option")
EMBEDDING_COLUMNS = ("model_name", "seed", "item_id", "phenomenon", "shuffled_option_names", "cosine_sims",
                     "chosen_option")
FREE_COLUMNS = ("model_name", "phenomenon", "item_id", "seed", "temperature")


class ReanalysisError(ValueError):
    """Bad input to the reanalysis; the message names the file and the fix."""


@dataclass(frozen=True)
class Reanalysis:
    """choices: one row per (model, metric, score, configuration, seed, item); accuracy: per (model_name,
    phenomenon, metric, configuration) k, n, accuracy; checks: per file and stored column, rows and mismatches;
    files: every file found with its status (used, used but byte-identical to another, not in a model folder)."""

    choices: pd.DataFrame
    accuracy: pd.DataFrame
    checks: pd.DataFrame
    files: pd.DataFrame


# -- reading -----------------------------------------------------------------------------------------------------


def read_table(path: Path, columns: Iterable[str], *, semicolons: bool = False) -> pd.DataFrame:
    """A comma-separated results file (BOM stripped); ``semicolons``: sniff ';' from the header (the authors' free
    files). Fails naming the file on a semicolon file where commas are expected and on missing columns."""
    text = path.read_text(encoding="utf-8-sig")
    header = text.split("\n", 1)[0]
    sep = ";" if header.count(";") > header.count(",") else ","
    if sep == ";" and not semicolons:
        raise ReanalysisError(
            f"{path}: the header is semicolon-separated ({header[:60]!r}...); the authors' log_probs, rating and "
            "embedding_similarity files are comma-separated: re-save the file with commas"
        )
    frame = pd.read_csv(io.StringIO(text), sep=sep, quoting=csv.QUOTE_MINIMAL)
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ReanalysisError(f"{path}: columns {missing} missing (found {list(frame.columns)[:12]}); "
                              "a file in this folder needs the columns of the authors' layout (LLM_link results/)")
    return frame


def _token_lists(path: Path, cell: object, column: str) -> list:
    try:
        return json.loads(str(cell))
    except json.JSONDecodeError as error:
        raise ReanalysisError(f"{path}: column {column!r} holds {str(cell)[:40]!r}, not a JSON list of "
                              "log-probabilities") from error


def _file_records(paths: list[Path], root: Path) -> list[dict]:
    """A record per file: used, and whether it is byte-identical to an earlier one (read all the same, as the
    authors' analysis read every file it found)."""
    seen: dict[str, Path] = {}
    records = []
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        twin = seen.setdefault(digest, path)
        status = "used" if twin == path else f"used; byte-identical to {twin.relative_to(root)}"
        records.append({"file": str(path.relative_to(root)), "status": status, "sha256": digest})
    return records


# -- choices -----------------------------------------------------------------------------------------------------


def _choose(frame: pd.DataFrame, value: str, type_column: str, keys: list[str], seed_key: str) -> pd.DataFrame:
    """The argmax option of each item version: keys, chosen (option type), is_target, n_tied."""
    rows = []
    for key, group in frame.groupby(keys, sort=True):
        index, tied = sm.choose(group[value].tolist(), 0, f"{seed_key}:{key}")
        chosen = group[type_column].iloc[index]
        rows.append({**dict(zip(keys, key, strict=True)), "chosen": chosen, "is_target": chosen == "target",
                     "n_tied": tied, "n_options": len(group)})
    return pd.DataFrame(rows)


def _check(records: list[dict], path: Path, root: Path, column: str, ours: Iterable[float], stored: Iterable) -> None:
    a = np.asarray(list(ours), dtype=float)
    b = pd.to_numeric(pd.Series(list(stored)), errors="coerce").to_numpy(dtype=float)
    close = np.isclose(a, b, rtol=CHECK_RTOL, atol=1e-12, equal_nan=True) | (np.isinf(a) & np.isinf(b))
    records.append({"file": str(path.relative_to(root)), "column": column, "rows": len(a),
                    "mismatches": int((~close).sum())})


def _check_chosen(checks: list[dict], where: str, data: pd.DataFrame, chosen: pd.DataFrame, keys: list[str]) -> None:
    """The authors' stored ``chosen_option`` of each item version (``keys``) checked against our argmax."""
    merged = chosen.merge(data.groupby(keys, sort=True)["chosen_option"].first().reset_index(), on=keys)
    checks.append({"file": where, "column": "chosen_option", "rows": len(merged),
                   "mismatches": int((merged["chosen"] != merged["chosen_option"]).sum())})


def log_prob_choices(root: Path, model: str, files: list[Path], kind: str, checks: list[dict]) -> pd.DataFrame:
    """Every authors' score of every item version of one model's string (``kind`` = string_scores) or label files,
    recomputed from the token log-probs; each file's stored score columns checked."""
    metric = "string_score" if kind == "string_scores" else "label_score"
    type_column = "option_names" if kind == "string_scores" else "shuffled_option_names"
    frames = []
    for path in files:
        frame = read_table(path, LOG_PROB_COLUMNS)
        lps = [_token_lists(path, c, "token_cond_log_probs") for c in frame["token_cond_log_probs"]]
        priors = [_token_lists(path, c, "null_prior_token_log_probs") for c in frame["null_prior_token_log_probs"]]
        for score, formula in AUTHORS_SCORES.items():
            ours = [formula(lp, prior) for lp, prior in zip(lps, priors, strict=True)]
            column, scale = STORED_COLUMNS[score]
            if column in frame.columns:
                _check(checks, path, root, column, [scale(v) for v in ours], frame[column])
            frame[f"ours_{score}"] = ours
        frames.append(frame.assign(file=str(path.relative_to(root))))
    data = pd.concat(frames, ignore_index=True)
    out = []
    for score in AUTHORS_SCORES:
        chosen = _choose(data, f"ours_{score}", type_column, ITEM_VERSION, f"{model}:{score}")
        configuration = f"score={score}" + (", labels=alpha" if metric == "label_score" else "")
        out.append(chosen.assign(metric=metric, score=score, configuration=configuration))
    return pd.concat(out, ignore_index=True).assign(model=model)


def rating_choices(root: Path, model: str, files: list[Path], checks: list[dict]) -> pd.DataFrame:
    """The rating method's choices of one model, every scale found (E[r] from summed token log-probs)."""
    frames = []
    for path in files:
        frame = read_table(path, RATING_COLUMNS)
        points = [_token_lists(path, c, "token_cond_log_probs") for c in frame["token_cond_log_probs"]]
        frame["expected_rating"] = [
            sm.rating_expectation([sm.option_logprob(t) for t in p], range(1, len(p) + 1)) for p in points
        ]
        _check(checks, path, root, "weighted_options", frame["expected_rating"], frame["weighted_options"])
        frames.append(frame.assign(file=str(path.relative_to(root))))
    data = pd.concat(frames, ignore_index=True)
    keys = [*ITEM_VERSION, "scale"]
    chosen = _choose(data, "expected_rating", "option_names", keys, f"{model}:rating")
    _check_chosen(checks, f"rating/{model}", data, chosen, keys)
    chosen["configuration"] = "scale=" + chosen["scale"]
    return chosen.drop(columns="scale").assign(metric="rating", score="rating", model=model)


def embedding_choices(root: Path, model: str, files: list[Path], checks: list[dict]) -> pd.DataFrame:
    frames = [read_table(p, EMBEDDING_COLUMNS).assign(file=str(p.relative_to(root))) for p in files]
    data = pd.concat(frames, ignore_index=True)
    chosen = _choose(data, "cosine_sims", "shuffled_option_names", ITEM_VERSION, f"{model}:embedding")
    _check_chosen(checks, f"embedding_similarity/{model}", data, chosen, ITEM_VERSION)
    return chosen.assign(metric="embedding", score="cosine", configuration="", model=model)


def free_choices(root: Path, model: str, files: list[Path], checks: list[dict]) -> pd.DataFrame:
    """The hand-coded free generations of one model at temperature 0.1 (the ``temperature`` column), every file."""
    frames = []
    for path in files:
        frame = read_table(path, FREE_COLUMNS, semicolons=True)
        codes = [c for c in FREE_CODE_COLUMNS if c in frame.columns]
        if not codes:
            raise ReanalysisError(f"{path}: no hand-code column (one of {FREE_CODE_COLUMNS}); a free file needs one")
        code = frame[codes[0]]
        for extra in codes[1:]:
            code = code.fillna(frame[extra])
        temperature = pd.to_numeric(frame["temperature"], errors="coerce")
        kept = frame.assign(code=code)[code.notna() & np.isclose(temperature, FREE_TEMPERATURE)]
        checks.append({"file": str(path.relative_to(root)), "column": "rows without a hand code", "rows": len(frame),
                       "mismatches": int(code.isna().sum())})
        frames.append(kept.assign(file=str(path.relative_to(root))))
    data = pd.concat(frames, ignore_index=True)
    code = data["code"].astype(str).str.strip()
    return pd.DataFrame({
        "model_name": data["model_name"], "phenomenon": data["phenomenon"].astype(str).str.strip(),
        "seed": data["seed"], "item_id": data["item_id"], "chosen": code, "is_target": code == "target",
        "n_tied": 1, "n_options": np.nan, "metric": "free", "score": "free", "configuration": "temperature=0.1",
        "model": model, "file": data["file"],
    })


# -- the whole folder --------------------------------------------------------------------------------------------


def _selected(choices: pd.DataFrame) -> pd.DataFrame:
    """The rows of the authors' figure configuration: the selected score of string/label, the model's rating
    scale (every scale for a model the authors chose none for)."""
    score = choices["metric"].map(SELECTED_SCORE)
    keep = score.isna() | (choices["score"] == score)
    rating = choices["metric"] == "rating"
    scale = "scale=" + choices["model_name"].map(AUTHORS_RATING_SCALES).fillna("")
    chosen_scale = choices["model_name"].isin(list(AUTHORS_RATING_SCALES))
    keep &= ~rating | ~chosen_scale | (choices["configuration"] == scale)
    return choices[keep]


def accuracy_of(choices: pd.DataFrame) -> pd.DataFrame:
    """k, n and accuracy per (model_name, phenomenon, metric, configuration) of the figure configuration."""
    picked = _selected(choices)
    out = picked.groupby([*KEYS, "configuration"], as_index=False, sort=True).agg(
        k=("is_target", "sum"), n=("is_target", "size"), n_tie_broken=("n_tied", lambda s: int((s > 1).sum())),
        seeds=("seed", "nunique"),
    )
    return out.assign(k=out["k"].astype(int), accuracy=out["k"] / out["n"])


def reanalyze(root: str | Path) -> Reanalysis:
    """Reanalyse a folder laid out like LLM_link ``results/`` (any subset of :data:`METHOD_FOLDERS`, any model
    folders). Fails naming the folder or file when nothing is laid out that way or a model has no usable file."""
    root = Path(root)
    present = [m for m in METHOD_FOLDERS if (root / m).is_dir()]
    if not present:
        raise ReanalysisError(
            f"{root}: no folder of the authors' layout ({', '.join(METHOD_FOLDERS)}); point --outputs at a folder "
            "laid out like LLM_link's results/ (e.g. <mirror>/pragmatics/LLM_link/results)"
        )
    checks: list[dict] = []
    files: list[dict] = []
    frames = []

    readers: dict[str, tuple[tuple[str, Callable[[str, list[Path]], pd.DataFrame]], ...]] = {
        "log_probs": tuple(
            (f"seed*/{kind}/label_alpha/*.csv",
             lambda m, k, kind=kind: log_prob_choices(root, m, k, kind, checks))
            for kind in ("string_scores", "label_scores")
        ),
        "rating": (("*_rating_scale-*.csv", lambda m, k: rating_choices(root, m, k, checks)),),
        "embedding_similarity": (("*.csv", lambda m, k: embedding_choices(root, m, k, checks)),),
        "free": (("**/*_annotated*.csv", lambda m, k: free_choices(root, m, k, checks)),),
    }
    for method in present:
        models = sorted(m.name for m in (root / method).iterdir() if m.is_dir())
        loose = sorted(p for p in (root / method).glob("*.csv") if p.is_file())
        files.extend({"file": str(p.relative_to(root)), "status": "not in a model folder (not read)"} for p in loose)
        for model in models:
            found = [(sorted((root / method / model).glob(pattern)), read) for pattern, read in readers[method]]
            if not any(paths for paths, _ in found):
                expected = " or ".join(pattern for pattern, _ in readers[method])
                raise ReanalysisError(f"{root / method / model}: no usable file (expected {expected}); remove the "
                                      "folder or add the model's files in the authors' layout")
            for paths, read in found:
                files.extend(_file_records(paths, root))
                if paths:
                    frames.append(read(model, paths))
    frames = [f for f in frames if len(f)]
    if not frames:
        raise ReanalysisError(f"{root}: no results file in the authors' layout was found under {present}")
    choices = pd.concat(frames, ignore_index=True)
    return Reanalysis(choices=choices, accuracy=accuracy_of(choices), checks=pd.DataFrame(checks),
                      files=pd.DataFrame(files))


def accuracy_rows(result: Reanalysis) -> pd.DataFrame:
    """The CLI's table: model_name, phenomenon, metric, configuration, accuracy, n, k, n_tie_broken."""
    return result.accuracy[[*KEYS, "configuration", "accuracy", "n", "k", "n_tie_broken"]]


def mismatch_summary(checks: pd.DataFrame) -> list[str]:
    """One line per file and column whose stored values disagree with ours."""
    bad = checks[checks["mismatches"] > 0]
    return [f"{r.file}: {r.column}: {r.mismatches} of {r.rows} rows differ from ours" for r in bad.itertuples()]


# -- the paper's Fig. 2 and Fig. 3 beside the authors' processed numbers ------------------------------------------

SUMMARY_COLUMNS = ("model_name", "phenomenon", "metric", "accuracy")  # analysis/all_accuracy_summary.csv
LONG_FINAL_COLUMNS = ("model", "item_id", "seed", "condition", "method", "target", "score")  # llmlink_long_final.csv
DECIMALS = 3
# The (method, score) variants Fig. 3 draws: analysis/testing-stats.R, variant_order (others are filtered out).
FIG3_VARIANTS = (
    ("free", "free"),
    *(("string_score", s) for s in ("sentence_cond_probs", "mean_sentence_cond_probs", "mean_sentence_surprisal",
                                    "sentence_mi", "surprisal_decrease_ratio")),
    *(("label_score", s) for s in ("sentence_cond_probs", "sentence_mi", "surprisal_decrease_ratio")),
    ("rating", "rating"),
    ("embedding_similarity", "cosine"),
)
FIG3_METHOD = {"string_score": "string_score", "label_score": "label_score", "rating": "rating", "free": "free",
               "embedding": "embedding_similarity"}
R_LLH_SHIFT = 68768.470 + 500  # testing-stats.R: LLH = ifelse(LLH > -100000, LLH + 68768.470 + 500, 500)
R_LLH_FLOOR = -100000
# Cells where our reanalysis of the released files differs from the authors' processed number, and why
# (docs/scoring_methods.md, "Reanalysis of the authors' outputs"). Keyed by (model_name, metric); "*" = every
# phenomenon of it.
EXPLAINED = {
    ("google/flan-t5-xl", "rating", "*"): (
        "the authors' numbers come from the FLAN-T5 rating files of LLM_link commit db1c108 (2023-10-09), replaced "
        "by new runs at 75c47f3 (2023-10-13) before the release; the released files give ours"
    ),
    ("meta-llama/Llama-2-7b-hf", "label_score", "irony"): (
        "Llama-2's seed-0 irony label file was not released: seed0/label_alpha holds a byte copy of the seed-1 file "
        "(named _seed1_, seed column 1), so our 125 item versions count seed 1 twice"
    ),
}


def explanation(model_name: str, metric: str, phenomenon: str = "*") -> str:
    """Why a cell differs (:data:`EXPLAINED`); "" when it is not explained. Fig. 3 pools the phenomena, so its
    rows take any explanation of the model and metric."""
    if phenomenon == "*":
        return "; ".join(v for (m, k, _), v in EXPLAINED.items() if m == model_name and k == metric)
    return EXPLAINED.get((model_name, metric, phenomenon)) or EXPLAINED.get((model_name, metric, "*"), "")


def fig2_comparison(accuracy: pd.DataFrame, summary: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """Every cell of the authors' Fig. 2 numbers (``all_accuracy_summary.csv``) beside ours: model_name, phenomenon,
    metric, ours, n, theirs, difference, equal (to :data:`DECIMALS` decimals), explanation (:data:`EXPLAINED`, for
    the differing cells). The ``human`` rows (the same per model) are compared with ``human`` (per condition k of n
    target choices in the raw human data: ``human.human_condition_accuracy``)."""
    theirs = summary.rename(columns={"accuracy": "theirs"})[[*KEYS, "theirs"]]
    ours = accuracy.rename(columns={"accuracy": "ours"})[[*KEYS, "ours", "n"]]
    people = human.rename(columns={"condition": "phenomenon", "accuracy": "ours"})[["phenomenon", "ours", "n"]]
    people = theirs.loc[theirs["metric"] == "human", list(KEYS)].merge(people, on="phenomenon", how="left")
    out = theirs.merge(pd.concat([ours, people], ignore_index=True), on=list(KEYS), how="left")
    out["difference"] = out["ours"] - out["theirs"]
    out["equal"] = out["ours"].round(DECIMALS) == out["theirs"].round(DECIMALS)
    out["explanation"] = [
        "" if eq else explanation(m, k, p)
        for m, k, p, eq in zip(out["model_name"], out["metric"], out["phenomenon"], out["equal"], strict=True)
    ]
    return out[[*KEYS, "ours", "n", "theirs", "difference", "equal", "explanation"]]


def fig3_loglik(per_item: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """testing-stats.R's Fig. 3 numbers from per-item targets (columns model, method, score, condition, target):
    per (model, method, score) the log-likelihood of the human data (Binomial(k_human | N_human, p), p = the model's
    target rate per condition with 0 and 1 moved to 1e-9 and 1 - 1e-9, summed over conditions: ``metrics.human_loglik``
    with ``AUTHORS_P_CLIP``), the pooled accuracy, and the value the figure draws (``llh_shown``: LLH + 68768.470 +
    500, or 500 when LLH <= -100000). Only the variants the figure draws (:data:`FIG3_VARIANTS`)."""
    variants = pd.MultiIndex.from_tuples(FIG3_VARIANTS, names=["method", "score"])
    rows = per_item[pd.MultiIndex.from_frame(per_item[["method", "score"]]).isin(variants)]
    rates = rows.assign(is_target=rows["target"].astype(bool))
    out = sm.human_loglik(rates, human, by=("model", "method", "score"), clip=sm.AUTHORS_P_CLIP)
    shown = np.where(out["loglik"] > R_LLH_FLOOR, out["loglik"] + R_LLH_SHIFT, 500.0)
    return out[["model", "method", "score", "loglik", "accuracy", "n"]].assign(llh_shown=shown)


def our_fig3_items(choices: pd.DataFrame) -> pd.DataFrame:
    """Our per-item targets in the authors' long form (model, method, score, condition, target): every score of
    string and label, the figure's rating scale, free and embedding."""
    picked = choices[(choices["metric"].isin(["string_score", "label_score"])) | choices.index.isin(
        _selected(choices).index)]
    return pd.DataFrame({
        "model": picked["model_name"], "method": picked["metric"].map(FIG3_METHOD), "score": picked["score"],
        "condition": picked["phenomenon"], "target": picked["is_target"].astype(int),
    })


def fig3_comparison(ours: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3 per (model, method, score): our log-likelihood and accuracy beside the R script's on the authors'
    ``llmlink_long_final.csv``, with differences and ``equal`` (to :data:`DECIMALS` decimals, both numbers)."""
    keys = ["model", "method", "score"]
    out = theirs.merge(ours, on=keys, how="left", suffixes=("_theirs", "_ours"))
    for column in ("loglik", "accuracy", "llh_shown"):
        out[f"{column}_difference"] = out[f"{column}_ours"] - out[f"{column}_theirs"]
    out["equal"] = (out["loglik_ours"].round(DECIMALS) == out["loglik_theirs"].round(DECIMALS)) & (
        out["accuracy_ours"].round(DECIMALS) == out["accuracy_theirs"].round(DECIMALS))
    metric = {v: k for k, v in FIG3_METHOD.items()}
    out["explanation"] = [
        "" if eq else explanation(m, metric[k])
        for m, k, eq in zip(out["model"], out["method"], out["equal"], strict=True)
    ]
    return out


def verdict(fig2: pd.DataFrame, fig3: pd.DataFrame) -> str:
    """One line: how many cells equal the authors' numbers, how many differ with and without an explanation."""
    differ = fig2[~fig2["equal"].astype(bool)]
    unexplained = int((differ["explanation"].fillna("") == "").sum())
    return (
        f"Reanalysis of the authors' outputs: {int(fig2['equal'].sum())} of {len(fig2)} Fig. 2 cells equal theirs "
        f"to {DECIMALS} decimals ({len(differ) - unexplained} differing cells explained, {unexplained} unexplained); "
        f"Fig. 3: {int(fig3['equal'].sum())} of {len(fig3)} variants equal the R script's log-likelihood and accuracy"
    )


def verdict_of_tables(fig2_csv: str | Path, fig3_csv: str | Path) -> str:
    """:func:`verdict` from rule sm_reanalysis's written tables (reanalysis_fig2.csv, reanalysis_fig3.csv)."""
    return verdict(pd.read_csv(fig2_csv), pd.read_csv(fig3_csv))


# -- the workflow's tables (rule sm_reanalysis) -------------------------------------------------------------------


@dataclass(frozen=True)
class ReanalysisFrames:
    """What rule sm_reanalysis's tables are built from (``artifacts.sources``)."""

    result: Reanalysis
    fig2: pd.DataFrame
    fig3: pd.DataFrame

    def models(self, with_grid: bool = False) -> list[str]:
        return sorted(set(self.result.accuracy["model_name"]))


def reanalysis_frames(llm_link: str | Path, human: pd.DataFrame) -> ReanalysisFrames:
    """Reanalyse ``<llm_link>/results`` and set it beside ``<llm_link>/analysis``'s processed numbers."""
    llm_link = Path(llm_link)
    result = reanalyze(llm_link / "results")
    summary = read_table(llm_link / "analysis" / "all_accuracy_summary.csv", SUMMARY_COLUMNS)
    long_final = read_table(llm_link / "analysis" / "llmlink_long_final.csv", LONG_FINAL_COLUMNS)
    fig2 = fig2_comparison(result.accuracy, summary, human)
    fig3 = fig3_comparison(fig3_loglik(our_fig3_items(result.choices), human), fig3_loglik(long_final, human))
    return ReanalysisFrames(result, fig2, fig3)


def _markdown(frame: pd.DataFrame, head: str = "") -> str:
    return (f"{head}\n\n" if head else "") + frame.to_markdown(index=False, floatfmt=".4g") + "\n"


def accuracy_table(data: ReanalysisFrames) -> tuple[pd.DataFrame, str]:
    frame = accuracy_rows(data.result)
    return frame, _markdown(frame)


def comparison_table(figure: str, data: ReanalysisFrames) -> Built:
    """The ``figure`` ("fig2" or "fig3") comparison; the verdict heads its Markdown and ends its caption (the report
    and the manifest)."""
    line = verdict(data.fig2, data.fig3)
    frame = getattr(data, figure)
    return Built(frame, _markdown(frame, line), f"; {line}")


def checks_table(data: ReanalysisFrames) -> tuple[pd.DataFrame, str]:
    """Per file: its status (used, byte-identical to another, not in a model folder) and, per stored column, how
    many rows differ from ours."""
    frame = data.result.files.merge(data.result.checks, on="file", how="outer")
    return frame, _markdown(frame.drop(columns="sha256"), "; ".join(mismatch_summary(data.result.checks))
                            or "every stored column agrees with ours")


# -- the figures regenerated from the authors' outputs -----------------------------------------------------------

FIG2_METRICS = ("free", "rating", "string_score", "label_score")  # the paper's bars, left to right
FIG3_LABELS = {  # testing-stats.R's axis labels of FIG3_VARIANTS
    ("free", "free"): "free",
    ("string_score", "sentence_cond_probs"): "str::optProb",
    ("string_score", "mean_sentence_cond_probs"): "str::avgOptProb",
    ("string_score", "mean_sentence_surprisal"): "str::avgNegSurp",
    ("string_score", "sentence_mi"): "str::priorCorrOptProb",
    ("string_score", "surprisal_decrease_ratio"): "str::SurpRedFct",
    ("label_score", "sentence_cond_probs"): "lbl::optProb",
    ("label_score", "sentence_mi"): "lbl::priorCorrOptProb",
    ("label_score", "surprisal_decrease_ratio"): "lbl::SurpRedFct",
    ("rating", "rating"): "rating",
    ("embedding_similarity", "cosine"): "embedding",
}


def fig2_figure(data: ReanalysisFrames) -> Any:
    """Fig. 2 from the authors' outputs: per model, our accuracy per condition and method (bars) with the authors'
    processed number on each bar (black diamond) and human accuracy (grey line); a differing cell is marked x."""
    fig2 = data.fig2
    models = sorted(fig2["model_name"].unique())
    phenomena = sorted(fig2["phenomenon"].unique())
    fig, axes = plt.subplots(len(models), 1, figsize=(11, 3.4 * len(models)), squeeze=False)
    width = 0.8 / len(FIG2_METRICS)
    marked = False  # the "differs" legend entry, once
    for ax, model in zip(axes[:, 0], models, strict=True):
        cells = fig2[fig2["model_name"] == model].set_index(["phenomenon", "metric"])
        for j, metric in enumerate(FIG2_METRICS):
            x = np.arange(len(phenomena)) + (j - (len(FIG2_METRICS) - 1) / 2) * width
            rows = cells.reindex([(p, metric) for p in phenomena])
            ax.bar(x, rows["ours"], width, color=f"C{j}", label=f"{metric} (ours)")
            ax.plot(x, rows["theirs"], ls="none", marker=PAPER_MARKER, ms=4, color=PAPER_COLOUR,
                    label="the authors' number" if j == 0 else None)
            differ = ~rows["equal"].astype(bool)
            ax.plot(x[differ.to_numpy()], rows["ours"][differ], ls="none", marker="x", ms=8, color="red",
                    label=None if marked or not differ.any() else "differs (explained in reanalysis_fig2)")
            marked = marked or bool(differ.any())
        human = cells.reindex([(p, "human") for p in phenomena])["ours"]
        for k, value in enumerate(human):
            ax.hlines(value, k - 0.45, k + 0.45, color="grey", lw=1.5, label="human" if k == 0 else None)
        ax.set_xticks(np.arange(len(phenomena)), phenomena, fontsize=9)
        ax.set_ylim(0, 1)
        ax.set_ylabel("accuracy", fontsize=9)
        ax.set_title(f"{model}: Fig. 2 from the authors' released outputs", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    handles = {label: h for ax in axes[:, 0] for h, label in zip(*ax.get_legend_handles_labels(), strict=True)}
    fig.legend(handles.values(), handles.keys(), fontsize=8, ncol=4, loc="lower center")
    return fig


def fig3_figure(data: ReanalysisFrames) -> Any:
    """Fig. 3 from the authors' outputs: per model, our log-likelihood of the human data as testing-stats.R draws it
    (``llh_shown``) and our accuracy per score (bars), the R script's numbers on llmlink_long_final.csv as black
    diamonds; a differing variant is marked x."""
    fig3 = data.fig3
    models = sorted(fig3["model"].unique())
    fig, axes = plt.subplots(2, len(models), figsize=(6 * len(models), 6.5), squeeze=False)
    for col, model in enumerate(models):
        rows = fig3[fig3["model"] == model].set_index(["method", "score"]).reindex(list(FIG3_VARIANTS))
        x = np.arange(len(rows))
        differ = ~rows["equal"].fillna(False).astype(bool).to_numpy()
        for row, (value, label) in enumerate((("llh_shown", "LLH diff. (as drawn)"), ("accuracy", "accuracy"))):
            ax = axes[row, col]
            ax.bar(x, rows[f"{value}_ours"], color="C0", label="ours")
            ax.plot(x, rows[f"{value}_theirs"], ls="none", marker=PAPER_MARKER, ms=4, color=PAPER_COLOUR,
                    label="testing-stats.R on llmlink_long_final.csv")
            ax.plot(x[differ], rows[f"{value}_ours"].to_numpy()[differ], ls="none", marker="x", ms=8, color="red",
                    label="differs (explained in reanalysis_fig3)" if differ.any() else None)
            ax.set_ylabel(label, fontsize=9)
            ax.set_xticks(x, [FIG3_LABELS[v] for v in FIG3_VARIANTS] if row else [], rotation=45, ha="right",
                          fontsize=8)
            if row == 0:
                ax.set_title(f"{model}: Fig. 3 from the authors' released outputs", fontsize=10)
        axes[0, col].legend(fontsize=8)
    fig.tight_layout()
    return fig
