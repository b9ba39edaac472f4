"""STEER (Raman et al.): the paper's tables, computed from our per-question results.

Every function takes the per-question frame of :func:`choicelab.studies.steer.metrics.per_question_results`
(columns model, adaptation, element, module, setting, domain, grade, correct, top_prob, random_accuracy, ...) and,
where the taxonomy matters, a ``Taxonomy`` from :mod:`choicelab.studies.steer.items.taxonomy` or its dependency
``edges``. The figures drawn from these tables are in :mod:`choicelab.studies.steer.figures`.

Paper artefact -> function:

- Table 3 (average normalized and exact-match accuracy per model, no adaptation): :func:`table3`,
  compared with the transcription in ``data/steer/paper/table3.csv`` by :func:`compare_paper`.
- Fig. 22 top numbers (normalized accuracy by grade, Foundations at grade 0): :func:`grade_table`.
- Few-shot effect (Sec. 5: helps up to 3 examples) and self-explanation effect (GPT-4 certainty effect
  0.079 -> 0.508): :func:`few_shot_table`, :func:`self_explanation_table`, :func:`self_explanation_by_element`, each
  adaptation on the questions its 0-shot baseline answered (:func:`paired_questions`); the numbers the text quotes:
  :func:`compare_element_quotes`.
- Tables 1-2 (models): :func:`models_table`; the head-to-head comparison (Sec. 5): :func:`head_to_head`; which
  normalized-accuracy definition Table 3 fits: :func:`paper_definition_fit`.
- The metric tables (by element, module, setting, grade, domain; domain and dependency robustness):
  :func:`metric_tables`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab.stats import t_interval
from choicelab.studies.steer import DATA
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer.adaptations import NO_EXPLANATION, UNADAPTED, of_label

PAPER_TABLE3 = DATA / "paper" / "table3.csv"


METRIC_AXIS_LABELS = {
    "accuracy": "exact-match accuracy",
    "normalized_accuracy": "normalized accuracy (acc - r)/r",
    "gap_closed": "gap closed (acc - r)/(1 - r)",
    "random_gap": "acc - r",
}


def _check_metric(metric: str) -> None:
    if metric not in METRIC_AXIS_LABELS:
        raise ValueError(f"metric must be one of {list(METRIC_AXIS_LABELS)}, got {metric!r}")


def _adaptations(results: pd.DataFrame) -> pd.Series:
    """The :class:`~choicelab.studies.steer.adaptations.Adaptation` of each row (after checking the frame)."""
    sm.check_question_frame(results)
    return results["adaptation"].fillna("").astype(str).map(of_label)


def unadapted(results: pd.DataFrame) -> pd.DataFrame:
    """Rows of the unadapted runs: 0-shot, no self-explanation (adaptation "" or e.g. "0shot")."""
    return results[_adaptations(results).map(lambda a: a == UNADAPTED).to_numpy()]


# --------------------------------------------------------------------------------------------- metric tables
def metric_tables(results: pd.DataFrame, edges: Iterable[tuple[str, str]]) -> dict[str, pd.DataFrame]:
    """Every STEER metric table, keyed by a file-friendly name (for a workflow rule to write as CSV).

    by_element / by_module / by_setting / by_grade / by_domain: :func:`choicelab.studies.steer.metrics.summarize`
    per model x adaptation x that column; domain_robustness (exact-match, the paper's definition) and
    domain_robustness_normalized (Fig. 22); dependency_robustness (gap = acc - r); table3.
    """
    sm.check_question_frame(results)
    tables = {f"by_{col}": sm.summarize(results, ["model", "adaptation", col])
              for col in ("element", "module", "setting", "grade", "domain")}
    tables["domain_robustness"] = sm.domain_robustness(results, metric="accuracy")
    tables["domain_robustness_normalized"] = sm.domain_robustness(results, metric="normalized_accuracy")
    tables["dependency_robustness"] = sm.dependency_robustness_table(results, edges)
    if not unadapted(results).empty:
        tables["table3"] = table3(results)
    return tables


# ---------------------------------------------------------------------------------------------------------- Table 3
def table3(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3: per model, the mean over elements of the three normalized accuracies and exact-match accuracy.

    ``normalized_accuracy`` = (acc - r)/r (the paper's text), ``random_gap`` = acc - r (the reference code's
    normalized accuracy, acc - 1/k per question), ``gap_closed`` = (acc - r)/(1 - r). Uses the unadapted runs only
    ("Scores are averaged without model adaptations"); each element counts once.
    Sorted by exact-match accuracy, descending, as in the paper.
    """
    base = unadapted(results)
    if base.empty:
        raise ValueError("no unadapted (0-shot, no self-explanation) rows in the results")
    per_element = sm.summarize(base.assign(adaptation=""), ["model", "adaptation", "element"])
    table = sm.macro_average(per_element, over="element", by=("model",),
                             metrics=("normalized_accuracy", "random_gap", "gap_closed", "accuracy",
                                      "random_accuracy", "ece"))
    table["n_questions"] = base.groupby("model").size().reindex(table["model"]).to_numpy()
    return table.sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True)


