"""Adapter: rule sm_figure."""

import pandas as pd

from choicelab.figures import scoring_methods as fsm
from choicelab.figures.common import save_figure
from choicelab.items.pragmatics import load_condition
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

WHAT = {"fig1": "Figure 1 (an irony item under every method, with the score formulas)",
        "fig2": "Figure 2 (accuracy per condition, model and method; human and chance)",
        "fig3": "Figure 3 (accuracy and log-likelihood of the human data per score and model)",
        "fig_robustness_matrix": "beyond the paper: accuracy minus chance per benchmark, model and method x score"}

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.figure
    choices = pd.read_parquet(snakemake.input.choices)
    human = pd.read_parquet(snakemake.input.human)
    reported = fsm.reported_choices(choices)
    if name == "fig1":
        figure = fsm.fig1_example(load_condition(snakemake.params.root, "irony")[0])
    elif name == "fig2":
        figure = fsm.fig2_accuracy(fsm.fig2_table(reported, human))
    elif name == "fig3":
        figure = fsm.fig3_accuracy_loglik(fsm.fig3_table(reported, human))
    else:
        grid = pd.read_parquet(snakemake.input.grid)
        figure = fsm.robustness_heatmap(fsm.robustness_matrix(grid), fsm.flip_share(grid))
    save_figure(figure, snakemake.output.png, snakemake.output.svg)
    models = ", ".join(sorted(choices["model"].astype(str).unique()))
    write_artifact([snakemake.output.png, snakemake.output.svg], artifact_id=f"scoring_methods/{name}",
                   reproduces=WHAT[name], caption=f"{WHAT[name]}; models: {models}.", record=job_record(snakemake))
