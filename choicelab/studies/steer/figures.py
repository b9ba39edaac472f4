"""STEER (Raman et al.): the paper's figures, drawn from our per-question results (the tables they plot are in
:mod:`choicelab.studies.steer.tables`).

Paper figure -> function:

- Fig. 4 (example report card: GPT-3.5 Turbo, all domains, grades 2-8, one in-context example, drill-down into
  multi-agent): :func:`plot_example_report_card`.
- Fig. 5 (dependency subgraph of IRDS): :func:`plot_figure5` / :func:`plot_dependency_subgraph`.
- Figs 7-15 and 17-21 (per-module report cards, normalized accuracy per element per model):
  :func:`plot_module_report_card`, :func:`plot_all_module_figures`; module -> figure number in
  :data:`MODULE_FIGURES` (Fig. 16 is the game-representation illustration, not a report card; modules 3.3-3.5 and
  4.3-4.4 have no figure in the paper).
- Fig. 22 (top: performance by grade per model with the random-guess line; bottom: worst-domain vs average per
  element-model pair): :func:`plot_grade_and_domain_robustness`.
- Few-shot and self-explanation effects (Sec. 5): :func:`plot_few_shot_effect`, :func:`plot_self_explanation_effect`.
- Figs 1, 3, 6 and 16 (taxonomy, domain span with example questions, adaptation examples, game forms):
  :mod:`choicelab.studies.steer.illustrations`, from the taxonomy, the run's benchmark and its dumps.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from choicelab import plotting
from choicelab.io import write_text
from choicelab.plotting import plt
from choicelab.stats import t_interval
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer.adaptations import UNADAPTED, Adaptation, of_label
from choicelab.studies.steer.illustrations import (
    plot_adaptation_examples,
    plot_domain_span,
    plot_game_forms,
    plot_taxonomy,
)
from choicelab.studies.steer.report import Rubric, compute_report_card, render_html, render_png
from choicelab.studies.steer.tables import (
    EXPLANATION_COLUMNS,
    METRIC_AXIS_LABELS,
    few_shot_table,
    grade_table,
    module_table,
    self_explanation_table,
    unadapted,
)

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


def _model_order(frame: pd.DataFrame, value: str) -> list[str]:
    return list(frame.groupby("model")[value].mean().sort_values(ascending=False).index)


def plot_module_report_card(results: pd.DataFrame, taxonomy: Any, module_id: str, path: str | Path,
                            metric: str = "normalized_accuracy") -> Path:
    """One module's report card (paper Figs 7-15, 17-21): grouped bars, one group per element, one bar per model."""
    table = module_table(results, taxonomy, module_id, metric)
    module = taxonomy.module(module_id)
    fig_no = MODULE_FIGURES.get(module_id)
    fig, ax = plt.subplots(figsize=(max(6.5, 1.9 * max(len(table), 1) + 2), 4.6))
    if table.empty:
        ax.text(0.5, 0.5, "no questions scored for this module", ha="center", va="center", transform=ax.transAxes)
    else:
        base = unadapted(results)
        summary = sm.summarize(base[base["element"].isin(table.index)].assign(adaptation=""), ["element", "model"])
        summary["low"], summary["high"] = sm.metric_interval(summary, metric)
        low, high, n = (summary.pivot(index="element", columns="model", values=v).reindex(index=table.index)
                        for v in ("low", "high", "n_questions"))
        models = list(table.mean().sort_values(ascending=False).index)
        width = 0.8 / max(len(models), 1)
        x = np.arange(len(table))
        for i, model in enumerate(models):
            values = table[model].to_numpy(dtype=float)
            where = x + (i - (len(models) - 1) / 2) * width
            ax.bar(where, np.nan_to_num(values), width, yerr=_error_bars(values, low[model], high[model]), capsize=2,
                   label=model)
            for pos in where[np.isnan(values)]:  # a missing value is not a zero bar
                ax.text(pos, 0.0, "n/a", ha="center", va="bottom", fontsize=8, rotation=90, color="0.4")
        counts = [sorted({int(v) for v in n.loc[e].dropna()}) for e in table.index]
        labels = [textwrap.fill(taxonomy.element(e).name, 18) + "\nn=" + ("-".join(map(str, (c[0], c[-1])))
                                                                          if len(c) > 1 else str(c[0] if c else 0))
                  for e, c in zip(table.index, counts, strict=True)]
        ax.set_xticks(x, labels, fontsize=8)
        if metric != "accuracy":
            ax.axhline(0.0, color="red", linewidth=1, label="random guessing")
        ax.legend(fontsize=8, ncol=2, loc="best")
    ax.set_ylabel(METRIC_AXIS_LABELS[metric] + " (+/- binomial SE)")
    prefix = f"Fig. {fig_no}: " if fig_no else ""
    ax.set_title(f"{prefix}SRC for {module.name} ({module_id}); n = questions per element", fontsize=10)
    return plotting.save_png(fig, path)


