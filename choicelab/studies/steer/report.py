"""STEER report cards: a user rubric (YAML) applied to per-question results -> an HTML page and a PNG (paper Fig. 4).

A rubric says *which* questions count (grade range, domains, settings/modules/elements), *how* they are scored
(metric, model, adaptation), how scores are *combined* (weights per setting/module/element; default 1, 0 excludes)
and how scores become *letter grades* (cut-offs). Schema (every key but ``name`` and ``metric`` is optional)::

    name: Rational across the board
    description: free text
    metric: gap_closed            # accuracy | normalized_accuracy | gap_closed | random_gap | calibration
                                  # | domain_robustness   (all "higher is better"; see docs/steer_metrics.md)
    model: null                   # model name in the metrics frame; null = the frame's only model
    adaptation: null              # adaptation label (score-frame variant); null = the unadapted run
    filters:
      grades: [1, 13]             # inclusive [min, max], 1 <= min <= max <= 13
      domains: all                # "all" or a list of domains
      settings: all               # "all" or a list of setting ids ("1".."4")
      modules: all                # "all" or a list of module ids ("2.4")
      elements: all               # "all" or a list of element ids ("irds")
    weights:
      settings: {"1": 1.0}        # id -> weight >= 0; missing ids weigh 1
      modules: {}
      elements: {}
    grade_cutoffs: {A: 0.75, B: 0.5, C: 0.25, D: 0.0}   # letter -> minimum score; best letter that is met wins
    fail_grade: F                 # letter below every cut-off
    drilldown: "3"                # setting shown element by element in the PNG's right pane (default: lowest score)
    min_questions: 30             # a letter from fewer questions is marked (default 30)
    insufficient_below: 10        # fewer questions get no letter: "insufficient data" (default 10)

Cut-offs must lie on the metric's scale (:data:`METRIC_SCALES`, checked when the rubric is loaded): accuracy,
calibration and domain robustness run 0..1, gap closed and random gap -1..1. The paper's normalized accuracy
(acc - r)/r has no fixed top (k - 1 for k options: 1 for Yes/No questions, 2 for three options), so the same
cut-off would mean different things for different elements: a rubric on it gets scores without letters, and
cut-offs on it are refused. Every letter says how many questions it rests on; one resting on fewer than
``min_questions`` is marked (a dagger in the HTML, an asterisk on the PNG), one resting on fewer than
``insufficient_below`` gets no letter at all but "insufficient data" ("?" on the PNG), and the page lists the
questions per grade level.

Scores: element = the metric over the element's filtered questions; module = weighted mean of its scored
elements; setting = weighted mean of its modules; overall = weighted mean of the settings.
"""

from __future__ import annotations

import argparse
import html
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from choicelab import plotting
from choicelab.io import write_text
from choicelab.studies.steer import DATA
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer.adaptations import UNADAPTED, of_label
from choicelab.studies.steer.items import taxonomy as tx

MIN_GRADE, MAX_GRADE = 1, 13
TOP_LEVEL_KEYS = ("name", "description", "metric", "model", "adaptation", "filters", "weights", "grade_cutoffs",
                  "fail_grade", "drilldown", "min_questions", "insufficient_below")
FILTER_KEYS = ("grades", "domains", "settings", "modules", "elements")
WEIGHT_KEYS = ("settings", "modules", "elements")
# the Rubric field that holds each weights key
WEIGHT_FIELDS = {"settings": "setting_weights", "modules": "module_weights", "elements": "element_weights"}
METRIC_LABELS = {
    "accuracy": "Exact-match accuracy",
    "normalized_accuracy": "Normalized accuracy (acc - r)/r",
    "gap_closed": "Gap closed (acc - r)/(1 - r)",
    "random_gap": "Random gap (acc - r)",
    "calibration": "Calibration (1 - ECE)",
    "domain_robustness": "Domain robustness (worst-domain accuracy)",
}
DEFAULT_CUTOFFS = (("A", 0.75), ("B", 0.5), ("C", 0.25), ("D", 0.0))
# The range of each gradable metric (None: no fixed scale, so no letter grades). gap_closed reaches -1 with two options
# and accuracy 0; random_gap = acc - r lies in [-1/2, 1).
METRIC_SCALES: dict[str, tuple[float, float] | None] = {
    "accuracy": (0.0, 1.0),
    "calibration": (0.0, 1.0),
    "domain_robustness": (0.0, 1.0),
    "gap_closed": (-1.0, 1.0),
    "random_gap": (-1.0, 1.0),
    "normalized_accuracy": None,
}
DEFAULT_MIN_QUESTIONS = 30
DEFAULT_INSUFFICIENT_BELOW = 10  # a score from fewer questions gets no letter
INSUFFICIENT = "insufficient data"
RUBRIC_DIR = DATA / "rubrics"

# element status values
SCORED, OUTSIDE_FILTER, NO_DATA, EXCLUDED = "scored", "outside_filter", "no_data", "weight_zero"


