"""Every table and figure of the bets study: the paper's table or figure it reproduces, its caption, the function
that builds it and the rule whose job writes it. The rules' outputs, the provenance sidecars (so the manifest) and the
report's captions are derived from :data:`ARTIFACTS`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from choicelab.artifacts import Artifact, caption_naming
from choicelab.studies.bets import figures, tables
from choicelab.studies.bets.competence import note as gate_note
from choicelab.studies.bets.paper import compare_paper_figure
from choicelab.studies.bets.seeds import seeds_caption

STUDY = "bets"

STATIC_RULE = "bets_static_tables"
RESULT_RULE = "bets_result_tables"
PVALUE_RULE = "bets_pvalue_check"
FIGURE_RULE = "bets_figures"


@dataclass(frozen=True)
class Sources:
    """What a bets table or figure job's artifacts are built from: the job's named inputs and the typed settings
    (the table functions read and cache the files they name), and for the figures the evaluations with seed means,
    the competence gates and the caption's note (seeds and gate)."""

    inputs: Any
    settings: Any
    evaluations: Any = None
    gates: Any = None
    note: str = ""


def _of_inputs(build: Callable[[Any, Any], Any], sources: Sources) -> Any:
    return build(sources.inputs, sources.settings)


def _compare_paper_figure(sources: Sources) -> Any:
    """The paper's Tables 5, 6, 14 and 20 beside ours, drawn (from the same frame as ``compare_paper``)."""

    frame, _ = tables.compare_paper(sources.inputs, sources.settings)
    return compare_paper_figure(frame)


def _figure(build: Callable[[Any], Any], sources: Sources) -> Any:
    return figures.mark_gate(build(sources.evaluations), sources.gates)


def _static(name: str, reproduces: str, caption: str, builder) -> Artifact:
    return Artifact(name, reproduces, caption, partial(_of_inputs, builder), STATIC_RULE)


def _result(name: str, reproduces: str, caption: str) -> Artifact:
    return Artifact(name, reproduces, caption, partial(_of_inputs, partial(tables.result_table, name)), RESULT_RULE)


_INTERVALS = ("; the CSV gives each accuracy's exact 95% interval (ci95: questions independent) and its interval "
              "clustered by item pair (clustered: a pair's variants repeat it), n_clusters, the design effect and the "
              "minimum detectable difference at its n; a mean over seeds its t 95% interval over seeds")
_ACCURACY = (
    "accuracy (%) per encoder, cells default/fine-tuned; † marks accuracy significantly above the random baseline"
    + _INTERVALS
)
_PVALUES = "one-sided z-test p-values against the random baseline, cells default/fine-tuned"
_RQ3 = "columns fine-tune modality -> test modality, cells train items/test items"

