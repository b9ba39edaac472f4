"""Adapter: rule probes_tables (Tables 1-2, the in-text tables and the comparison with the paper, in one job)."""

import pandas as pd

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.metrics import read_confidences, read_frames
from choicelab.studies.probes.tables import train_info
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i, p = snakemake.input, snakemake.params
    conf = read_confidences(i.confidences)
    inputs = {"conf": conf, "dev": read_frames(i.dev), "train_info": train_info(read_frames(i.train)),
              "paper1": pd.read_csv(i.paper1), "paper2": pd.read_csv(i.paper2), "seed": p.seed, "trials": p.trials}
    record, models, outputs = (
        job_record(snakemake), ", ".join(sorted(conf["model"].unique())), job_artifacts(snakemake.output)
    )
    for name, frame in build(list(outputs), inputs):
        write(name, frame, outputs[name], record=record, models=models)
