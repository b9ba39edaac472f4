"""Adapter: rule bets_figures (Figs 1-3 in one job)."""

import pandas as pd

from choicelab.figures.bets import FIGURES
from choicelab.plotting import save_figure
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

WHAT = {"fig1": "Figure 1 (value questions, threshold method)", "fig2": "Figure 2 (RQ3, standard method)",
        "fig3": "Figure 3 (RQ3, threshold method)"}

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    evaluations = pd.read_parquet(snakemake.input.evaluations)
    models = ", ".join(sorted(evaluations["model"].unique()))
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        save_figure(FIGURES[name](evaluations), png, svg)
        write_artifact([png, svg], artifact_id=f"bets/{name}", reproduces=WHAT[name],
                       caption=f"{WHAT[name]}; encoders: {models}.", record=record)
