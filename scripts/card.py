"""Adapter: rules card_run (the studies at the card scale), card (one model's card) and cards_index."""

from pathlib import Path

from choicelab.cards import build
from choicelab.cards.overlay import RUN_DIR, plan_card_run
from choicelab.io import write_json
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    run_root = Path(RUN_DIR) / "results"
    if snakemake.rule == "card_run":
        scale = build.load_scale(snakemake.params.scale)
        plan = plan_card_run(snakemake.config, scale, snakemake.params.models)
        status = build.run_studies(plan, RUN_DIR, snakemake.params.snakefile, snakemake.threads,
                                   Path(RUN_DIR) / "snakemake.log", snakemake.params.extra)
        status["scale"] = build.scale_text(snakemake.config["cards"]["scale"], plan.config)
        write_json(snakemake.output[0], status)
    else:
        status = build.read_status(snakemake.input[0])
        models = status["studies"]
        if snakemake.rule == "card":
            model = snakemake.wildcards.card
            if model not in models:
                raise ValueError(f"card {model!r}: not a card model of this run ({sorted(models)}); "
                                 f"pass --config card_models='[{model}, ...]'")
            build.write_card(run_root, model, snakemake.config["models"][model]["kind"], snakemake.input[0],
                             snakemake.output.html, build.panel_options(snakemake.config["cards"]),
                             snakemake.params.browser)
        else:
            cards, kinds = build.cards_for(status, run_root, snakemake.config["models"],
                                           snakemake.config["cards"])
            build.write_index(cards, kinds, status["scale"], run_root, snakemake.output.html,
                              [snakemake.input.status, *snakemake.input.cards])
