"""Adapter: rule probes_controls (Sec. 4.2-4.4 controls beside the fine-tuned encoders and the paper's numbers)."""

import pandas as pd

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.metrics import confidence_frame, read_confidences, read_frames
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i = snakemake.input
    inputs = {"control": confidence_frame(read_frames(i.dumps), read_frames(i.probed)),
              "fine_tuned": read_confidences(i.confidences), "paper": pd.read_csv(i.paper)}
    record, outputs = job_record(snakemake), job_artifacts(snakemake.output)
    for name, table in build(list(outputs), inputs):
        write(name, table, outputs[name], record=record)
