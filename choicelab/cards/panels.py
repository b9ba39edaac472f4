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

from choicelab.stats import clustered_mean, t_interval
from choicelab.studies.steer.adaptations import UNADAPTED, of_label

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
    quantity: str = ""  # what the number measures where a panel mixes quantities ("kappa"): drawn on its own axis

    @property
    def covers_reference(self) -> bool:
        """The interval covers the reference (chance, or zero for a shift): the number is not told from it."""
        return self.reference is not None and self.low <= self.reference <= self.high

    @property
    def below_reference(self) -> bool:
        """The whole interval lies below the reference: worse than chance (or than zero)."""
        return self.reference is not None and self.high < self.reference


def chance_flags(study: str, headlines: Sequence[Headline], reference: str = "chance ({:.2f})",
                 consequence: str = "") -> tuple[str, ...]:
    """A competence flag for every headline whose interval covers its reference (not told from guessing) or lies
    below it (worse than guessing); ``reference`` names the reference (formatted with its value)."""
    flags = []
    for h in headlines:
        if h.reference is None:
            continue
        where, name = f"{h.estimate:.2f} [{h.low:.2f}, {h.high:.2f}], n = {h.n} {h.unit}", reference.format(h.reference)
        if h.below_reference:
            flags.append(f"{study}: {h.label} {where} lies below {name}{consequence}")
        elif h.covers_reference:
            flags.append(f"{study}: {h.label} {where}: its interval covers {name}{consequence}")
    return tuple(flags)


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


def _mean_headline(label: str, values: Sequence[float], unit: str, source: str, reference: float | None = None,
                   paper=(), note="") -> Headline:
    values = [float(v) for v in values if _finite(v)]
    if not values:
        raise ValueError(f"{source}: no values for {label!r}")
    mean, low, high = t_interval(values)  # a mean over a handful of elements, seeds or benchmarks: t, not 1.96 SE
    return Headline(label, mean, low, high, len(values), unit, source, reference, tuple(paper), note)


# ------------------------------------------------------------------------------------------------------------ STEER
def plain_adaptation(adaptations: Sequence[str]) -> str:
    """The no-adaptation run (0-shot, no self-explanation), read by STEER's one adaptation parser: the run the card
    reports."""
    for name in adaptations:
        if of_label(name) == UNADAPTED:
            return name
    raise ValueError(f"STEER: no 0-shot adaptation among {sorted(adaptations)}; the card reports the plain run")


def normalized_headline(label: str, questions: pd.DataFrame, source: str, paper=(), note: str = "") -> Headline:
    """STEER's normalized accuracy (acc - r) / r of ``questions`` with the accuracy's interval clustered by template
    (the unit the questions were sampled in: :func:`choicelab.studies.steer.metrics.summarize`) carried through;
    n counts templates."""
    from choicelab.studies.steer.metrics import metric_interval, summarize

    row = summarize(questions, [])
    low, high = metric_interval(row, "normalized_accuracy")
    r = float(row["random_accuracy"].iloc[0])
    return Headline(label, float(row["normalized_accuracy"].iloc[0]), float(low.iloc[0]), float(high.iloc[0]),
                    int(row["n_clusters"].iloc[0]), "templates", source, 0.0, tuple(paper),
                    note=f"{int(row['n_questions'].iloc[0])} questions; (acc - r) / r with r = {r:.3f} the random "
                         f"accuracy{note}")


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
    headlines = [normalized_headline("normalized accuracy, whole benchmark (0-shot)", q, str(qpath), paper)]
    rows = []
    for module, group in q.groupby("module", sort=True):
        h = normalized_headline(str(module), group, str(qpath))
        rows.append({"module": str(module), "normalized_accuracy": h.estimate, "low": h.low, "high": h.high,
                     "templates": h.n, "questions": len(group)})
    detail = pd.DataFrame(rows, columns=["module", "normalized_accuracy", "low", "high", "templates", "questions"])
    caption = (f"normalized accuracy per module, {adaptation}; 95 % intervals of the accuracy clustered by template, "
               f"carried through")
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
    flags = chance_flags("STEER", headlines[:1], "0 (random guessing)")
    return Panel("steer", STUDY_TITLES["steer"], OK, headlines=tuple(headlines), detail=detail, flags=tuple(flags),
                 sources=(str(qpath), str(compare_path)),
                 extra={"grades": pd.DataFrame(grades, columns=["rubric", "letter", "score", "metric", "n"]),
                        "adaptation": adaptation, "detail_caption": caption})


