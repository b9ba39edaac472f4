"""Adapter: rule probes_robustness (benchmark x model x method x probe matrix and its heat map)."""

import pandas as pd

from choicelab.plotting import save_figure
from choicelab.figures.probes import robustness_heatmap
from choicelab.io import write_csv, write_text
from choicelab.pipelines.probes import confidence_frame, robustness_matrix
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    dump = pd.concat([pd.read_parquet(p) for p in [*snakemake.input.encoder, *snakemake.input.causal]], ignore_index=True)
    probed = pd.concat([pd.read_parquet(p) for p in snakemake.input.probed], ignore_index=True)
    matrix = robustness_matrix(confidence_frame(dump, probed))
    write_csv(snakemake.output.csv, matrix)
    write_text(snakemake.output.md, matrix.to_markdown(index=False, floatfmt=".3f") + "\n")
    save_figure(robustness_heatmap(matrix), snakemake.output.png, snakemake.output.svg)
    models = ", ".join(sorted(matrix["model"].unique()))
    record = job_record(snakemake)
    what = ("pseudo-accuracy minus chance per benchmark x model x scoring method x probe (n instances and a exact binomial "
            "95% CI per cell; cells whose interval covers zero are marked, not evidence of an effect)")
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id="probes/robustness_matrix",
                   reproduces="extra (beyond the paper): the four probes on every benchmark and scorer",
                   caption=f"{what}; models: {models}.", record=record)
    write_artifact([snakemake.output.png, snakemake.output.svg], artifact_id="probes/fig_robustness_matrix",
                   reproduces="extra (beyond the paper): heat map of probes/robustness_matrix",
                   caption=f"Heat map: {what}; models: {models}.", record=record)
