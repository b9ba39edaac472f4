# Revealed belief vs stated answer. Foundation slice: single-die scenarios -> revealed distributions ->
# appendix tables B.1.1 (base models) / B.2.1 (instruct models) -> figure.


RB_TABLES = [
    t
    for t, role in (("table_b1_1", "base"), ("table_b2_1", "instruct"))
    if rb_models(role)
]

register_artifacts(
    "revealed_belief",
    (
        [f"{RB}/tables/{t}.{ext}" for t in RB_TABLES for ext in ("csv", "md")]
        + [f"{RB_FIG}/fig_single_die.{ext}" for ext in ("png", "svg")]
        if rb_models()
        else []
    ),
)


rule rb_scenarios:
    output:
        f"{RB}/scenarios.parquet",
    log:
        "results/logs/revealed_belief/scenarios.log",
    conda:
        "../envs/analysis.yaml"
    params:
        faces=config["studies"]
        .get("revealed_belief", {})
        .get("faces", [4, 6, 8, 10, 12]),
    script:
        "../scripts/rb_scenarios.py"


rule rb_revealed:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        model=rb_model_dir,
    output:
        f"{RB}/dumps/{{model}}.revealed.parquet",
    log:
        "results/logs/revealed_belief/revealed_{model}.log",
    benchmark:
        "results/benchmarks/revealed_belief/revealed_{model}.tsv"
    conda:
        "../envs/models.yaml"
    resources:
        mem_mb=8000,
        runtime=60,
        gpu=model_gpus,
    params:
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        device=config["device"],
    script:
        "../scripts/rb_revealed.py"


rule rb_metrics:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        dumps=rb_dumps,
    output:
        f"{RB}/metrics/revealed.parquet",
    log:
        "results/logs/revealed_belief/metrics.log",
    conda:
        "../envs/analysis.yaml"
    params:
        epsilon=config["studies"].get("revealed_belief", {}).get("symkl_epsilon", 1e-6),
    script:
        "../scripts/rb_metrics.py"


rule rb_appendix_table:
    input:
        metrics=f"{RB}/metrics/revealed.parquet",
    output:
        csv=f"{RB}/tables/{{table}}.csv",
        md=f"{RB}/tables/{{table}}.md",
    log:
        "results/logs/revealed_belief/{table}.log",
    wildcard_constraints:
        table="table_b1_1|table_b2_1",
    conda:
        "../envs/analysis.yaml"
    params:
        models=rb_table_models,
    script:
        "../scripts/rb_appendix_table.py"


rule rb_fig_single_die:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        dumps=rb_dumps,
    output:
        png=f"{RB_FIG}/fig_single_die.png",
        svg=f"{RB_FIG}/fig_single_die.svg",
    log:
        "results/logs/revealed_belief/fig_single_die.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=rb_models(),
    script:
        "../scripts/rb_fig_single_die.py"
