"""Adapter: rule steer_questions (the per-question frame every STEER table, figure and report card reads, with the
number of solved examples each prompt held)."""

import pandas as pd
import pyarrow as pa

from choicelab.dumps import read_dump
from choicelab.io import write_parquet
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.steer.metrics import run_question_frame
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scores = pd.concat([read_dump(path).to_pandas() for path in snakemake.input.dumps], ignore_index=True)
    prompts = pd.concat([pd.read_parquet(path) for path in snakemake.input.prompts], ignore_index=True)
    frame = run_question_frame(scores, prompts, read_items(snakemake.input.benchmark))
    write_parquet(snakemake.output[0], pa.Table.from_pandas(frame, preserve_index=False),
                  provenance=record_json(job_record(snakemake)))
    print(frame.groupby(["model", "adaptation"])[["correct", "n_examples"]].agg(["mean", "size"]))