ARTIFACTS: tuple[Artifact, ...] = (
    _static("table1", "Table 1: an MCQA instance and its question-answer pairs",
            "one value question and the (prompt, choice) pairs the encoder scores", tables.table1),
    _static("table2", "Table 2: high- and low-value items per split",
            "the item lists of data/bets/items.yaml and the questions they make per split", tables.table2),
    _static("table3", "Table 3: the four value templates with an example instantiation",
            "each value template with [h]/[l] and instantiated with one test pair", tables.table3),
    _static("table4", "Table 4: the three bet modalities", "the bet question template of each modality",
            tables.table4),
    _static("table7", "Table 7: expected gains, win a high-value item / lose a low-value item (Coin)",
            "expected gain of each choice, derived symbolically, its sign and the ground truths it satisfies",
            tables.table7),
    _static("table8", "Table 8: expected gains, lose a high-value item / win a low-value item (Coin)",
            "expected gain of each choice, derived symbolically, its sign and the ground truths it satisfies",
            tables.table8),
    _result("table5", "Table 5: value questions, standard method, accuracy (%)", _ACCURACY + " (1/3)"),
    _result("table6", "Table 6: bet questions, ACC and BCA (%), default / fine-tuned on value questions",
            "accuracy and belief-conditioned accuracy per modality; § marks significance above 1/3" + _INTERVALS),
    _result("table9", "Table 9: p-values of Table 5 (vs 1/3)", _PVALUES),
    _result("table10", "Table 10: p-values of Fig. 1, Normal (vs 1/8)", _PVALUES),
    _result("table11", "Table 11: p-values of Fig. 1, Weak Normal (vs 1/4)", _PVALUES),
    _result("table12", "Table 12: p-values of Fig. 1, Weak (vs 5/8)", _PVALUES),
    _result("table13", "Table 13: p-values of Table 6 (vs 1/3)", _PVALUES),
    _result("table14", "Table 14: bet questions, threshold method (%), default / fine-tuned",
            "threshold-method accuracy per ground truth and modality; § marks significance above the baseline"
            + _INTERVALS),
    _result("table15", "Table 15: p-values of Table 14", _PVALUES),
    _result("table16", "Table 16: p-values of Fig. 2 / Table 20", f"standard method, {_RQ3}"),
    _result("table17", "Table 17: p-values of Fig. 3, Strict (vs 1/8)", f"threshold method, test items, {_RQ3}"),
    _result("table18", "Table 18: p-values of Fig. 3, Positive Gain (vs 1/4)", f"threshold method, test items, {_RQ3}"),
    _result("table19", "Table 19: p-values of Fig. 3, Non-Negative Gain (vs 1/4)",
            f"threshold method, test items, {_RQ3}"),
    _result("table20", "Table 20: RQ3 accuracy (%), train items / test items, fine-tuned on one modality",
            f"standard method, {_RQ3}; † marks significance above 1/3" + _INTERVALS),
    Artifact("fine_tuning_paired", "extra: RQ1-RQ2's fine-tuned vs default stage on the same questions, paired",
             "per seed checkpoint, question set, split and ground truth: fine-tuned minus default accuracy, paired "
             "question by question, with its 95% interval clustered by item pair; covers_zero marks effects not "
             "told apart at this n", partial(_of_inputs, tables.fine_tuning_paired), RESULT_RULE),
    Artifact("compare_paper", "Tables 5, 6, 14, 20 of the paper beside ours",
             "the paper's numbers beside ours (same model or not), with the RQ3 same- vs cross-modality gap",
             partial(_of_inputs, tables.compare_paper), RESULT_RULE),
    Artifact("fig_compare_paper", "extra: the paper's Tables 5, 6, 14, 20 beside ours, in a figure",
             "accuracy (%) on one scale: the paper's four encoders (black diamonds) beside each of our models "
             "(95% intervals: clustered by item pair for a checkpoint, t over seeds for a mean, normal from the "
             "questions' SE for the RQ3 headline's cell means; n questions under each cell); the paper's encoders are "
             "BERT/RoBERTa/DeBERTa/BigBird, "
             "so beside another encoder they are context, not a reproduction",
             _compare_paper_figure, RESULT_RULE, kind="figure"),
    Artifact("training",
             "extra: data, recipe, epochs and dev accuracy of every checkpoint (target reached or not); the default "
             "(SWAG) stage beside the paper's SWAG validation accuracy (77/79/85/81)",
             "one row per checkpoint", partial(_of_inputs, tables.training_table), RESULT_RULE),
    Artifact("pvalue_check", "the paper's p-values (Tables 9, 13, 15, 16) recomputed from its own accuracies",
             "the paper's printed p-value beside our z-test of its own accuracy, and whether they agree",
             partial(_of_inputs, tables.pvalue_check), PVALUE_RULE),
    Artifact("fig1", "Figure 1 (value questions, threshold method)",
             "Normal, Weak Normal and Weak accuracy per template, default and fine-tuned (dashed: random baselines); "
             + figures.INTERVAL,
             partial(_figure, figures.fig1_value_threshold), FIGURE_RULE, kind="figure"),
    Artifact("fig2", "Figure 2 (RQ3, standard method)",
             "the bet fine-tuning grid, train and test items (dashed: 1/3); " + figures.INTERVAL,
             partial(_figure, figures.fig2_rq3_standard), FIGURE_RULE, kind="figure"),
    Artifact("fig3", "Figure 3 (RQ3, threshold method)",
             "the bet fine-tuning grid, Strict, Positive Gain and Non-Negative Gain on test items; " + figures.INTERVAL,
             partial(_figure, figures.fig3_rq3_threshold), FIGURE_RULE, kind="figure"),
)


def sources(smk: Any, settings: Any) -> Sources:
    """The running job's :class:`Sources`; the figure job reads the evaluations (gated, with seed means) once."""
    if smk.rule != FIGURE_RULE:
        return Sources(smk.input, settings)

    evaluations, _, gates = tables.gated_evaluations(smk.input.evaluations, smk.input.checkpoints)
    competence = gate_note(gates)
    note = seeds_caption(evaluations) + (f". {competence}" if competence else "")
    return Sources(smk.input, settings, evaluations, gates, note)


def caption(artifact: Artifact, sources: Sources, note: str) -> str:
    """A table's caption names the study's encoders (settings); a figure's the encoders in its evaluations, after
    the seeds and competence note."""
    if artifact.kind == "figure" and sources.evaluations is not None:
        return caption_naming(f"{artifact.caption}{sources.note}{note}",
                              sorted(sources.evaluations["model"].unique()), "encoders")
    return caption_naming(f"{artifact.caption}{note}", getattr(sources.settings, "models", ()))
