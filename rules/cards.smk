# Choice-behaviour cards (docs/cards.md): `snakemake cards --config card_models='[name, ...]'` runs the studies at the
# card scale for those models in results/cards/_run/ (an ordinary run of this workflow with the card-scale config,
# so a second card reuses its benchmarks, pools and checkpoints) and writes results/cards/<model>.html|.png and
# results/cards/index.html, each with a provenance sidecar listing every input's sha256.
import choicelab.cards.overlay

CARDS = "results/cards"
CARD_MODELS = choicelab.cards.overlay.card_models(config)
# every card number as data, beside the index (docs/cards.md)
CARD_DATA = ("cards.json", "cards.parquet", "cards_paired.parquet")
CARD_SCALE = str(Path(workflow.basedir) / config["cards"]["scale"])
# Headless Chromium prints each card's PDF; without one there is no PDF and the card says why (docs/cards.md).
CARD_BROWSER = choicelab.cards.overlay.find_browser()
CARD_PDF = {"pdf": f"{CARDS}/{{card}}.pdf"} if CARD_BROWSER else {}
# each card's files (and their sidecars)
CARD_FORMATS = ["html", "png", *(["pdf"] if CARD_BROWSER else [])]
# The card run deploys software as this run does: with --sdm conda its jobs use the envs/ environments, built once
# under this run's conda prefix.
CARD_CONDA_PREFIX = workflow.deployment_settings.conda_prefix or ".snakemake/conda"
CARD_RUN_ARGS = (
    ["--sdm", "conda", "--conda-prefix", str(Path(CARD_CONDA_PREFIX).resolve())]
    if uses_conda(workflow.deployment_settings)
    else []
)


wildcard_constraints:
    card="[a-z0-9][a-z0-9._-]*",


rule card_run:
    output:
        f"{CARDS}/_run/status.json",
    log:
        "results/logs/cards/run.log",
    conda:
        "../envs/analysis.yaml"
    threads: workflow.resource_settings.cores or 1  # every core of this run, for the nested one
    params:
        models=CARD_MODELS,
        scale=CARD_SCALE,
        snakefile=str(Path(workflow.basedir) / "Snakefile"),
        extra=CARD_RUN_ARGS,
    script:
        "../scripts/card.py"


rule card:
    input:
        f"{CARDS}/_run/status.json",
    output:
        **CARD_PDF,
        html=f"{CARDS}/{{card}}.html",
        png=f"{CARDS}/{{card}}.png",
        item_page=f"{CARDS}/items/{{card}}.html",
        sidecars=[f"{CARDS}/{{card}}.{suffix}.prov.json" for suffix in CARD_FORMATS],
        item_page_sidecar=f"{CARDS}/items/{{card}}.html.prov.json",
    log:
        "results/logs/cards/{card}.log",
    conda:
        "../envs/analysis.yaml"
    params:
        scale=CARD_SCALE,
        coder_min_kappa=config["cards"]["coder_min_kappa"],
        browser=CARD_BROWSER,
    script:
        "../scripts/card.py"


rule cards_index:
    input:
        status=f"{CARDS}/_run/status.json",
        cards=expand(f"{CARDS}/{{card}}.html", card=CARD_MODELS),
    output:
        html=f"{CARDS}/index.html",
        data=[f"{CARDS}/{name}" for name in CARD_DATA],
        sidecars=[f"{CARDS}/{name}.prov.json" for name in ("index.html", *CARD_DATA)],
    log:
        "results/logs/cards/index.log",
    conda:
        "../envs/analysis.yaml"
    params:
        scale=CARD_SCALE,
        coder_min_kappa=config["cards"]["coder_min_kappa"],
    script:
        "../scripts/card.py"


ruleorder: cards_index > card


rule cards:
    input:
        f"{CARDS}/index.html",
        [f"{CARDS}/{name}" for name in CARD_DATA],
        expand(f"{CARDS}/{{card}}.{{suffix}}", card=CARD_MODELS, suffix=CARD_FORMATS),
    conda:
        "../envs/analysis.yaml"
