"""STEER metrics: exact-match and normalized accuracy, calibration, domain and dependency robustness.

Input is the engine's score frame (long format, one row per question x option x prompt variant; see PREAMBLE) for the
``letter_prob`` method, where ``prob`` is the option letter's probability renormalized over the question's letters,
plus the question metadata (element, module, setting, domain, grade) that the STEER generators put in ``MCItem.meta``.

Everything starts from :func:`per_question_results`, one row per model x adaptation x question with the model's
answer (argmax over the letters), whether it is correct, and the probability on its top answer. That *question
frame* is also what ``choicelab report-card --metrics`` reads. :func:`summarize` aggregates it over any grouping.

Definitions (see docs/steer_metrics.md for the reasoning):

- ``accuracy``: fraction of questions whose argmax letter is the correct one (ties -> lowest option position).
- ``random_accuracy`` r: mean over the group's questions of 1/k (k = number of options of that question).
- ``normalized_accuracy`` = (accuracy - r) / r           -- the paper's definition (Sec. 2.2.2).
- ``gap_closed``          = (accuracy - r) / (1 - r)     -- share of the gap between guessing and perfect closed.
- ``random_gap``          = accuracy - r                 -- the paper's ``random_gap`` used in dependency robustness.
- ``ece``: expected calibration error, 10 uniform bins on [0, 1] of the top-answer probability.
- domain robustness of an element: min over domains of the element's metric (paper: exact-match accuracy).
- dependency robustness DR(s) = sum over transitive ancestors x of s with gap(x) < gap(s) of |gap(s) - gap(x)|
  (0 = every prerequisite is at least as good as s; larger = s is "better than its foundations").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from choicelab.stats import accuracy_intervals, expected_calibration_error

LETTER_PROB_METHOD = "letter_prob"
# template_id: the phrasing a question was written from ("<element>.p<k>"), the unit its questions were sampled in
QUESTION_META_COLUMNS = ("element", "module", "setting", "domain", "grade", "template_id")
QUESTION_KEY = ("benchmark", "split", "item_id")
GROUPABLE_COLUMNS = ("model", "adaptation", "element", "module", "setting", "domain", "grade")
QUESTION_FRAME_COLUMNS = (
    "model", "adaptation", "benchmark", "split", "item_id", *QUESTION_META_COLUMNS,
    "n_options", "predicted_option", "label_option", "correct", "top_prob", "label_prob", "random_accuracy",
)
SUMMARY_METRICS = (
    "n_questions", "accuracy", "random_accuracy", "normalized_accuracy", "gap_closed", "random_gap", "ece",
    "mean_top_prob",
)
# The accuracy's intervals (choicelab.stats.accuracy_intervals): exact, and clustered by template (docs/statistics.md)
INTERVAL_COLUMNS = ("ci95_low", "ci95_high", "clustered_low", "clustered_high", "n_clusters", "design_effect",
                    "min_detectable_difference")
# Metrics where higher is better and that summarize() produces; the report card may grade any of these.
GRADABLE_METRICS = ("accuracy", "normalized_accuracy", "gap_closed", "random_gap", "calibration", "domain_robustness")


# --------------------------------------------------------------------------------------------------- scalar metrics
def normalized_accuracy(accuracy: float, random_accuracy: float) -> float:
    """The paper's normalized accuracy (acc - r) / r; NaN if r is 0."""
    if random_accuracy <= 0:
        return math.nan
    return (accuracy - random_accuracy) / random_accuracy


def gap_closed(accuracy: float, random_accuracy: float) -> float:
    """(acc - r) / (1 - r): 0 = random guessing, 1 = perfect, negative = worse than guessing; NaN if r is 1."""
    if random_accuracy >= 1:
        return math.nan
    return (accuracy - random_accuracy) / (1.0 - random_accuracy)


# ------------------------------------------------------------------------------------------------- question frame
def question_metadata(items: Iterable) -> pd.DataFrame:
    """Question metadata table from STEER ``MCItem``s (``meta`` holds element, module, setting, domain, grade)."""
    rows = []
    for it in items:
        missing = [c for c in QUESTION_META_COLUMNS if c not in it.meta]
        if missing:
            raise ValueError(f"item {it.item_id!r}: meta lacks {missing}; is it a STEER item?")
        rows.append({"benchmark": it.benchmark, "split": it.split, "item_id": it.item_id,
                     **{c: it.meta[c] for c in QUESTION_META_COLUMNS}})
    return pd.DataFrame(rows, columns=[*QUESTION_KEY, *QUESTION_META_COLUMNS])