# ------------------------------------------------------------------------------------------------------- the rubric
@dataclass(frozen=True)
class Rubric:
    name: str
    metric: str
    description: str = ""
    model: str | None = None
    adaptation: str | None = None
    grades: tuple[int, int] = (MIN_GRADE, MAX_GRADE)
    domains: tuple[str, ...] | None = None  # None = all
    settings: tuple[str, ...] | None = None
    modules: tuple[str, ...] | None = None
    elements: tuple[str, ...] | None = None
    setting_weights: Mapping[str, float] = field(default_factory=dict, hash=False)
    module_weights: Mapping[str, float] = field(default_factory=dict, hash=False)
    element_weights: Mapping[str, float] = field(default_factory=dict, hash=False)
    grade_cutoffs: tuple[tuple[str, float], ...] = DEFAULT_CUTOFFS  # best letter first
    fail_grade: str = "F"
    drilldown: str | None = None
    min_questions: int = DEFAULT_MIN_QUESTIONS
    source: str = "<rubric>"
    insufficient_below: int = DEFAULT_INSUFFICIENT_BELOW

    def __post_init__(self) -> None:
        scale = METRIC_SCALES.get(self.metric)
        if scale is None and self.grade_cutoffs:
            raise _err(self.source, "grade_cutoffs", f"cannot grade {self.metric}: it has no fixed scale")
        if scale is not None:
            outside = [(lt, m) for lt, m in self.grade_cutoffs if not scale[0] <= m <= scale[1]]
            if outside:
                raise _err(self.source, f"grade_cutoffs.{outside[0][0]}",
                           f"is {outside[0][1]:g}, outside the scale of {self.metric} ({scale[0]:g} to {scale[1]:g})")

    def letter(self, score: float) -> str:
        """Letter grade of ``score``: the first (best) cut-off it meets, else ``fail_grade``; "-" for no score or
        a rubric without cut-offs (a metric with no fixed scale)."""
        if score is None or not math.isfinite(score) or not self.grade_cutoffs:
            return "-"
        for letter, minimum in self.grade_cutoffs:
            if score >= minimum:
                return letter
        return self.fail_grade

    def graded(self, score: float, n_questions: int) -> str:
        """:meth:`letter`, or :data:`INSUFFICIENT` where a letter would rest on fewer than ``insufficient_below``
        questions."""
        letter = self.letter(score)
        return INSUFFICIENT if letter != "-" and n_questions < self.insufficient_below else letter


def _err(source: str, key: str, problem: str) -> ValueError:
    return ValueError(f"rubric {source}: {key!r} {problem}")


def _id_list(value: Any, key: str, source: str) -> tuple[str, ...] | None:
    if value is None or value == "all":
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value:
        raise _err(source, key, f"must be \"all\" or a non-empty list of ids, got {value!r}")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise _err(source, key, f"must list ids (strings), got {v!r}")
        out.append(_id_text(v))
    return tuple(out)