def plot_all_module_figures(results: pd.DataFrame, taxonomy: Any, outdir: str | Path,
                            metric: str = "normalized_accuracy") -> dict[int, Path]:
    """Write ``fig07_module1.1.png`` ... ``fig21_module4.2.png``; returns figure number -> path."""
    outdir = Path(outdir)
    return {fig_no: plot_module_report_card(results, taxonomy, module_id,
                                            outdir / f"fig{fig_no:02d}_module{module_id}.png", metric)
            for module_id, fig_no in MODULE_FIGURES.items()}


# --------------------------------------------------------------------------------------------------------- Fig. 4
def example_rubric(adaptation: str | None = None, model: str | None = None) -> Any:
    """The rubric of the paper's Fig. 4: all domains, grades 2-8, normalized accuracy, drill-down into setting 3.

    Scores without letters: (acc - r)/r has no fixed top (k - 1 for k options), so no cut-offs fit it
    (:data:`choicelab.studies.steer.report.METRIC_SCALES`)."""
    return Rubric(name="Fig. 4 example report card", metric="normalized_accuracy",
                  description="All domains, grades 2-8, one in-context example, as in the paper's Fig. 4.",
                  model=model, adaptation=adaptation, grades=(2, 8), grade_cutoffs=(), drilldown="3",
                  source="<Fig. 4 rubric>")


def plot_example_report_card(results: pd.DataFrame, taxonomy: Any, path: str | Path, model: str | None = None,
                             html_path: str | Path | None = None) -> Path:
    """Fig. 4: report card for ``model`` (default: the first model by name) with the 1-shot adaptation if present.

    The paper's card is GPT-3.5 Turbo, 1-shot; without a 1-shot run we fall back to the unadapted run.
    """
    sm.check_question_frame(results)
    chosen = model or sorted(results["model"].astype(str).unique())[0]
    labels = results.loc[results["model"].astype(str) == chosen, "adaptation"].fillna("").astype(str).unique()
    one_shot = [a for a in labels if of_label(a) == Adaptation(shots=1)]
    plain = [a for a in labels if of_label(a) == UNADAPTED]
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
    nx.draw_networkx_labels(sub, pos, ax=ax, font_size=8,
                            labels={n: textwrap.fill(names.get(n, n.replace("_", " ")), 13) for n in sub.nodes})
    ax.set_title(title or f"Dependency subgraph of {names.get(element, element)} "
                          f"({sub.number_of_nodes()} elements, {sub.number_of_edges()} edges)", fontsize=10)
    ax.margins(0.12)
    ax.axis("off")
    return plotting.save_png(fig, path)


