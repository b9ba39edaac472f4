"""Adapter: rule steer_score (letter probabilities of one causal model under one adaptation, and the prompt record
of every scored question: how many solved examples it holds, which ones, the explanation)."""

from choicelab.dumps import write_dump
from choicelab.io import write_parquet
from choicelab.lm.causal import CausalScorer
from choicelab.lm.generate import sample
from choicelab.lm.loading import load_causal
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies.steer import scoring as ps
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    adaptation = snakemake.wildcards.adaptation
    seed = int(p.seed)
    items = read_items(snakemake.input.benchmark)
    pool = read_items(snakemake.input.pool)
    scored = ps.scored_questions(items, adaptation, p.adaptation_questions, seed)
    model, tokenizer, meta = load_causal(snakemake.input.model, device=p.device)
    scorer = CausalScorer(model, tokenizer, max_batch_tokens=int(p.max_batch_tokens))

    def explain(prompts):
        generations = sample(model, tokenizer, prompts, max_new_tokens=int(p.max_new_tokens), temperature=0, seed=seed,
                             max_batch_tokens=int(p.max_batch_tokens))
        for g in generations[:3]:
            print(f"explanation of {g.id}: {g.text!r}")
        return {g.id: g.text for g in generations}

    prompts = ps.build_prompts(scored, pool, adaptation, seed=seed,
                               count_tokens=lambda text: len(tokenizer(text)["input_ids"]),
                               max_tokens=meta.get("max_context_length"), explain=explain)
    rows = ps.score_adaptation(scorer, scored, [q.context for q in prompts], model=snakemake.wildcards.model,
                               adaptation=adaptation)
    short = sum(q.n_examples < q.n_examples_requested for q in prompts)
    print(f"{len(scored)} questions scored under {adaptation}; {short} prompts hold fewer examples than asked "
          "(context window)")
    record = record_json(job_record(snakemake, models=[snakemake.input.model]))
    write_dump(snakemake.output.dump, rows, record)
    write_parquet(snakemake.output.prompts, ps.prompts_table(prompts, snakemake.wildcards.model),
                  {"choicelab.provenance": record})
