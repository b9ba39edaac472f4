"""Adapter: rule probes_causal_score (a causal LM's letter and sequence scores on a benchmark's probed instances)."""

from choicelab.dumps import write_dump
from choicelab.mc.items import read_items
from choicelab.lm.causal import CausalScorer
from choicelab.lm.loading import load_causal
from choicelab.mc.scoring import score_letters, score_sequences
from choicelab.pipelines.probes import causal_subset
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    items = causal_subset(read_items(snakemake.input.probed), p.causal_items, int(p.seed))
    model, tokenizer, _ = load_causal(snakemake.input.model, device=p.device)
    scorer = CausalScorer(model, tokenizer, max_batch_tokens=int(p.max_batch_tokens))
    name = snakemake.wildcards.model
    rows = score_letters(scorer, items, study="probes", model=name) + score_sequences(scorer, items, study="probes", model=name)
    print(f"{len(items)} probed instances scored with letter_prob and sum_logprob")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.model])))
