"""The probes study's tables and figures (:data:`ARTIFACTS`): which paper table or figure each reproduces, its caption,
the function that builds it and the rule whose job writes it; :func:`sources`, what a job's artifacts are built from;
and :func:`caption`, the caption each file's sidecar carries. The one writer (choicelab.artifacts.write_artifacts)
writes them.

Each table or figure function takes the job's named inputs or other artifacts' frames (:data:`ARGUMENTS`); the
:class:`Sources` of a job builds each frame once (Tables 1 and 2 also feed ``compare_paper``, the in-text tables
Figs 4-6), so a job that writes several artifacts shares them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from choicelab.artifacts import Artifact, Built, by_name, caption_naming
from choicelab.studies.probes import figures, paper, tables
from choicelab.studies.probes.competence import (
    SEED_SUMMARY,
    caption_note,
    competence,
    mark,
    seeds_in,
    with_seed_summary,
)
from choicelab.studies.probes.metrics import confidence_frame, read_confidences, read_frames

STUDY = "probes"


def finish(name: str, value: Any, gate: Any = None) -> Any:
    """A built table with its seed summary rows (:data:`.competence.SEED_SUMMARY`) and, given the competence
    ``gate``, every row marked with the verdict of the checkpoint it is built on."""

    if ARTIFACT_BY_NAME[name].kind != "table":
        return value
    if name in SEED_SUMMARY:
        value = with_seed_summary(value, *SEED_SUMMARY[name])
    return mark(value, gate) if gate is not None else value


@dataclass
class Sources:
    """What a probes job's artifacts are built from: its named inputs (frames, the competence ``gate``, numbers from
    its params), the models its captions name (None: the caption names none) and the footnote every table, figure
    and caption of the job carries (competence verdict and seeds). Each artifact's frame is built once
    (:meth:`value`): an artifact another one reads (``table_nra`` for Fig. 4) is shared."""

    inputs: Mapping[str, Any]
    models: str | None = None
    footnote: str = ""
    built: dict[str, Any] = field(default_factory=dict)

    def value(self, key: str) -> Any:
        """A named input, or the frame (figure) of the artifact ``key``, built from its :data:`ARGUMENTS` once;
        tables get their seed summaries and, where the inputs hold a ``gate``, every row's competence verdict."""
        if key in self.inputs:
            return self.inputs[key]
        if key not in self.built:
            raw = BUILDERS[key](*(self.value(arg) for arg in ARGUMENTS[key]))
            self.built[key] = finish(key, raw, self.inputs.get("gate"))
        return self.built[key]


def footnote_lines(footnote: str, width_inches: float) -> str:
    """``footnote`` wrapped to a figure ``width_inches`` wide at 8 pt (about 14 characters per inch)."""

    return textwrap.fill(footnote, max(40, int(14 * width_inches)))


def render(name: str, sources: Sources) -> Built:
    """The artifact ``name`` as the writer writes it: a table with its Markdown (3 decimals, the job's footnote
    below it), a figure with the footnote drawn under its axes; the footnote is also appended to the caption."""
    value, footnote = sources.value(name), sources.footnote
    note = f" ({footnote})" if footnote else ""
    if ARTIFACT_BY_NAME[name].kind == "table":
        markdown = value.to_markdown(index=False, floatfmt=".3f") + "\n" + (f"\n{footnote}\n" if footnote else "")
        return Built(value, markdown, note)
    if footnote:  # the competence verdict and the seeds travel with the figure itself
        value.text(0.005, -0.01, footnote_lines(footnote, value.get_figwidth()), fontsize=8, va="top", ha="left",
                   transform=value.transFigure)  # below the axes: the saved area grows to hold it
    return Built(value, None, note)


# name -> the function that builds the table or figure, and what it is called with, in order: a job's named input,
# or the frame of another artifact
BUILDERS: dict[str, Callable[..., Any]] = {}
ARGUMENTS: dict[str, tuple[str, ...]] = {}


