"""Adapter: rule probes_control_score (a pre-trained encoder with an untrained multiple-choice head on every probe of
every benchmark, in one job)."""

from choicelab.dumps import write_dump
from choicelab.items.schema import read_items
from choicelab.lm.loading import load_encoder_mc
from choicelab.pipelines.mc import score_encoder
from choicelab.pipelines.probes import causal_subset, control_name
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    model, tokenizer, _ = load_encoder_mc(snakemake.input.base, seed=int(p.seed), device=p.device)  # head: seeded init
    rows = []
    for path in snakemake.input.probed:
        items = causal_subset(read_items(path), p.control_items, int(p.seed))
        rows += score_encoder(model, tokenizer, items, study="probes", model=control_name(snakemake.wildcards.model),
                              max_length=int(p.max_length))
        print(f"{path}: {len(items)} probed instances scored with an untrained head")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.base])))