def _id_text(v: Any) -> str:
    """YAML reads ``2.4`` as a float and ``3`` as an int; ids are strings ("2.4", "3")."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _weights(value: Any, key: str, source: str) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(source, key, f"must be a mapping id -> weight, got {type(value).__name__} {value!r}")
    out = {}
    for k, w in value.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise _err(source, f"{key}.{k}", f"must be a number >= 0, got {w!r}")
        out[_id_text(k)] = float(w)
    return out


def _check_keys(doc: Mapping, allowed: Sequence[str], where: str, source: str) -> None:
    unknown = [k for k in doc if k not in allowed]
    if unknown:
        raise ValueError(f"rubric {source}: unknown key {where}{unknown[0]!r}; allowed keys: {list(allowed)}")


def _header(doc: Any, source: str) -> tuple[str, str]:
    """The rubric's ``name`` and ``metric``, after checking the top level's keys and its scalar values."""
    if not isinstance(doc, dict):
        raise ValueError(f"rubric {source}: top level must be a mapping of keys {list(TOP_LEVEL_KEYS)}, "
                         f"got {type(doc).__name__}")
    _check_keys(doc, TOP_LEVEL_KEYS, "", source)
    for key in ("name", "metric"):
        if key not in doc:
            raise _err(source, key, "is required")
    name, metric = doc["name"], doc["metric"]
    if not isinstance(name, str) or not name.strip():
        raise _err(source, "name", f"must be a non-empty string, got {name!r}")
    if metric not in sm.GRADABLE_METRICS:
        raise _err(source, "metric", f"must be one of {list(sm.GRADABLE_METRICS)}, got {metric!r}")
    for key in ("description", "model", "adaptation", "fail_grade", "drilldown"):
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
            raise _err(source, key, f"must be a string, got {type(value).__name__} {value!r}")
    return name, metric


def _section(doc: Mapping, key: str, allowed: Sequence[str], source: str) -> Mapping:
    """The mapping under ``key`` (``filters``, ``weights``; empty when absent), its keys checked."""
    section = doc.get(key) or {}
    if not isinstance(section, dict):
        raise _err(source, key, f"must be a mapping with keys {list(allowed)}, got {section!r}")
    _check_keys(section, allowed, f"{key}.", source)
    return section


def _grade_range(filters: Mapping, source: str) -> tuple[int, int]:
    """``filters.grades``: [min, max] (or one grade), by default every grade."""
    grades = filters.get("grades", [MIN_GRADE, MAX_GRADE])
    if isinstance(grades, int) and not isinstance(grades, bool):
        grades = [grades, grades]
    if (not isinstance(grades, list) or len(grades) != 2
            or not all(isinstance(g, int) and not isinstance(g, bool) for g in grades)
            or not MIN_GRADE <= grades[0] <= grades[1] <= MAX_GRADE):
        raise _err(source, "filters.grades",
                   f"must be [min, max] integers with {MIN_GRADE} <= min <= max <= {MAX_GRADE}, got {grades!r}")
    return grades[0], grades[1]


def _grade_cutoffs(cutoffs_doc: Any, metric: str, source: str) -> tuple[tuple[str, float], ...]:
    """``grade_cutoffs`` as (letter, minimum) pairs, highest minimum first, each within the metric's scale; the
    default cut-offs when absent (none for a metric without a fixed scale, which cannot be graded)."""
    scale = METRIC_SCALES[metric]
    if scale is None and cutoffs_doc is not None:
        raise _err(source, "grade_cutoffs", f"cannot grade {metric}: it has no fixed scale ((acc - r)/r tops out at "
                                            "k - 1 for k options, 1 for Yes/No, 2 for three options), so one cut-off "
                                            "means different things for different elements; grade on gap_closed "
                                            "((acc - r)/(1 - r), 1 = perfect) or leave grade_cutoffs out for scores "
                                            "without letters")
    if cutoffs_doc is None:
        return DEFAULT_CUTOFFS if scale is not None else ()
    if not isinstance(cutoffs_doc, dict) or not cutoffs_doc:
        raise _err(source, "grade_cutoffs", f"must be a non-empty mapping letter -> minimum score, "
                                            f"got {cutoffs_doc!r}")
    pairs = []
    for letter, minimum in cutoffs_doc.items():
        if isinstance(minimum, bool) or not isinstance(minimum, (int, float)) or not math.isfinite(minimum):
            raise _err(source, f"grade_cutoffs.{letter}", f"must be a finite number, got {minimum!r}")
        pairs.append((str(letter), float(minimum)))
    mins = [m for _, m in pairs]
    if len(set(mins)) != len(mins):
        raise _err(source, "grade_cutoffs", f"has two letters with the same minimum score: {cutoffs_doc}")
    cutoffs = tuple(sorted(pairs, key=lambda p: -p[1]))
    lo, hi = scale
    outside = [(letter, m) for letter, m in cutoffs if not lo <= m <= hi]
    if outside:
        letter, m = outside[0]
        raise _err(source, f"grade_cutoffs.{letter}", f"is {m:g}, outside the scale of {metric} ({lo:g} to "
                                                      f"{hi:g}): the cut-offs must fit the metric they grade")
    return cutoffs


def _question_counts(doc: Mapping, source: str) -> tuple[int, int]:
    """``min_questions`` and ``insufficient_below`` (from 1 to min_questions)."""
    min_questions = doc.get("min_questions", DEFAULT_MIN_QUESTIONS)
    if isinstance(min_questions, bool) or not isinstance(min_questions, int) or min_questions < 1:
        raise _err(source, "min_questions", f"must be an integer >= 1, got {min_questions!r}")
    insufficient_below = doc.get("insufficient_below", min(DEFAULT_INSUFFICIENT_BELOW, min_questions))
    if (isinstance(insufficient_below, bool) or not isinstance(insufficient_below, int)
            or not 1 <= insufficient_below <= min_questions):
        raise _err(source, "insufficient_below", f"must be an integer from 1 to min_questions ({min_questions}), "
                                                 f"got {insufficient_below!r}")
    return min_questions, insufficient_below


def parse_rubric(doc: Any, source: str = "<rubric>") -> Rubric:
    """Validate a parsed rubric document; errors name the file and the bad key."""
    name, metric = _header(doc, source)
    filters = _section(doc, "filters", FILTER_KEYS, source)
    grades = _grade_range(filters, source)
    weights = _section(doc, "weights", WEIGHT_KEYS, source)
    cutoffs = _grade_cutoffs(doc.get("grade_cutoffs"), metric, source)
    min_questions, insufficient_below = _question_counts(doc, source)
    fail_grade = str(doc.get("fail_grade", "F"))
    if fail_grade in {letter for letter, _ in cutoffs}:
        raise _err(source, "fail_grade", f"{fail_grade!r} is also a letter in grade_cutoffs")

    def opt_str(key: str) -> str | None:
        v = doc.get(key)
        return None if v is None else _id_text(v)

    return Rubric(
        name=name.strip(), metric=metric, description=str(doc.get("description") or "").strip(),
        model=opt_str("model"), adaptation=opt_str("adaptation"), grades=grades,
        **{k: _id_list(filters.get(k), f"filters.{k}", source) for k in ("domains", "settings", "modules", "elements")},
        **{WEIGHT_FIELDS[k]: _weights(weights.get(k), f"weights.{k}", source) for k in WEIGHT_KEYS},
        grade_cutoffs=cutoffs, fail_grade=fail_grade, drilldown=opt_str("drilldown"), min_questions=min_questions,
        source=source, insufficient_below=insufficient_below,
    )


def load_rubric(path: str | Path) -> Rubric:
    """Read and validate a rubric YAML file; malformed YAML raises ``ValueError`` naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"rubric file {path} not found")
    text = path.read_text(encoding="utf-8")
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"rubric {path}: malformed YAML{where}: {problem}") from exc
    return parse_rubric(doc, source=str(path))


def check_rubric_ids(rubric: Rubric, taxonomy: Any) -> None:
    """Raise ``ValueError`` if the rubric names settings/modules/elements/domains the taxonomy does not have."""
    known = {
        "settings": {s.id for s in taxonomy.settings},
        "modules": {m.id for m in taxonomy.modules},
        "elements": {e.id for e in taxonomy.elements},
        "domains": {d for e in taxonomy.elements for d in e.domains},
    }
    # checked in this order: the filters, the weights, the drill-down setting
    named = {f"filters.{k}": (k, getattr(rubric, k) or ()) for k in ("settings", "modules", "elements", "domains")}
    named |= {f"weights.{k}": (k, tuple(getattr(rubric, WEIGHT_FIELDS[k]))) for k in WEIGHT_KEYS}
    named["drilldown"] = ("settings", (rubric.drilldown,) if rubric.drilldown else ())
    for key, (kind, ids) in named.items():
        bad = [i for i in ids if i not in known[kind]]
        if bad:
            raise ValueError(f"rubric {rubric.source}: {key!r} names unknown {kind} {bad}; "
                             f"known: {sorted(known[kind])}")


