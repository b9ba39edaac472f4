# "Can language representation models think in bets?": item lists -> value and bet questions -> the default
# (SWAG) checkpoint -> task checkpoints (one per value template, one per bet modality) -> logit dumps ->
# evaluations -> Tables 1-20, Figs 1-3, the comparison with the paper and the p-value check.


register_artifacts(
    "bets",
    (
        [
            f"{BE}/tables/{t}.{ext}"
            for t in BE_STATIC_TABLES + BE_RESULT_TABLES + ["pvalue_check"]
            for ext in ("csv", "md")
        ]
        + [f"{BE_FIG}/{f}.{ext}" for f in BE_FIGURES for ext in ("png", "svg")]
        if study_models("bets")
        else []
    ),
)


rule download_swag:
    output:
        "results/downloads/swag/{file}",
    log:
        "results/logs/downloads/swag_{file}.log",
    wildcard_constraints:
        file="train.csv|val.csv",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/download_swag.py"


rule bets_benchmark:
    input:
        item_lists=repo_file("data/bets/items.yaml"),
        templates=repo_file("data/bets/templates.yaml"),
    output:
        train=f"{BE}/benchmarks/{{qset}}.train.parquet",
        dev=f"{BE}/benchmarks/{{qset}}.dev.parquet",
        test=f"{BE}/benchmarks/{{qset}}.test.parquet",
    log:
        "results/logs/bets/benchmark_{qset}.log",
    wildcard_constraints:
        qset="value_(BE|BV|CE|CV)|bet_(coin|dice|card)",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=be_settings(),
    script:
        "../scripts/bets_benchmark.py"


rule bets_default_stage:
    input:
        base=wildcard_model_dir,
        data=be_default_stage_data,
    output:
        directory(f"{BE}/checkpoints/{{model}}__default"),
    log:
        "results/logs/bets/finetune_{model}__default.log",
    benchmark:
        "results/benchmarks/bets/finetune_{model}__default.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(240),
        gpu=model_gpus,
    params:
        stage=be_config("default_stage", {}),
        settings=be_settings(),
        root=data_root(),
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/bets_default_stage.py"


rule bets_task_finetune:
    input:
        unpack(be_task_checkpoint_inputs),
    output:
        directory(f"{BE}/checkpoints/{{model}}__{{qset}}"),
    log:
        "results/logs/bets/finetune_{model}__{qset}.log",
    benchmark:
        "results/benchmarks/bets/finetune_{model}__{qset}.tsv"
    wildcard_constraints:
        qset="value_(BE|BV|CE|CV)|bet_(coin|dice|card)",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(120),
        gpu=model_gpus,
    params:
        stage=be_config("task_stage", {}),
        settings=be_settings(),
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/bets_task_finetune.py"


rule bets_score:
    input:
        checkpoint=be_checkpoint,
        benchmarks=be_score_benchmarks,
    output:
        f"{BE}/dumps/{{model}}__{{stage}}.parquet",
    log:
        "results/logs/bets/score_{model}__{stage}.log",
    benchmark:
        "results/benchmarks/bets/score_{model}__{stage}.tsv"
    wildcard_constraints:
        stage="default|value_(BE|BV|CE|CV)|bet_(coin|dice|card)",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_length=be_config("task_stage", {}).get("max_length", 64),
        settings=be_settings(),
        train_eval_size=be_config("train_eval_size"),
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/bets_score.py"


rule bets_evaluate:
    input:
        dumps=be_dumps,
        benchmarks=be_benchmarks,
        checkpoints=be_checkpoints,
    output:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        questions=f"{BE}/metrics/questions.parquet",
    log:
        "results/logs/bets/evaluate.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=be_settings(),
        models=study_models("bets"),
    script:
        "../scripts/bets_evaluate.py"


rule bets_static_tables:
    input:
        item_lists=repo_file("data/bets/items.yaml"),
        templates=repo_file("data/bets/templates.yaml"),
    output:
        report_pairs(
            f"{BE}/tables",
            BE_STATIC_TABLES,
            caption="../report/bets_table.rst",
            category="bets",
            label="table",
        ),
    log:
        "results/logs/bets/static_tables.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/bets_tables.py"


rule bets_result_tables:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        checkpoints=be_checkpoints,
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        report_pairs(
            f"{BE}/tables",
            BE_RESULT_TABLES,
            caption="../report/bets_table.rst",
            category="bets",
            label="table",
        ),
    log:
        "results/logs/bets/result_tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        paper_labels=be_config("paper_labels", {}),
    script:
        "../scripts/bets_tables.py"


rule bets_pvalue_check:
    input:
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        report_pairs(
            f"{BE}/tables",
            ["pvalue_check"],
            caption="../report/bets_table.rst",
            category="bets",
            label="table",
        ),
    log:
        "results/logs/bets/table_pvalue_check.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/bets_tables.py"


rule bets_figures:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
    output:
        report_pairs(
            BE_FIG,
            BE_FIGURES,
            caption="../report/bets_figure.rst",
            category="bets",
            shown="png",
            paired="svg",
            label="figure",
        ),
    log:
        "results/logs/bets/figures.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/bets_figures.py"
