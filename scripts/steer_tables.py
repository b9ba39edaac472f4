"""Adapter: rule steer_tables (Table 3, the comparison with the paper and the metric tables, in one job)."""

import pandas as pd

from choicelab.artifacts import of_rule
from choicelab.studies.steer.artifacts import ARTIFACTS, write_artifacts
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.studies.steer.tables import table_sources
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i = snakemake.input
    sources = table_sources(pd.read_parquet(i.questions), load_taxonomy(i.taxonomy, i.dependencies).edges,
                            paper_table3=i.paper, paper_quotes=i.paper_quotes, paper_models=i.paper_models,
                            models=dict(snakemake.params.models), paper_bias_src=i.paper_bias_src)
    write_artifacts(of_rule(ARTIFACTS, "steer_tables"), sources, snakemake.output, job_record(snakemake))
