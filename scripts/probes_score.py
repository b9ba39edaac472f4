"""Adapter: rule probes_score (a fine-tuned checkpoint's confidences on the originals and every probe)."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.probes.scoring import checkpoint_label, score_fine_tuned
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    w = snakemake.wildcards
    rows = score_fine_tuned(snakemake.input.checkpoint, read_items(snakemake.input.probed),
                            model=checkpoint_label(w.model, int(w.seed)), max_length=snakemake.params.max_length,
                            device=snakemake.params.device)
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.checkpoint])))
