"""STEER's card panel: normalized accuracy overall and per module (0-shot, intervals clustered by template), the
report-card grades under the shipped rubrics, the cognitive-bias SRC beside the paper's GPT rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab.card_entry import (
    OK,
    CardEntry,
    Headline,
    Panel,
    PerItem,
    chance_flags,
    finite,
    item_values,
    read_table,
    table_path,
)
from choicelab.studies.steer import report
from choicelab.studies.steer.adaptations import UNADAPTED, of_label
from choicelab.studies.steer.artifacts import ARTIFACTS
from choicelab.studies.steer.items import taxonomy as tx
from choicelab.studies.steer.metrics import metric_interval, summarize

TITLE = "STEER: economic rationality"


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

    row = summarize(questions, [])
    low, high = metric_interval(row, "normalized_accuracy")
    r = float(row["random_accuracy"].iloc[0])
    return Headline(label, float(row["normalized_accuracy"].iloc[0]), float(low.iloc[0]), float(high.iloc[0]),
                    int(row["n_clusters"].iloc[0]), "templates", source, 0.0, tuple(paper),
                    note=f"{int(row['n_questions'].iloc[0])} questions; (acc - r) / r with r = {r:.3f} the random "
                         f"accuracy{note}", interval="of the accuracy clustered by template, carried through")


def steer_panel(root: str | Path, model: str, rubrics: Mapping[str, Any] | None = None, taxonomy: Any = None) -> Panel:
    """Normalized accuracy overall and per module (0-shot) with exact intervals; the report-card letter under each
    rubric (:func:`.report.compute_report_card` with the ``taxonomy``); the cognitive-bias SRC beside the paper's
    GPT rows; the paper's Table 3 models on the same scale."""
    qpath = Path(root) / "steer" / "metrics" / "questions.parquet"
    questions = read_table(qpath)
    questions = questions[questions["model"].astype(str) == model]
    if questions.empty:
        raise ValueError(f"{qpath}: no questions scored for {model!r}")
    adaptation = plain_adaptation(list(questions["adaptation"].astype(str).unique()))
    q = questions[questions["adaptation"].astype(str) == adaptation]
    compare_path = table_path(root, "steer", ARTIFACTS, "compare_paper")
    compare = read_table(compare_path)
    table3 = compare[compare["comparison"].astype(str).str.startswith("Table 3: whole benchmark, no adaptation")]
    paper = tuple((str(r.paper_model), float(r.paper_normalized_accuracy))
                  for r in table3.drop_duplicates("paper_model").itertuples() if finite(r.paper_normalized_accuracy))
    headlines = [normalized_headline("normalized accuracy, whole benchmark (0-shot)", q, str(qpath), paper)]
    rows = []
    for module, group in q.groupby("module", sort=True):
        h = normalized_headline(str(module), group, str(qpath))
        rows.append({"module": str(module), "normalized_accuracy": h.estimate, "low": h.low, "high": h.high,
                     "templates": h.n, "questions": len(group)})
    detail = pd.DataFrame(rows, columns=["module", "normalized_accuracy", "low", "high", "templates", "questions"])
    caption = (f"normalized accuracy per module, {adaptation}; 95 % intervals of the accuracy clustered by template, "
               f"carried through")
    titles = compare["comparison"].dropna().astype(str).unique()
    for title in sorted(t for t in titles if t.startswith("Cognitive Bias SRC")):
        ours = compare[(compare["comparison"] == title) & (compare["our_model"].astype(str) == model)]
        if ours.empty or not finite(ours["our_normalized_accuracy"].iloc[0]):
            continue
        row = ours.iloc[0]
        src_paper = tuple((str(p.paper_model), float(p.paper_normalized_accuracy))
                          for p in compare[compare["comparison"] == title].drop_duplicates("paper_model").itertuples()
                          if finite(p.paper_normalized_accuracy))
        headlines.append(Headline(title, float(row["our_normalized_accuracy"]), float(row["our_low"]),
                                  float(row["our_high"]), int(row["our_n_elements"]), "elements", str(compare_path),
                                  0.0, src_paper, interval="t over elements",
                                  note=f"module mean over elements, {int(row['our_n_questions'])} questions"))
    grades = []
    for name, rubric in (rubrics or {}).items():
        card = report.compute_report_card(questions, taxonomy, rubric, model=model, adaptation=adaptation)
        grades.append({"rubric": name, "letter": card.letter, "score": card.score, "metric": card.metric,
                       "n": card.n_questions})
    flags = chance_flags("STEER", headlines[:1], "0 (random guessing)")
    return Panel("steer", TITLE, OK, headlines=tuple(headlines), detail=detail, flags=tuple(flags),
                 sources=(str(qpath), str(compare_path)),
                 extra={"grades": pd.DataFrame(grades, columns=["rubric", "letter", "score", "metric", "n"]),
                        "adaptation": adaptation, "detail_caption": caption})


def panel_options(cards: Mapping[str, Any]) -> dict[str, Any]:
    """The shipped rubrics and the taxonomy the report card grades by (:mod:`.report`, used as it is)."""
    return {"rubrics": {name: report.load_rubric(path) for name, path in report.shipped_rubrics().items()},
            "taxonomy": tx.load_taxonomy(tx.DEFAULT_TAXONOMY_PATH, tx.DEFAULT_DEPENDENCIES_PATH)}


def _questions_file(root: Path, model: str) -> list[Path]:
    return [Path(root) / "steer" / "metrics" / "questions.parquet"]


def _questions_per_item(root: Path, model: str) -> dict[str, pd.DataFrame]:
    """The model's 0-shot answers, one per question, clustered by template (the index compares models on them)."""
    path = _questions_file(root, model)[0]
    if not path.is_file():
        return {}
    q = pd.read_parquet(path)
    q = q[q["model"].astype(str) == model]
    if q.empty:
        return {}
    q = q[q["adaptation"].astype(str) == plain_adaptation(list(q["adaptation"].astype(str).unique()))]
    return {"STEER accuracy, whole benchmark (0-shot)": item_values(q["item_id"], q["correct"], q["template_id"])}


CARD = CardEntry(
    title=TITLE,
    axis="normalized accuracy (acc - r) / r: 0 = random guessing, 1 = every answer right (higher is better)",
    tables=("compare_paper",),
    panel=steer_panel,
    models={"causal": ("models",)},
    skips={"encoder": "STEER scores answer options by next-token probabilities of a causal model"},
    scale_keys=("scale.n_per_test", "adaptations", "adaptation_questions"),
    options=panel_options,
    # the card run's longest job (118 s of CPU for SmolLM2 at the card scale, docs/cards.md) starts first, so the
    # other studies' jobs fill the second core beside it
    priority="steer_score",
    per_item=(PerItem(True, "templates", _questions_file, _questions_per_item),),
)
