# Revealed belief vs stated answer: scenarios -> RevB and StaA logit dumps -> distances -> Table 1, the appendix
# tables B.1.1-B.3.4, C.1-C.3, D.1-D.3, E.1-E.3, Figs 2-6 and the comparison with the paper.


register_artifacts(
    "revealed_belief",
    [f"{RB}/tables/{t}.{ext}" for t in rb_table_names() for ext in ("csv", "md")]
    + (
        [f"{RB_FIG}/{f}.{ext}" for f in RB_FIGURES for ext in ("png", "svg")]
        if rb_models()
        else []
    ),
)


rule rb_scenarios:
    output:
        scenarios=f"{RB}/scenarios.parquet",
        questions=f"{RB}/stated_questions.parquet",
    log:
        "results/logs/revealed_belief/scenarios.log",
    conda:
        "../envs/analysis.yaml"
    params:
        faces=rb_config("faces", [4, 6, 8, 10, 12]),
        n_dice=rb_config("n_dice", [1, 2, 3]),
        families=rb_config("families", ["dice", "coins", "choice", "preference"]),
        staa_max_outcomes=rb_config("staa_max_outcomes", None),
        seed=config["seed"],
    script:
        "../scripts/rb_scenarios.py"


rule rb_revealed:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        model=wildcard_model_dir,
    output:
        f"{RB}/dumps/{{model}}.revealed.parquet",
    log:
        "results/logs/revealed_belief/revealed_{model}.log",
    benchmark:
        "results/benchmarks/revealed_belief/revealed_{model}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        device=config["device"],
    script:
        "../scripts/rb_revealed.py"


rule rb_stated:
    input:
        questions=f"{RB}/stated_questions.parquet",
        model=wildcard_model_dir,
    output:
        f"{RB}/dumps/{{model}}.stated.parquet",
    log:
        "results/logs/revealed_belief/stated_{model}.log",
    benchmark:
        "results/benchmarks/revealed_belief/stated_{model}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        device=config["device"],
    script:
        "../scripts/rb_stated.py"


rule rb_metrics:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        questions=f"{RB}/stated_questions.parquet",
        revealed=rb_revealed_dumps,
        stated=rb_stated_dumps,
    output:
        f"{RB}/metrics/distances.parquet",
    log:
        "results/logs/revealed_belief/metrics.log",
    conda:
        "../envs/analysis.yaml"
    params:
        epsilon=rb_config("symkl_epsilon", 1e-6),
    script:
        "../scripts/rb_metrics.py"


rule rb_tables:
    input:
        metrics=f"{RB}/metrics/distances.parquet",
        scenarios=f"{RB}/scenarios.parquet",
        paper=repo_file("data/revealed_belief/paper/llama3_70b_chebyshev.csv"),
    output:
        report_pairs(
            f"{RB}/tables",
            rb_table_names(),
            caption="../report/revealed_belief.rst",
            category="revealed_belief",
        ),
    log:
        "results/logs/revealed_belief/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=rb_models(),
        roles={m: config["models"][m].get("role", "") for m in rb_models()},
    script:
        "../scripts/rb_tables.py"


rule rb_figures:
    input:
        metrics=f"{RB}/metrics/distances.parquet",
        scenarios=f"{RB}/scenarios.parquet",
        revealed=rb_revealed_dumps,
    output:
        report_pairs(
            RB_FIG,
            RB_FIGURES,
            caption="../report/revealed_belief.rst",
            category="revealed_belief",
            shown="png",
            paired="svg",
        ),
    log:
        "results/logs/revealed_belief/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=rb_models(),
        roles={m: config["models"][m].get("role", "") for m in rb_models()},
        faces=rb_config("faces", [4, 6, 8, 10, 12]),
    script:
        "../scripts/rb_figures.py"