# ---------------------------------------------------------------------------------------------- revealed belief
def _scenario_headline(label: str, rows: pd.DataFrame, column: str, source: str,
                       reference: float | None = None) -> Headline:
    """The mean of ``column`` over settings with its interval clustered by scenario (family and variant: its settings
    repeat it with other parameters); n counts scenarios."""
    scenario = rows["family"].astype(str) + "/" + rows["variant"].astype(str)
    m = clustered_mean(rows[column].astype(float), scenario.tolist())
    return Headline(label, m.mean, m.low, m.high, m.n_clusters, "scenarios", source, reference,
                    note=f"{m.n} settings, clustered by scenario")


def revealed_belief_panel(root: str | Path, model: str) -> Panel:
    """RevB and StaA Chebyshev errors (mean over settings, 95 % interval clustered by scenario), their paired
    difference where both were scored, per scenario family; the paper's Llama-3-70B on the same appendix rows."""
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
            headlines.append(_scenario_headline(label + ", all settings", rows, "chebyshev", str(dpath)))
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
    wide = d.pivot_table(index=["setting_id", "family", "variant"], columns="method", values="chebyshev",
                         aggfunc="mean").reset_index()
    if {"revealed", "stated"} <= set(wide.columns):
        both = wide.dropna(subset=["revealed", "stated"])
        if len(both):
            headlines.append(_scenario_headline("StaA minus RevB error, paired by setting",
                                                both.assign(diff=both["stated"] - both["revealed"]), "diff",
                                                str(dpath), reference=0.0))
    rows = []
    for (family, method), group in d.groupby(["family", "method"], sort=True):
        h = _scenario_headline(f"{family} {method}", group, "chebyshev", str(dpath))
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


ORIGINAL = "original (accuracy)"  # the robustness matrix's row of the unprobed items