# -------------------------------------------------------------------------------------------------- the report card
@dataclass(frozen=True)
class ElementScore:
    id: str
    code: str
    name: str
    score: float
    letter: str
    n_questions: int
    weight: float
    status: str  # scored | outside_filter (grade range or domains) | no_data | weight_zero
    reason: str = ""


@dataclass(frozen=True)
class _GroupScore:
    id: str
    name: str
    score: float
    letter: str
    n_questions: int
    weight: float


@dataclass(frozen=True)
class ModuleScore(_GroupScore):
    elements: tuple[ElementScore, ...]


@dataclass(frozen=True)
class SettingScore(_GroupScore):
    modules: tuple[ModuleScore, ...]


@dataclass(frozen=True)
class ReportCard:
    rubric: Rubric
    model: str
    adaptation: str
    metric: str
    grades: tuple[int, int]
    domains: tuple[str, ...]  # domains present in the scored questions
    score: float
    letter: str
    n_questions: int
    settings: tuple[SettingScore, ...]
    questions_per_grade: tuple[tuple[int, int], ...] = ()  # (grade level, scored questions) of the graded elements

    def few(self, letter: str, n_questions: int) -> bool:
        """Whether a letter rests on fewer questions than the rubric's ``min_questions`` (shown marked)."""
        return letter not in ("-", INSUFFICIENT) and n_questions < self.rubric.min_questions

    @property
    def drilldown_setting(self) -> SettingScore | None:
        if not self.settings:
            return None
        if self.rubric.drilldown:
            for s in self.settings:
                if s.id == self.rubric.drilldown:
                    return s
        scored = [s for s in self.settings if math.isfinite(s.score)]
        return min(scored, key=lambda s: s.score) if scored else self.settings[0]


def _weighted_mean(pairs: Sequence[tuple[float, float]]) -> float:
    usable = [(v, w) for v, w in pairs if w > 0 and v is not None and math.isfinite(v)]
    total = sum(w for _, w in usable)
    return sum(v * w for v, w in usable) / total if total > 0 else math.nan


def element_metric(questions: pd.DataFrame, metric: str) -> float:
    """One element's score under ``metric`` from its (filtered) per-question rows."""
    if questions.empty:
        return math.nan
    if metric == "domain_robustness":
        return float(questions.groupby("domain")["correct"].mean().min())
    summary = sm.summarize_questions(questions["correct"], questions["random_accuracy"], questions["top_prob"])
    if metric == "calibration":
        return 1.0 - summary["ece"]
    return float(summary[metric])


def _element_score(el: Any, rows: pd.DataFrame, rubric: Rubric) -> ElementScore:
    """Taxonomy element ``el``'s score over its filtered questions ``rows``, or why it has none."""
    lo, hi = rubric.grades
    weight = rubric.element_weights.get(el.id, 1.0)
    status, reason = SCORED, ""
    if el.max_grade < lo or el.min_grade > hi:
        status, reason = OUTSIDE_FILTER, f"grades {el.min_grade}-{el.max_grade} outside {lo}-{hi}"
    elif rubric.domains is not None and not set(el.domains) & set(rubric.domains):
        status, reason = OUTSIDE_FILTER, f"no questions in domains {', '.join(rubric.domains)}"
    elif rows.empty:
        status, reason = NO_DATA, "no scored questions in the metrics frame"
    elif weight == 0:
        status, reason = EXCLUDED, "weight 0 in the rubric"
    score = element_metric(rows, rubric.metric) if status == SCORED else math.nan
    n = int(len(rows))
    return ElementScore(el.id, el.code, el.name, score, rubric.graded(score, n), n, weight, status, reason)


def _pick(values: Sequence[str], wanted: str | None, kind: str, rubric: Rubric) -> str:
    values = sorted(values)
    if wanted is not None:
        if wanted not in values:
            raise ValueError(f"rubric {rubric.source}: {kind} {wanted!r} is not in the metrics frame; "
                             f"present: {values}")
        return wanted
    if len(values) == 1:
        return values[0]
    if kind == "adaptation":
        plain = [v for v in values if of_label(v) == UNADAPTED]
        if len(plain) == 1:
            return plain[0]
    raise ValueError(f"rubric {rubric.source}: the metrics frame has several {kind}s {values}; "
                     f"set {kind!r} in the rubric (or pass --{kind})")


def card_model(rubric: Rubric, study_models: Sequence[str]) -> str:
    """The model a workflow report card is about: the rubric's ``model``, else the study's first model.

    A run scores several models; a rubric that names none gets the first of ``studies.steer.models``."""
    if rubric.model is not None:
        return rubric.model
    if not study_models:
        raise ValueError(f"rubric {rubric.source}: names no model and the study has no models")
    return study_models[0]


