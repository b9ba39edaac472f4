"""Adapter: rule steer_tables (Table 3, the comparison with the paper and the metric tables, in one job)."""

import pandas as pd

from choicelab.artifacts import of_rule
from choicelab.provenance import write_artifact
from choicelab.studies.steer.artifacts import ARTIFACTS, artifact_id, declared_files
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.studies.steer.tables import table_sources, write_table
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    record, i = job_record(snakemake), snakemake.input
    results = pd.read_parquet(i.questions)
    sources = table_sources(results, load_taxonomy(i.taxonomy, i.dependencies).edges, paper_table3=i.paper,
                            paper_quotes=i.paper_quotes, paper_models=i.paper_models, models=dict(snakemake.params.models))
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    for artifact in of_rule(ARTIFACTS, "steer_tables"):
        files = declared_files(artifact, snakemake.output)
        write_table(artifact.builder(sources), *files)
        write_artifact(files, artifact_id=artifact_id(artifact), reproduces=artifact.reproduces,
                       caption=f"{artifact.reproduces}: {artifact.caption}; models: {models}.", record=record)