def plot_figure5(taxonomy: Any, path: str | Path, full_ancestry: bool = False) -> Path:
    """The paper's Fig. 5 from the dependency data: IRDS and its prerequisites (``taxonomy.figure5_edges``), or with
    ``full_ancestry`` every transitive prerequisite in ``taxonomy.edges``."""
    edges = taxonomy.edges if full_ancestry else taxonomy.figure5_edges
    names = {e.id: e.name for e in taxonomy.elements}
    label = "full ancestry" if full_ancestry else "the paper's edges"
    return plot_dependency_subgraph(edges, path, "irds", names,
                                    title=f"Fig. 5: dependency subgraph of Iterated Removal of Dominated Strategies "
                                          f"({label})")


def _error_bars(values: Any, low: Any, high: Any) -> np.ndarray:
    """matplotlib's asymmetric ``yerr`` (2 x n: below, above) of an interval [low, high] around ``values``; no bar
    where a bound is NaN (fewer than two templates or elements)."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, low, high))
    return np.nan_to_num(np.vstack([v - lo, hi - v]).clip(min=0.0))


SMALL_N = 10  # points from fewer questions are drawn hollow and labelled with their n


def plot_grade_and_domain_robustness(results: pd.DataFrame, path: str | Path,
                                     metric: str = "normalized_accuracy") -> Path:
    """Fig. 22. Top: ``metric`` by grade per model, red line = random guessing (0 for the normalized metrics,
    mean 1/k per grade for accuracy). Bottom: worst-domain vs mean-over-domains ``metric`` per (element, model)."""
    grades = grade_table(results, metric)
    robust = sm.domain_robustness(unadapted(results).assign(adaptation=""), metric=metric, by=("model",))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 9))
    for model in _model_order(grades, metric):
        part = grades[grades["model"] == model].sort_values("grade")
        line = top.errorbar(part["grade"], part[metric], yerr=_error_bars(part[metric], part["low"], part["high"]),
                            marker="o", capsize=3, label=model)
        small = part[part["n_questions"] < SMALL_N]
        colour = line[0].get_color()
        top.scatter(small["grade"], small[metric], s=60, facecolors="white", edgecolors=colour, zorder=3)
        for g, v, n in zip(small["grade"], small[metric], small["n_questions"], strict=True):
            top.annotate(f"n={int(n)}", (g, v), textcoords="offset points", xytext=(4, 4), fontsize=8)
    if metric == "accuracy":
        chance = grades.groupby("grade")["random_accuracy"].mean()
        top.plot(chance.index, chance.to_numpy(), color="red", linewidth=2, label="random guessing")
    else:
        top.axhline(0.0, color="red", linewidth=2, label="random guessing")
    top.set_xlabel("grade level (0 = Foundations)")
    top.set_ylabel(METRIC_AXIS_LABELS[metric])
    top.set_title(f"Performance by grade level (bars: 95% interval clustered by template; hollow: fewer than {SMALL_N} "
                  "questions)", fontsize=9)
    top.legend(fontsize=8, ncol=2)
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
    bottom.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return plotting.save_png(fig, path)


def plot_few_shot_effect(results: pd.DataFrame, path: str | Path, metric: str = "normalized_accuracy") -> Path:
    """``metric`` (mean over elements) against the number of in-context examples, one line per model."""
    table = few_shot_table(results, metric)
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for model in _model_order(table, metric):
        part = table[table["model"] == model]
        ax.errorbar(part["n_shot"], part[metric], yerr=_error_bars(part[metric], part["low"], part["high"]),
                    marker="o", capsize=3,
                    label=f"{model} (n = {int(part['n_questions'].iloc[0])} questions per point)")
    if metric != "accuracy":
        ax.axhline(0.0, color="red", linewidth=1, label="random guessing")
    ax.set_xlabel("number of in-context examples (n-shot)")
    ax.set_ylabel(METRIC_AXIS_LABELS[metric])
    ax.set_xticks(sorted(table["n_shot"].unique()))
    ax.set_title("Few-shot effect (same questions at every n; bars: t 95% interval over elements)")
    ax.legend(fontsize=8)
    return plotting.save_png(fig, path)


def plot_self_explanation_effect(results: pd.DataFrame, path: str | Path,
                                 metric: str = "normalized_accuracy") -> Path:
    """Grouped bars per model: no explanation vs each self-explanation mode (mean over elements, 0-shot, the same
    questions for every mode), error bars = t 95 % interval over elements."""
    table = self_explanation_table(results, metric)
    per_element = self_explanation_table(results, metric, by=("model", "element"))
    modes = [c for c in EXPLANATION_COLUMNS if c in table.columns]
    bounds = {mode: per_element.groupby("model")[mode].agg(lambda v: t_interval(v.dropna())[1:]).reindex(table["model"])
              for mode in modes}  # t 95 % over elements
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(table) + 2), 4.2))
    x = np.arange(len(table))
    width = 0.8 / max(len(modes), 1)
    for i, mode in enumerate(modes):
        ax.bar(x + (i - (len(modes) - 1) / 2) * width, table[mode].to_numpy(dtype=float), width,
               yerr=_error_bars(table[mode], [b[0] for b in bounds[mode]], [b[1] for b in bounds[mode]]), capsize=2,
               label={"none": "no explanation"}.get(mode, f"explain ({mode})"))
    counts = zip(table["model"], table["n_questions"], strict=True)
    labels = [textwrap.fill(f"{m} (n = {int(n)})", 16) for m, n in counts]
    ax.set_xticks(x, labels, fontsize=8)
    if metric != "accuracy":
        ax.axhline(0.0, color="red", linewidth=1)
    ax.set_ylabel(METRIC_AXIS_LABELS[metric])
    ax.set_title("Self-explanation effect (same questions per model; bars: t 95% interval over elements)")
    ax.legend(fontsize=8)
    return plotting.save_png(fig, path)


# ----------------------------------------------------------------------------------- the figures a run draws
@dataclass(frozen=True)
class FigureSources:
    """What the figures of a run are drawn from (rule steer_figures' inputs): the question frame, the taxonomy, the
    generated benchmark (Figs 3 and 16) and the dumps' rows (Fig. 6: the exact contexts the models saw)."""

    results: pd.DataFrame
    taxonomy: Any
    questions: tuple[Any, ...] = ()
    dumps: pd.DataFrame | None = None

    def benchmark(self) -> tuple[Any, ...]:
        if not self.questions:
            raise ValueError("these figures need the run's benchmark (results/steer/benchmark.parquet)")
        return self.questions

    def dump_rows(self) -> pd.DataFrame:
        if self.dumps is None:
            raise ValueError("Fig. 6 needs the run's dumps (results/steer/dumps/*.parquet)")
        return self.dumps


def taxonomy_figure(sources: FigureSources, path: str | Path) -> Path:
    return plot_taxonomy(sources.taxonomy, path)


def domain_span_figure(sources: FigureSources, path: str | Path) -> Path:
    return plot_domain_span(sources.benchmark(), sources.taxonomy, path)


def adaptation_figure(sources: FigureSources, path: str | Path) -> Path:
    return plot_adaptation_examples(sources.dump_rows(), path)


def game_forms_figure(sources: FigureSources, path: str | Path) -> Path:
    return plot_game_forms(sources.benchmark(), path)


def example_card(sources: FigureSources, path: str | Path) -> Path:
    return plot_example_report_card(sources.results, sources.taxonomy, path)


def figure5(sources: FigureSources, path: str | Path) -> Path:
    return plot_figure5(sources.taxonomy, path)


def module_card(sources: FigureSources, path: str | Path, module: str) -> Path:
    return plot_module_report_card(sources.results, sources.taxonomy, module, path)


def grade_and_domain_robustness(sources: FigureSources, path: str | Path) -> Path:
    return plot_grade_and_domain_robustness(sources.results, path)


def few_shot_effect(sources: FigureSources, path: str | Path) -> Path:
    return plot_few_shot_effect(sources.results, path)


def self_explanation_effect(sources: FigureSources, path: str | Path) -> Path:
    return plot_self_explanation_effect(sources.results, path)
