"""Adapter: rule steer_questions (the per-question frame every STEER table, figure and report card reads, with the
number of solved examples each prompt held)."""

import pandas as pd
import pyarrow as pa

from choicelab.dumps import read_dump
from choicelab.io import write_parquet
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.steer.metrics import attach_prompts, per_question_results
from choicelab.studies.steer.scoring import question_frame
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scores = pd.concat([read_dump(path).to_pandas() for path in snakemake.input.dumps], ignore_index=True)
    prompts = pd.concat([pd.read_parquet(path) for path in snakemake.input.prompts], ignore_index=True)
    frame = per_question_results(scores, question_frame(read_items(snakemake.input.benchmark)))
    frame = attach_prompts(frame, prompts)
    frame = frame.sort_values(["model", "adaptation", "element", "domain", "grade", "item_id"]).reset_index(drop=True)
    write_parquet(snakemake.output[0], pa.Table.from_pandas(frame, preserve_index=False),
                  {"choicelab.provenance": record_json(job_record(snakemake))})
    print(frame.groupby(["model", "adaptation"])[["correct", "n_examples"]].agg(["mean", "size"]))
