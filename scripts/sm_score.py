"""Adapter: rules sm_score (the pragmatics study) and sm_grid_score (one benchmark of the method x score grid)."""

from choicelab.items.pragmatics import load_items
from choicelab.mc.items import read_items
from choicelab.lm.loading import load_causal, load_encoder_mc, load_seq2seq, read_model_json
from choicelab.pipelines import scoring_methods as psm
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    s = dict(p.settings)
    seed = int(p.seed)
    benchmark = snakemake.wildcards.get("benchmark", "pragmatics")
    if benchmark == "pragmatics":
        items = psm.from_pragmatics(load_items(p.root))
    else:
        items = psm.from_mc_items(read_items(snakemake.input.mc_items[0]))
    if p.grid:
        items = psm.subsample_items(items, s.get("grid_items", 10), seed)
        methods = s.get("grid_methods", list(psm.METHODS))
        label_seeds = s.get("grid_label_seeds", [0])
        scales = s.get("grid_scales", ["likely"])
    else:
        items = psm.subsample_per_condition(items, s.get("items_per_condition"), seed)
        methods = s.get("methods", list(psm.METHODS))
        label_seeds = s.get("label_seeds", [0, 1, 2, 3, 4])
        scales = s.get("scales", list(psm.SCALES))
    kind = read_model_json(snakemake.input.model)["kind"]
    loader = load_seq2seq if kind == "seq2seq" else load_causal
    model, tokenizer, _ = loader(snakemake.input.model, device=p.device)
    classify_embed = None
    if snakemake.input.embedder:
        encoder, encoder_tokenizer, _ = load_encoder_mc(snakemake.input.embedder[0], seed=seed, device=p.device)
        classify_embed = psm.embedder(encoder, encoder_tokenizer, "encoder")
    rows = psm.score_all(
        model, tokenizer, items, model=snakemake.wildcards.model, kind=kind, methods=methods, label_seeds=label_seeds,
        label_sets=s.get("label_sets", ["alpha", "numeric"]), scales=scales,
        temperatures=s.get("temperatures", list(psm.TEMPERATURES)), generation_seeds=s.get("generation_seeds", [0]),
        max_new_tokens=int(s.get("max_new_tokens", psm.MAX_NEW_TOKENS)), classify_embed=classify_embed,
        max_batch_tokens=int(p.max_batch_tokens), tie_seed=seed,
    )
    print(f"{benchmark}: {len(items)} items, methods {methods}, {len(rows)} option scores")
    psm.write_scores(snakemake.output[0], rows,
                     record_json(job_record(snakemake, models=[snakemake.input.model, *snakemake.input.embedder])))
