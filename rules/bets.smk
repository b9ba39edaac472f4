# "Can language representation models think in bets?": item lists -> value and bet questions -> the default
# (SWAG) checkpoint -> task checkpoints (one per value template, one per bet modality) -> logit dumps ->
# evaluations -> Tables 1-20, Figs 1-3, the comparison with the paper and the p-value check.
# Settings: choicelab.studies.bets.settings (studies.bets, defaults in the schema); tables and figures:
# choicelab.studies.bets.artifacts.ARTIFACTS.

from choicelab.artifacts import captions, of_rule
from choicelab.studies.bets import artifacts as be_artifacts
from choicelab.studies.bets import stages as be_plan
from choicelab.studies.bets.swag import SWAG_FILES

BE = "results/bets"
BE_SETTINGS = study_settings("bets") if "bets" in config["studies"] else None
BE_QSET = "value_(BE|BV|CE|CV)|bet_(coin|dice|card)"


def be_settings():
    if BE_SETTINGS is None:
        raise ValueError("the config has no studies.bets section")
    return BE_SETTINGS


def be_outputs(rule, caption, label):
    """A job's table or figure files, their report entries and provenance sidecars, from ARTIFACTS."""
    chosen = of_rule(be_artifacts.ARTIFACTS, rule)
    return artifact_outputs(
        be_artifacts.folder(chosen[0]), chosen, caption, category="bets", label=label
    )


def be_captions(rule):
    return captions(of_rule(be_artifacts.ARTIFACTS, rule))


register_artifacts(
    "bets", be_artifacts.artifact_files(enabled=bool(study_models("bets")))
)


# -- input functions and params ----------------------------------------------------------------------------


def be_data_root(wildcards=None):
    """Where public datasets are read: the configured mirror, else the download rules' folder."""
    return config["data_mirror"] or "results/downloads"


def be_mirror_or_download(relative_paths):
    """Public data files (declared inputs, so hashed and tracked): in the mirror or the download folder."""
    return [f"{be_data_root()}/{path}" for path in relative_paths]


def be_hellaswag_files():
    """The HellaSwag validation files the default stage's stand-in splits (bets' own list; probes has its own)."""
    from choicelab.mc.commonsense import SOURCES

    return [
        f.mirror_path
        for (benchmark, split), files in SOURCES.items()
        if benchmark == "hellaswag" and split == "dev"
        for f in files
    ]


def be_default_stage_data(wildcards):
    """The files the default stage reads: SWAG train / val, or the HellaSwag stand-in's."""
    if be_settings().default_stage.data == "swag":
        return be_mirror_or_download([f.mirror_path for f in SWAG_FILES.values()])
    return be_mirror_or_download(be_hellaswag_files())


def be_default_stage(wildcards):
    return be_settings().default_stage


def be_task_stage(wildcards):
    return be_settings().task_stage


def be_input_format(wildcards):
    return be_settings().input_format


def be_score_max_length(wildcards):
    """Checkpoints are scored at the task stage's max_length."""
    return be_settings().task_stage.max_length


def be_train_eval_size(wildcards):
    return be_settings().train_eval_size


def be_article_agreement(wildcards):
    return be_settings().article_agreement


def be_swap_order(wildcards):
    return be_settings().swap_order


def be_evaluation_settings(wildcards):
    return be_settings()


def be_paper_labels(wildcards):
    return be_settings().paper_labels


def be_task_checkpoint_inputs(wildcards):
    return {
        "base": f"{BE}/checkpoints/{wildcards.model}__default",
        "train": f"{BE}/benchmarks/{wildcards.qset}.train.parquet",
        "dev": f"{BE}/benchmarks/{wildcards.qset}.dev.parquet",
    }


def be_checkpoint(wildcards):
    return f"{BE}/checkpoints/{wildcards.model}__{wildcards.stage}"


def be_score_benchmarks(wildcards):
    return [
        f"{BE}/benchmarks/{qset}.{split}.parquet"
        for qset, split in be_plan.scoring_plan(wildcards.stage, be_settings())
    ]


def be_dumps(wildcards):
    return expand(
        f"{BE}/dumps/{{model}}__{{stage}}.parquet",
        model=study_models("bets"),
        stage=be_plan.stages(be_settings()),
    )


def be_checkpoints(wildcards):
    return expand(
        f"{BE}/checkpoints/{{model}}__{{stage}}",
        model=study_models("bets"),
        stage=be_plan.stages(be_settings()),
    )


def be_benchmarks(wildcards):
    return expand(
        f"{BE}/benchmarks/{{qset}}.{{split}}.parquet",
        qset=be_settings().question_sets(),
        split=["train", "dev", "test"],
    )


# -- rules -------------------------------------------------------------------------------------------------


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
        qset=BE_QSET,
    conda:
        "../envs/analysis.yaml"
    params:
        article_agreement=be_article_agreement,
        swap_order=be_swap_order,
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
        stage=be_default_stage,
        input_format=be_input_format,
        root=be_data_root,
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
        qset=BE_QSET,
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(120),
        gpu=model_gpus,
    params:
        stage=be_task_stage,
        input_format=be_input_format,
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
        stage=f"default|{BE_QSET}",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_length=be_score_max_length,
        input_format=be_input_format,
        train_eval_size=be_train_eval_size,
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
        settings=be_evaluation_settings,
        models=study_models("bets"),
    script:
        "../scripts/bets_evaluate.py"


rule bets_static_tables:
    input:
        item_lists=repo_file("data/bets/items.yaml"),
        templates=repo_file("data/bets/templates.yaml"),
    output:
        be_outputs("bets_static_tables", "../report/bets_table.rst", "table"),
    log:
        "results/logs/bets/static_tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=be_captions("bets_static_tables"),
    script:
        "../scripts/bets_tables.py"


rule bets_result_tables:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
        checkpoints=be_checkpoints,
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        be_outputs("bets_result_tables", "../report/bets_table.rst", "table"),
    log:
        "results/logs/bets/result_tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        paper_labels=be_paper_labels,
        captions=be_captions("bets_result_tables"),
    script:
        "../scripts/bets_tables.py"


rule bets_pvalue_check:
    input:
        paper=repo_file("data/bets/paper/paper_numbers.csv"),
    output:
        be_outputs("bets_pvalue_check", "../report/bets_table.rst", "table"),
    log:
        "results/logs/bets/table_pvalue_check.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=be_captions("bets_pvalue_check"),
    script:
        "../scripts/bets_tables.py"


rule bets_figures:
    input:
        evaluations=f"{BE}/metrics/evaluations.parquet",
    output:
        be_outputs("bets_figures", "../report/bets_figure.rst", "figure"),
    log:
        "results/logs/bets/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=be_captions("bets_figures"),
    script:
        "../scripts/bets_figures.py"
