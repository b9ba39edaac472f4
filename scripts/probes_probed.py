"""Adapter: rule probes_probed (originals + the four probes of one benchmark's dev items)."""

from choicelab.mc.items import read_items, write_items
from choicelab.lm.embed import embed_texts
from choicelab.lm.loading import load_encoder_mc
from choicelab.pipelines.probes import probe_all
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    items = read_items(snakemake.input.dev)
    answer_emb = prompt_emb = None
    if any(sampling != "random" for sampling in p.cp_sampling):
        model, tokenizer, _ = load_encoder_mc(snakemake.input.embedder, seed=int(p.seed), device=p.device)
        answer_emb = embed_texts(model, tokenizer, [it.choices[it.label] for it in items], kind="encoder")
        prompt_emb = embed_texts(model, tokenizer, [it.prompt for it in items], kind="encoder")
    probed = probe_all(items, trials=int(p.trials), cp_n=list(p.cp_n), cp_instances=int(p.cp_instances),
                       cp_sampling=list(p.cp_sampling), seed=int(p.seed), answer_embeddings=answer_emb,
                       prompt_embeddings=prompt_emb)
    write_items(snakemake.output[0], probed,
                record_json(job_record(snakemake, models=[snakemake.input.embedder] if answer_emb is not None else [])))
