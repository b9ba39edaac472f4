"""STEER (Raman et al.): the paper's tables and figures, computed from our per-question results.

Every function takes the per-question frame of :func:`choicelab.studies.steer.metrics.per_question_results` (columns
model, adaptation, element, module, setting, domain, grade, correct, top_prob, random_accuracy, ...) and, where the
taxonomy matters, a ``Taxonomy`` from :mod:`choicelab.studies.steer.items.taxonomy` or its dependency ``edges``.

Paper artefact -> function:

- Table 3 (average normalized and exact-match accuracy per model, no adaptation): :func:`table3`,
  compared with the transcription in ``data/steer/paper/table3.csv`` by :func:`compare_paper`.
- Fig. 4 (example report card: GPT-3.5 Turbo, all domains, grades 2-8, one in-context example, drill-down into
  multi-agent): :func:`plot_example_report_card`.
- Fig. 5 (dependency subgraph of IRDS): :func:`plot_figure5` / :func:`plot_dependency_subgraph`.
- Figs 7-15 and 17-21 (per-module report cards, normalized accuracy per element per model):
  :func:`plot_module_report_card`, :func:`plot_all_module_figures`; module -> figure number in
  :data:`MODULE_FIGURES` (Fig. 16 is the game-representation illustration, not a report card; modules 3.3-3.5 and
  4.3-4.4 have no figure in the paper).
- Fig. 22 (top: performance by grade per model with the random-guess line; bottom: worst-domain vs average per
  element-model pair): :func:`plot_grade_and_domain_robustness`.
- Few-shot effect (Sec. 5: helps up to 3 examples) and self-explanation effect (GPT-4 certainty effect
  0.079 -> 0.508): :func:`few_shot_table` / :func:`plot_few_shot_effect`, :func:`self_explanation_table` /
  :func:`self_explanation_by_element` / :func:`plot_self_explanation_effect`, each adaptation on the questions its
  0-shot baseline answered (:func:`paired_questions`); the numbers the text quotes: :func:`compare_element_quotes`.
- Tables 1-2 (models): :func:`models_table`; the head-to-head comparison (Sec. 5): :func:`head_to_head`; which
  normalized-accuracy definition Table 3 fits: :func:`paper_definition_fit`.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from choicelab.studies.steer import DATA
from choicelab.studies.steer import metrics as sm

PAPER_TABLE3 = DATA / "paper" / "table3.csv"

# Module id -> figure number of its report card in the paper (section 4 of the arXiv version).
MODULE_FIGURES: dict[str, int] = {
    "1.1": 7,   # Arithmetic
    "1.2": 8,   # Optimization
    "1.3": 9,   # Probability
    "1.4": 10,  # Logic
    "1.5": 11,  # Theory of Mind
    "2.1": 12,  # Axioms of Utility in Deterministic Environments
    "2.2": 13,  # Cognitive Biases in Deterministic Environments
    "2.3": 14,  # Axioms of Utility in Stochastic Environments
    "2.4": 15,  # Risk Neutral Expected Utility Computations
    "2.5": 17,  # Avoidance of Cognitive Biases in Stochastic Environments
    "3.1": 18,  # Normal Form Games
    "3.2": 19,  # Extensive Form Games
    "4.1": 20,  # Axioms of Social Choice
    "4.2": 21,  # Social Choice
}

METRIC_AXIS_LABELS = {
    "accuracy": "exact-match accuracy",
    "normalized_accuracy": "normalized accuracy (acc - r)/r",
    "gap_closed": "gap closed (acc - r)/(1 - r)",
    "random_gap": "acc - r",
}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path) -> Path:
    from choicelab.io import atomic_path

    out = Path(path)
    suffix = out.suffix or ".png"
    metadata = {"Software": None} if suffix == ".png" else None  # no version stamp: reruns give equal bytes
    with atomic_path(out, suffix=suffix) as tmp:
        fig.savefig(tmp, dpi=150, format=suffix.lstrip("."), bbox_inches="tight", metadata=metadata)
    _plt().close(fig)
    return out


def _check_metric(metric: str) -> None:
    if metric not in METRIC_AXIS_LABELS:
        raise ValueError(f"metric must be one of {list(METRIC_AXIS_LABELS)}, got {metric!r}")


def unadapted(results: pd.DataFrame) -> pd.DataFrame:
    """Rows of the unadapted runs: 0-shot, no self-explanation (adaptation "" or e.g. "0shot")."""
    sm.check_question_frame(results)
    labels = results["adaptation"].fillna("").astype(str)
    keep = labels.map(lambda a: sm.parse_n_shot(a) == 0 and sm.parse_self_explanation(a) == "none")
    return results[keep.to_numpy()]


def _model_order(frame: pd.DataFrame, value: str) -> list[str]:
    return list(frame.groupby("model")[value].mean().sort_values(ascending=False).index)


# --------------------------------------------------------------------------------------------- metric tables
def metric_tables(results: pd.DataFrame, edges: Iterable[tuple[str, str]]) -> dict[str, pd.DataFrame]:
    """Every STEER metric table, keyed by a file-friendly name (for a workflow rule to write as CSV).

    by_element / by_module / by_setting / by_grade / by_domain: :func:`choicelab.studies.steer.metrics.summarize` per model x
    adaptation x that column; domain_robustness (exact-match, the paper's definition) and
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


def plot_module_report_card(results: pd.DataFrame, taxonomy: Any, module_id: str, path: str | Path,
                            metric: str = "normalized_accuracy") -> Path:
    """One module's report card (paper Figs 7-15, 17-21): grouped bars, one group per element, one bar per model."""
    plt = _plt()
    table = module_table(results, taxonomy, module_id, metric)
    module = taxonomy.module(module_id)
    fig_no = MODULE_FIGURES.get(module_id)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.8 * max(len(table), 1) + 2), 4.2))
    if table.empty:
        ax.text(0.5, 0.5, "no questions scored for this module", ha="center", va="center", transform=ax.transAxes)
    else:
        models = list(table.mean().sort_values(ascending=False).index)
        width = 0.8 / max(len(models), 1)
        x = np.arange(len(table))
        for i, model in enumerate(models):
            ax.bar(x + (i - (len(models) - 1) / 2) * width, table[model].to_numpy(dtype=float), width, label=model)
        labels = [textwrap.fill(taxonomy.element(e).name, 18) for e in table.index]
        ax.set_xticks(x, labels, fontsize=8)
        if metric != "accuracy":
            ax.axhline(0.0, color="red", linewidth=1, label="random guessing")
        ax.legend(fontsize=7, ncol=2, loc="best")
    ax.set_ylabel(METRIC_AXIS_LABELS[metric])
    prefix = f"Fig. {fig_no}: " if fig_no else ""
    ax.set_title(f"{prefix}SRC for {module.name} ({module_id})", fontsize=10)
    return _save(fig, path)


