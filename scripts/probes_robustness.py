"""Adapter: rule probes_robustness (benchmark x model x method x probe matrix and its heat map)."""

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.competence import caption_note, competence, seeds_in
from choicelab.studies.probes.metrics import confidence_frame, read_frames
from choicelab.studies.probes.tables import training_records
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i = snakemake.input
    conf = confidence_frame(read_frames([*i.encoder, *i.causal]), read_frames(i.probed))
    gate = competence(conf, training=training_records(list(i.checkpoints)))  # causal LMs: not fine-tuned, no verdict
    record, models, outputs = (
        job_record(snakemake), ", ".join(sorted(conf["model"].unique())), job_artifacts(snakemake.output)
    )
    note = caption_note(gate, seeds_in(conf["model"].unique()))
    for name, value in build(list(outputs), {"conf": conf, "gate": gate}):
        write(name, value, outputs[name], record=record, models=models, footnote=note)