def compute_report_card(metrics_frame: pd.DataFrame, taxonomy: Any, rubric: Rubric,
                        model: str | None = None, adaptation: str | None = None) -> ReportCard:
    """Apply ``rubric`` to a per-question frame (:func:`choicelab.studies.steer.metrics.per_question_results`).

    ``model`` / ``adaptation`` override the rubric's. ``taxonomy`` is a
    ``choicelab.studies.steer.items.taxonomy.Taxonomy`` (anything with ``settings``, ``modules``, ``elements`` of
    that shape).
    """
    sm.check_question_frame(metrics_frame, "metrics frame")
    check_rubric_ids(rubric, taxonomy)
    if metrics_frame.empty:
        raise ValueError("metrics frame has no rows")
    chosen_model = _pick(metrics_frame["model"].astype(str).unique(), model or rubric.model, "model", rubric)
    frame = metrics_frame[metrics_frame["model"].astype(str) == chosen_model]
    frame = frame.assign(adaptation=frame["adaptation"].fillna("").astype(str))
    chosen_adaptation = _pick(frame["adaptation"].unique(), adaptation or rubric.adaptation, "adaptation", rubric)
    frame = frame[frame["adaptation"] == chosen_adaptation]
    frame = frame[(frame["grade"] >= rubric.grades[0]) & (frame["grade"] <= rubric.grades[1])]
    if rubric.domains is not None:
        frame = frame[frame["domain"].isin(rubric.domains)]
    by_element = dict(tuple(frame.groupby("element", sort=False)))

    def selected(el: Any) -> bool:
        return ((rubric.settings is None or el.setting_id in rubric.settings)
                and (rubric.modules is None or el.module_id in rubric.modules)
                and (rubric.elements is None or el.id in rubric.elements))

    settings: list[SettingScore] = []
    for st in taxonomy.settings:
        modules: list[ModuleScore] = []
        for mid in st.module_ids:
            mod = taxonomy.module(mid)
            elements = [_element_score(el, by_element.get(el.id, frame.iloc[0:0]), rubric)
                        for el in map(taxonomy.element, mod.element_ids) if selected(el)]
            if not elements:
                continue
            m_score = _weighted_mean([(e.score, e.weight) for e in elements])
            m_n = sum(e.n_questions for e in elements if e.status == SCORED)
            modules.append(ModuleScore(mid, mod.name, m_score, rubric.graded(m_score, m_n), m_n,
                                       rubric.module_weights.get(mid, 1.0), tuple(elements)))
        if not modules:
            continue
        s_score = _weighted_mean([(m.score, m.weight) for m in modules])
        s_n = sum(m.n_questions for m in modules if m.weight > 0)
        settings.append(SettingScore(st.id, st.name, s_score, rubric.graded(s_score, s_n), s_n,
                                     rubric.setting_weights.get(st.id, 1.0), tuple(modules)))
    if not settings:
        raise ValueError(f"rubric {rubric.source}: its filters select no element of the taxonomy")
    overall = _weighted_mean([(s.score, s.weight) for s in settings])
    scored_ids = {e.id for s in settings for m in s.modules for e in m.elements if e.status == SCORED}
    used = frame[frame["element"].isin(scored_ids)]
    per_grade = tuple((int(g), int(n)) for g, n in used.groupby("grade").size().items())
    return ReportCard(rubric, chosen_model, chosen_adaptation, rubric.metric, rubric.grades,
                      tuple(sorted(used["domain"].unique())), overall, rubric.graded(overall, int(len(used))),
                      int(len(used)), tuple(settings), per_grade)


# ----------------------------------------------------------------------------------------------------- rendering
def format_score(metric: str, value: float) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    if metric in ("accuracy", "calibration", "domain_robustness"):
        return f"{100 * value:.1f}%"
    return f"{value:+.3f}"


def letter_colour(card: ReportCard, letter: str) -> str:
    """Hex colour of a letter grade: green (best cut-off) to red (fail); grey for no score."""
    letters = [lt for lt, _ in card.rubric.grade_cutoffs] + [card.rubric.fail_grade]
    if letter not in letters:
        return "#bdbdbd"
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    pos = letters.index(letter) / max(len(letters) - 1, 1)
    return to_hex(colormaps["RdYlGn"](0.9 - 0.8 * pos))


def _inputs(card: ReportCard) -> list[tuple[str, str]]:
    return [
        ("Grade range", f"{card.grades[0]}–{card.grades[1]}"),
        ("Domains", "All" if card.rubric.domains is None else ", ".join(card.rubric.domains)),
        ("Metric", METRIC_LABELS[card.metric]),
        ("Model", card.model),
        ("Adaptation", card.adaptation or "none"),
    ]


