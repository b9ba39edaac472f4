"""Adapter: rule steer_score (letter probabilities of one causal model under one adaptation)."""

from choicelab.dumps import write_dump
from choicelab.items.schema import read_items
from choicelab.lm.causal import CausalScorer
from choicelab.lm.generate import sample
from choicelab.lm.loading import load_causal
from choicelab.pipelines import steer as ps
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    adaptation = snakemake.wildcards.adaptation
    seed = int(p.seed)
    items = read_items(snakemake.input.benchmark)
    scored = items if adaptation == "0shot" else ps.subsample_questions(items, p.adaptation_questions, seed)
    model, tokenizer, meta = load_causal(snakemake.input.model, device=p.device)
    scorer = CausalScorer(model, tokenizer, max_batch_tokens=int(p.max_batch_tokens))

    def explain(prompts):
        generations = sample(model, tokenizer, prompts, max_new_tokens=int(p.max_new_tokens), temperature=0, seed=seed,
                             max_batch_tokens=int(p.max_batch_tokens))
        for g in generations[:3]:
            print(f"explanation of {g.id}: {g.text!r}")
        return {g.id: g.text for g in generations}

    contexts = ps.build_contexts(scored, items, adaptation, seed=seed,
                                 count_tokens=lambda text: len(tokenizer(text)["input_ids"]),
                                 max_tokens=meta.get("max_context_length"), explain=explain)
    rows = ps.score_adaptation(scorer, scored, contexts, model=snakemake.wildcards.model, adaptation=adaptation)
    print(f"{len(scored)} questions scored under {adaptation}")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.model])))
