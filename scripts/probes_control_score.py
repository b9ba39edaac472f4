"""Adapter: rule probes_control_score (one control model, not fine-tuned, on every probe of every benchmark, in one
job): an encoder with an untrained multiple-choice head, or a seq2seq QA model (UnifiedQA) scoring each choice by its
decoder log-likelihood."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.lm.loading import read_model_json
from choicelab.pipelines.probes import causal_subset, control_name, unifiedqa_items
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    kind = read_model_json(snakemake.input.base)["kind"]
    name = control_name(snakemake.wildcards.model)
    if kind == "seq2seq":
        from choicelab.lm.loading import load_seq2seq
        from choicelab.lm.seq2seq import Seq2SeqScorer
        from choicelab.mc.scoring import score_sequences

        model, tokenizer, _ = load_seq2seq(snakemake.input.base, device=p.device)
        scorer = Seq2SeqScorer(model, tokenizer, mode="decoder", max_batch_tokens=int(p.max_batch_tokens))
        count = p.seq2seq_control_items
    else:
        from choicelab.lm.loading import load_encoder_mc
        from choicelab.mc.scoring import score_encoder

        model, tokenizer, _ = load_encoder_mc(snakemake.input.base, seed=int(p.seed), device=p.device)  # seeded head
        count = p.control_items
    rows = []
    for path in snakemake.input.probed:
        items = causal_subset(read_items(path), count, int(p.seed))
        if kind == "seq2seq":
            rows += score_sequences(scorer, unifiedqa_items(items), study="probes", model=name)
        else:
            rows += score_encoder(model, tokenizer, items, study="probes", model=name, max_length=int(p.max_length))
        print(f"{path}: {len(items)} probed instances scored ({kind}, not fine-tuned)")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.base])))