_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{margin-bottom:0}.sub{color:#666;margin-top:4px}
table{border-collapse:collapse;margin:8px 0 18px 0}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}
th{background:#f3f3f3}.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;min-width:1.6em;text-align:center;border-radius:4px;padding:1px 6px;font-weight:bold}
.omitted{color:#999}.omitted del{color:#999}.module td{font-weight:bold;background:#fafafa}
section{margin-bottom:24px}dl{display:grid;grid-template-columns:max-content auto;gap:4px 16px}dt{font-weight:bold}
"""


def _html_badge(card: ReportCard, letter: str, n: int) -> str:
    """A letter on its colour, marked &dagger; when graded from fewer questions than the rubric wants."""
    e = html.escape
    mark = ""
    if card.few(letter, n):
        mark = (f'<sup class="few" title="graded from {n} questions, fewer than '
                f'{card.rubric.min_questions}">&dagger;</sup>')
    return f'<span class="badge" style="background:{letter_colour(card, letter)}">{e(letter)}</span>{mark}'


def _html_cells(card: ReportCard, x: Any) -> str:
    """The weight, questions, score and grade cells of a scored setting, module or element's row."""
    return (f'<td class="num">{x.weight:g}</td><td class="num">{x.n_questions}</td>'
            f'<td class="num">{html.escape(format_score(card.metric, x.score))}</td>'
            f"<td>{_html_badge(card, x.letter, x.n_questions)}</td>")


def _html_inputs(card: ReportCard) -> list[str]:
    """The title, the description and the inputs section: what was graded and how."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>STEER report card: {e(card.rubric.name)} ({e(card.model)})</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>STEER report card: {e(card.rubric.name)}</h1>"]
    if card.rubric.description:
        out.append(f'<p class="sub">{e(card.rubric.description)}</p>')
    out.append('<section id="inputs"><h2>Inputs</h2><dl>')
    for k, v in _inputs(card):
        out.append(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>")
    if card.rubric.grade_cutoffs:
        cut = ", ".join(f"{lt} &ge; {m:g}" for lt, m in card.rubric.grade_cutoffs)
        out.append(f"<dt>Grade cut-offs</dt><dd>{cut}; otherwise {e(card.rubric.fail_grade)}</dd>")
    else:
        out.append(f"<dt>Grade cut-offs</dt><dd>none: {e(METRIC_LABELS[card.metric])} has no fixed scale, so scores "
                   "are shown without letters</dd>")
    out.append(f"<dt>Fewest questions for a letter</dt><dd>{card.rubric.insufficient_below} (fewer: "
               f"&ldquo;{INSUFFICIENT}&rdquo;, no letter); a letter from fewer than {card.rubric.min_questions} is "
               "marked &dagger;</dd>")
    out.append(f"<dt>Rubric file</dt><dd>{e(Path(card.rubric.source).name)}</dd></dl></section>")
    return out


def _html_summary(card: ReportCard) -> list[str]:
    """The overall section: the card's score and letter, questions per grade level, one row per setting."""
    e = html.escape
    out = ['<section id="summary"><h2>Overall</h2>']
    out.append(f"<p>Score {e(format_score(card.metric, card.score))} {_html_badge(card, card.letter, card.n_questions)}"
               f" over {card.n_questions} questions in domains {e(', '.join(card.domains) or 'none')}.</p>")
    few = [el for s in card.settings for m in s.modules for el in m.elements
           if el.status == SCORED and card.few(el.letter, el.n_questions)]
    if few:
        out.append(f'<p class="few-note">&dagger; {len(few)} element letters rest on fewer than '
                   f"{card.rubric.min_questions} questions (as few as {min(el.n_questions for el in few)}): "
                   "too few for a letter to be told apart from its neighbours; read them as indications.</p>")
    out.append('<table id="questions-per-grade"><tr><th>Grade level</th>'
               + "".join(f'<th class="num">{g}</th>' for g, _ in card.questions_per_grade)
               + '</tr><tr><td>Questions</td>'
               + "".join(f'<td class="num">{n}</td>' for _, n in card.questions_per_grade) + "</tr></table>")
    out.append('<table><tr><th>Setting</th><th class="num">Weight</th><th class="num">Questions</th>'
               '<th class="num">Score</th><th>Grade</th></tr>')
    for s in card.settings:
        out.append(f'<tr><td><a href="#setting-{e(s.id)}">{e(s.id)} {e(s.name)}</a></td>{_html_cells(card, s)}</tr>')
    out.append("</table></section>")
    return out


def _html_element_row(card: ReportCard, el: ElementScore) -> str:
    """An element's row: its score and letter, or, omitted, greyed (crossed out when outside the filters) with why."""
    e = html.escape
    label = f"{e(el.code)} {e(el.name)}"
    if el.status == SCORED:
        return f"<tr><td>&nbsp;&nbsp;{label}</td>{_html_cells(card, el)}<td></td></tr>"
    shown = f"<del>{label}</del>" if el.status == OUTSIDE_FILTER else label
    return (f'<tr class="omitted" data-status="{e(el.status)}"><td>&nbsp;&nbsp;{shown}</td>'
            f'<td class="num">{el.weight:g}</td><td class="num">{el.n_questions}</td>'
            f'<td class="num">n/a</td><td>-</td><td>{e(el.reason)}</td></tr>')


def _html_settings(card: ReportCard) -> list[str]:
    """One table per setting: its modules, each followed by its elements."""
    e = html.escape
    out = ['<section id="settings"><h2>Settings, modules and elements</h2>']
    for s in card.settings:
        out.append(f'<div id="setting-{e(s.id)}"><h3>{e(s.id)} {e(s.name)}: '
                   f'{e(format_score(card.metric, s.score))} {_html_badge(card, s.letter, s.n_questions)}</h3>')
        out.append('<table><tr><th>Module / element</th><th class="num">Weight</th><th class="num">Questions</th>'
                   '<th class="num">Score</th><th>Grade</th><th>Note</th></tr>')
        for m in s.modules:
            out.append(f'<tr class="module"><td>{e(m.id)} {e(m.name)}</td>{_html_cells(card, m)}<td></td></tr>')
            out += [_html_element_row(card, el) for el in m.elements]
        out.append("</table></div>")
    out.append("</section>")
    return out


def render_html(card: ReportCard) -> str:
    """A self-contained HTML page (inline CSS, no scripts or external assets) for ``card``."""
    e = html.escape
    out = _html_inputs(card) + _html_summary(card) + _html_settings(card)
    omitted = [el for s in card.settings for m in s.modules for el in m.elements if el.status != SCORED]
    out.append(f'<section id="omitted"><h2>Omitted elements ({len(omitted)})</h2>')
    if omitted:
        out.append("<ul>" + "".join(f"<li>{e(el.code)} {e(el.name)}: {e(el.reason)}</li>" for el in omitted)
                   + "</ul>")
    else:
        out.append("<p>None.</p>")
    out.append("</section></body></html>")
    return "\n".join(out) + "\n"


def _png_badge(card: ReportCard, ax: Any, x: float, y: float, letter: str, n: int, size: float = 11) -> None:
    """A letter on its colour at (x, y) of ``ax`` ("?" when too few questions), starred when from few."""
    ax.text(x, y, "?" if letter == INSUFFICIENT else letter, ha="center", va="center", fontsize=size,
            fontweight="bold",
            bbox={"boxstyle": "round,pad=0.25", "facecolor": letter_colour(card, letter), "edgecolor": "none"})
    if card.few(letter, n):
        ax.text(x + 0.04, y - 0.25, "*", ha="left", va="center", fontsize=size, color="#b00000")


def _png_scored(card: ReportCard, ax: Any, y: float, x: Any, size: float, badge_size: float) -> None:
    """A setting, module or element's score and question count right-aligned at row ``y``, its letter beside."""
    ax.text(0.83, y, f"{format_score(card.metric, x.score)} (n={x.n_questions})", fontsize=size, va="center",
            ha="right")
    _png_badge(card, ax, 0.93, y, x.letter, x.n_questions, badge_size)


def _png_axes(fig: Any, n_lines: int) -> list[Any]:
    """The card's three panels, ``n_lines`` rows tall, top row first, framed in grey."""
    axes = [fig.add_axes(rect) for rect in ((0.01, 0.02, 0.2, 0.9), (0.23, 0.02, 0.38, 0.9),
                                            (0.63, 0.02, 0.36, 0.9))]
    for ax in axes:
        ax.set_xlim(0, 1)
        ax.set_ylim(0, n_lines)
        ax.invert_yaxis()
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_edgecolor("#999999")
    return axes


def _png_inputs(card: ReportCard, left: Any) -> None:
    """Left panel: the inputs, then the overall score and letter with the legend of the marks."""
    left.set_facecolor("#f6f6f6")
    y = 0.8
    for k, v in _inputs(card):
        left.text(0.06, y, k, fontsize=10, fontweight="bold", va="center")
        left.text(0.06, y + 0.4, _wrap(v, 34), fontsize=10, va="top")
        y += 1.2 + _rows(v, 34) * ROW_STEP
    left.text(0.06, y, "Overall", fontsize=10, fontweight="bold", va="center")
    left.text(0.06, y + 0.7, format_score(card.metric, card.score), fontsize=14, va="center")
    _png_badge(card, left, 0.8, y + 0.7, card.letter, card.n_questions, 16)
    left.text(0.06, y + 1.5, f"{card.n_questions} questions", fontsize=9, color="#555555", va="center")
    left.text(0.06, y + 2.3, f"* letter from fewer than {card.rubric.min_questions} questions", fontsize=8,
              color="#b00000", va="center")
    left.text(0.06, y + 2.9, f"? {INSUFFICIENT}: fewer than {card.rubric.insufficient_below}", fontsize=8,
              color="#555555", va="center")


def _png_settings(card: ReportCard, mid: Any) -> None:
    """Middle panel: each setting on a shaded band, its modules below it."""
    from matplotlib.patches import Rectangle

    y = 0.8
    for s in card.settings:
        name = f"{s.id} {s.name}"
        mid.add_patch(Rectangle((0.01, y - 0.45), 0.98, 0.9 + (_rows(name, 52) - 1), color="#e8eef7", zorder=0))
        mid.text(0.03, y - 0.3, _wrap(name, 52), fontsize=11, fontweight="bold", va="top")
        _png_scored(card, mid, y, s, 10, 11)
        y += _rows(name, 52)
        for m in s.modules:
            mid.text(0.07, y - 0.3, _wrap(f"{m.id} {m.name}", 50), fontsize=9.5, va="top")
            _png_scored(card, mid, y, m, 9.5, 9.5)
            y += _rows(f"{m.id} {m.name}", 50)
        y += 0.3


def _png_drilldown(card: ReportCard, right: Any) -> list[Any]:
    """Right panel: the drill-down setting's modules and elements, omitted ones grey; returns the texts of the
    elements outside the filters, to be crossed out once drawn."""
    drill = card.drilldown_setting
    strikes = []
    if drill is None:
        return strikes
    y = 0.8
    right.text(0.03, y - 0.3, _wrap(f"{drill.id} {drill.name}", 50), fontsize=11, fontweight="bold", va="top")
    _png_badge(card, right, 0.93, y, drill.letter, drill.n_questions)
    y += 0.2 + _rows(f"{drill.id} {drill.name}", 50)
    for m in drill.modules:
        right.text(0.03, y - 0.3, _wrap(f"{m.id} {m.name}", 54), fontsize=9.5, fontweight="bold", va="top")
        _png_badge(card, right, 0.93, y, m.letter, m.n_questions, 9.5)
        y += _rows(f"{m.id} {m.name}", 54)
        for el in m.elements:
            grey = el.status != SCORED
            txt = right.text(0.07, y - 0.3, _wrap(f"{el.code} {el.name}", 52), fontsize=9, va="top",
                             color="#999999" if grey else "#222222")
            if el.status == OUTSIDE_FILTER:
                strikes.append(txt)
            if grey:
                right.text(0.83, y, "—", fontsize=9, va="center", ha="right", color="#999999")
            else:
                _png_scored(card, right, y, el, 9, 8.5)
            y += _rows(f"{el.code} {el.name}", 52)
    return strikes


def _strike_through(fig: Any, ax: Any, texts: Sequence[Any]) -> None:
    """A grey line through each of ``texts`` (drawn first, to know where they lie)."""
    if not texts:
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inv = ax.transData.inverted()
    for txt in texts:
        bbox = txt.get_window_extent(renderer=renderer)
        (x0, y_mid), (x1, _) = inv.transform([(bbox.x0, (bbox.y0 + bbox.y1) / 2),
                                              (bbox.x1, (bbox.y0 + bbox.y1) / 2)])
        ax.plot([x0, x1], [y_mid, y_mid], color="#777777", linewidth=1)


def render_png(card: ReportCard, path: str | Path, dpi: int = 150) -> Path:
    """Draw ``card`` like the paper's Fig. 4: inputs | settings and modules | drill-down of one setting."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drill = card.drilldown_setting
    # a long name wraps onto more lines of its row (none is cut): the rows' heights count them
    n_mid = sum(_rows(f"{s.id} {s.name}", 52) + sum(_rows(f"{m.id} {m.name}", 50) for m in s.modules)
                for s in card.settings) + 2
    n_right = (sum(_rows(f"{m.id} {m.name}", 54) + sum(_rows(f"{e.code} {e.name}", 52) for e in m.elements)
                   for m in drill.modules) + 2) if drill else 2
    n_lines = max(n_mid, n_right, 12)
    line_h = 0.32
    fig = plt.figure(figsize=(16, max(4.5, n_lines * line_h + 1.2)))
    fig.suptitle(f"STEER report card: {card.rubric.name}", fontsize=15, fontweight="bold", x=0.01, ha="left")
    left, mid, right = _png_axes(fig, n_lines)
    _png_inputs(card, left)
    _png_settings(card, mid)
    _strike_through(fig, right, _png_drilldown(card, right))
    return plotting.save_png(fig, path, dpi=dpi)


ROW_STEP = 0.7  # rows of the card a wrapped line of 9-11 pt text takes (a row: 0.32 inch)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(str(text), width, break_on_hyphens=False) or [""])


def _rows(text: str, width: int) -> float:
    """Rows of the card ``text`` wrapped to ``width`` characters takes: one, and :data:`ROW_STEP` per extra line."""
    return 1 + ROW_STEP * (_wrap(text, width).count("\n"))


# ----------------------------------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="choicelab report-card",
                                description="Render a STEER report card from a rubric and per-question results.")
    p.add_argument("--rubric", required=True, help="rubric YAML (see data/steer/rubrics/)")
    p.add_argument("--metrics", required=True,
                   help="per-question Parquet from choicelab.studies.steer.metrics.per_question_results")
    p.add_argument("--out-html", required=True)
    p.add_argument("--out-png", required=True)
    p.add_argument("--model", default=None, help="override the rubric's model")
    p.add_argument("--adaptation", default=None, help="override the rubric's adaptation")
    p.add_argument("--taxonomy", default=None, help="taxonomy YAML (default data/steer/taxonomy.yaml)")
    p.add_argument("--dependencies", default=None, help="dependencies YAML (default data/steer/dependencies.yaml)")
    return p


def write_report_card(frame: pd.DataFrame, taxonomy: Any, rubric: Rubric, html_path: str | Path,
                      png_path: str | Path, model: str | None = None, adaptation: str | None = None) -> ReportCard:
    """Compute the report card of ``rubric`` on the question frame and write its HTML page and PNG card."""
    card = compute_report_card(frame, taxonomy, rubric, model=model, adaptation=adaptation)
    write_text(html_path, render_html(card))
    render_png(card, png_path)
    return card


def report_card_main(argv: Sequence[str] | None = None) -> int:
    """``choicelab report-card --rubric R.yaml --metrics M.parquet --out-html X --out-png Y``; returns 0."""
    args = build_parser().parse_args(argv)
    rubric = load_rubric(args.rubric)
    metrics_path = Path(args.metrics)
    if not metrics_path.is_file():
        raise ValueError(f"metrics file {metrics_path} not found")
    frame = pd.read_parquet(metrics_path)
    taxonomy = tx.load_taxonomy(args.taxonomy or tx.DEFAULT_TAXONOMY_PATH,
                                args.dependencies or tx.DEFAULT_DEPENDENCIES_PATH)
    write_report_card(frame, taxonomy, rubric, args.out_html, args.out_png, model=args.model,
                      adaptation=args.adaptation)
    return 0


def shipped_rubrics() -> dict[str, Path]:
    """The ready rubrics in data/steer/rubrics/, by file stem."""
    return {p.stem: p for p in sorted(RUBRIC_DIR.glob("*.yaml"))}


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(report_card_main())


__all__ = [
    "ElementScore", "ModuleScore", "ReportCard", "Rubric", "SettingScore", "card_model", "check_rubric_ids",
    "compute_report_card",
    "element_metric", "load_rubric", "parse_rubric", "render_html", "render_png", "report_card_main",
    "shipped_rubrics", "write_report_card",
]
