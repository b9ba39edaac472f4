"""Adapter: rule steer_score (letter probabilities of one causal model under one adaptation, and the prompt record
of every scored question: how many solved examples it holds, which ones, the explanation, whether the model's
chat template was applied)."""

from choicelab.dumps import write_dump
from choicelab.io import write_parquet
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.steer.scoring import prompts_table, score_model
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p, model = snakemake.params, snakemake.wildcards.model
    rows, prompts = score_model(snakemake.input.model, read_items(snakemake.input.benchmark),
                                read_items(snakemake.input.pool), model=model,
                                adaptation=snakemake.wildcards.adaptation, adaptation_questions=p.adaptation_questions,
                                max_new_tokens=int(p.max_new_tokens), max_batch_tokens=p.max_batch_tokens,
                                seed=int(p.seed), device=p.device, chat_template=p.chat_template)
    record = record_json(job_record(snakemake, models=[snakemake.input.model]))
    write_dump(snakemake.output.dump, rows, record)
    write_parquet(snakemake.output.prompts, prompts_table(prompts, model), provenance=record)
