"""Adapter: rule probes_timing_table (in-text: time to answer grows near-linearly with n)."""

import pandas as pd

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    timings = pd.concat([pd.read_csv(p) for p in snakemake.input.timings], ignore_index=True)
    record, outputs = job_record(snakemake), job_artifacts(snakemake.output)
    for name, table in build(list(outputs), {"timings": timings}):
        write(name, table, outputs[name], record=record,
              footnote="Wall-clock seconds on this machine: they differ between runs (excluded from byte comparisons).")
