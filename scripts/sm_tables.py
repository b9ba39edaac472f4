"""Adapter: rule sm_tables (the study's tables: its ARTIFACTS rows of rule sm_tables, in one job)."""

import pandas as pd

from choicelab.artifacts import by_name, caption_naming
from choicelab.io import write_csv, write_text
from choicelab.provenance import write_artifact
from choicelab.studies.scoring_methods.artifacts import ARTIFACTS
from choicelab.studies.scoring_methods.tables import StudyFrames
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    data = StudyFrames(
        *(pd.read_parquet(snakemake.input[key]) for key in ("choices", "grid", "human")),
        **{key: pd.read_parquet(snakemake.input[key]) for key in ("hand_codes", "hand_free", "coder_agreement")},
        model_sources=dict(snakemake.params.model_sources),
    )
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        artifact = by_name(ARTIFACTS)[name]
        frame, markdown = artifact.builder(data)
        write_csv(csv, frame)
        write_text(md, markdown + "\n")
        write_artifact([csv, md], artifact_id=f"scoring_methods/{name}", reproduces=artifact.reproduces,
                       caption=caption_naming(artifact.caption, data.models(with_grid=True)), record=record)
