"""Adapter: rule bets_figure."""

import pandas as pd

from choicelab.figures.bets import FIGURES
from choicelab.figures.common import save_figure
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.figure
    evaluations = pd.read_parquet(snakemake.input.evaluations)
    figure = FIGURES[name](evaluations)
    save_figure(figure, snakemake.output.png, snakemake.output.svg)
    models = ", ".join(sorted(evaluations["model"].unique()))
    what = {"fig1": "Figure 1 (value questions, threshold method)", "fig2": "Figure 2 (RQ3, standard method)",
            "fig3": "Figure 3 (RQ3, threshold method)"}[name]
    write_artifact([snakemake.output.png, snakemake.output.svg], artifact_id=f"bets/{name}", reproduces=what,
                   caption=f"{what}; encoders: {models}.", record=job_record(snakemake))
