"""Adapter: rule bets_figures (Figs 1-3 in one job)."""

import pandas as pd

from choicelab.artifacts import by_name, caption_naming
from choicelab.plotting import save_figure
from choicelab.provenance import write_artifact
from choicelab.studies.bets.artifacts import ARTIFACTS
from choicelab.studies.bets.seeds import seeds_caption, with_seed_means
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record, artifacts = job_record(snakemake), by_name(ARTIFACTS)
    evaluations = with_seed_means(pd.read_parquet(snakemake.input.evaluations))
    note = seeds_caption(evaluations)
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        artifact = artifacts[name]
        save_figure(artifact.builder(evaluations), png, svg)
        write_artifact([png, svg], artifact_id=f"bets/{name}", reproduces=artifact.reproduces,
                       caption=caption_naming(f"{artifact.caption}{note}", sorted(evaluations["model"].unique()),
                                              "encoders"),
                       record=record)