def plot_all_module_figures(results: pd.DataFrame, taxonomy: Any, outdir: str | Path,
                            metric: str = "normalized_accuracy") -> dict[int, Path]:
    """Write ``fig07_module1.1.png`` ... ``fig21_module4.2.png``; returns figure number -> path."""
    outdir = Path(outdir)
    return {fig_no: plot_module_report_card(results, taxonomy, module_id,
                                            outdir / f"fig{fig_no:02d}_module{module_id}.png", metric)
            for module_id, fig_no in MODULE_FIGURES.items()}


# --------------------------------------------------------------------------------------------------------- Fig. 4
def example_rubric(adaptation: str | None = None, model: str | None = None) -> Any:
    """The rubric of the paper's Fig. 4: all domains, grades 2-8, normalized accuracy, drill-down into setting 3."""
    from choicelab.studies.steer.report import Rubric

    return Rubric(name="Fig. 4 example report card", metric="normalized_accuracy",
                  description="All domains, grades 2-8, one in-context example, as in the paper's Fig. 4.",
                  model=model, adaptation=adaptation, grades=(2, 8), drilldown="3", source="<Fig. 4 rubric>")


def plot_example_report_card(results: pd.DataFrame, taxonomy: Any, path: str | Path, model: str | None = None,
                             html_path: str | Path | None = None) -> Path:
    """Fig. 4: report card for ``model`` (default: the first model by name) with the 1-shot adaptation if present.

    The paper's card is GPT-3.5 Turbo, 1-shot; without a 1-shot run we fall back to the unadapted run.
    """
    from choicelab.io import write_text
    from choicelab.studies.steer.report import compute_report_card, render_html, render_png

    sm.check_question_frame(results)
    chosen = model or sorted(results["model"].astype(str).unique())[0]
    labels = results.loc[results["model"].astype(str) == chosen, "adaptation"].fillna("").astype(str).unique()
    one_shot = [a for a in labels if sm.parse_n_shot(a) == 1 and sm.parse_self_explanation(a) == "none"]
    plain = [a for a in labels if sm.parse_n_shot(a) == 0 and sm.parse_self_explanation(a) == "none"]
    if not (one_shot or plain):
        raise ValueError(f"model {chosen!r} has neither a 1-shot nor an unadapted run; adaptations: {sorted(labels)}")
    adaptation = sorted(one_shot or plain)[0]
    card = compute_report_card(results, taxonomy, example_rubric(adaptation, chosen))
    if html_path is not None:
        write_text(html_path, render_html(card))
    return render_png(card, path)


