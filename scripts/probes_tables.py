"""Adapter: rule probes_tables (Tables 1-2, the in-text tables and the comparison with the paper, in one job)."""

import pandas as pd

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.competence import caption_note, competence
from choicelab.studies.probes.metrics import confidence_frame, read_confidences, read_frames
from choicelab.studies.probes.tables import train_info, training_records
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i, p = snakemake.input, snakemake.params
    conf = read_confidences(i.confidences)
    control = confidence_frame(read_frames(i.controls), read_frames(i.probed)) if i.controls else None
    training = training_records(list(i.checkpoints))
    gate = competence(conf, control, p.premise, training)
    print(gate.to_string())
    inputs = {"conf": conf, "dev": read_frames(i.dev), "train_info": train_info(read_frames(i.train)),
              "training": training, "gate": gate,
              "paper1": pd.read_csv(i.paper1), "paper2": pd.read_csv(i.paper2), "seed": p.seed, "trials": p.trials}
    record, models, outputs = (
        job_record(snakemake), ", ".join(sorted(conf["model"].unique())), job_artifacts(snakemake.output)
    )
    note = caption_note(gate, len(p.seeds))
    for name, frame in build(list(outputs), inputs):
        write(name, frame, outputs[name], record=record, models=models, footnote=note)
