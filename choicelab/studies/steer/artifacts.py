"""Every table and figure of STEER: the paper's table or figure it reproduces, its caption, its builder and its rule.

rules/steer.smk derives each job's outputs from this table, the one writer (:func:`choicelab.artifacts.write_artifacts`,
through scripts/study_artifacts.py) builds each row from :func:`sources` and captions it with :func:`caption`, and
the report's caption lists it. The report cards (one per rubric shipped in data/steer/rubrics/) depend on the rubric
files: :func:`report_cards`, carried by the report-card job's sources.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.artifacts import Artifact, Drawing, by_name, caption_naming
from choicelab.dumps import read_dump
from choicelab.mc.items import read_items
from choicelab.studies.steer import figures as fg
from choicelab.studies.steer import paper
from choicelab.studies.steer import tables as tb
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.studies.steer.report import card_model, load_rubric, write_report_card

STUDY = "steer"
RUNTIME_RULES = ("steer_report_cards",)  # its artifacts, one per rubric file, come with the job's sources


def _with_markdown(build: Callable[[Any], Any], sources: Any) -> tuple[Any, str]:
    """A table and its Markdown (3 decimals), STEER's rendering of every table."""
    frame = build(sources)
    return frame, frame.to_markdown(index=False, floatfmt=".3f") + "\n"


def _drawn(draw: Callable[..., Any], sources: Any) -> Drawing:
    """A figure drawn straight to its PNG by ``draw(sources, path)`` (the STEER drawings save themselves)."""
    return lambda files: draw(sources, files[0])


def _table(name: str, reproduces: str, caption: str, builder: Callable[..., Any]) -> Artifact:
    return Artifact(name, reproduces, caption, functools.partial(_with_markdown, builder), rule="steer_tables",
                    kind="table")


def _metric(name: str, reproduces: str, caption: str) -> Artifact:
    return _table(name, reproduces, caption, functools.partial(tb.metric_table, name=name))


def _of_results(name: str, reproduces: str, caption: str, build: Callable[..., Any]) -> Artifact:
    return _table(name, reproduces, caption, functools.partial(tb.of_results, build=build))


def _figure(name: str, reproduces: str, caption: str, builder: Callable[..., Any]) -> Artifact:
    return Artifact(name, reproduces, caption, functools.partial(_drawn, builder), rule="steer_figures",
                    kind="figure_png")