# --------------------------------------------------------------------------------------------------------- Fig. 5
def dependency_subgraph(edges: Iterable[tuple[str, str]], element: str = "irds") -> Any:
    """networkx DiGraph of ``element`` and all its transitive prerequisites, edges prerequisite -> element."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_edges_from(edges)
    if element not in graph:
        raise ValueError(f"element {element!r} is not in the dependency graph")
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("dependency graph has a cycle")
    nodes = nx.ancestors(graph, element) | {element}
    return graph.subgraph(nodes).copy()


def _layered_positions(sub: Any) -> dict[str, tuple[float, float]]:
    """Layer = networkx topological generation (prerequisites above); order within a layer by the mean position of a
    node's predecessors (one barycentre sweep), which keeps most edges short and uncrossed."""
    import networkx as nx

    pos: dict[str, tuple[float, float]] = {}
    for depth, layer in enumerate(nx.topological_generations(sub)):
        def barycentre(node: str) -> tuple[float, str]:
            xs = [pos[p][0] for p in sub.predecessors(node) if p in pos]
            return (float(np.mean(xs)) if xs else 0.0, node)

        ordered = sorted(layer) if depth == 0 else sorted(layer, key=barycentre)
        for i, node in enumerate(ordered):
            pos[node] = ((i - (len(ordered) - 1) / 2) * 2.4, -depth * 1.6)
    return pos


def plot_dependency_subgraph(edges: Iterable[tuple[str, str]], path: str | Path, element: str = "irds",
                             names: Mapping[str, str] | None = None, title: str | None = None) -> Path:
    """Fig. 5: the dependency subgraph of ``element`` (default IRDS), prerequisites on top, ``element`` at the bottom.

    Pass ``taxonomy.figure5_edges`` for the paper's figure (IRDS, its four prerequisites, and transitivity and
    independence under dominated strategies) or ``taxonomy.edges`` for the element's full transitive ancestry.
    ``names`` maps element ids to display names (e.g. ``{e.id: e.name for e in taxonomy.elements}``).
    """
    import networkx as nx

    plt = _plt()
    sub = dependency_subgraph(edges, element)
    names = dict(names or {})
    pos = _layered_positions(sub)
    n_layers = len({y for _, y in pos.values()})
    width = max(sum(1 for p in pos.values() if p[1] == y) for y in {y for _, y in pos.values()})
    fig, ax = plt.subplots(figsize=(max(6.0, 2.4 * width), 1.7 * n_layers + 1))
    nx.draw_networkx_edges(sub, pos, ax=ax, arrows=True, arrowstyle="-|>", arrowsize=14, edge_color="#555555",
                           node_size=2600, node_shape="s", connectionstyle="arc3,rad=0.08",
                           min_source_margin=22, min_target_margin=30)
    colours = ["#f4a582" if n == element else "#92c5de" for n in sub.nodes]
    nx.draw_networkx_nodes(sub, pos, ax=ax, node_color=colours, node_size=2600, node_shape="s")
    nx.draw_networkx_labels(sub, pos, ax=ax, font_size=7,
                            labels={n: textwrap.fill(names.get(n, n.replace("_", " ")), 13) for n in sub.nodes})
    ax.set_title(title or f"Dependency subgraph of {names.get(element, element)} "
                          f"({sub.number_of_nodes()} elements, {sub.number_of_edges()} edges)", fontsize=10)
    ax.margins(0.12)
    ax.axis("off")
    return _save(fig, path)


