"""The probes study's tables and figures (:data:`ARTIFACTS`): which paper table or figure each reproduces, its caption,
the function that builds it and the rule whose job writes it; and how a job builds and writes them.

Each builder takes the job's named inputs or other artifacts' frames (:data:`ARGUMENTS`), so a job that writes
several artifacts builds each frame once (Tables 1 and 2 also feed ``compare_paper``, the in-text tables Figs 4-6).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from choicelab.artifacts import Artifact, by_name, caption_naming
from choicelab.io import write_csv, write_text
from choicelab.plotting import save_figure
from choicelab.provenance import SIDECAR_SUFFIX, write_artifact
from choicelab.studies.probes import RESULTS, figures, paper, tables

ARTIFACTS: tuple[Artifact, ...] = (
    # rule probes_tables: Tables 1-2, the in-text tables and the comparison with the paper
    Artifact("table1", "Table 1 (Wrong-Question) with the paper's significance tests at 99%",
             "Wrong-Question: bias-free 1/n, No-Question minus Wrong-Question confidence, pseudo-accuracy (mean +- SE "
             "over trials, exact 95% CI over instances) and the paper's significance statements at 99%",
             tables.table1, "probes_tables"),
    Artifact("table2", "Table 2 (MaxProb thresholds and accuracies; instances split 50/50, mean +- SE over trials)",
             "MaxProb selective prediction per probe: threshold and accuracy, mean +- SE over repeats, exact 95% CI",
             tables.table2, "probes_tables"),
    Artifact("table_accuracy",
             "extra: the competence gate: dev accuracy of every fine-tuned checkpoint (exact 95% CI) against chance "
             "and its untrained-head control, with its seed, recipe, train data and model selection",
             "dev accuracy per checkpoint (encoder, benchmark, seed; the seeds' ensemble where configured) with its "
             "exact 95% CI against chance and the untrained-head control's accuracy; a checkpoint whose interval "
             "does not clear chance is marked 'model not above chance: probe statistics not interpretable' here and "
             "in every table built on it; the training seed and recipe, the held-out accuracy that selected the "
             "epoch (a held-out slice of train, never the evaluation set)",
             tables.accuracy_table, "probes_tables"),
    Artifact("table_nra", "in-text: No-Right-Answer confidences ANC, ANC', RAC, SAC (Fig. 4 numbers)",
             "No-Right-Answer: ANC, ANC', RAC, SAC, the bars ANC'-SAC and ANC-RAC with standard errors (_se) and "
             "standard deviations over instances (_sd: the paper's Fig. 4 bars of 0.37-0.75 match SDs, not SEs), "
             "and the pseudo-accuracy with its binomial test", tables.nra_table, "probes_tables"),
    Artifact("table_choice_paralysis",
             "in-text: Choice Paralysis confidence, accuracy and c_p - c by n and sampling (Fig. 5 numbers)",
             "Choice Paralysis by n and sampling: confidence and accuracy (mean +- SE over trials), c_p - c with a "
             "t 95% CI and a Wilcoxon test", tables.choice_paralysis_table, "probes_tables"),
    Artifact("table_hits_at_k", "in-text: hits@k for every k up to n under Choice Paralysis (Fig. 6 numbers)",
             "hits@k for k = 1..n under Choice Paralysis (mean +- SE over trials, exact 95% CI) and the original "
             "accuracy", tables.hits_at_k_table, "probes_tables"),
    Artifact("table_label_balance", "in-text: label balance of gold labels and predictions",
             "share of gold labels and of predictions per option position, exact 95% CIs and a binomial test of "
             "each gold share vs 1/n", tables.label_balance_table, "probes_tables"),
    Artifact("table_lengths", "in-text: length in words of the selected vs the non-selected choices (95% CI)",
             "words in the selected vs the non-selected choices, t 95% CIs and Welch's t-test",
             tables.length_table, "probes_tables"),
    Artifact("table_overlap",
             "in-text: Pearson r of the prompt-overlap word frequencies in selected vs non-selected choices",
             "Pearson r (Fisher-z 95% CI) between the frequencies of prompt-overlapping words in the selected and "
             "the non-selected choices (Sec. 4.1)", tables.overlap_table, "probes_tables"),
    Artifact("compare_paper", "extra: the paper's Tables 1 and 2 beside ours",
             "the paper's Tables 1 and 2 (all RoBERTa-large) beside ours, with our n and SE; each row names the "
             "paper's model and says whether ours is like for like and, where not, why",
             paper.compare_paper, "probes_tables"),
    Artifact("fig_compare_paper", "extra: the paper's Tables 1 and 2 beside ours, in a figure",
             "per quantity of Tables 1-2 and benchmark: the paper's number (black diamonds, RoBERTa-large) beside "
             "each of our models' (mean +- SE over trials, n instances on the axis), same scale",
             paper.compare_paper_figure, "probes_tables", kind="figure"),
    # rule probes_robustness: every benchmark and scorer
    Artifact("robustness_matrix", "extra (beyond the paper): the four probes on every benchmark and scorer",
             "pseudo-accuracy minus chance per benchmark x model x scoring method x probe (n instances and a exact "
             "binomial 95% CI per cell; cells whose interval covers zero are marked, not evidence of an effect)",
             tables.robustness_matrix, "probes_robustness"),
    Artifact("fig_robustness_matrix", "extra (beyond the paper): heat map of probes/robustness_matrix",
             "heat map of pseudo-accuracy minus chance per benchmark x model x scoring method x probe (n per cell; "
             "cells whose exact 95% CI covers zero are hatched, their value bracketed)",
             figures.robustness_heatmap, "probes_robustness", kind="figure"),
    # rule probes_timing_table
    Artifact("table_timing", "in-text: time to answer Choice Paralysis instances by n (near-linear in n)",
             "seconds per Choice Paralysis instance by n and relative to the smallest n (wall-clock: differs "
             "between runs)", tables.timing_table, "probes_timing_table"),
    # rule probes_controls
    Artifact("table_controls", "in-text: Sec. 4.2-4.4 (pre-trained RoBERTa, XLNet, UnifiedQA)",
             "Sec. 4.2-4.4 controls: pre-trained encoders with an untrained multiple-choice head under the four "
             "probes, beside the fine-tuned encoders and the paper's numbers (exact 95% CIs, n per cell; unrun "
             "paper controls listed as such)", tables.controls_table, "probes_controls"),
    # rule probes_figures: Figs 3-6
    Artifact("fig3", "Figure 3", "No-Question confidences before and after",
             figures.fig3_no_question, "probes_figures", kind="figure"),
    Artifact("fig4", "Figure 4",
             "No-Right-Answer confidence differences with standard errors over instances (the paper's bars, 0.37-0.75, "
             "match standard deviations over instances, listed in probes/table_nra; an SE at its n >= 1,532 is "
             "below 0.026)",
             figures.fig4_no_right_answer, "probes_figures", kind="figure"),
    Artifact("fig5", "Figure 5",
             "Choice Paralysis confidence by n and sampling (mean +- SE over trials; grey: original)",
             figures.fig5_choice_paralysis, "probes_figures", kind="figure"),
    Artifact("fig6", "Figure 6", "hits@k under Choice Paralysis, both samplings (+- SE; dashed: original accuracy)",
             figures.fig6_hits_at_k, "probes_figures", kind="figure"),
)

TABLES = f"{RESULTS}/tables"
FIGURES = "figures/probes"
RULES = tuple(dict.fromkeys(artifact.rule for artifact in ARTIFACTS))  # the rules that write artifacts


def folder(artifact: Artifact) -> str:
    return TABLES if artifact.kind == "table" else FIGURES


def by_folder(rule: str) -> dict[str, list[Artifact]]:
    """The artifacts a rule writes, by the folder they go to (tables, figures)."""
    found: dict[str, list[Artifact]] = {}
    for artifact in ARTIFACTS:
        if artifact.rule == rule:
            found.setdefault(folder(artifact), []).append(artifact)
    return found


def artifact_files(enabled: bool) -> list[str]:
    """Every table's and figure's files (the targets of ``rule all``), or none when the study is off."""
    return [path for artifact in ARTIFACTS for path in artifact.files(folder(artifact))] if enabled else []


# What each builder is called with, in order: a job's named input, or the frame of another artifact.
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "table1": ("conf",),
    "table2": ("conf", "seed", "trials"),
    "table_accuracy": ("conf", "train_info", "gate", "training"),
    "table_nra": ("conf",),
    "table_choice_paralysis": ("conf",),
    "table_hits_at_k": ("conf",),
    "table_label_balance": ("conf",),
    "table_lengths": ("conf", "dev"),
    "table_overlap": ("conf", "dev"),
    "compare_paper": ("table1", "table2", "paper1", "paper2"),
    "fig_compare_paper": ("compare_paper",),
    "robustness_matrix": ("conf",),
    "fig_robustness_matrix": ("robustness_matrix",),
    "table_timing": ("timings",),
    "table_controls": ("control", "fine_tuned", "paper"),
    "fig3": ("conf",),
    "fig4": ("table_nra",),
    "fig5": ("table_choice_paralysis",),
    "fig6": ("table_hits_at_k",),
}

ARTIFACT_BY_NAME = by_name(ARTIFACTS)


def finish(name: str, value: Any, gate: Any = None) -> Any:
    """A built table with its seed summary rows (:data:`.competence.SEED_SUMMARY`) and, given the competence
    ``gate``, every row marked with the verdict of the checkpoint it is built on."""
    from choicelab.studies.probes.competence import SEED_SUMMARY, mark, with_seed_summary

    if ARTIFACT_BY_NAME[name].kind != "table":
        return value
    if name in SEED_SUMMARY:
        value = with_seed_summary(value, *SEED_SUMMARY[name])
    return mark(value, gate) if gate is not None else value


def build(names: Sequence[str], inputs: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(name, frame or figure) of each artifact of ``names``, in order; an artifact another one reads is built once.
    Tables get their seed summaries and, where ``inputs`` holds a ``gate`` (:func:`.competence.competence`), the
    competence verdict of every row (:func:`finish`)."""
    built: dict[str, Any] = {}

    def value(key: str) -> Any:
        if key in inputs:
            return inputs[key]
        if key not in built:
            raw = ARTIFACT_BY_NAME[key].builder(*(value(arg) for arg in ARGUMENTS[key]))
            built[key] = finish(key, raw, inputs.get("gate"))
        return built[key]

    for name in names:
        yield name, value(name)


