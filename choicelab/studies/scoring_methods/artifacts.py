"""Every table and figure of the scoring-methods study: the paper's figure it reproduces, its caption and the function
that builds it from :class:`~choicelab.studies.scoring_methods.tables.StudyFrames` (:func:`sources`). Tables are
written by rule sm_tables into ``results/scoring_methods/tables``, figures by rule sm_figures into
``figures/scoring_methods`` (:meth:`choicelab.artifacts.Artifact.folder`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from choicelab.artifacts import Artifact, caption_naming
from choicelab.studies.scoring_methods import figures, paper, reanalysis, tables
from choicelab.studies.scoring_methods.human import human_condition_accuracy
from choicelab.studies.scoring_methods.sources import LLM_LINK_DIR, authors_outputs_root, source_root

STUDY = "scoring_methods"


def _lines(build: Callable[[Any], tuple[Any, str]], data: Any) -> tuple[Any, str]:
    """A table and its Markdown ending in a newline."""
    frame, markdown = build(data)
    return frame, markdown + "\n"


def _table(name: str, reproduces: str, caption: str, build: Callable[[Any], tuple[Any, str]], rule: str) -> Artifact:
    return Artifact(name, reproduces, caption, functools.partial(_lines, build), rule)


def _figure(name: str, reproduces: str, caption: str, build: Callable[[Any], Any], rule: str) -> Artifact:
    return Artifact(name, reproduces, caption, build, rule, "figure")


ARTIFACTS: tuple[Artifact, ...] = (
    _table(
        "table_numbers",
        "every number behind Figs 2 and 3",
        "accuracy per condition, model and method (Fig. 2) and per score with the log-likelihood of the human data "
        "(Fig. 3), with the authors' probability clip and each label set beside the pooled value; free generation "
        "from the authors' hand codes where they coded the model (as the paper counted it, column free_from), the "
        "coder's number beside (coder_k, coder_n, coder_accuracy, coder_loglik); every accuracy with its exact 95% "
        "interval (ci95_low/high: as if its n item versions were independent; human: n responses) and its interval "
        "clustered by pragmatics item (clustered_low/high over n_clusters items: the versions and responses repeat "
        "an item), the design effect and the minimum detectable difference at that n (the figures draw the "
        "clustered one)",
        tables.numbers_table,
        "sm_tables",
    ),
    _table(
        "compare_paper",
        "human accuracies by condition and the paper's findings checked against ours",
        "human accuracies by condition beside the paper's, and each of the paper's findings checked on our choices",
        paper.compare_paper_table,
        "sm_tables",
    ),
    _figure(
        "fig_compare_paper",
        "extra: the numbers the paper prints (human accuracy per condition) beside ours, in a figure",
        "the paper's printed human accuracy per condition (black diamonds) beside ours recounted from the raw human "
        "responses (95% interval clustered by item: participants answer the same items; n responses under each "
        "condition); the paper gives its models' accuracies only as bars, so compare_paper checks its findings "
        "instead",
        paper.compare_paper_figure_of,
        "sm_tables",
    ),
    _table(
        "free_accuracy",
        "free-generation accuracy (Figs 2-3's free bars) with the authors' hand-coded accuracy and the coder's error",
        "free-generation accuracy per model, condition and temperature: the coder's, with an interval widened by its "
        "misclassification on held-out hand codes (the exact interval ci beside the interval clustered by item over "
        "generation seeds), and the authors' hand-coded accuracy where they coded the model",
        tables.free_accuracy_artifact,
        "sm_tables",
    ),
    _table(
        "hand_codes",
        "the authors' hand-coded free generations: which files are used",
        "every hand-code file of LLM_link results/free with its status (ok, incomplete, duplicate, interleaved, "
        "seed mismatch) and whether agreement and hand-coded accuracy use it",
        tables.hand_codes_table,
        "sm_tables",
    ),
    _table(
        "human_accuracy",
        "human accuracy per condition from the raw human data, beside the paper's",
        "human accuracy per condition (target choices of all responses) beside the value the paper prints, with its "
        "exact 95% interval (ci95: every response an independent draw) and its interval clustered by item "
        "(clustered: n_items items), the design effect and the minimum detectable difference",
        tables.human_accuracy_table,
        "sm_tables",
    ),
    _table(
        "method_differences",
        "extra: every pair of methods on the same items, paired (the paper's method comparisons, with intervals)",
        "per model, over all conditions and per condition: each method's accuracy on the items both methods "
        "answered and A minus B paired item by item, with its t 95% interval over the items (versions averaged "
        "within an item first); covers_zero marks pairs not told apart at this n",
        tables.method_differences_table,
        "sm_tables",
    ),
    _table(
        "robustness_matrix",
        "beyond the paper: accuracy per (benchmark, model, method, score), agreement, flips",
        "the method x score grid on every benchmark: accuracy (exact 95% interval ci95 and the interval clustered "
        "by item, n_clusters items), pairwise agreement between methods and the share of items whose prediction "
        "flips across methods",
        tables.robustness_tables,
        "sm_tables",
    ),
    _figure(
        "fig1",
        "Figure 1 (an irony item under every method, with the score formulas)",
        "an irony item as each method presents it, the scored sequences and the score formulas",
        figures.fig1_figure,
        "sm_figures",
    ),
    _figure(
        "fig2",
        "Figure 2 (accuracy per condition, model and method; human and chance)",
        "accuracy per condition, model and method, beside human accuracy and chance; label scoring with the letter "
        "labels only and rating with the numbers only, as the paper drew it; free generation from the authors' hand "
        "codes where they coded the model, the coder's accuracy marked x beside; bars: 95% intervals clustered by "
        "item",
        figures.fig2_figure,
        "sm_figures",
    ),
    _figure(
        "fig2_pooled",
        "extra: Figure 2 pooled over both label sets and both rating scores (not the paper's drawing)",
        "accuracy per condition, model and method with label scoring pooled over letter and number labels and rating "
        "pooled over number- and phrase-based scores; bars: 95% intervals clustered by item",
        functools.partial(figures.fig2_figure, pooled=True),
        "sm_figures",
    ),
    _figure(
        "fig3",
        "Figure 3 (accuracy and log-likelihood of the human data per score and model), with our clip 1e-3",
        "accuracy and log-likelihood of the human data per score and model (letter labels, number ratings), the "
        "target rate clipped to [1e-3, 1 - 1e-3], as the difference to the worst model and score; free generation "
        "from the authors' hand codes where they coded the model, the coder's accuracy marked x; accuracy bars: 95% "
        "intervals clustered by item",
        figures.fig3_figure,
        "sm_figures",
    ),
    _figure(
        "fig3_authors_clip",
        "Figure 3 as the authors computed and displayed it (clip 1e-9, log-likelihood below -100000 shown as 500)",
        "accuracy and log-likelihood of the human data per score and model (letter labels, number ratings) with the "
        "authors' clip 1e-9 and display: LLH minus the worst LLH above -100000 plus 500, rows at or below -100000 "
        "shown as 500 (hatched); free generation from the authors' hand codes where they coded the model, the "
        "coder's accuracy marked x; accuracy bars: 95% intervals clustered by item",
        figures.fig3_authors_figure,
        "sm_figures",
    ),
    _figure(
        "fig3_pooled",
        "extra: Figure 3 pooled over both label sets and both rating scores (not the paper's drawing)",
        "accuracy and log-likelihood of the human data per score and model with label scoring pooled over letter and "
        "number labels, clip 1e-3; accuracy bars: 95% intervals clustered by item",
        functools.partial(figures.fig3_figure, pooled=True),
        "sm_figures",
    ),
    _figure(
        "fig_robustness_matrix",
        "beyond the paper: accuracy minus chance per benchmark, model and method x score",
        "accuracy minus chance per benchmark, model and method x score, and the share of items whose prediction flips "
        "(no interval drawn: robustness_matrix gives each cell's exact and item-clustered intervals)",
        figures.robustness_figure,
        "sm_figures",
    ),
    _table(
        "reanalysis_accuracy",
        "the authors' released outputs reanalysed: accuracy per model, condition and method (issue 36)",
        "accuracy per model, condition and method of the authors' released outputs (LLM_link results/), every score "
        "recomputed from per-token log-probabilities by the authors' selection rules",
        reanalysis.accuracy_table,
        "sm_reanalysis",
    ),
    Artifact(
        "reanalysis_fig2",
        "Figure 2 regenerated from the authors' outputs, each cell beside the authors' number",
        "each cell of Fig. 2: ours from the authors' released outputs (human: the raw human data), theirs "
        "(analysis/all_accuracy_summary.csv)"
        ", the difference, equal to 3 decimals, and why a differing cell differs",
        functools.partial(reanalysis.comparison_table, "fig2"),
        "sm_reanalysis",
    ),
    Artifact(
        "reanalysis_fig3",
        "Figure 3 regenerated from the authors' outputs, beside testing-stats.R on llmlink_long_final.csv",
        "log-likelihood of the human data and accuracy per model and score: ours from the released outputs, theirs "
        "as analysis/testing-stats.R computes them from llmlink_long_final.csv (clip 1e-9; llh_shown as drawn)",
        functools.partial(reanalysis.comparison_table, "fig3"),
        "sm_reanalysis",
    ),
    _table(
        "reanalysis_checks",
        "the authors' stored score columns checked against ours, per file",
        "every file read with its status and, per stored column, the rows that differ from ours",
        reanalysis.checks_table,
        "sm_reanalysis",
    ),
    _figure(
        "fig2_reanalysis",
        "Figure 2 regenerated from the authors' released outputs, the authors' numbers on the bars",
        "accuracy per condition and method of Llama-2 and FLAN-T5 from the authors' released outputs (bars), the "
        "authors' processed number (black diamonds), human accuracy (grey lines); red x: a cell that differs, "
        "explained in reanalysis_fig2",
        reanalysis.fig2_figure,
        "sm_reanalysis",
    ),
    _figure(
        "fig3_reanalysis",
        "Figure 3 regenerated from the authors' released outputs, the R script's numbers on the bars",
        "log-likelihood of the human data as testing-stats.R draws it (LLH + 68768.47 + 500, or 500) and accuracy "
        "per score from the authors' released outputs (bars), the R script's numbers on llmlink_long_final.csv "
        "(black diamonds); red x: a variant that differs, explained in reanalysis_fig3",
        reanalysis.fig3_figure,
        "sm_reanalysis",
    ),
)


def sources(smk: Any, settings: Any) -> tables.StudyFrames | reanalysis.ReanalysisFrames:
    """What the running job's tables (rule sm_tables) or figures (rule sm_figures) are built from: rule sm_choices'
    outputs, the hand codes and the coder's agreement (tables), the pragmatics source files and free generation's
    length cap (figures), and each model's source (params.model_sources)."""
    import pandas as pd

    i = smk.input
    if smk.rule == "sm_reanalysis":
        return _reanalysis_sources(i)
    frames = [pd.read_parquet(i[key]) for key in ("choices", "grid", "human")]
    model_sources = dict(smk.params.model_sources)
    if smk.rule == "sm_tables":
        return tables.StudyFrames(
            *frames, **{key: pd.read_parquet(i[key]) for key in ("hand_codes", "hand_free", "coder_agreement")},
            model_sources=model_sources,
            reanalysis_verdict=reanalysis.verdict_of_tables(i.reanalysis_fig2, i.reanalysis_fig3))
    if smk.rule == "sm_figures":
        return tables.StudyFrames(*frames, sources_root=str(source_root(i.sources)),
                                  hand_free=pd.read_parquet(i.hand_free), model_sources=model_sources,
                                  max_new_tokens=int(smk.params.max_new_tokens))
    raise ValueError(f"rule {smk.rule!r} writes no scoring-methods artifact (sm_tables, sm_figures, sm_reanalysis)")


def _reanalysis_sources(i: Any) -> reanalysis.ReanalysisFrames:
    """Rule sm_reanalysis: the authors' outputs (the mirror's or the download rules') and the human data."""
    human = human_condition_accuracy(source_root(i.sources), items="all")
    return reanalysis.reanalysis_frames(authors_outputs_root(i.authors) / LLM_LINK_DIR, human)


def caption(artifact: Artifact, data: tables.StudyFrames | reanalysis.ReanalysisFrames, note: str) -> str:
    """A sidecar's caption naming the models its numbers come from (a table's include the grid's)."""
    return caption_naming(f"{artifact.caption}{note}", data.models(with_grid=artifact.kind == "table"))
