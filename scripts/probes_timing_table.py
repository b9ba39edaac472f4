"""Adapter: rule probes_timing_table (in-text: time to answer grows near-linearly with n)."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.pipelines.probes import timing_table
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    frame = timing_table(pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True))
    write_csv(snakemake.output.csv, frame)
    write_text(snakemake.output.md, frame.to_markdown(index=False, floatfmt=".3f")
               + "\n\nWall-clock seconds on this machine: they differ between runs (excluded from byte comparisons).\n")
    what = "in-text: time to answer Choice Paralysis instances by n (near-linear in n)"
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id="probes/table_timing", reproduces=what,
                   caption=what, record=job_record(snakemake))
