"""Adapter: rule sm_figures (Figs 1-3 and the robustness heat map, in one job)."""

import pandas as pd

from choicelab.figures import scoring_methods as fsm
from choicelab.plotting import save_figure
from choicelab.items.pragmatics import load_condition
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

WHAT = {"fig1": "Figure 1 (an irony item under every method, with the score formulas)",
        "fig2": "Figure 2 (accuracy per condition, model and method; human and chance)",
        "fig3": "Figure 3 (accuracy and log-likelihood of the human data per score and model)",
        "fig_robustness_matrix": "beyond the paper: accuracy minus chance per benchmark, model and method x score"}


def draw(name, choices, human, reported):
    if name == "fig1":
        return fsm.fig1_example(load_condition(snakemake.params.root, "irony")[0])
    if name == "fig2":
        return fsm.fig2_accuracy(fsm.fig2_table(reported, human))
    if name == "fig3":
        return fsm.fig3_accuracy_loglik(fsm.fig3_table(reported, human))
    grid = pd.read_parquet(snakemake.input.grid)
    return fsm.robustness_heatmap(fsm.robustness_matrix(grid), fsm.flip_share(grid))


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    choices = pd.read_parquet(snakemake.input.choices)
    human = pd.read_parquet(snakemake.input.human)
    reported = fsm.reported_choices(choices)
    models = ", ".join(sorted(choices["model"].astype(str).unique()))
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        save_figure(draw(name, choices, human, reported), png, svg)
        write_artifact([png, svg], artifact_id=f"scoring_methods/{name}",
                       reproduces=WHAT[name], caption=f"{WHAT[name]}; models: {models}.", record=record)