TABLES: tuple[Artifact, ...] = (
    _metric("table3", "Table 3: average normalized accuracy ((acc - r)/r, acc - r and gap closed) and exact-match "
            "accuracy per model (no adaptation)", "mean over elements, unadapted runs, sorted by accuracy"),
    _table("compare_paper", "the paper's Table 3 and its Cognitive Bias SRC (Sec. 5: GPT-4 Turbo .575 / .377, "
           "GPT-3.5 Turbo .307 / .173 on modules 2.2 / 2.5) beside ours",
           "paper_* columns are the paper's numbers (paper_source: where printed), our_* ours; Table 3 models matched "
           "by name, the Cognitive Bias SRC's GPT rows beside every model we ran (module mean over elements, "
           "unadapted, with n and SE over elements); like_for_like and note say per row whether ours is the same "
           "model and why it is not like for like (a paper model not run here, our model not in the paper, the "
           "GPT models beside ours, our generated benchmark)", paper.paper_comparison),
    Artifact("fig_compare_paper", "the paper's Table 3 and Cognitive Bias SRC beside ours, in a figure",
             "normalized accuracy of the paper's models (black diamonds, the paper's names) and of ours (mean over "
             "elements with its t 95% interval over elements, n questions and elements in the label), unadapted, same "
             "scale", functools.partial(_drawn, paper.paper_beside_ours), rule="steer_tables", kind="figure_png"),
    _metric("by_element", "extra: metrics per model, adaptation and element", "accuracy, normalized accuracy, ECE, n"),
    _metric("by_module", "extra: metrics per model, adaptation and module", "accuracy, normalized accuracy, ECE, n"),
    _metric("by_setting", "extra: metrics per model, adaptation and setting", "accuracy, normalized accuracy, ECE, n"),
    _metric("by_grade", "extra: metrics per model, adaptation and grade (the generators' grades)",
            "accuracy, normalized accuracy, ECE, n"),
    _of_results("fig22_grades", "Fig. 22 top numbers: normalized accuracy per model and grade, Foundations at grade 0 "
                "(unadapted)", "with binomial SE and n per grade", tb.grade_table),
    _metric("by_domain", "extra: metrics per model, adaptation and domain", "accuracy, normalized accuracy, ECE, n"),
    _metric("domain_robustness", "domain robustness: worst-domain accuracy per element (Fig. 22 bottom numbers)",
            "worst domain, mean over domains and overall per element"),
    _metric("dependency_robustness", "dependency robustness over transitive ancestors",
            "gap = acc - r; ancestors scored and weaker ancestors per element"),
    _of_results("few_shot", "few-shot effect: normalized accuracy by number of examples",
                "same questions at every n; SE over elements; prompts shortened by the context window",
                tb.few_shot_table),
    _of_results("self_explanation", "self-explanation effect: together / separate (/ separate-hidden) vs none, same "
                "questions", "mean over elements, 0-shot runs", tb.self_explanation_table),
    _of_results("self_explanation_by_element", "per-element self-explanation effects (Sec. 5), same questions per "
                "model", "each mode minus no explanation", tb.self_explanation_by_element),
    _table("paper_element_quotes", "the per-element numbers Sec. 5 quotes (e.g. GPT-4 certainty effect 0.079 -> "
           "0.508) beside ours", "data/steer/paper/element_quotes.csv beside every model we ran", tb.element_quotes),
    _table("paper_definition_fit", "which normalized-accuracy definition the paper's Table 3 fits (chance level each "
           "implies)", "implied chance level per paper model and definition, against ours", tb.definition_fit),
    _of_results("head_to_head", "head-to-head comparison of every pair of models (Sec. 5): element wins and question "
                "record", "unadapted runs, elements and questions both models answered", tb.head_to_head),
    _table("models", "Tables 1-2: the paper's models and the models we ran", "our configured models matched to the "
           "paper's", tb.run_models),
)

MODULE_FIGURES: tuple[Artifact, ...] = tuple(
    _figure(f"fig{number}", f"Figure {number} (report card of module {module})",
            "normalized accuracy per element and model, unadapted runs",
            functools.partial(fg.module_card, module=module))
    for module, number in fg.MODULE_FIGURES.items()
)

FIGURES: tuple[Artifact, ...] = (
    _figure("fig1", "Figure 1 (the taxonomy of elements of rationality: settings, modules, elements)",
            "drawn from data/steer/taxonomy.yaml", fg.taxonomy_figure),
    _figure("fig3", "Figure 3 (domain span of four elements; two Maximize Expected Utility questions in two domains "
            "and grade levels)", "questions of this run's generated benchmark", fg.domain_span_figure),
    _figure("fig6", "Figure 6 (example adaptations: self-explanation and few-shot prompting)",
            "the exact prompts of this run read from the dumps (chat template included where applied)",
            fg.adaptation_figure),
    _figure("fig16", "Figure 16 (a game in word form, normal form and bimatrix form)",
            "a two-player game of this run's benchmark, rendered by the generators' three renderers",
            fg.game_forms_figure),
    _figure("fig4", "Figure 4 (example report card)", "the first model, 1-shot if run, grades 2-8",
            fg.example_card),
    _figure("fig5", "Figure 5 (dependency subgraph of IRDS, drawn from data/steer/dependencies.yaml)",
            "IRDS and its prerequisites", fg.figure5),
    *MODULE_FIGURES,
    _figure("fig22", "Figure 22 (accuracy by grade; worst-case domain vs average)",
            "binomial SE bars; hollow points from fewer than 10 questions", fg.grade_and_domain_robustness),
    _figure("fig_few_shot", "few-shot effect (Sec. 5)", "same questions at every n; SE over elements",
            fg.few_shot_effect),
    _figure("fig_self_explanation", "self-explanation effect (Sec. 5)", "same questions per model; SE over elements",
            fg.self_explanation_effect),
)