def probes_panel(root: str | Path, model: str) -> Panel:
    """Pseudo-accuracy minus chance under No-Question, No-Right-Answer, Wrong-Question and Choice Paralysis per
    benchmark (95 % intervals clustered by original item, from the robustness matrix; a cell whose interval covers
    zero is greyed); a competence flag on every benchmark whose original accuracy is not above chance (probe
    statistics of a model at chance are not interpretable), and the fine-tuned encoders' gate verdict; the paper's
    Table 1 numbers."""
    path = table_path(root, "probes", "robustness_matrix")
    m = _model_rows(_read(path), model)
    if m.empty:
        raise ValueError(f"{path}: no rows for {model!r}")
    if m["method"].nunique() > 1:  # a causal model: the letter scorer is the card's (one number per cell)
        method = "letter_prob" if "letter_prob" in set(m["method"]) else sorted(m["method"].unique())[0]
        m = m[m["method"] == method]
    probe = m["probe"].astype(str)
    m = m.assign(probe_group=probe.where(~probe.str.startswith("cp "), "Choice Paralysis (" + probe.str[3:] + ")"),
                 low=m["clustered_low"].astype(float), high=m["clustered_high"].astype(float))
    cells = [Headline(f"{r.probe_group}, {r.benchmark}", float(r.minus_chance), float(r.low), float(r.high),
                      int(r.n_clusters), "original items", str(path), 0.0) for r in m.itertuples()]
    detail = pd.DataFrame({"benchmark": m["benchmark"].astype(str), "probe": m["probe_group"],
                           "minus_chance": m["minus_chance"].astype(float), "low": m["low"], "high": m["high"],
                           "original_items": m["n_clusters"].astype(int),
                           "grey": [h.covers_reference for h in cells]}).reset_index(drop=True)
    originals = [Headline(f"original accuracy minus chance, {h.label.split(', ', 1)[1]}", h.estimate, h.low, h.high,
                          h.n, h.unit, h.source, 0.0) for h, g in zip(cells, m["probe_group"], strict=True)
                 if g == ORIGINAL]
    flags = list(chance_flags("probes", originals, "chance (0 on this scale)",
                              ": probe statistics of this benchmark are not interpretable"))
    headlines = []
    # the headline means are over the commonsense benchmarks (the paper's); the detail keeps every benchmark run
    commonsense = m[m["benchmark"].astype(str).str.lower().isin(COMMONSENSE)]
    m_all, m = m, (commonsense if len(commonsense) else m)
    for group in PROBE_ORDER:
        rows = m[m["probe_group"] == group]
        if len(rows) == 1:  # one benchmark: its own interval, clustered by original item
            r = rows.iloc[0]
            headlines.append(Headline(f"{group}: pseudo-accuracy minus chance, {r['benchmark']}",
                                      float(r["minus_chance"]), float(r["low"]), float(r["high"]),
                                      int(r["n_clusters"]), "original items", str(path), 0.0))
        elif len(rows):
            headlines.append(_mean_headline(f"{group}: pseudo-accuracy minus chance, mean over benchmarks",
                                            rows["minus_chance"], "benchmarks", str(path), 0.0,
                                            note=f"{int(rows['n_clusters'].sum())} original items in all"))
    cp = m[m["probe_group"].str.startswith("Choice Paralysis")]
    if len(cp):
        headlines.append(_mean_headline("Choice Paralysis: hits minus chance, mean over benchmarks and settings",
                                        cp["minus_chance"], "cells", str(path), 0.0))
    headlines += originals
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
    flags += [f"probes: the fine-tuned checkpoint's competence gate: {v}" for v in verdicts
              if "not" in v or "below" in v]
    caption = (f"pseudo-accuracy minus chance per benchmark and probe, {m_all['model'].iloc[0]}, scorer "
               f"{m_all['method'].iloc[0]}; 95 % intervals clustered by original item; grey: the interval covers "
               f"zero")
    return Panel("probes", STUDY_TITLES["probes"], OK, headlines=tuple(headlines), detail=detail,
                 flags=tuple(flags), sources=tuple(sources), extra={"detail_caption": caption})


# ---------------------------------------------------------------------------------------------- scoring methods
def _clustered(label: str, row: Any, source: str, reference: float | None, unit: str, paper=(),
               note: str = "") -> Headline:
    """A table row's accuracy with the interval clustered by its sampled unit (``clustered_low``/``_high``); n counts
    those units (``n_clusters``), each once."""
    return Headline(label, float(row["accuracy"]), float(row["clustered_low"]), float(row["clustered_high"]),
                    int(row["n_clusters"]), unit, source, reference, tuple(paper), note)


