"""Adapter: rules sm_score (the pragmatics study) and sm_grid_score (one benchmark of the method x score grid)."""

from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.studies import settings_of_record
from choicelab.studies.scoring_methods import grid, items, prompts, score_table, scoring, sources
from choicelab.studies.scoring_methods.code_free import CoderModel
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p, wildcards = snakemake.params, snakemake.wildcards
    settings = settings_of_record("scoring_methods", p.settings)
    benchmark = wildcards.get("benchmark", grid.OWN_BENCHMARK)
    if benchmark == grid.OWN_BENCHMARK:
        scoring_items = prompts.from_pragmatics(items.load_items(sources.source_root(snakemake.input.item_files)))
    else:
        scoring_items = prompts.from_mc_items(read_items(snakemake.input.item_files[0]))
    scoring_items = grid.select_items(scoring_items, settings, grid=p.grid, seed=int(p.seed))
    plan = grid.method_plan(settings, grid=p.grid)
    coder = CoderModel(settings.coder.kind, snakemake.input.coder[0] if snakemake.input.coder else None)
    rows = scoring.score_model(
        snakemake.input.model, scoring_items, model=wildcards.model, plan=plan, coder=coder, seed=int(p.seed),
        device=p.device, max_batch_tokens=p.max_batch_tokens,
    )
    print(f"{benchmark}: {len(scoring_items)} items, methods {list(plan.methods)}, {len(rows)} option scores")
    score_table.write_scores(
        snakemake.output[0], rows,
        record_json(job_record(snakemake, models=[snakemake.input.model, *snakemake.input.coder])),
    )
