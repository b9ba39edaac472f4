"""Adapter: rule bets_score (a checkpoint's raw logits and sigmoids on every question set it is evaluated on)."""

from choicelab.dumps import write_dump
from choicelab.items.schema import read_items
from choicelab.lm.loading import load_encoder_mc
from choicelab.pipelines.bets import checkpoint_name, scored_questions, sigmoid_rows
from choicelab.pipelines.mc import score_encoder
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    model, tokenizer, _ = load_encoder_mc(snakemake.input.checkpoint, seed=0, device=snakemake.params.device)
    name = checkpoint_name(snakemake.wildcards.model, snakemake.wildcards.stage)
    rows = []
    for path in snakemake.input.benchmarks:
        items = scored_questions(read_items(path), snakemake.params.train_eval_size, int(snakemake.params.seed))
        logits = score_encoder(model, tokenizer, items, study="bets", model=name, input_format="concat",
                               max_length=int(snakemake.params.max_length))
        rows += logits + sigmoid_rows(logits)
        print(f"{path}: {len(items)} questions scored")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.checkpoint])))
