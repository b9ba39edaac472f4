# "Can language representation models think in bets?": item lists -> value and bet questions -> the default
# (SWAG) checkpoint -> task checkpoints (one per value template, one per bet modality) -> logit dumps ->
# evaluations -> Tables 1-20, Figs 1-3, the comparison with the paper and the p-value check.
# Settings: choicelab.studies.bets.settings (studies.bets, defaults in the schema); tables and figures:
# choicelab.studies.bets.artifacts.ARTIFACTS.

from choicelab.studies.bets import RESULTS as BE

BE_QSET = "value_(BE|BV|CE|CV)|bet_(coin|dice|card)"
# The input functions and params of the jobs below (choicelab.studies.bets.jobs.Jobs, methods taking the wildcards).
BE_JOBS = study_jobs("bets")
register_artifacts("bets", BE_JOBS.artifact_files())


rule download_swag:
    output:
        f"{DOWNLOADS}/swag/{{file}}",
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
        qset=BE_QSET,
    conda:
        "../envs/analysis.yaml"
    params:
        article_agreement=setting("bets", "article_agreement"),
        swap_order=setting("bets", "swap_order"),
    script:
        "../scripts/bets_benchmark.py"


rule bets_default_stage:
    input:
        base=wildcard_model_dir,
        data=BE_JOBS.default_stage_data,
    output:
        directory(f"{BE}/checkpoints/{{model}}__seed{{seed}}__default"),
    log:
        "results/logs/bets/finetune_{model}__seed{seed}__default.log",
    benchmark:
        "results/benchmarks/bets/finetune_{model}__seed{seed}__default.tsv"
    wildcard_constraints:
        seed=r"\d+",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(240),
    params:
        stage=setting("bets", "default_stage"),
        input_format=setting("bets", "input_format"),
        root=BE_JOBS.root,
        device=setting("run", "device"),
    script:
        "../scripts/bets_default_stage.py"


rule bets_task_finetune:
    input:
        unpack(BE_JOBS.task_checkpoint_inputs),
    output:
        directory(f"{BE}/checkpoints/{{model}}__seed{{seed}}__{{qset}}"),
    log:
        "results/logs/bets/finetune_{model}__seed{seed}__{qset}.log",
    benchmark:
        "results/benchmarks/bets/finetune_{model}__seed{seed}__{qset}.tsv"
    wildcard_constraints:
        qset=BE_QSET,
        seed=r"\d+",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(120),
    params:
        stage=setting("bets", "task_stage"),
        input_format=setting("bets", "input_format"),
        device=setting("run", "device"),
    script:
        "../scripts/bets_task_finetune.py"


rule bets_score:
    input:
        checkpoint=BE_JOBS.checkpoint,
        benchmarks=BE_JOBS.score_benchmarks,
    output:
        f"{BE}/dumps/{{model}}__seed{{seed}}__{{stage}}.parquet",
    log:
        "results/logs/bets/score_{model}__seed{seed}__{stage}.log",
    benchmark:
        "results/benchmarks/bets/score_{model}__seed{seed}__{stage}.tsv"
    wildcard_constraints:
        stage=f"default|{BE_QSET}",
        seed=r"\d+",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(60),
    params:
        max_length=setting("bets", "task_stage.max_length"),
        input_format=setting("bets", "input_format"),
        train_eval_size=setting("bets", "train_eval_size"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/bets_score.py"


rule bets_evaluate:
    input:
        dumps=BE_JOBS.dumps,
        benchmarks=BE_JOBS.benchmarks,
        checkpoints=BE_JOBS.checkpoints,
    output:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        questions=f"{BE}/metrics/questions.parquet",
    log:
        "results/logs/bets/evaluate.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("bets"),
        models=BE_JOBS.seeded_models(),
    script:
        "../scripts/bets_evaluate.py"


rule bets_static_tables:
    input:
        item_lists=repo_file("data/bets/items.yaml"),
        templates=repo_file("data/bets/templates.yaml"),
    output:
        artifact_outputs(BE_JOBS, "bets_static_tables"),
    log:
        "results/logs/bets/static_tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("bets"),
        captions=BE_JOBS.captions("bets_static_tables"),
    script:
        "../scripts/study_artifacts.py"


rule bets_result_tables:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        questions=f"{BE}/metrics/questions.parquet",
        checkpoints=BE_JOBS.checkpoints,
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        artifact_outputs(BE_JOBS, "bets_result_tables"),
    log:
        "results/logs/bets/result_tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("bets"),
        captions=BE_JOBS.captions("bets_result_tables"),
    script:
        "../scripts/study_artifacts.py"


rule bets_pvalue_check:
    input:
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        artifact_outputs(BE_JOBS, "bets_pvalue_check"),
    log:
        "results/logs/bets/table_pvalue_check.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("bets"),
        captions=BE_JOBS.captions("bets_pvalue_check"),
    script:
        "../scripts/study_artifacts.py"


rule bets_figures:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        checkpoints=BE_JOBS.checkpoints,
    output:
        artifact_outputs(BE_JOBS, "bets_figures"),
    log:
        "results/logs/bets/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("bets"),
        captions=BE_JOBS.captions("bets_figures"),
    script:
        "../scripts/study_artifacts.py"