def _artifact(name: str, reproduces: str, caption: str, build: Callable[..., Any], rule: str,
              arguments: tuple[str, ...] = ("conf",), kind: str = "table") -> Artifact:
    """An artifact whose builder renders ``build(*arguments)`` from a job's :class:`Sources` (:func:`render`)."""
    BUILDERS[name], ARGUMENTS[name] = build, arguments
    return Artifact(name, reproduces, caption, partial(render, name), rule, kind=kind)


ARTIFACTS: tuple[Artifact, ...] = (
    # rule probes_tables: Tables 1-2, the in-text tables and the comparison with the paper
    _artifact("table1", "Table 1 (Wrong-Question) with the paper's significance tests at 99%",
             "Wrong-Question: bias-free 1/n, No-Question minus Wrong-Question confidence (paired t 95% interval over "
             "instances), pseudo-accuracy (mean over trials; ci95: exact over instances; clustered: every row "
             "clustered by its original item, with n_clusters, design effect and minimum detectable difference) "
             "and the paper's significance statements at 99%",
             tables.table1, "probes_tables"),
    _artifact("table2", "Table 2 (MaxProb thresholds and accuracies; instances split 50/50, mean over trials)",
             "MaxProb selective prediction per probe: threshold and accuracy, mean and t 95% interval over repeats "
             "(_repeats: their spread; the repeats share instances), exact 95% CI of one repeat's decisions",
             tables.table2, "probes_tables", ("conf", "seed", "trials")),
    _artifact("table_accuracy",
             "extra: the competence gate: dev accuracy of every fine-tuned checkpoint (exact 95% CI) against chance "
             "and its untrained-head control, with its seed, recipe, train data and model selection",
             "dev accuracy per checkpoint (encoder, benchmark, seed; the seeds' ensemble where configured) with its "
             "exact 95% CI against chance and the untrained-head control's accuracy; a checkpoint whose interval "
             "does not clear chance is marked 'model not above chance: probe statistics not interpretable' here and "
             "in every table built on it; the training seed and recipe, the held-out accuracy that selected the "
             "epoch (a held-out slice of train, never the evaluation set)",
             tables.accuracy_table, "probes_tables", ("conf", "train_info", "gate", "training")),
    _artifact("table_nra", "in-text: No-Right-Answer confidences ANC, ANC', RAC, SAC (Fig. 4 numbers)",
             "No-Right-Answer: ANC, ANC', RAC, SAC, the bars ANC'-SAC and ANC-RAC with t 95% intervals (_ci95) and "
             "standard deviations over instances (_sd: the paper's Fig. 4 bars of 0.37-0.75 match SDs, not SEs), "
             "and the pseudo-accuracy with its binomial test, its exact 95% CI (ci95) and the interval clustered by "
             "original item (clustered)", tables.nra_table, "probes_tables"),
    _artifact("table_choice_paralysis",
             "in-text: Choice Paralysis confidence, accuracy and c_p - c by n and sampling (Fig. 5 numbers)",
             "Choice Paralysis by n and sampling: confidence (mean and t 95% interval over trials), accuracy (exact "
             "95% CI over distinct instances, and the interval clustered by original item: an instance drawn in "
             "several trials is one unit), c_p - c with a t 95% CI and a Wilcoxon test",
             tables.choice_paralysis_table, "probes_tables"),
    _artifact("table_hits_at_k", "in-text: hits@k for every k up to n under Choice Paralysis (Fig. 6 numbers)",
             "hits@k for k = 1..n under Choice Paralysis (mean over trials; ci95: exact over rows as if independent; "
             "clustered: by original item, the one Fig. 6 draws) and the original accuracy",
             tables.hits_at_k_table, "probes_tables"),
    _artifact("table_label_balance", "in-text: label balance of gold labels and predictions",
             "share of gold labels and of predictions per option position, exact 95% CIs and a binomial test of "
             "each gold share vs 1/n", tables.label_balance_table, "probes_tables"),
    _artifact("table_lengths", "in-text: length in words of the selected vs the non-selected choices (95% CI)",
             "words in the selected vs the non-selected choices, t 95% CIs and Welch's t-test",
             tables.length_table, "probes_tables", ("conf", "dev")),
    _artifact("table_overlap",
             "in-text: Pearson r of the prompt-overlap word frequencies in selected vs non-selected choices",
             "Pearson r (Fisher-z 95% CI) between the frequencies of prompt-overlapping words in the selected and "
             "the non-selected choices (Sec. 4.1)", tables.overlap_table, "probes_tables", ("conf", "dev")),
    _artifact("compare_paper", "extra: the paper's Tables 1 and 2 beside ours",
             "the paper's Tables 1 and 2 (all RoBERTa-large) beside ours, with our n and 95% interval (ours_interval "
             "says which: paired t, clustered by item, t over repeats or exact); each row names the "
             "paper's model and says whether ours is like for like and, where not, why",
             paper.compare_paper, "probes_tables", ("table1", "table2", "paper1", "paper2")),
    _artifact("fig_compare_paper", "extra: the paper's Tables 1 and 2 beside ours, in a figure",
             "per quantity of Tables 1-2 and benchmark: the paper's number (black diamonds, RoBERTa-large) beside "
             "each of our models' (with the 95% interval each panel names, n instances on the axis), same scale",
             paper.compare_paper_figure, "probes_tables", ("compare_paper",), kind="figure"),
    # rule probes_robustness: every benchmark and scorer
    _artifact("robustness_matrix", "extra (beyond the paper): the four probes on every benchmark and scorer",
             "pseudo-accuracy minus chance per benchmark x model x scoring method x probe (n instances; ci95: exact "
             "binomial 95% CI over instances; clustered: every row clustered by its original item, with "
             "n_clusters, design effect and minimum detectable difference; cells whose exact interval covers zero "
             "are marked, not evidence of an effect; minus_original: the probe against the accuracy before, paired "
             "on the same instances, t 95% interval)",
             tables.robustness_matrix, "probes_robustness"),
    _artifact("fig_robustness_matrix", "extra (beyond the paper): heat map of probes/robustness_matrix",
             "heat map of pseudo-accuracy minus chance per benchmark x model x scoring method x probe (n per cell; "
             "cells whose exact 95% CI covers zero are hatched, their value bracketed)",
             figures.robustness_heatmap, "probes_robustness", ("robustness_matrix",), kind="figure"),
    # rule probes_timing_table
    _artifact("table_timing", "in-text: time to answer Choice Paralysis instances by n (near-linear in n)",
             "seconds per Choice Paralysis instance by n and relative to the smallest n (wall-clock: differs "
             "between runs)", tables.timing_table, "probes_timing_table", ("timings",)),
    # rule probes_controls
    _artifact("table_controls", "in-text: Sec. 4.2-4.4 (pre-trained RoBERTa, XLNet, UnifiedQA)",
             "Sec. 4.2-4.4 controls: pre-trained encoders with an untrained multiple-choice head under the four "
             "probes, beside the fine-tuned encoders and the paper's numbers (exact 95% CIs and intervals clustered "
             "by original item, n per cell; unrun paper controls listed as such)",
             tables.controls_table, "probes_controls", ("control", "fine_tuned", "paper")),
    # rule probes_figures: Figs 3-6
    _artifact("fig3", "Figure 3", "No-Question confidences before and after (box plots: the spread over "
             "instances, not an interval of the mean)",
             figures.fig3_no_question, "probes_figures", kind="figure"),
    _artifact("fig4", "Figure 4",
             "No-Right-Answer confidence differences with t 95% intervals over instances (the paper's bars, "
             "0.37-0.75, match standard deviations over instances, listed in probes/table_nra)",
             figures.fig4_no_right_answer, "probes_figures", ("table_nra",), kind="figure"),
    _artifact("fig5", "Figure 5",
             "Choice Paralysis confidence by n and sampling (mean and t 95% interval over trials; grey: original)",
             figures.fig5_choice_paralysis, "probes_figures", ("table_choice_paralysis",), kind="figure"),
    _artifact("fig6", "Figure 6", "hits@k under Choice Paralysis, both samplings (95% interval clustered by "
             "original item; dashed: original accuracy)",
             figures.fig6_hits_at_k, "probes_figures", ("table_hits_at_k",), kind="figure"),
)