def plot_figure5(taxonomy: Any, path: str | Path, full_ancestry: bool = False) -> Path:
    """The paper's Fig. 5 from the dependency data: IRDS and its prerequisites (``taxonomy.figure5_edges``), or with
    ``full_ancestry`` every transitive prerequisite in ``taxonomy.edges``."""
    edges = taxonomy.edges if full_ancestry else taxonomy.figure5_edges
    names = {e.id: e.name for e in taxonomy.elements}
    label = "full ancestry" if full_ancestry else "the paper's edges"
    return plot_dependency_subgraph(edges, path, "irds", names,
                                    title=f"Fig. 5: dependency subgraph of Iterated Removal of Dominated Strategies "
                                          f"({label})")


# -------------------------------------------------------------------------------------------------------- Fig. 22
FOUNDATIONS_SETTING = "1"


def paper_grades(results: pd.DataFrame) -> pd.Series:
    """The grade axis of the paper's Fig. 22: Foundations questions (setting 1) at grade 0, the others at their own."""
    grade = results["grade"].astype(int)
    return grade.where(results["setting"].astype(str) != FOUNDATIONS_SETTING, 0)


def grade_table(results: pd.DataFrame, metric: str = "normalized_accuracy") -> pd.DataFrame:
    """Per model x grade: ``metric`` over the unadapted questions of that grade (plus random_accuracy and n).

    Grades as in the paper's Fig. 22: every Foundations question at grade 0 ("Grade 0 (Foundations)").
    """
    _check_metric(metric)
    base = unadapted(results)
    summary = sm.summarize(base.assign(adaptation="", grade=paper_grades(base)), ["model", "grade"])
    summary["se"] = metric_se(summary, metric)
    return summary[["model", "grade", metric, "se", "random_accuracy", "n_questions"]]


SMALL_N = 10  # points from fewer questions are drawn hollow and labelled with their n


def metric_se(summary: pd.DataFrame, metric: str) -> pd.Series:
    """Binomial standard error of ``metric`` per summary row: SE(acc) = sqrt(acc (1 - acc) / n), scaled like the
    metric (divided by r for (acc - r)/r, by 1 - r for gap closed; r treated as fixed)."""
    acc, r, n = summary["accuracy"], summary["random_accuracy"], summary["n_questions"].clip(lower=1)
    se = np.sqrt(acc * (1 - acc) / n)
    scale = {"accuracy": 1.0, "random_gap": 1.0, "normalized_accuracy": r, "gap_closed": 1 - r}[metric]
    return se / scale