def per_question_results(scores: pd.DataFrame, questions: pd.DataFrame,
                         method: str = LETTER_PROB_METHOD) -> pd.DataFrame:
    """One row per model x adaptation (the score frame's ``variant``) x question: answer, correctness, confidence.

    ``scores``: the score frame (rows of other methods are ignored). ``questions``: metadata with ``item_id`` (and
    ``benchmark``/``split`` if present) plus element, module, setting, domain, grade. The answer is the option with
    the largest ``prob`` (ties go to the lowest option position); probabilities are renormalized over the question's
    options once more so a frame that was not exactly normalized still gives a proper top-answer probability.
    """
    needed = {"model", "variant", "item_id", "option_id", "prob", "is_label", "method"}
    missing = needed - set(scores.columns)
    if missing:
        raise ValueError(f"score frame lacks columns {sorted(missing)}")
    meta_missing = {"item_id", *QUESTION_META_COLUMNS} - set(questions.columns)
    if meta_missing:
        raise ValueError(f"question metadata lacks columns {sorted(meta_missing)}")
    frame = scores[scores["method"] == method].copy()
    if frame.empty:
        raise ValueError(f"score frame has no rows with method {method!r} (methods present: "
                         f"{sorted(scores['method'].dropna().unique())})")
    for col in ("benchmark", "split"):
        if col not in frame.columns:
            frame[col] = ""
    frame["variant"] = frame["variant"].fillna("").astype(str)
    if frame["prob"].isna().any():
        bad = frame.loc[frame["prob"].isna(), "item_id"].unique()[:5]
        raise ValueError(f"score frame has NaN prob for items {list(bad)}")
    keys = ["model", "variant", "benchmark", "split", "item_id"]
    frame = frame.sort_values([*keys, "option_id"], kind="stable").reset_index(drop=True)
    dup = frame.duplicated([*keys, "option_id"])
    if dup.any():
        raise ValueError(f"score frame repeats an option of item {frame.loc[dup, 'item_id'].iloc[0]!r}")
    grouped = frame.groupby(keys, sort=False)
    n_labels = grouped["is_label"].sum()
    if (n_labels != 1).any():
        bad = n_labels[n_labels != 1].index[0]
        raise ValueError(f"question {bad} has {int(n_labels[bad])} options with is_label=True; exactly one needed")
    prob_sum = grouped["prob"].transform("sum")
    frame["prob"] = frame["prob"] / prob_sum.where(prob_sum > 0, np.nan)
    top_idx = grouped["prob"].idxmax()
    label_rows = frame[frame["is_label"].astype(bool)].set_index(keys)
    out = frame.loc[top_idx.values, keys + ["option_id", "prob"]].rename(
        columns={"option_id": "predicted_option", "prob": "top_prob"}).set_index(keys)
    out["n_options"] = grouped.size()
    out["label_option"] = label_rows["option_id"]
    out["label_prob"] = label_rows["prob"]
    out = out.reset_index().rename(columns={"variant": "adaptation"})
    out["correct"] = out["predicted_option"] == out["label_option"]
    out["random_accuracy"] = 1.0 / out["n_options"]

    meta = questions.copy()
    join_on = [c for c in QUESTION_KEY if c in meta.columns]
    if set(join_on) != set(QUESTION_KEY):
        join_on = ["item_id"]
    meta = meta[[*join_on, *QUESTION_META_COLUMNS]].drop_duplicates(join_on)
    merged = out.merge(meta, on=join_on, how="left", validate="many_to_one")
    unmatched = merged["element"].isna()
    if unmatched.any():
        raise ValueError(f"{int(unmatched.sum())} scored questions have no metadata, e.g. "
                         f"{list(merged.loc[unmatched, 'item_id'].unique()[:3])}")
    merged["grade"] = merged["grade"].astype(int)
    return merged[list(QUESTION_FRAME_COLUMNS)]


PROMPT_COLUMNS = ("n_examples_requested", "n_examples")