def paper_model_key(name: str) -> str:
    """Key to match our model ids with the paper's names: "meta-llama/Llama-2-7b-hf" and "Llama-2 7b" -> "llama27b"."""
    base = str(name).split("/")[-1].lower()
    base = re.sub(r"[-_]hf$", "", base)
    return re.sub(r"[^a-z0-9.]", "", base).replace(".", "")


def load_paper_table3(path: str | Path = PAPER_TABLE3) -> pd.DataFrame:
    """The paper's Table 3 with ``exact_match`` parsed from "63.61%" to 0.6361 (``exact_match_printed`` kept)."""
    raw = pd.read_csv(path, dtype={"exact_match": str})
    missing = {"model", "normalized_accuracy", "exact_match"} - set(raw.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    printed = raw["exact_match"].str.strip()
    if not printed.str.endswith("%").all():
        raise ValueError(f"{path}: exact_match must be printed as percentages like 63.61%")
    return pd.DataFrame({"model": raw["model"], "normalized_accuracy": raw["normalized_accuracy"].astype(float),
                         "exact_match": printed.str.rstrip("%").astype(float) / 100.0,
                         "exact_match_printed": printed})


def compare_paper(ours: pd.DataFrame, paper_path: str | Path = PAPER_TABLE3,
                  aliases: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Our Table 3 (from :func:`table3`) next to the paper's, one row per paper model (plus our unmatched models).

    Models are matched by ``aliases`` (our id -> paper name) or else by :func:`paper_model_key`. Columns:
    paper_model, our_model, paper_normalized_accuracy, our_normalized_accuracy, our_gap_closed,
    paper_exact_match, our_accuracy, diff_normalized_accuracy, diff_exact_match (ours - paper).
    """
    paper = load_paper_table3(paper_path)
    aliases = dict(aliases or {})
    ours = ours.copy()
    ours["key"] = [paper_model_key(aliases.get(m, m)) for m in ours["model"]]
    paper["key"] = paper["model"].map(paper_model_key)
    if ours["key"].duplicated().any():
        raise ValueError(f"two of our models map to the same paper model: {list(ours['model'])}; pass aliases")
    matched = paper.merge(ours, on="key", how="left", suffixes=("_paper", "_ours"))
    extra = ours[~ours["key"].isin(paper["key"])].rename(columns={"model": "model_ours",
                                                                  "normalized_accuracy": "normalized_accuracy_ours"})
    merged = pd.concat([matched, extra], ignore_index=True)  # paper order first, then our unmatched models
    out = pd.DataFrame({
        "paper_model": merged["model_paper"],
        "our_model": merged["model_ours"],
        "paper_normalized_accuracy": merged["normalized_accuracy_paper"],
        "our_normalized_accuracy": merged["normalized_accuracy_ours"],
        "our_random_gap": merged.get("random_gap"),
        "our_gap_closed": merged.get("gap_closed"),
        "paper_exact_match": merged["exact_match"],
        "our_accuracy": merged["accuracy"],
        "our_n_questions": merged.get("n_questions"),
    })
    out["diff_normalized_accuracy"] = out["our_normalized_accuracy"] - out["paper_normalized_accuracy"]
    out["diff_random_gap"] = out["our_random_gap"] - out["paper_normalized_accuracy"]
    out["diff_exact_match"] = out["our_accuracy"] - out["paper_exact_match"]
    return out.reset_index(drop=True)


PAPER_BIAS_SRC = DATA / "paper" / "cognitive_bias_src.csv"
TABLE3_COMPARISON = "Table 3: whole benchmark, no adaptation"
BIAS_MODULES = {"2.2": "Cognitive Bias SRC: deterministic environments (module 2.2)",
                "2.5": "Cognitive Bias SRC: stochastic environments (module 2.5)"}


def compare_cognitive_bias(results: pd.DataFrame, path: str | Path = PAPER_BIAS_SRC,
                           metric: str = "normalized_accuracy") -> pd.DataFrame:
    """The paper's Cognitive Bias SRC (Sec. 5: the GPT models' scores on the cognitive-bias modules 2.2 and 2.5)
    beside the same card for each of our models: per module, the unweighted mean over its elements of each element's
    ``metric`` on the unadapted runs (a report card's module score), with the number of elements and questions and
    the standard error over elements. The paper's rows are the GPT models, which we cannot run: each paper number
    stands beside every model we ran, marked by ``paper_model`` and ``paper_source``."""
    _check_metric(metric)
    paper = pd.read_csv(path, dtype={"module": str})
    missing = {"paper_model", "module", "paper_value", "source"} - set(paper.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    unknown = sorted(set(paper["module"]) - set(BIAS_MODULES))
    if unknown:
        raise ValueError(f"{path}: modules {unknown} are not the Cognitive Bias SRC's {sorted(BIAS_MODULES)}")
    base = unadapted(results)
    per_element = sm.summarize(base.assign(adaptation=""), ["model", "module", "element"])
    rows = []
    for q in paper.itertuples(index=False):
        for model in sorted(base["model"].astype(str).unique()):
            part = per_element[(per_element["model"].astype(str) == model) & (per_element["module"] == q.module)]
            values = part[metric].astype(float)
            n_el = int(values.notna().sum())
            _, low, high = t_interval(values.dropna())  # t 95 % over the module's elements
            rows.append({
                "comparison": BIAS_MODULES[q.module], "paper_model": q.paper_model, "paper_source": q.source,
                "paper_normalized_accuracy": float(q.paper_value), "our_model": model,
                "our_normalized_accuracy": float(values.mean()) if n_el else math.nan,
                **{f"our_{c}": float(part[c].mean()) if n_el else math.nan
                   for c in ("random_gap", "gap_closed", "accuracy")},
                "our_n_elements": n_el, "our_n_questions": int(part["n_questions"].sum()),
                "our_low": low, "our_high": high,
            })
    out = pd.DataFrame(rows)
    out["diff_normalized_accuracy"] = out["our_normalized_accuracy"] - out["paper_normalized_accuracy"]
    return out


def paper_comparisons(table3_frame: pd.DataFrame, results: pd.DataFrame, table3_path: str | Path = PAPER_TABLE3,
                      bias_path: str | Path = PAPER_BIAS_SRC) -> pd.DataFrame:
    """Every number of the paper we set ours beside, one table: Table 3 (:func:`compare_paper`, ``comparison`` =
    :data:`TABLE3_COMPARISON`) then the Cognitive Bias SRC (:func:`compare_cognitive_bias`). Columns ``paper_*`` hold
    the paper's numbers (``paper_source`` says where it prints them), ``our_*`` ours, ``diff_*`` ours minus the
    paper's."""
    table3_rows = compare_paper(table3_frame, table3_path)
    table3_rows.insert(0, "comparison", TABLE3_COMPARISON)
    table3_rows.insert(2, "paper_source", table3_rows["paper_model"].notna().map({True: "Table 3", False: None}))
    return pd.concat([table3_rows, compare_cognitive_bias(results, bias_path)], ignore_index=True)


# Chance level r implied by the paper's (exact match, normalized) pair under each candidate definition.
_IMPLIED_CHANCE = {
    "normalized_accuracy": lambda acc, n: acc / (1.0 + n),       # n = (acc - r)/r
    "random_gap": lambda acc, n: acc - n,                        # n = acc - r
    "gap_closed": lambda acc, n: (acc - n) / (1.0 - n),          # n = (acc - r)/(1 - r)
}


def paper_definition_fit(paper_path: str | Path = PAPER_TABLE3,
                         our_random_accuracy: float | None = None) -> pd.DataFrame:
    """Which normalized-accuracy definition the paper's Table 3 fits.

    Every model answered the same questions, so under the definition the paper used, its (exact match, normalized)
    pair implies about the same chance level r for every model, and r <= 1/2 (every question has >= 2 options).
    One row per paper model with the r each definition implies (``implied_r_<definition>``), then a summary row per
    definition (``paper_model`` = "summary: <definition>") with the spread (sd) of the implied r, how many models
    imply an impossible r > 1/2, and (with ``our_random_accuracy``, the mean 1/k of our benchmark) the mean absolute
    difference from our chance level. Caveat: the paper macro-averages over elements, so even the right definition
    gives a spread.
    """
    paper = load_paper_table3(paper_path)
    acc, norm = paper["exact_match"], paper["normalized_accuracy"]
    rows = pd.DataFrame({"paper_model": paper["model"], "paper_exact_match": acc, "paper_normalized_accuracy": norm})
    for name, implied in _IMPLIED_CHANCE.items():
        rows[f"implied_r_{name}"] = implied(acc, norm)
    summary = []
    for name in _IMPLIED_CHANCE:
        r = rows[f"implied_r_{name}"]
        summary.append({"paper_model": f"summary: {name}", f"implied_r_{name}": float(r.mean()),
                        "sd_implied_r": float(r.std(ddof=1)), "n_impossible_r": int((r > 0.5).sum()),
                        "mean_abs_diff_from_our_r": (math.nan if our_random_accuracy is None
                                                     else float((r - our_random_accuracy).abs().mean()))})
    return pd.concat([rows, pd.DataFrame(summary)], ignore_index=True)


# ---------------------------------------------------------------------------------------- Figs 7-15, 17-21 modules
def module_table(results: pd.DataFrame, taxonomy: Any, module_id: str,
                 metric: str = "normalized_accuracy") -> pd.DataFrame:
    """Element x model table of ``metric`` for one module (unadapted runs); rows in taxonomy order."""
    _check_metric(metric)
    module = taxonomy.module(module_id)
    base = unadapted(results)
    base = base[base["element"].isin(module.element_ids)]
    summary = sm.summarize(base.assign(adaptation=""), ["element", "model"])
    table = summary.pivot(index="element", columns="model", values=metric)
    order = [e for e in module.element_ids if e in table.index]
    return table.reindex(order)


# -------------------------------------------------------------------------------------------------------- Fig. 22
FOUNDATIONS_SETTING = "1"


def paper_grades(results: pd.DataFrame) -> pd.Series:
    """The grade axis of the paper's Fig. 22: Foundations questions (setting 1) at grade 0, the others at their own."""
    grade = results["grade"].astype(int)
    return grade.where(results["setting"].astype(str) != FOUNDATIONS_SETTING, 0)


def grade_table(results: pd.DataFrame, metric: str = "normalized_accuracy") -> pd.DataFrame:
    """Per model x grade: ``metric`` over the unadapted questions of that grade, its 95 % interval clustered by
    template (``low``, ``high``; :func:`choicelab.studies.steer.metrics.metric_interval`), random_accuracy and n.

    Grades as in the paper's Fig. 22: every Foundations question at grade 0 ("Grade 0 (Foundations)").
    """
    _check_metric(metric)
    base = unadapted(results)
    summary = sm.summarize(base.assign(adaptation="", grade=paper_grades(base)), ["model", "grade"])
    summary["low"], summary["high"] = sm.metric_interval(summary, metric)
    return summary[["model", "grade", metric, "low", "high", "n_clusters", "random_accuracy", "n_questions"]]


# -------------------------------------------------------------------------------------------------- adaptations
def paired_questions(frame: pd.DataFrame, condition: str) -> pd.DataFrame:
    """Rows of ``frame`` whose question was scored under every value of ``condition`` its model ran.

    The adaptations score a seeded subsample of the questions 0-shot scores (``adaptation_questions``); an
    adaptation effect compares conditions on the same questions, so each model keeps the intersection of its
    conditions' question sets.
    """
    keep = []
    for _, part in frame.groupby("model", sort=True):
        sets = [set(g["item_id"]) for _, g in part.groupby(condition)]
        common = set.intersection(*sets) if sets else set()
        keep.append(part[part["item_id"].isin(common)])
    out = pd.concat(keep) if keep else frame.iloc[:0]
    if out.empty and not frame.empty:
        raise ValueError(f"no question was scored under every {condition} of a model; adaptation effects need the "
                         "adaptations to share questions with 0-shot")
    return out


def _examples_columns(frame: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """n_questions, mean examples per prompt and prompts holding fewer examples than asked, per ``by``."""
    grouped = frame.groupby(list(by), sort=True)
    out = grouped.size().rename("n_questions").to_frame()
    if {"n_examples", "n_examples_requested"} <= set(frame.columns):
        out["mean_examples"] = grouped["n_examples"].mean()
        short = frame["n_examples"] < frame["n_examples_requested"]
        out["n_short_prompts"] = short.groupby([frame[c] for c in by]).sum().astype(int)
    return out.reset_index()


def few_shot_table(results: pd.DataFrame, metric: str = "normalized_accuracy",
                   by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """``metric`` per ``by`` x n_shot (0..5) over the runs without self-explanation; mean over elements, with its t
    95 % interval over elements (``low``, ``high``).

    Every n-shot value of a model is computed on the same questions (:func:`paired_questions`). Columns also give
    the number of questions, the mean number of solved examples the prompts held (``mean_examples``) and how many
    prompts held fewer than asked because the context window was too short (``n_short_prompts``).
    """
    _check_metric(metric)
    adaptations = _adaptations(results)
    frame = results.assign(n_shot=[a.shots for a in adaptations], explanation=[a.explain for a in adaptations])
    frame = frame[(frame["explanation"] == NO_EXPLANATION).to_numpy()]
    if frame.empty:
        raise ValueError("no n-shot runs (adaptations like '0shot'..'5shot') in the results")
    frame = paired_questions(frame.assign(n_shot=frame["n_shot"].astype(int)), "n_shot")
    per_element = sm.summarize(frame, [*by, "n_shot", "element"])
    grouped = per_element.groupby([*by, "n_shot"], sort=True)[metric]
    table = grouped.mean().reset_index()
    intervals = grouped.agg(lambda v: t_interval(v.dropna())[1:])  # t 95 % over elements
    table["low"], table["high"] = [x[0] for x in intervals], [x[1] for x in intervals]
    table["n_elements"] = grouped.count().to_numpy()
    return table.merge(_examples_columns(frame, [*by, "n_shot"]), on=[*by, "n_shot"], how="left")


EXPLANATION_COLUMNS = ("none", "together", "separate", "separate-hidden")


def _explanation_frame(results: pd.DataFrame) -> pd.DataFrame:
    """0-shot rows labelled with their self-explanation mode, restricted to the questions every mode of a model
    scored (:func:`paired_questions`)."""
    adaptations = _adaptations(results)
    frame = results.assign(explanation=[a.explain for a in adaptations])
    frame = frame[[a.shots == 0 for a in adaptations]]
    return paired_questions(frame, "explanation")


def self_explanation_table(results: pd.DataFrame, metric: str = "normalized_accuracy",
                           by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """``metric`` per ``by`` with one column per self-explanation mode (none, together, separate, separate-hidden),
    0-shot runs, every mode on the same questions (``n_questions`` per ``by``).

    Adaptation labels without an n-shot count ("explain-together") count as 0-shot. With ``by=("model",)`` the
    value is the mean over elements; with ``by=("model", "element")`` it is the element's metric (e.g. the paper's
    GPT-4 certainty effect 0.079 -> 0.508).
    """
    _check_metric(metric)
    frame = _explanation_frame(results)
    per_element = sm.summarize(frame, list(dict.fromkeys([*by, "explanation", "element"])))
    table = per_element.groupby([*by, "explanation"], sort=True)[metric].mean().unstack("explanation")
    table = table.reindex(columns=[c for c in EXPLANATION_COLUMNS if c in table.columns])
    table.columns.name = None
    counts = frame[frame["explanation"] == "none"].groupby(list(by), sort=True).size().rename("n_questions")
    return table.join(counts).reset_index()


def self_explanation_by_element(results: pd.DataFrame, metric: str = "normalized_accuracy") -> pd.DataFrame:
    """Per model x element: ``metric`` without explanation and under each mode (same questions), the effect of each
    mode (mode - none) and ``n_questions`` -- the paper's per-element self-explanation effects (Sec. 5)."""
    table = self_explanation_table(results, metric, by=("model", "element"))
    for mode in EXPLANATION_COLUMNS[1:]:
        if mode in table.columns and "none" in table.columns:
            table[f"effect_{mode}"] = table[mode] - table["none"]
    return table


PAPER_QUOTES = DATA / "paper" / "element_quotes.csv"


def compare_element_quotes(results: pd.DataFrame, quotes_path: str | Path = PAPER_QUOTES,
                           metric: str = "normalized_accuracy") -> pd.DataFrame:
    """The per-element numbers the paper's text quotes (e.g. GPT-4 Turbo, certainty effect, 0.079 without and 0.508
    with self-explanation) beside ours for every one of our models, on the same questions per model.

    ``quotes_path`` columns: paper_model, element, adaptation (none or a self-explanation mode; "explain" = the paper
    does not say which), paper_value, source. Our value for "explain" rows is given for each mode we ran.
    """
    quotes = pd.read_csv(quotes_path, dtype={"adaptation": str})
    ours = self_explanation_table(results, metric, by=("model", "element"))
    modes = [c for c in EXPLANATION_COLUMNS if c in ours.columns]
    rows = []
    for q in quotes.itertuples(index=False):
        wanted = ["none"] if q.adaptation == "none" else [m for m in modes if m != "none"]
        for model in sorted(ours["model"].astype(str).unique()):
            part = ours[(ours["model"] == model) & (ours["element"] == q.element)]
            for mode in wanted:
                value = float(part[mode].iloc[0]) if len(part) and mode in part else math.nan
                n = int(part["n_questions"].iloc[0]) if len(part) else 0
                rows.append({"paper_model": q.paper_model, "element": q.element, "paper_adaptation": q.adaptation,
                             "paper_value": float(q.paper_value), "our_model": model, "our_adaptation": mode,
                             "our_value": value, "our_n_questions": n, "source": q.source})
    return pd.DataFrame(rows, columns=["paper_model", "element", "paper_adaptation", "paper_value", "our_model",
                                       "our_adaptation", "our_value", "our_n_questions", "source"])


def head_to_head(results: pd.DataFrame, metric: str = "normalized_accuracy") -> pd.DataFrame:
    """The paper's head-to-head comparison of every pair of models (unadapted runs): per ordered pair, over the
    elements both answered, how many elements model_a scores higher on ``metric`` (wins), equal (ties) and lower
    (losses), and the question-level record on the questions both answered (a right where b is wrong and the
    reverse)."""
    _check_metric(metric)
    base = unadapted(results)
    per_element = sm.summarize(base.assign(adaptation=""), ["model", "element"])
    wide = per_element.pivot(index="element", columns="model", values=metric)
    correct = base.pivot_table(index="item_id", columns="model", values="correct", aggfunc="first")
    models = sorted(wide.columns.astype(str))
    rows = []
    for a in models:
        for b in models:
            if a == b:
                continue
            both = wide[[a, b]].dropna()
            q = correct[[a, b]].dropna().astype(bool)
            wins, ties = int((both[a] > both[b]).sum()), int((both[a] == both[b]).sum())
            rows.append({"model_a": a, "model_b": b, "n_elements": len(both), "wins": wins, "ties": ties,
                         "losses": len(both) - wins - ties,
                         "win_rate": (wins + 0.5 * ties) / len(both) if len(both) else math.nan,
                         "n_questions": len(q), "a_right_b_wrong": int((q[a] & ~q[b]).sum()),
                         "b_right_a_wrong": int((q[b] & ~q[a]).sum())})
    return pd.DataFrame(rows, columns=["model_a", "model_b", "n_elements", "wins", "ties", "losses", "win_rate",
                                       "n_questions", "a_right_b_wrong", "b_right_a_wrong"])


PAPER_MODELS = DATA / "paper" / "models.csv"


def models_table(our_models: Mapping[str, Mapping[str, Any]], paper_path: str | Path = PAPER_MODELS) -> pd.DataFrame:
    """Tables 1-2: the paper's 14 models (base LM, instruction/chat tuning, parameters, origin) and which of our
    configured models (``our_models``: name -> the config's model entry) stands for each; our models the paper did
    not evaluate follow, with their source and role."""
    paper = pd.read_csv(paper_path)
    ours = {paper_model_key(name): name for name in our_models}
    paper["our_model"] = [ours.get(paper_model_key(m), "") for m in paper["model"]]
    matched = set(paper["our_model"]) - {""}
    extra = [{"model": "", "our_model": name, "our_source": str(entry.get("source", "")),
              "our_role": str(entry.get("role", ""))}
             for name, entry in our_models.items() if name not in matched]
    paper["our_source"] = [str(our_models[m].get("source", "")) if m else "" for m in paper["our_model"]]
    paper["our_role"] = [str(our_models[m].get("role", "")) if m else "" for m in paper["our_model"]]
    return pd.concat([paper, pd.DataFrame(extra)], ignore_index=True).fillna("")


# ------------------------------------------------------------------------------------ the tables a run writes
@dataclass(frozen=True)
class TableSources:
    """What the tables of a run are built from: the question frame, its metric tables (computed once), the paper's
    numbers and the configured models (rule steer_tables' inputs and params)."""

    results: pd.DataFrame
    metrics: Mapping[str, pd.DataFrame]
    paper_table3: str | Path
    paper_quotes: str | Path
    paper_models: str | Path
    models: Mapping[str, Mapping[str, Any]]
    paper_bias_src: str | Path = PAPER_BIAS_SRC


def table_sources(results: pd.DataFrame, edges: Iterable[tuple[str, str]], *, paper_table3: str | Path,
                  paper_quotes: str | Path, paper_models: str | Path,
                  models: Mapping[str, Mapping[str, Any]],
                  paper_bias_src: str | Path = PAPER_BIAS_SRC) -> TableSources:
    """The sources of a run's tables; raises when the results hold no unadapted run (Table 3 needs one)."""
    metrics = metric_tables(results, edges)
    if "table3" not in metrics:
        metrics["table3"] = table3(results)  # raises: no unadapted rows
    return TableSources(results, metrics, paper_table3, paper_quotes, paper_models, models, paper_bias_src)


def metric_table(sources: TableSources, name: str) -> pd.DataFrame:
    """One of :func:`metric_tables` (``table3``, ``by_element``, ``domain_robustness``, ...)."""
    return sources.metrics[name]


def of_results(sources: TableSources, build: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    """A table built from the question frame alone (``grade_table``, ``few_shot_table``, ``head_to_head``, ...)."""
    return build(sources.results)


def element_quotes(sources: TableSources) -> pd.DataFrame:
    """:func:`compare_element_quotes` on this run's questions."""
    return compare_element_quotes(sources.results, sources.paper_quotes)


def definition_fit(sources: TableSources) -> pd.DataFrame:
    """:func:`paper_definition_fit` against this run's chance level (mean 1/k over Table 3's models)."""
    r = float(sources.metrics["table3"]["random_accuracy"].mean())
    return paper_definition_fit(sources.paper_table3, our_random_accuracy=r)


def run_models(sources: TableSources) -> pd.DataFrame:
    """:func:`models_table` of the configured models."""
    return models_table(sources.models, sources.paper_models)