def job_artifacts(outputs: Iterable[str]) -> dict[str, list[str]]:
    """name -> files (in the artifact's suffix order) of the artifacts among a job's outputs, sidecars left out."""
    found: dict[str, list[str]] = {}
    for path in map(str, outputs):
        if path.endswith(SIDECAR_SUFFIX):
            continue
        name = Path(path).name.split(".")[0]
        if name not in ARTIFACT_BY_NAME:
            raise ValueError(f"output {path} is no artifact of the probes study (choicelab.studies.probes.artifacts)")
        found.setdefault(name, ARTIFACT_BY_NAME[name].files(str(Path(path).parent)))
    return found


def caption(name: str, models: str | None = None) -> str:
    """The caption written with an artifact (what it reproduces, its caption) and the models it shows, where the
    job knows them."""
    artifact = ARTIFACT_BY_NAME[name]
    return caption_naming(f"{artifact.reproduces}: {artifact.caption}", [models] if models else [])


def footnote_lines(footnote: str, width_inches: float) -> str:
    """``footnote`` wrapped to a figure ``width_inches`` wide at 8 pt (about 14 characters per inch)."""
    import textwrap

    return textwrap.fill(footnote, max(40, int(14 * width_inches)))


def write(name: str, value: Any, files: Sequence[str], *, record: Mapping[str, Any], models: str | None = None,
          footnote: str = "") -> None:
    """Write an artifact's files (a table's .csv and .md, a figure's .png and .svg) and their provenance sidecars."""
    artifact = ARTIFACT_BY_NAME[name]
    if artifact.kind == "table":
        csv, md = files
        write_csv(csv, value)
        write_text(md, value.to_markdown(index=False, floatfmt=".3f") + "\n" + (f"\n{footnote}\n" if footnote else ""))
    else:
        png, svg = files
        if footnote:  # the competence verdict and the seeds travel with the figure itself
            value.text(0.005, -0.01, footnote_lines(footnote, value.get_figwidth()), fontsize=8, va="top",
                       ha="left", transform=value.transFigure)  # below the axes: the saved area grows to hold it
        save_figure(value, png, svg)
    text = caption(name, models) + (f" ({footnote})" if footnote else "")
    write_artifact(list(files), artifact_id=f"probes/{name}", reproduces=artifact.reproduces, caption=text,
                   record=record)
