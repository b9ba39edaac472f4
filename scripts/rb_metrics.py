"""Adapter: rule rb_metrics."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.pipelines.revealed_belief import revealed_metrics
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    dump = pd.concat([pd.read_parquet(p) for p in snakemake.input.dumps], ignore_index=True)
    metrics = revealed_metrics(dump, scenarios, epsilon=float(snakemake.params.epsilon))
    write_parquet(
        snakemake.output[0],
        pa.Table.from_pandas(metrics, preserve_index=False),
        {"choicelab.provenance": record_json(job_record(snakemake))},
    )
