"""Adapter: rule bets_score (a checkpoint's raw logits and sigmoids on every question set it is evaluated on)."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.bets.scoring import score_checkpoint
from choicelab.studies.bets.stages import checkpoint_name, seeded_model
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    rows = score_checkpoint(
        snakemake.input.checkpoint,
        [read_items(path) for path in snakemake.input.benchmarks],
        name=checkpoint_name(seeded_model(snakemake.wildcards.model, int(snakemake.wildcards.seed)),
                             snakemake.wildcards.stage),
        configured_format=snakemake.params.input_format,
        max_length=int(snakemake.params.max_length),
        train_eval_size=snakemake.params.train_eval_size,
        seed=int(snakemake.params.seed),
        device=snakemake.params.device,
    )
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.checkpoint])))
