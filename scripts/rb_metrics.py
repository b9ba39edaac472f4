"""Adapter: rule rb_metrics (RevB and StaA distances per model and setting)."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.pipelines.revealed_belief import revealed_metrics, stated_metrics
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    questions = pd.read_parquet(snakemake.input.questions)
    epsilon = float(snakemake.params.epsilon)
    revealed = pd.concat([pd.read_parquet(p) for p in snakemake.input.revealed], ignore_index=True)
    frames = [revealed_metrics(revealed, scenarios, epsilon)]
    if snakemake.input.stated:
        stated = pd.concat([pd.read_parquet(p) for p in snakemake.input.stated], ignore_index=True)
        frames.append(stated_metrics(stated, questions, scenarios, epsilon))
    metrics = pd.concat(frames, ignore_index=True).sort_values(["method", "model", "setting_id"], kind="stable")
    write_parquet(
        snakemake.output[0],
        pa.Table.from_pandas(metrics.reset_index(drop=True), preserve_index=False),
        {"choicelab.provenance": record_json(job_record(snakemake))},
    )
