"""Adapter: rule rb_tables (Table 1, the appendix tables and the comparison with the paper, in one job)."""

import pandas as pd

from choicelab.artifacts import by_name
from choicelab.io import write_csv, write_text
from choicelab.provenance import write_artifact
from choicelab.studies.revealed_belief.artifacts import ARTIFACTS
from choicelab.studies.revealed_belief.results import Results, caption
from choicelab.studies.revealed_belief.tables import to_markdown
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    results = Results(metrics=pd.read_parquet(snakemake.input.metrics),
                      scenarios=pd.read_parquet(snakemake.input.scenarios), paper=pd.read_csv(snakemake.input.paper),
                      models=tuple(snakemake.params.models), roles=dict(snakemake.params.roles))
    artifacts = by_name(ARTIFACTS)
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        artifact = artifacts[name]
        frame, note = artifact.builder(results)
        write_csv(csv, frame)
        write_text(md, to_markdown(frame))
        write_artifact([csv, md], artifact_id=f"revealed_belief/{name}", reproduces=artifact.reproduces,
                       caption=caption(artifact, note, results), record=record)
