"""Adapter: rule rb_metrics (RevB and StaA distances per model and setting)."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.provenance import record_json
from choicelab.studies.revealed_belief.metrics import distances
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    revealed = pd.concat([pd.read_parquet(p) for p in snakemake.input.revealed], ignore_index=True)
    stated = [pd.read_parquet(p) for p in snakemake.input.stated]
    stated = pd.concat(stated, ignore_index=True) if stated else None
    metrics = distances(revealed, stated, pd.read_parquet(snakemake.input.questions),
                        pd.read_parquet(snakemake.input.scenarios), float(snakemake.params.epsilon))
    write_parquet(snakemake.output[0], pa.Table.from_pandas(metrics, preserve_index=False),
                  provenance=record_json(job_record(snakemake)))