def attach_prompts(results: pd.DataFrame, prompts: pd.DataFrame) -> pd.DataFrame:
    """Add ``n_examples_requested`` and ``n_examples`` (solved examples the prompt held) to the question frame.

    ``prompts``: the prompt records written next to the dumps (columns model, adaptation, item_id and the two counts;
    see :func:`choicelab.studies.steer.scoring.prompts_table`). Every scored question must have exactly one record.
    """
    missing = {"model", "adaptation", "item_id", *PROMPT_COLUMNS} - set(prompts.columns)
    if missing:
        raise ValueError(f"prompt records lack columns {sorted(missing)}")
    keys = ["model", "adaptation", "item_id"]
    records = prompts[[*keys, *PROMPT_COLUMNS]]
    if records.duplicated(keys).any():
        raise ValueError(f"prompt records repeat {records.loc[records.duplicated(keys), keys].iloc[0].tolist()}")
    merged = results.drop(columns=[c for c in PROMPT_COLUMNS if c in results.columns]).merge(
        records, on=keys, how="left", validate="many_to_one")
    unmatched = merged["n_examples"].isna()
    if unmatched.any():
        raise ValueError(f"{int(unmatched.sum())} scored questions have no prompt record, e.g. "
                         f"{merged.loc[unmatched, keys].iloc[0].tolist()}")
    for col in PROMPT_COLUMNS:
        merged[col] = merged[col].astype(int)
    return merged


def run_question_frame(scores: pd.DataFrame, prompts: pd.DataFrame, items: Iterable) -> pd.DataFrame:
    """The per-question frame of a run: every dump's answers (:func:`per_question_results`) with the questions'
    metadata and the number of solved examples each prompt held (:func:`attach_prompts`), two-part questions scored
    as one (:func:`combine_parts`), in a stable order."""
    items = list(items)
    frame = combine_parts(attach_prompts(per_question_results(scores, question_metadata(items)), prompts), items)
    return frame.sort_values(["model", "adaptation", "element", "domain", "grade", "item_id"]).reset_index(drop=True)


def check_question_frame(results: pd.DataFrame, source: str = "question frame") -> None:
    """Raise ``ValueError`` naming the missing columns if ``results`` is not a per-question frame."""
    needed = (*GROUPABLE_COLUMNS, "template_id", "correct", "top_prob", "random_accuracy")
    missing = [c for c in needed if c not in results.columns]
    if missing:
        raise ValueError(f"{source} lacks columns {missing}; build it with "
                         "choicelab.studies.steer.metrics.per_question_results(scores, questions)")


# ------------------------------------------------------------------------------------------------------ aggregates
def summarize_questions(correct: Sequence[bool], random_accuracy: Sequence[float],
                        top_prob: Sequence[float], templates: Sequence[str] | None = None) -> dict[str, float]:
    """All summary metrics of one set of questions, and the accuracy's intervals (:data:`INTERVAL_COLUMNS`): the
    exact one, and the one clustered by ``templates`` (the phrasing each question was generated from: questions of
    one template share its wording, so they are not independent draws)."""
    hits = np.asarray(correct, dtype=float)
    if hits.size == 0:
        return {m: (0 if m == "n_questions" else math.nan) for m in (*SUMMARY_METRICS, *INTERVAL_COLUMNS)}
    acc = float(hits.mean())
    r = float(np.mean(np.asarray(random_accuracy, dtype=float)))
    intervals = accuracy_intervals(hits, templates)
    return {
        "n_questions": int(hits.size),
        "accuracy": acc,
        "random_accuracy": r,
        "normalized_accuracy": normalized_accuracy(acc, r),
        "gap_closed": gap_closed(acc, r),
        "random_gap": acc - r,
        "ece": expected_calibration_error(top_prob, hits.astype(bool)),
        "mean_top_prob": float(np.mean(top_prob)),
        **{column: intervals[column] for column in INTERVAL_COLUMNS},
    }


def metric_interval(summary: pd.DataFrame, metric: str, clustered: bool = True) -> tuple[pd.Series, pd.Series]:
    """The 95 % interval of ``metric`` per summary row, from the accuracy's (clustered by template, else exact)
    interval, transformed as the metric transforms the accuracy (r held fixed): (acc - r) / r, (acc - r) / (1 - r),
    acc - r."""
    low, high = (summary["clustered_low"], summary["clustered_high"]) if clustered else (summary["ci95_low"],
                                                                                          summary["ci95_high"])
    r = summary["random_accuracy"]
    transform = {"accuracy": lambda a: a, "random_gap": lambda a: a - r, "normalized_accuracy": lambda a: (a - r) / r,
                 "gap_closed": lambda a: (a - r) / (1 - r)}[metric]
    return transform(low), transform(high)


