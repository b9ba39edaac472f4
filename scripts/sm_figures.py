"""Adapter: rule sm_figures (the study's figures: its ARTIFACTS rows of rule sm_figures, in one job)."""

import pandas as pd

from choicelab.artifacts import by_name, caption_naming
from choicelab.plotting import save_figure
from choicelab.provenance import write_artifact
from choicelab.studies.scoring_methods.artifacts import ARTIFACTS
from choicelab.studies.scoring_methods.sources import source_root
from choicelab.studies.scoring_methods.tables import StudyFrames
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    frames = (pd.read_parquet(snakemake.input[key]) for key in ("choices", "grid", "human"))
    data = StudyFrames(
        *frames,
        sources_root=str(source_root(snakemake.input.sources)),
        hand_free=pd.read_parquet(snakemake.input.hand_free),
        model_sources=dict(snakemake.params.model_sources),
        max_new_tokens=int(snakemake.params.max_new_tokens),
    )
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        artifact = by_name(ARTIFACTS)[name]
        save_figure(artifact.builder(data), png, svg)
        write_artifact([png, svg], artifact_id=f"scoring_methods/{name}", reproduces=artifact.reproduces,
                       caption=caption_naming(artifact.caption, data.models(with_grid=False)), record=record)
