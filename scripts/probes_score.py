"""Adapter: rule probes_score (a fine-tuned encoder's confidences on the originals and every probe)."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.lm.loading import load_encoder_mc
from choicelab.mc.scoring import score_encoder
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    items = read_items(snakemake.input.probed)
    model, tokenizer, _ = load_encoder_mc(snakemake.input.checkpoint, seed=0, device=snakemake.params.device)
    name = snakemake.wildcards.model
    rows = score_encoder(model, tokenizer, items, study="probes", model=name, max_length=int(snakemake.params.max_length))
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.checkpoint])))