def summarize(results: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Summary metrics (:data:`SUMMARY_METRICS`) of the question frame grouped by ``by``.

    ``by`` may name any of :data:`GROUPABLE_COLUMNS` (or other columns of the frame); ``[]`` summarizes everything.
    """
    check_question_frame(results)
    by = list(by)
    unknown = [c for c in by if c not in results.columns]
    if unknown:
        raise ValueError(f"cannot group by {unknown}: not columns of the question frame; "
                         f"groupable: {list(GROUPABLE_COLUMNS)}")
    rows = []
    groups = results.groupby(by, sort=True) if by else [((), results)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key, strict=True)), **summarize_questions(
            part["correct"], part["random_accuracy"], part["top_prob"], part["template_id"])})
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_METRICS, *INTERVAL_COLUMNS])


def macro_average(summary: pd.DataFrame, over: str = "element", by: Sequence[str] = ("model", "adaptation"),
                  metrics: Sequence[str] = ("accuracy", "normalized_accuracy", "gap_closed", "ece")) -> pd.DataFrame:
    """Unweighted mean over ``over`` (e.g. per-element rows) of each metric, grouped by ``by``.

    Table 3 style: each element counts once, whatever its number of questions. Adds ``n_<over>s``.
    """
    missing = [c for c in [*by, over, *metrics] if c not in summary.columns]
    if missing:
        raise ValueError(f"summary lacks columns {missing}; build it with summarize(results, by=[..., {over!r}])")
    agg = summary.groupby(list(by), sort=True)[list(metrics)].mean().reset_index()
    agg[f"n_{over}s"] = summary.groupby(list(by), sort=True)[over].nunique().values
    return agg


def domain_robustness(results: pd.DataFrame, metric: str = "accuracy",
                      by: Sequence[str] = ("model", "adaptation")) -> pd.DataFrame:
    """Per ``by`` x element: the element's ``metric`` in its worst domain (the paper's domain robustness).

    Columns: ``by``, element, worst_domain, worst (min over domains), mean_over_domains, overall (the metric over all
    the element's questions), n_domains. The paper uses ``metric="accuracy"``; Fig. 22 uses normalized accuracy.
    """
    if metric not in SUMMARY_METRICS or metric == "n_questions":
        raise ValueError(f"unknown metric {metric!r}; choose one of {list(SUMMARY_METRICS[1:])}")
    per_domain = summarize(results, [*by, "element", "domain"])
    overall = summarize(results, [*by, "element"]).set_index([*by, "element"])[metric]
    rows = []
    for key, part in per_domain.groupby([*by, "element"], sort=True):
        values = part[metric].to_numpy(dtype=float)
        worst_pos = int(np.nanargmin(values)) if np.isfinite(values).any() else 0
        rows.append({**dict(zip([*by, "element"], key, strict=True)),
                     "worst_domain": part["domain"].iloc[worst_pos],
                     "worst": float(values[worst_pos]),
                     "mean_over_domains": float(np.nanmean(values)),
                     "overall": float(overall.loc[key]),
                     "n_domains": int(len(part))})
    return pd.DataFrame(rows, columns=[*by, "element", "worst_domain", "worst", "mean_over_domains", "overall",
                                       "n_domains"])


# ------------------------------------------------------------------------------------------- dependency robustness
def transitive_ancestors(edges: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Map each node to its transitive prerequisites, from edges ``(prerequisite, element)``."""
    parents: dict[str, set[str]] = {}
    for src, dst in edges:
        parents.setdefault(dst, set()).add(src)
        parents.setdefault(src, set())
    result: dict[str, frozenset[str]] = {}
    for node in parents:
        seen: set[str] = set()
        stack = list(parents[node])
        while stack:
            cur = stack.pop()
            if cur == node:
                raise ValueError(f"dependency graph has a cycle through {node!r}")
            if cur not in seen:
                seen.add(cur)
                stack.extend(parents.get(cur, ()))
        result[node] = frozenset(seen)
    return result


def dependency_robustness(gaps: Mapping[str, float],
                          ancestors: Mapping[str, Iterable[str]] | Callable[[str], Iterable[str]]) -> dict[str, float]:
    """DR(s) = sum_{x in ancestors(s), gap(x) < gap(s)} |gap(s) - gap(x)| for each element s with a gap.

    Ancestors without a gap value (not evaluated) are skipped; NaN gaps are treated as missing. The sum is exact
    (math.fsum), so it does not depend on the order the ancestors come in (a frozenset's order changes with the
    interpreter's hash seed).
    """
    lookup = ancestors if callable(ancestors) else (lambda s: ancestors.get(s, ()))  # type: ignore[union-attr]
    known = {k: float(v) for k, v in gaps.items() if v is not None and not math.isnan(float(v))}
    out: dict[str, float] = {}
    for element, gap_s in known.items():
        out[element] = math.fsum(gap_s - known[x] for x in lookup(element) if x in known and known[x] < gap_s)
    return out


def dependency_robustness_table(results: pd.DataFrame, edges: Iterable[tuple[str, str]], gap: str = "random_gap",
                                by: Sequence[str] = ("model", "adaptation")) -> pd.DataFrame:
    """DR per ``by`` x element, with ``gap`` one of random_gap (default, acc - r), normalized_accuracy, gap_closed.

    Columns: ``by``, element, gap (the element's value), dependency_robustness, n_ancestors (in the graph),
    n_ancestors_scored (ancestors that have questions in ``results``), n_weaker_ancestors.
    """
    if gap not in ("random_gap", "normalized_accuracy", "gap_closed", "accuracy"):
        raise ValueError(f"gap must be random_gap, normalized_accuracy, gap_closed or accuracy, not {gap!r}")
    anc = transitive_ancestors(edges)
    per_element = summarize(results, [*by, "element"])
    rows = []
    for key, part in per_element.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        gaps = dict(zip(part["element"], part[gap].astype(float), strict=True))
        dr = dependency_robustness(gaps, anc)
        for element, value in gaps.items():
            ancestors_of = anc.get(element, frozenset())
            scored = [x for x in ancestors_of if x in dr]
            rows.append({**dict(zip(by, key, strict=True)), "element": element, "gap": value,
                         "dependency_robustness": dr.get(element, math.nan),
                         "n_ancestors": len(ancestors_of), "n_ancestors_scored": len(scored),
                         "n_weaker_ancestors": sum(gaps[x] < value for x in scored)})
    return pd.DataFrame(rows, columns=[*by, "element", "gap", "dependency_robustness", "n_ancestors",
                                       "n_ancestors_scored", "n_weaker_ancestors"])


# ---------------------------------------------------------------------------------------------- two-part questions
def combine_parts(results: pd.DataFrame, items: Iterable) -> pd.DataFrame:
    """Score each two-part question once: its two part rows of the question frame become one row under the pair's
    id (``meta['pair_id']``), right only when both choices are (the paper's consistency elements: the rational pair
    of choices).

    The pair's ``n_options`` is the number of choice pairs (k1 * k2) and ``random_accuracy`` the chance of guessing
    both (1 / (k1 k2)); ``predicted_option`` / ``label_option`` number the pairs (option 1 * k2 + option 2);
    ``top_prob`` is the probability of the pair the model chose (part 2's probability is conditional on the model's
    own part-1 answer, which it was asked after) and ``label_prob`` the product of the parts' label probabilities.
    Rows of other questions pass unchanged. A pair with only one part scored fails, naming it."""
    parts = {}
    for it in items:
        if int(it.meta.get("part", 0)):
            parts[it.item_id] = (str(it.meta["pair_id"]), int(it.meta["part"]))
    if not parts or results.empty:
        return results
    is_part = results["item_id"].isin(parts.keys())
    if not is_part.any():
        return results
    part_rows = results[is_part].copy()
    part_rows["pair_id"] = part_rows["item_id"].map(lambda i: parts[i][0])
    part_rows["part"] = part_rows["item_id"].map(lambda i: parts[i][1])
    keys = ["model", "adaptation", "benchmark", "split", "pair_id"]
    counts = part_rows.groupby(keys)["part"].agg(lambda p: tuple(sorted(p)))
    broken = counts[counts != (1, 2)]
    if not broken.empty:
        raise ValueError(f"two-part question {broken.index[0]} has parts {broken.iloc[0]} scored; both are needed")
    first = part_rows[part_rows["part"] == 1].set_index(keys)
    second = part_rows[part_rows["part"] == 2].set_index(keys).loc[first.index]
    pair = first.copy()
    pair["item_id"] = first.index.get_level_values("pair_id")
    pair["n_options"] = first["n_options"] * second["n_options"]
    pair["predicted_option"] = first["predicted_option"] * second["n_options"] + second["predicted_option"]
    pair["label_option"] = first["label_option"] * second["n_options"] + second["label_option"]
    pair["correct"] = first["correct"].astype(bool) & second["correct"].astype(bool)
    pair["top_prob"] = first["top_prob"] * second["top_prob"]
    pair["label_prob"] = first["label_prob"] * second["label_prob"]
    pair["random_accuracy"] = 1.0 / pair["n_options"]
    pair = pair.reset_index()[list(results.columns)]
    combined = pd.concat([results[~is_part], pair], ignore_index=True)
    for col in ("n_options", "predicted_option", "label_option"):
        combined[col] = combined[col].astype(results[col].dtype)
    return combined
