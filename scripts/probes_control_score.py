"""Adapter: rule probes_control_score (one control model, not fine-tuned, on every probe of every benchmark, in one
job): an encoder with an untrained multiple-choice head, or a seq2seq QA model (UnifiedQA)."""

from choicelab.dumps import write_dump
from choicelab.provenance import record_json
from choicelab.studies.probes.scoring import score_control
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    rows = score_control(snakemake.input.base, snakemake.input.probed, model=snakemake.wildcards.model,
                         control_items=p.control_items, seq2seq_control_items=p.seq2seq_control_items,
                         max_length=p.max_length, max_batch_tokens=p.max_batch_tokens, seed=p.seed, device=p.device)
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.base])))