def plot_grade_and_domain_robustness(results: pd.DataFrame, path: str | Path,
                                     metric: str = "normalized_accuracy") -> Path:
    """Fig. 22. Top: ``metric`` by grade per model, red line = random guessing (0 for the normalized metrics,
    mean 1/k per grade for accuracy). Bottom: worst-domain vs mean-over-domains ``metric`` per (element, model)."""
    plt = _plt()
    grades = grade_table(results, metric)
    robust = sm.domain_robustness(unadapted(results).assign(adaptation=""), metric=metric, by=("model",))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 9))
    for model in _model_order(grades, metric):
        part = grades[grades["model"] == model].sort_values("grade")
        line = top.errorbar(part["grade"], part[metric], yerr=part["se"].fillna(0.0), marker="o", capsize=3,
                            label=model)
        small = part[part["n_questions"] < SMALL_N]
        colour = line[0].get_color()
        top.scatter(small["grade"], small[metric], s=60, facecolors="white", edgecolors=colour, zorder=3)
        for g, v, n in zip(small["grade"], small[metric], small["n_questions"]):
            top.annotate(f"n={int(n)}", (g, v), textcoords="offset points", xytext=(4, 4), fontsize=6)
    if metric == "accuracy":
        chance = grades.groupby("grade")["random_accuracy"].mean()
        top.plot(chance.index, chance.to_numpy(), color="red", linewidth=2, label="random guessing")
    else:
        top.axhline(0.0, color="red", linewidth=2, label="random guessing")
    top.set_xlabel("grade level (0 = Foundations)")
    top.set_ylabel(METRIC_AXIS_LABELS[metric])
    top.set_title(f"Performance by grade level (bars: binomial SE; hollow: fewer than {SMALL_N} questions)")
    top.legend(fontsize=7, ncol=2)
    for model in _model_order(robust, "overall"):
        part = robust[robust["model"] == model]
        bottom.scatter(part["mean_over_domains"], part["worst"], s=18, label=model)
    finite = robust[["mean_over_domains", "worst"]].to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        bottom.plot([lo, hi], [lo, hi], color="#999999", linestyle="--", linewidth=1, label="worst = average")
    bottom.set_xlabel(f"average over domains ({METRIC_AXIS_LABELS[metric]})")
    bottom.set_ylabel("worst domain")
    bottom.set_title("Domain robustness per element-model pair")
    bottom.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _save(fig, path)


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
    """``metric`` per ``by`` x n_shot (0..5) over the runs without self-explanation; mean over elements.

    Every n-shot value of a model is computed on the same questions (:func:`paired_questions`). Columns also give
    the number of questions, the mean number of solved examples the prompts held (``mean_examples``) and how many
    prompts held fewer than asked because the context window was too short (``n_short_prompts``).
    """
    _check_metric(metric)
    sm.check_question_frame(results)
    labels = results["adaptation"].fillna("").astype(str)
    frame = results.assign(n_shot=labels.map(sm.parse_n_shot), explanation=labels.map(sm.parse_self_explanation))
    frame = frame[frame["n_shot"].notna() & (frame["explanation"] == "none")]
    if frame.empty:
        raise ValueError("no n-shot runs (adaptations like '0shot'..'5shot') in the results")
    frame = paired_questions(frame.assign(n_shot=frame["n_shot"].astype(int)), "n_shot")
    per_element = sm.summarize(frame, [*by, "n_shot", "element"])
    grouped = per_element.groupby([*by, "n_shot"], sort=True)[metric]
    table = grouped.mean().reset_index()
    table["se_over_elements"] = (grouped.std(ddof=1) / np.sqrt(grouped.count())).to_numpy()
    table["n_elements"] = grouped.count().to_numpy()
    return table.merge(_examples_columns(frame, [*by, "n_shot"]), on=[*by, "n_shot"], how="left")


def plot_few_shot_effect(results: pd.DataFrame, path: str | Path, metric: str = "normalized_accuracy") -> Path:
    """``metric`` (mean over elements) against the number of in-context examples, one line per model."""
    plt = _plt()
    table = few_shot_table(results, metric)
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for model in _model_order(table, metric):
        part = table[table["model"] == model]
        ax.errorbar(part["n_shot"], part[metric], yerr=part["se_over_elements"].fillna(0.0), marker="o", capsize=3,
                    label=f"{model} (n = {int(part['n_questions'].iloc[0])} questions per point)")
    if metric != "accuracy":
        ax.axhline(0.0, color="red", linewidth=1, label="random guessing")
    ax.set_xlabel("number of in-context examples (n-shot)")
    ax.set_ylabel(METRIC_AXIS_LABELS[metric])
    ax.set_xticks(sorted(table["n_shot"].unique()))
    ax.set_title("Few-shot effect (same questions at every n; bars: SE over elements)")
    ax.legend(fontsize=7)
    return _save(fig, path)


EXPLANATION_COLUMNS = ("none", "together", "separate", "separate-hidden")