def scoring_methods_panel(root: str | Path, model: str, coder_min_kappa: float) -> Panel:
    """Accuracy per method over the pragmatics conditions (the table's ``overall`` rows: every version of an item
    counted once as its item, the interval clustered by item; chance beside), the humans' accuracy (responses,
    clustered by item) per condition, the fit to the human data per method and score (log-likelihood, the paper's
    Fig. 3 quantity, pooled label sets only), the free-generation coder's agreement with the authors' hand codes,
    flagged below ``coder_min_kappa``."""
    path = table_path(root, "scoring_methods", "table_numbers")
    t = _read(path)
    pooled = t["label_set"].fillna("").astype(str).isin(["", "pooled"])  # "alpha"/"numeric" repeat the same items
    overall = t[(t["figure"] == "overall") & (t["model"].astype(str) == model) & pooled]
    if overall.empty:
        raise ValueError(f"{path}: no overall rows for {model!r} (the scoring-methods tables predate them: rerun "
                         f"sm_tables)")
    human = t[(t["figure"] == "fig2") & (t["method"] == "human")
              & t["condition"].isin(t[(t["figure"] == "fig2") & (t["model"].astype(str) == model)]["condition"])]
    human_point = (("humans (the paper's data)",
                    float(human["k"].sum() / human["n"].sum())),) if len(human) else ()
    headlines = [_clustered(f"{r['method']}: accuracy over the pragmatics conditions", r, str(path),
                            float(r["chance"]), "items", human_point,
                            note=f"chance {float(r['chance']):.2f}; {int(r['n'])} item versions, clustered by item")
                 for _, r in overall.iterrows()]
    flags = list(chance_flags("scoring methods", headlines))
    humans = pd.DataFrame({"condition": human["condition"].astype(str), "accuracy": human["accuracy"].astype(float),
                           "low": human["clustered_low"].astype(float), "high": human["clustered_high"].astype(float),
                           "responses": human["n"].astype(int), "items": human["n_clusters"].astype("Int64")})
    fig3 = t[(t["figure"] == "fig3") & (t["model"].astype(str) == model) & pooled]
    fit = pd.DataFrame({"method": fig3["method"].astype(str), "score": fig3["score"].astype(str),
                        "loglik": fig3["loglik"].astype(float),
                        "n_conditions": fig3["n_conditions"].astype("Int64")})
    sources = [str(path)]
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
            h = Headline(**{**h.__dict__, "quantity": "kappa"})
            headlines.append(h)
            if h.estimate < coder_min_kappa:
                flags.append(f"scoring methods: the free-generation coder's kappa {h.estimate:.2f} is below its bar "
                             f"{coder_min_kappa:.2f}: free-generation accuracy rests on a weak coder")
        sources.append(str(free_path))
    caption = ("fit to the human data: log-likelihood of the humans' choices under each method and score's choice "
               "distribution, summed over the conditions (the paper's Fig. 3; higher is better); its table gives no "
               "interval")
    humans_caption = ("the humans' accuracy per condition (the paper's data): n counts responses, the 95 % interval "
                      "is clustered by item (participants answer the same items)")
    return Panel("scoring_methods", STUDY_TITLES["scoring_methods"], OK, headlines=tuple(headlines), detail=fit,
                 flags=tuple(flags), sources=tuple(sources),
                 extra={"detail_caption": caption, "tables": ((humans_caption, humans),)})


# ---------------------------------------------------------------------------------------------------------- bets
def bets_panel(root: str | Path, model: str) -> Panel:
    """Table 5 (value questions): accuracy per stage and template against the study's chance (a checkpoint's 95 %
    interval clustered by item pair, a mean over seeds' t interval over them), the paper's models' percentages from
    its comparison table."""
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
    headlines = []
    for _, r in rows.iterrows():
        paper = ()
        if len(compare):
            c = compare[(compare["table"] == "table5") & (compare["stage"] == r["stage"])
                        & (compare["condition"] == r["condition"])].drop_duplicates("paper_model")
            paper = tuple((str(p.paper_model), float(p.paper_percent) / 100) for p in c.itertuples()
                          if _finite(p.paper_percent))
        label_ = f"{r['stage']}, {r['condition']}: accuracy on {r['split']} questions ({r['ground_truth']})"
        chance = float(r["p0"])
        if _finite(r.get("ci95_low_seeds")):  # a mean over seeds: its t interval over the seeds
            headlines.append(Headline(label_, float(r["accuracy_percent"]) / 100, float(r["ci95_low_seeds"]),
                                      float(r["ci95_high_seeds"]), int(r["seeds"]), "seeds", str(path), chance,
                                      paper, note=f"chance {chance:.2f}; {label}; t interval over seeds"))
        else:  # one checkpoint: the interval clustered by item pair
            headlines.append(Headline(label_, float(r["accuracy_percent"]) / 100,
                                      float(r["clustered_low_percent"]) / 100, float(r["clustered_high_percent"]) / 100,
                                      int(r["n_clusters"]), "item pairs", str(path), chance, paper,
                                      note=f"chance {chance:.2f}; {label}; {int(r['n'])} questions, clustered by "
                                           f"item pair"))
    flags = chance_flags("bets", headlines)
    sources = (str(path), str(compare_path)) if len(compare) else (str(path),)
    return Panel("bets", STUDY_TITLES["bets"], OK, headlines=tuple(headlines), flags=flags, sources=sources)


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