ARTIFACT_BY_NAME = by_name(ARTIFACTS)

TIMING_NOTE = "Wall-clock seconds on this machine: they differ between runs (excluded from byte comparisons)."


def sources(smk: Any, settings: Any) -> Sources:
    """The running job's :class:`Sources`, read from its inputs and params once (the rule decides which)."""
    readers = {"probes_tables": _tables, "probes_figures": _figures, "probes_robustness": _robustness,
               "probes_controls": _controls, "probes_timing_table": _timing}
    if smk.rule not in readers:
        raise ValueError(f"rule {smk.rule!r} writes no probes artifact (choicelab.studies.probes.artifacts: "
                         f"{sorted(readers)})")
    return readers[smk.rule](smk.input, smk.params)


def _models(conf: Any) -> str:
    return ", ".join(sorted(conf["model"].unique()))


def _tables(i: Any, p: Any) -> Sources:
    import pandas as pd

    conf = read_confidences(i.confidences)
    control = confidence_frame(read_frames(i.controls), read_frames(i.probed)) if i.controls else None
    training = tables.training_records(list(i.checkpoints))
    gate = competence(conf, control, p.premise, training)
    inputs = {"conf": conf, "dev": read_frames(i.dev), "train_info": tables.train_info(read_frames(i.train)),
              "training": training, "gate": gate,
              "paper1": pd.read_csv(i.paper1), "paper2": pd.read_csv(i.paper2), "seed": p.seed, "trials": p.trials}
    return Sources(inputs, _models(conf), caption_note(gate, len(p.seeds)))


