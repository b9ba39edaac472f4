"""Adapter: rule probes_controls (Sec. 4.2-4.4 controls beside the fine-tuned encoders and the paper's numbers)."""

import pandas as pd

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.competence import caption_note, competence, seeds_in
from choicelab.studies.probes.metrics import confidence_frame, read_confidences, read_frames
from choicelab.studies.probes.tables import training_records
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i = snakemake.input
    control, fine_tuned = confidence_frame(read_frames(i.dumps), read_frames(i.probed)), read_confidences(i.confidences)
    gate = competence(fine_tuned, control, training=training_records(list(i.checkpoints)))
    inputs = {"control": control, "fine_tuned": fine_tuned, "paper": pd.read_csv(i.paper), "gate": gate}
    record, outputs = job_record(snakemake), job_artifacts(snakemake.output)
    note = caption_note(gate, seeds_in(fine_tuned["model"].unique()))
    for name, table in build(list(outputs), inputs):
        write(name, table, outputs[name], record=record, footnote=note)