ARTIFACTS: tuple[Artifact, ...] = (*TABLES, *FIGURES)
by_name(ARTIFACTS)  # names are unique


def report_cards(rubrics: Iterable[str]) -> tuple[Artifact, ...]:
    """The report card of each rubric (file stems of data/steer/rubrics/*.yaml), written by rule steer_report_cards."""
    return tuple(
        Artifact(rubric, f"STEER report card for the rubric data/steer/rubrics/{rubric}.yaml",
                 "the rubric's model, metric, filters and weights", functools.partial(_report_card, rubric=rubric),
                 rule="steer_report_cards", kind="report_card")
        for rubric in rubrics
    )


@dataclass(frozen=True)
class CardSources:
    """What the report cards are drawn from (rule steer_report_cards' inputs): the question frame, the taxonomy, the
    rubric files by stem and the study's models (a rubric naming none is about the first)."""

    results: Any
    taxonomy: Any
    rubric_files: dict[str, str]
    models: tuple[str, ...]

    @property
    def artifacts(self) -> tuple[Artifact, ...]:
        """The report cards, known only at run time (one per rubric file)."""
        return report_cards(self.rubric_files)

    def model(self, rubric: str) -> str:
        return card_model(load_rubric(self.rubric_files[rubric]), list(self.models))


def _report_card(sources: CardSources, rubric: str) -> Drawing:
    def draw(files: Sequence[str]) -> None:
        png, html = files
        write_report_card(sources.results, sources.taxonomy, load_rubric(sources.rubric_files[rubric]), html, png,
                          model=sources.model(rubric))

    return draw


def sources(smk: Any, settings: Any) -> Any:
    """What the running STEER job's artifacts are built from: :class:`~choicelab.studies.steer.tables.TableSources`
    (steer_tables), :class:`~choicelab.studies.steer.figures.FigureSources` (steer_figures) or :class:`CardSources`
    (steer_report_cards), read from the job's inputs and params."""
    import pandas as pd

    i = smk.input
    questions = pd.read_parquet(i.questions)
    if smk.rule == "steer_tables":
        return tb.table_sources(questions, load_taxonomy(i.taxonomy, i.dependencies).edges, paper_table3=i.paper,
                                paper_quotes=i.paper_quotes, paper_models=i.paper_models,
                                models=dict(smk.params.models), paper_bias_src=i.paper_bias_src)
    if smk.rule == "steer_figures":
        dumps = pd.concat([read_dump(path).select(["model", "variant", "item_id", "context"]).to_pandas()
                           for path in i.dumps], ignore_index=True)
        return fg.FigureSources(questions, load_taxonomy(i.taxonomy, i.dependencies), tuple(read_items(i.benchmark)),
                                dumps)
    if smk.rule == "steer_report_cards":
        return CardSources(questions, load_taxonomy(i.taxonomy, i.dependencies),
                           {Path(path).stem: str(path) for path in i.rubrics}, tuple(smk.params.models))
    raise ValueError(f"rule {smk.rule!r} writes no STEER artifact (steer_tables, steer_figures, steer_report_cards)")


def caption(artifact: Artifact, sources: Any, note: str) -> str:
    """A sidecar's caption: what the artifact reproduces and its caption, naming the models of the run (sorted); a
    report card names its rubric and its model."""
    if artifact.kind == "report_card":
        return f"Report card driven by the rubric {artifact.name}, for {sources.model(artifact.name)}."
    models = sorted(sources.results["model"].astype(str).unique())
    return caption_naming(f"{artifact.reproduces}: {artifact.caption}{note}", models)