def _explanation_frame(results: pd.DataFrame) -> pd.DataFrame:
    """0-shot rows labelled with their self-explanation mode, restricted to the questions every mode of a model
    scored (:func:`paired_questions`)."""
    sm.check_question_frame(results)
    labels = results["adaptation"].fillna("").astype(str)
    n_shot = labels.map(sm.parse_n_shot)
    frame = results.assign(explanation=labels.map(sm.parse_self_explanation))
    frame = frame[(n_shot.isna() | (n_shot == 0)).to_numpy()]
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


def plot_self_explanation_effect(results: pd.DataFrame, path: str | Path,
                                 metric: str = "normalized_accuracy") -> Path:
    """Grouped bars per model: no explanation vs each self-explanation mode (mean over elements, 0-shot, the same
    questions for every mode), error bars = SE over elements."""
    plt = _plt()
    table = self_explanation_table(results, metric)
    per_element = self_explanation_table(results, metric, by=("model", "element"))
    modes = [c for c in EXPLANATION_COLUMNS if c in table.columns]
    se = per_element.groupby("model")[modes].agg(lambda v: v.std(ddof=1) / np.sqrt(v.count())).reindex(table["model"])
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(table) + 2), 4.2))
    x = np.arange(len(table))
    width = 0.8 / max(len(modes), 1)
    for i, mode in enumerate(modes):
        ax.bar(x + (i - (len(modes) - 1) / 2) * width, table[mode].to_numpy(dtype=float), width,
               yerr=se[mode].fillna(0.0).to_numpy(dtype=float), capsize=2,
               label={"none": "no explanation"}.get(mode, f"explain ({mode})"))
    ax.set_xticks(x, [textwrap.fill(f"{m} (n = {int(n)})", 16) for m, n in zip(table["model"], table["n_questions"])],
                  fontsize=8)
    if metric != "accuracy":
        ax.axhline(0.0, color="red", linewidth=1)
    ax.set_ylabel(METRIC_AXIS_LABELS[metric])
    ax.set_title("Self-explanation effect (same questions per model; bars: SE over elements)")
    ax.legend(fontsize=7)
    return _save(fig, path)


# --------------------------------------------------------------------------------------------- synthetic data
def synthetic_question_frame(taxonomy: Any, models: Mapping[str, float], adaptations: Sequence[str] = ("0shot",),
                             questions_per_test: int = 2, seed: int = 0,
                             adaptation_boost: Mapping[str, float] | None = None) -> pd.DataFrame:
    """A SYNTHETIC per-question frame for tests and dry runs of the figure code -- never a result.

    ``models`` maps a model name to a skill; P(correct) = r + (1 - r) * sigmoid(skill + boost - 0.35 * grade)
    per question, k drawn from 2..5 options, for every element x domain x grade of the taxonomy.
    """
    rng = np.random.default_rng(seed)
    boost = dict(adaptation_boost or {})
    rows = []
    for model, skill in models.items():
        for adaptation in adaptations:
            for el in taxonomy.elements:
                for domain in el.domains:
                    for grade in range(el.min_grade, el.max_grade + 1):
                        for index in range(questions_per_test):
                            k = int(rng.integers(2, 6))
                            r = 1.0 / k
                            z = skill + boost.get(adaptation, 0.0) - 0.35 * grade
                            p_correct = r + (1 - r) / (1 + math.exp(-z))
                            correct = bool(rng.random() < p_correct)
                            rows.append({
                                "model": model, "adaptation": adaptation, "benchmark": "steer", "split": "test",
                                "item_id": f"{el.id}/{domain}/g{grade}/{index}", "element": el.id,
                                "module": el.module_id, "setting": el.setting_id, "domain": domain, "grade": grade,
                                "n_options": k, "predicted_option": 0 if correct else 1,
                                "label_option": 0, "correct": correct,
                                "top_prob": float(rng.uniform(r, 1.0)), "label_prob": math.nan,
                                "random_accuracy": r,
                            })
    return pd.DataFrame(rows, columns=list(sm.QUESTION_FRAME_COLUMNS))
