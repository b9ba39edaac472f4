"""A card's numbers: one :class:`Panel` per study, read from the card run's tables by artifact name and columns.

Every headline number carries its n and a 95 % interval, and, where the study's paper comparison has them, the
papers' models on the same scale (labelled as the papers' numbers). A panel of a study that does not apply to the
model's kind, or whose tables the card run did not build, says so instead; the other panels do not depend on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab.stats import exact_interval, t_interval

OK, SKIPPED, FAILED = "ok", "skipped", "failed"

STUDY_TITLES = {
    "steer": "STEER: economic rationality",
    "revealed_belief": "Revealed belief vs stated answer",
    "probes": "Probes: prior bias and choice paralysis",
    "scoring_methods": "Scoring methods",
    "bets": "Thinking in bets",
}
STUDY_ORDER = ("steer", "revealed_belief", "probes", "scoring_methods", "bets")
# The artifacts (by name in each study's ARTIFACTS table) the panels read; the metrics files they read besides are
# inputs of those artifacts' rules.
TABLES_READ = {
    "steer": ("compare_paper",),
    "revealed_belief": ("compare_paper",),
    "probes": ("robustness_matrix", "compare_paper"),
    "scoring_methods": ("table_numbers", "free_accuracy"),
    "bets": ("table5", "compare_paper"),
}


@dataclass(frozen=True)
class Headline:
    """One number on the card: estimate, 95 % interval, n (with its unit), the table it comes from and the papers'
    models on the same scale (``paper``: (paper model, value) pairs, the papers' numbers, not ours)."""

    label: str
    estimate: float
    low: float
    high: float
    n: int
    unit: str
    source: str
    reference: float | None = None  # chance (or zero) the interval is read against
    paper: tuple[tuple[str, float], ...] = ()
    note: str = ""

    @property
    def covers_reference(self) -> bool:
        """The interval covers the reference (chance, or zero for a shift): the number is not told from it."""
        return self.reference is not None and self.low <= self.reference <= self.high


@dataclass(frozen=True)
class Panel:
    study: str
    title: str
    status: str  # ok | skipped | failed
    reason: str = ""
    headlines: tuple[Headline, ...] = ()
    detail: pd.DataFrame | None = None  # the panel's table (probes: a grid; greyed cells in column ``grey``)
    flags: tuple[str, ...] = ()  # competence flags
    sources: tuple[str, ...] = ()  # tables (and their sidecars) the panel read
    scale_note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def table_path(root: str | Path, study: str, name: str, suffix: str = ".csv") -> Path:
    """A study's artifact file in the card run: ``<root>/<study>/tables/<name>.csv``."""
    return Path(root) / study / "tables" / f"{name}{suffix}"


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the card run did not build it (see its log under "
                                f"results/cards/_run/results/logs/)")
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _binomial(label: str, k: int, n: int, source: str, reference: float | None, paper=(), note="") -> Headline:
    low, high = exact_interval(k, n)
    return Headline(label, k / n if n else math.nan, low, high, int(n), "items", source, reference, tuple(paper),
                    note)


def _mean_headline(label: str, values: Sequence[float], unit: str, source: str, reference: float | None = None,
                   paper=(), note="") -> Headline:
    values = [float(v) for v in values if _finite(v)]
    if not values:
        raise ValueError(f"{source}: no values for {label!r}")
    mean, low, high = t_interval(values)  # a mean over a handful of elements, seeds or benchmarks: t, not 1.96 SE
    return Headline(label, mean, low, high, len(values), unit, source, reference, tuple(paper), note)


# ------------------------------------------------------------------------------------------------------------ STEER
def plain_adaptation(adaptations: Sequence[str]) -> str:
    """The no-adaptation run (0-shot, no self-explanation): the one the card reports."""
    for name in ("0shot", "zero-shot", "0-shot"):
        if name in adaptations:
            return name
    raise ValueError(f"STEER: no 0-shot adaptation among {sorted(adaptations)}; the card reports the plain run")


def normalized_interval(k: int, n: int, random_accuracy: float) -> tuple[float, float, float]:
    """STEER's normalized accuracy (acc - r) / r with the exact binomial interval of acc carried through."""
    low, high = exact_interval(k, n)
    return ((k / n - random_accuracy) / random_accuracy, (low - random_accuracy) / random_accuracy,
            (high - random_accuracy) / random_accuracy)


def steer_panel(root: str | Path, model: str, rubrics: Mapping[str, Any] | None = None,
                grade: Callable[[pd.DataFrame, Any, str, str], Any] | None = None) -> Panel:
    """Normalized accuracy overall and per module (0-shot) with exact intervals; the report-card letter under each
    rubric (``grade(questions, rubric, model, adaptation)``); the cognitive-bias SRC beside the paper's GPT rows;
    the paper's Table 3 models on the same scale."""
    qpath = Path(root) / "steer" / "metrics" / "questions.parquet"
    questions = _read(qpath)
    questions = questions[questions["model"].astype(str) == model]
    if questions.empty:
        raise ValueError(f"{qpath}: no questions scored for {model!r}")
    adaptation = plain_adaptation(list(questions["adaptation"].astype(str).unique()))
    q = questions[questions["adaptation"].astype(str) == adaptation]
    compare_path = table_path(root, "steer", "compare_paper")
    compare = _read(compare_path)
    table3 = compare[compare["comparison"].astype(str).str.startswith("Table 3: whole benchmark, no adaptation")]
    paper = tuple((str(r.paper_model), float(r.paper_normalized_accuracy))
                  for r in table3.drop_duplicates("paper_model").itertuples() if _finite(r.paper_normalized_accuracy))
    r = float(q["random_accuracy"].mean())
    k, n = int(q["correct"].sum()), int(len(q))
    est, low, high = normalized_interval(k, n, r)
    headlines = [Headline("normalized accuracy, whole benchmark (0-shot)", est, low, high, n, "questions",
                          str(qpath), 0.0, paper, note=f"(acc - r) / r with r = {r:.3f} the random accuracy")]
    rows = []
    for module, group in q.groupby("module", sort=True):
        rm = float(group["random_accuracy"].mean())
        e, lo, hi = normalized_interval(int(group["correct"].sum()), len(group), rm)
        rows.append({"module": str(module), "normalized_accuracy": e, "low": lo, "high": hi, "n": len(group)})
    detail = pd.DataFrame(rows, columns=["module", "normalized_accuracy", "low", "high", "n"])
    caption = f"normalized accuracy per module, {adaptation}, exact 95 % intervals carried through"
    for title in sorted(compare["comparison"].dropna().astype(str).unique()):
        if not title.startswith("Cognitive Bias SRC"):
            continue
        ours = compare[(compare["comparison"] == title) & (compare["our_model"].astype(str) == model)]
        if ours.empty or not _finite(ours["our_normalized_accuracy"].iloc[0]):
            continue
        row = ours.iloc[0]
        src_paper = tuple((str(p.paper_model), float(p.paper_normalized_accuracy))
                          for p in compare[compare["comparison"] == title].drop_duplicates("paper_model").itertuples()
                          if _finite(p.paper_normalized_accuracy))
        est = float(row["our_normalized_accuracy"])
        headlines.append(Headline(title, est, float(row["our_low"]), float(row["our_high"]), int(row["our_n_elements"]),
                                  "elements", str(compare_path), 0.0, src_paper,
                                  note=f"module mean over elements, {int(row['our_n_questions'])} questions"))
    grades = []
    for name, rubric in (rubrics or {}).items():
        card = grade(questions, rubric, model, adaptation) if grade else None
        if card is not None:
            grades.append({"rubric": name, "letter": card.letter, "score": card.score,
                           "metric": card.metric, "n": card.n_questions})
    flags = []
    if headlines[0].covers_reference:
        flags.append("STEER: normalized accuracy's interval covers 0: the model is not told from random guessing")
    return Panel("steer", STUDY_TITLES["steer"], OK, headlines=tuple(headlines), detail=detail, flags=tuple(flags),
                 sources=(str(qpath), str(compare_path)),
                 extra={"grades": pd.DataFrame(grades, columns=["rubric", "letter", "score", "metric", "n"]),
                        "adaptation": adaptation, "detail_caption": caption})


# ---------------------------------------------------------------------------------------------- revealed belief
def revealed_belief_panel(root: str | Path, model: str) -> Panel:
    """RevB and StaA Chebyshev errors (mean over settings, 95 % interval), their paired difference where both were
    scored, per scenario family; the paper's Llama-3-70B on the same appendix rows."""
    dpath = Path(root) / "revealed_belief" / "metrics" / "distances.parquet"
    d = _read(dpath)
    d = d[d["model"].astype(str) == model]
    if d.empty:
        raise ValueError(f"{dpath}: no settings scored for {model!r}")
    headlines = []
    compare_path = table_path(root, "revealed_belief", "compare_paper")
    compare = _read(compare_path)
    # the paper's numbers (paper_llama3_70b); paper_model names the model in words
    paper_cols = [c for c in compare.columns
                  if c.startswith("paper_") and pd.api.types.is_numeric_dtype(compare[c])]
    for method, label in (("revealed", "RevB error (Chebyshev)"), ("stated", "StaA error (Chebyshev)")):
        rows = d[d["method"] == method]
        if len(rows):
            headlines.append(_mean_headline(label + ", all settings", rows["chebyshev"], "settings", str(dpath)))
    if model in compare.columns and paper_cols:
        from choicelab.studies.revealed_belief.tables import appendix_table_ids

        block = compare["table"].map(lambda t: appendix_table_ids().get(str(t), ("", 0))[1])
        who = paper_cols[0][len("paper_"):]
        # blocks 1 and 2 are the revealed belief of base and instruct models (ours: one value per row), 3 the stated
        for label, blocks, names in (("RevB", (1, 2), {1: "base", 2: "instruct"}), ("StaA", (3,), {3: "instruct"})):
            rows = compare[block.isin(blocks)].dropna(subset=[model, paper_cols[0]])
            ours = rows[block[rows.index] == blocks[0]]
            if len(ours) > 1:
                paper = tuple((f"{who} {names[b]} (the paper's, same rows)",
                               float(rows[block[rows.index] == b][paper_cols[0]].mean()))
                              for b in blocks if (block[rows.index] == b).any())
                headlines.append(_mean_headline(
                    f"{label} error on the appendix rows the paper reports, mean over rows", ours[model], "rows",
                    str(compare_path), paper=paper, note="Chebyshev; the same rows for both; a row averages its "
                                                         "settings"))
    wide = d.pivot_table(index="setting_id", columns="method", values="chebyshev", aggfunc="mean")
    if {"revealed", "stated"} <= set(wide.columns):
        diff = (wide["stated"] - wide["revealed"]).dropna()
        if len(diff):
            headlines.append(_mean_headline("StaA minus RevB error, paired by setting", diff, "settings", str(dpath),
                                            reference=0.0))
    rows = []
    for (family, method), group in d.groupby(["family", "method"], sort=True):
        h = _mean_headline(f"{family} {method}", group["chebyshev"], "settings", str(dpath))
        rows.append({"family": family, "method": method, "chebyshev": h.estimate, "low": h.low, "high": h.high,
                     "n": h.n})
    reason = "" if any(h.label.startswith("StaA") for h in headlines) else (
        "no stated answers for this model in the card run (the study asks instruct models for them)")
    return Panel("revealed_belief", STUDY_TITLES["revealed_belief"], OK, reason=reason, headlines=tuple(headlines),
                 detail=pd.DataFrame(rows, columns=["family", "method", "chebyshev", "low", "high", "n"]),
                 sources=(str(dpath), str(compare_path)))


# ------------------------------------------------------------------------------------------------------- probes
PROBE_ORDER = ("No-Question", "No-Right-Answer", "Wrong-Question")
BENCHMARK_KEYS = {"socialiqa": "siqa"}
COMMONSENSE = ("anli", "hellaswag", "piqa", "siqa")  # the paper tables' benchmark names -> the robustness matrix's


def _model_rows(frame: pd.DataFrame, model: str) -> pd.DataFrame:
    """Rows of ``model``: its own name, else its first seed's label (``<model> seed N``)."""
    names = frame["model"].astype(str)
    exact = frame[names == model]
    if len(exact):
        return exact
    seeded = sorted(n for n in names.unique() if n.startswith(f"{model} seed "))
    return frame[names == seeded[0]] if seeded else exact


def probes_panel(root: str | Path, model: str) -> Panel:
    """Pseudo-accuracy minus chance under No-Question, No-Right-Answer, Wrong-Question and Choice Paralysis per
    benchmark (exact 95 % intervals from the robustness matrix; a cell whose interval covers zero is greyed); the
    competence gate's verdict; the paper's Table 1 numbers."""
    path = table_path(root, "probes", "robustness_matrix")
    m = _model_rows(_read(path), model)
    if m.empty:
        raise ValueError(f"{path}: no rows for {model!r}")
    if m["method"].nunique() > 1:  # a causal model: the letter scorer is the card's (one number per cell)
        method = "letter_prob" if "letter_prob" in set(m["method"]) else sorted(m["method"].unique())[0]
        m = m[m["method"] == method]
    probe = m["probe"].astype(str)
    m = m.assign(probe_group=probe.where(~probe.str.startswith("cp "), "Choice Paralysis (" + probe.str[3:] + ")"))
    detail = pd.DataFrame({"benchmark": m["benchmark"].astype(str), "probe": m["probe_group"],
                           "shift": m["minus_chance"].astype(float), "low": m["ci95_low"].astype(float),
                           "high": m["ci95_high"].astype(float), "n": m["instances"].astype(int),
                           "grey": m["covers_zero"].astype(bool)}).reset_index(drop=True)
    headlines = []
    # the headline means are over the commonsense benchmarks (the paper's); the detail keeps every benchmark run
    commonsense = m[m["benchmark"].astype(str).str.lower().isin(COMMONSENSE)]
    m_all, m = m, (commonsense if len(commonsense) else m)
    for group in PROBE_ORDER:
        rows = m[m["probe_group"] == group]
        if len(rows) == 1:  # one benchmark: its own exact interval over its instances
            r = rows.iloc[0]
            headlines.append(Headline(f"{group}: pseudo-accuracy minus chance, {r['benchmark']}",
                                      float(r["minus_chance"]), float(r["ci95_low"]), float(r["ci95_high"]),
                                      int(r["instances"]), "instances", str(path), 0.0))
        elif len(rows):
            headlines.append(_mean_headline(f"{group}: pseudo-accuracy minus chance, mean over benchmarks",
                                            rows["minus_chance"], "benchmarks", str(path), 0.0,
                                            note=f"{int(rows['instances'].sum())} instances in all"))
    cp = m[m["probe_group"].str.startswith("Choice Paralysis")]
    if len(cp):
        headlines.append(_mean_headline("Choice Paralysis: hits minus chance, mean over benchmarks and settings",
                                        cp["minus_chance"], "cells", str(path), 0.0))
    compare_path = table_path(root, "probes", "compare_paper")
    sources = [str(path)]
    if compare_path.is_file():
        compare = _read(compare_path)
        wq = compare[compare["quantity"].astype(str) == "WQ pseudo-accuracy"].drop_duplicates("benchmark")
        wq_rows = m[m["probe_group"] == "Wrong-Question"]
        chance = dict(zip(wq_rows["benchmark"].astype(str).str.lower(), wq_rows["chance"].astype(float),
                          strict=False))
        # the paper's WQ pseudo-accuracy on the card's scale: minus the benchmark's chance (bias-free) level
        key = {b: BENCHMARK_KEYS.get(str(b).lower(), str(b).lower()) for b in wq["benchmark"]}
        paper = tuple((f"RoBERTa, {r.benchmark}", float(r.paper) - chance[key[r.benchmark]])
                      for r in wq.itertuples() if _finite(r.paper) and key[r.benchmark] in chance)
        headlines = [Headline(**{**h.__dict__, "paper": paper}) if h.label.startswith("Wrong-Question") else h
                     for h in headlines]
        sources.append(str(compare_path))
    verdicts = sorted({str(v) for v in m.get("model_competence", pd.Series(dtype=str)).dropna() if str(v)})
    flags = tuple(f"probes: {v}" for v in verdicts if "not" in v or "below" in v)
    caption = (f"pseudo-accuracy minus chance per benchmark and probe, {m_all['model'].iloc[0]}, scorer "
               f"{m_all['method'].iloc[0]}; exact 95 % intervals; grey: the interval covers zero")
    return Panel("probes", STUDY_TITLES["probes"], OK, headlines=tuple(headlines), detail=detail, flags=flags,
                 sources=tuple(sources), extra={"detail_caption": caption})


# ---------------------------------------------------------------------------------------------- scoring methods
def scoring_methods_panel(root: str | Path, model: str, coder_min_kappa: float) -> Panel:
    """Accuracy per method over the pragmatics conditions (exact intervals, chance beside), the fit to the human
    data per method and score (log-likelihood, the paper's Fig. 3 quantity), the free-generation coder's agreement
    with the authors' hand codes, flagged below ``coder_min_kappa``."""
    path = table_path(root, "scoring_methods", "table_numbers")
    t = _read(path)
    fig2 = t[(t["figure"] == "fig2") & (t["model"].astype(str) == model)]
    if fig2.empty:
        raise ValueError(f"{path}: no Fig. 2 rows for {model!r}")
    headlines, flags = [], []
    for method, group in fig2.groupby("method", sort=True):
        k, n = int(group["k"].sum()), int(group["n"].sum())
        if n == 0:
            continue
        chance = float((group["chance"] * group["n"]).sum() / n)
        h = _binomial(f"{method}: accuracy over the pragmatics conditions", k, n, str(path), chance,
                      note=f"chance {chance:.2f}; {group['condition'].nunique()} conditions")
        headlines.append(h)
        if h.covers_reference:
            flags.append(f"scoring methods: {method} accuracy's interval covers chance ({chance:.2f})")
    fig3 = t[(t["figure"] == "fig3") & (t["model"].astype(str) == model)]
    fit = pd.DataFrame({"method": fig3["method"].astype(str), "score": fig3["score"].astype(str),
                        "loglik": fig3["loglik"].astype(float),
                        "n_conditions": fig3["n_conditions"].astype("Int64")})
    sources = [str(path)]
    human = t[(t["figure"] == "fig2") & (t["method"] == "human")]
    if len(human):
        k, n = int(human["k"].sum()), int(human["n"].sum())
        headlines.append(_binomial("humans (the paper's data): accuracy over the same conditions", k, n, str(path),
                                   None))
    free_path = table_path(root, "scoring_methods", "free_accuracy")
    if free_path.is_file():
        free = _read(free_path)
        free = free[free["model"].astype(str) == model]
        coded = free.dropna(subset=["coder_target_kappa"]).drop_duplicates("condition")
        if len(coded):
            h = _mean_headline("free-generation coder: target-vs-not kappa with the authors' hand codes, mean over "
                               "conditions", coded["coder_target_kappa"], "conditions", str(free_path),
                               note=f"{int(coded['agreement_n'].sum())} hand-coded generations; "
                                    f"bar {coder_min_kappa:.2f} (cards.coder_min_kappa)")
            headlines.append(h)
            if h.estimate < coder_min_kappa:
                flags.append(f"scoring methods: the free-generation coder's kappa {h.estimate:.2f} is below its bar "
                             f"{coder_min_kappa:.2f}: free-generation accuracy rests on a weak coder")
        sources.append(str(free_path))
    caption = ("fit to the human data: log-likelihood of the humans' choices under each method and score's choice "
               "distribution, summed over the conditions (the paper's Fig. 3; higher is better); its table gives no "
               "interval")
    return Panel("scoring_methods", STUDY_TITLES["scoring_methods"], OK, headlines=tuple(headlines), detail=fit,
                 flags=tuple(flags), sources=tuple(sources), extra={"detail_caption": caption})


# ---------------------------------------------------------------------------------------------------------- bets
def bets_panel(root: str | Path, model: str) -> Panel:
    """Table 5 (value questions): accuracy per stage and template with exact intervals against the study's chance,
    the paper's models' percentages from its comparison table."""
    path = table_path(root, "bets", "table5")
    t = _read(path)
    names = t["model"].astype(str)
    # the model's row: its own, else its mean over seeds, else (one seed configured) its only seed's
    unique = list(names.unique())
    label = next((n for n in unique if n == model or n.startswith(f"{model} mean of")), None)
    if label is None:
        label = next((n for n in unique if n.startswith(f"{model}__seed")), None)
    if label is None:
        raise ValueError(f"{path}: no rows for {model!r}")
    rows = t[names == label]
    compare_path = table_path(root, "bets", "compare_paper")
    compare = _read(compare_path) if compare_path.is_file() else pd.DataFrame()
    headlines, flags = [], []
    for r in rows.itertuples():
        paper = ()
        if len(compare):
            c = compare[(compare["table"] == "table5") & (compare["stage"] == r.stage)
                        & (compare["condition"] == r.condition)].drop_duplicates("paper_model")
            paper = tuple((str(p.paper_model), float(p.paper_percent) / 100) for p in c.itertuples()
                          if _finite(p.paper_percent))
        h = _binomial(f"{r.stage}, {r.condition}: accuracy on {r.split} questions ({r.ground_truth})", int(r.hits),
                      int(r.n), str(path), float(r.p0), paper, note=f"chance {float(r.p0):.2f}; {label}")
        headlines.append(h)
        if h.covers_reference:
            flags.append(f"bets: {r.stage} {r.condition} accuracy's interval covers chance ({float(r.p0):.2f})")
    sources = (str(path), str(compare_path)) if len(compare) else (str(path),)
    return Panel("bets", STUDY_TITLES["bets"], OK, headlines=tuple(headlines), flags=tuple(flags), sources=sources)


BUILDERS: dict[str, Callable[..., Panel]] = {
    "steer": steer_panel,
    "revealed_belief": revealed_belief_panel,
    "probes": probes_panel,
    "scoring_methods": scoring_methods_panel,
    "bets": bets_panel,
}


def build_panels(root: str | Path, model: str, studies: Sequence[str], skipped: Mapping[str, str],
                 failures: Mapping[str, str], kwargs: Mapping[str, Mapping[str, Any]] | None = None) -> list[Panel]:
    """Every study's panel for ``model``: built from its tables, skipped (with the reason), or failed (the card run
    did not build its tables, or they hold nothing for the model: the error says which file). One panel's failure
    never stops the others."""
    panels = []
    for study in STUDY_ORDER:
        title = STUDY_TITLES[study]
        if study in skipped:
            panels.append(Panel(study, title, SKIPPED, reason=skipped[study]))
        elif study in failures:
            panels.append(Panel(study, title, FAILED, reason=failures[study]))
        elif study in studies:
            try:
                panels.append(BUILDERS[study](root, model, **dict((kwargs or {}).get(study, {}))))
            except (FileNotFoundError, ValueError, KeyError) as error:
                panels.append(Panel(study, title, FAILED, reason=f"{type(error).__name__}: {error}"))
    return panels
