"""Adapter: rule rb_scenarios."""

from choicelab.io import write_parquet
from choicelab.items.revealed_belief import single_die_scenarios
from choicelab.pipelines.revealed_belief import scenarios_table
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    table = scenarios_table(single_die_scenarios(faces=tuple(snakemake.params.faces)))
    write_parquet(snakemake.output[0], table, {"choicelab.provenance": record_json(job_record(snakemake))})
