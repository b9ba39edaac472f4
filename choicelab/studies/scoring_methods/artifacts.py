"""Every table and figure of the scoring-methods study: the paper's figure it reproduces, its caption and the function
that builds it from :class:`~choicelab.studies.scoring_methods.tables.StudyFrames`. Tables are written by rule
sm_tables into ``results/scoring_methods/tables``, figures by rule sm_figures into ``figures/scoring_methods``."""

from __future__ import annotations

from choicelab.artifacts import Artifact
from choicelab.studies.scoring_methods import RESULTS, figures, paper, tables

TABLES = f"{RESULTS}/tables"
FIGURES = "figures/scoring_methods"

ARTIFACTS: tuple[Artifact, ...] = (
    Artifact(
        "table_numbers",
        "every number behind Figs 2 and 3",
        "accuracy per condition, model and method (Fig. 2) and per score with the log-likelihood of the human data "
        "(Fig. 3), with the authors' probability clip and each label set beside the pooled value; free generation "
        "from the authors' hand codes where they coded the model (as the paper counted it, column free_from), the "
        "coder's number beside (coder_k, coder_n, coder_accuracy, coder_loglik)",
        tables.numbers_table,
        "sm_tables",
    ),
    Artifact(
        "compare_paper",
        "human accuracies by condition and the paper's findings checked against ours",
        "human accuracies by condition beside the paper's, and each of the paper's findings checked on our choices",
        paper.compare_paper_table,
        "sm_tables",
    ),
    Artifact(
        "free_accuracy",
        "free-generation accuracy (Figs 2-3's free bars) with the authors' hand-coded accuracy and the coder's error",
        "free-generation accuracy per model, condition and temperature: the coder's, with an interval widened by its "
        "misclassification on held-out hand codes, and the authors' hand-coded accuracy where they coded the model",
        tables.free_accuracy_artifact,
        "sm_tables",
    ),
    Artifact(
        "hand_codes",
        "the authors' hand-coded free generations: which files are used",
        "every hand-code file of LLM_link results/free with its status (ok, incomplete, duplicate, interleaved, "
        "seed mismatch) and whether agreement and hand-coded accuracy use it",
        tables.hand_codes_table,
        "sm_tables",
    ),
    Artifact(
        "human_accuracy",
        "human accuracy per condition from the raw human data, beside the paper's",
        "human accuracy per condition (target choices of all responses) beside the value the paper prints",
        tables.human_accuracy_table,
        "sm_tables",
    ),
    Artifact(
        "robustness_matrix",
        "beyond the paper: accuracy per (benchmark, model, method, score), agreement, flips",
        "the method x score grid on every benchmark: accuracy, pairwise agreement between methods and the share of "
        "items whose prediction flips across methods",
        tables.robustness_tables,
        "sm_tables",
    ),
    Artifact(
        "fig1",
        "Figure 1 (an irony item under every method, with the score formulas)",
        "an irony item as each method presents it, the scored sequences and the score formulas",
        figures.fig1_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig2",
        "Figure 2 (accuracy per condition, model and method; human and chance)",
        "accuracy per condition, model and method, beside human accuracy and chance; label scoring with the letter "
        "labels only and rating with the numbers only, as the paper drew it; free generation from the authors' hand "
        "codes where they coded the model, the coder's accuracy marked x beside",
        figures.fig2_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig2_pooled",
        "extra: Figure 2 pooled over both label sets and both rating scores (not the paper's drawing)",
        "accuracy per condition, model and method with label scoring pooled over letter and number labels and rating "
        "pooled over number- and phrase-based scores",
        figures.fig2_pooled_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig3",
        "Figure 3 (accuracy and log-likelihood of the human data per score and model), with our clip 1e-3",
        "accuracy and log-likelihood of the human data per score and model (letter labels, number ratings), the "
        "target rate clipped to [1e-3, 1 - 1e-3], as the difference to the worst model and score; free generation "
        "from the authors' hand codes where they coded the model, the coder's accuracy marked x",
        figures.fig3_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig3_authors_clip",
        "Figure 3 as the authors computed and displayed it (clip 1e-9, log-likelihood below -100000 shown as 500)",
        "accuracy and log-likelihood of the human data per score and model (letter labels, number ratings) with the "
        "authors' clip 1e-9 and display: LLH minus the worst LLH above -100000 plus 500, rows at or below -100000 "
        "shown as 500 (hatched); free generation from the authors' hand codes where they coded the model, the "
        "coder's accuracy marked x",
        figures.fig3_authors_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig3_pooled",
        "extra: Figure 3 pooled over both label sets and both rating scores (not the paper's drawing)",
        "accuracy and log-likelihood of the human data per score and model with label scoring pooled over letter and "
        "number labels, clip 1e-3",
        figures.fig3_pooled_figure,
        "sm_figures",
        "figure",
    ),
    Artifact(
        "fig_robustness_matrix",
        "beyond the paper: accuracy minus chance per benchmark, model and method x score",
        "accuracy minus chance per benchmark, model and method x score, and the share of items whose prediction flips",
        figures.robustness_figure,
        "sm_figures",
        "figure",
    ),
)


def folder(artifact: Artifact) -> str:
    """Where an artifact's files go: tables under results/, figures under figures/."""
    return TABLES if artifact.kind == "table" else FIGURES


def artifact_files(enabled: bool) -> list[str]:
    """The files of every artifact (targets of ``rule all``); none when the study runs no model."""
    return [path for artifact in ARTIFACTS for path in artifact.files(folder(artifact))] if enabled else []
