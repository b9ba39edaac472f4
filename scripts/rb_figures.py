"""Adapter: rule rb_figures (Figs 2-6 and the single-die figure, in one job)."""

import pandas as pd

from choicelab.artifacts import by_name
from choicelab.plotting import save_figure
from choicelab.provenance import write_artifact
from choicelab.studies.revealed_belief.artifacts import ARTIFACTS
from choicelab.studies.revealed_belief.results import Results, caption
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    revealed = pd.concat([pd.read_parquet(p) for p in snakemake.input.revealed], ignore_index=True)
    results = Results(metrics=pd.read_parquet(snakemake.input.metrics),
                      scenarios=pd.read_parquet(snakemake.input.scenarios), revealed=revealed,
                      paper=pd.read_csv(snakemake.input.paper),
                      models=tuple(snakemake.params.models), roles=dict(snakemake.params.roles),
                      faces=tuple(snakemake.params.faces))
    artifacts = by_name(ARTIFACTS)
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        artifact = artifacts[name]
        fig, note = artifact.builder(results)
        save_figure(fig, png, svg)
        write_artifact([png, svg], artifact_id=f"revealed_belief/{name}", reproduces=artifact.reproduces,
                       caption=caption(artifact, note, results), record=record)