def _figures(i: Any, p: Any) -> Sources:
    conf = read_confidences(i.confidences)
    gate = competence(conf, training=tables.training_records(list(i.checkpoints)))  # failing: named on it
    return Sources({"conf": conf, "gate": gate}, _models(conf), caption_note(gate, seeds_in(conf["model"].unique())))


def _robustness(i: Any, p: Any) -> Sources:
    conf = confidence_frame(read_frames([*i.encoder, *i.causal]), read_frames(i.probed))
    gate = competence(conf, training=tables.training_records(list(i.checkpoints)))  # causal LMs: no verdict
    return Sources({"conf": conf, "gate": gate}, _models(conf), caption_note(gate, seeds_in(conf["model"].unique())))


def _controls(i: Any, p: Any) -> Sources:
    import pandas as pd

    control, fine_tuned = confidence_frame(read_frames(i.dumps), read_frames(i.probed)), read_confidences(i.confidences)
    gate = competence(fine_tuned, control, training=tables.training_records(list(i.checkpoints)))
    inputs = {"control": control, "fine_tuned": fine_tuned, "paper": pd.read_csv(i.paper), "gate": gate}
    return Sources(inputs, None, caption_note(gate, seeds_in(fine_tuned["model"].unique())))


def _timing(i: Any, p: Any) -> Sources:
    import pandas as pd

    timings = pd.concat([pd.read_csv(path) for path in i.timings], ignore_index=True)
    return Sources({"timings": timings}, None, TIMING_NOTE)


def caption(artifact: Artifact, sources: Sources, note: str) -> str:
    """The caption a file's sidecar carries: what the artifact reproduces, its caption, the models of the job (where
    it names them) and the job's footnote (``note``)."""
    models = [sources.models] if sources.models else []
    return caption_naming(f"{artifact.reproduces}: {artifact.caption}", models) + note
