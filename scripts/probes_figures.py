"""Adapter: rule probes_figures (Figs 3-6 in one job)."""

from choicelab.studies.probes.artifacts import build, job_artifacts, write
from choicelab.studies.probes.competence import caption_note, competence, seeds_in
from choicelab.studies.probes.metrics import read_confidences
from choicelab.studies.probes.tables import training_records
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    conf = read_confidences(snakemake.input.confidences)
    gate = competence(conf, training=training_records(list(snakemake.input.checkpoints)))  # failing: named on it
    record, models, outputs = (
        job_record(snakemake), ", ".join(sorted(conf["model"].unique())), job_artifacts(snakemake.output)
    )
    note = caption_note(gate, seeds_in(conf["model"].unique()))
    for name, figure in build(list(outputs), {"conf": conf, "gate": gate}):
        write(name, figure, outputs[name], record=record, models=models, footnote=note)
