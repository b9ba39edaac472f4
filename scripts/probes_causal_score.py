"""Adapter: rule probes_causal_score (a causal LM's letter and sequence scores on a benchmark's probed instances)."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.probes.scoring import score_causal
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    rows = score_causal(snakemake.input.model, read_items(snakemake.input.probed), model=snakemake.wildcards.model,
                        items=p.causal_items, seed=p.seed, max_batch_tokens=p.max_batch_tokens, device=p.device)
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.model])))
