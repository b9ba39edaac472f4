# STEER (Raman et al.): taxonomy + generators -> the benchmark -> letter probabilities per model and adaptation ->
# the per-question frame -> Table 3, metric tables, report cards (figures and every rubric), Figs 4-5, 7-22.
# Outputs, ids and captions come from choicelab.studies.steer.artifacts; settings from studies.steer (typed).

from choicelab.artifacts import captions, of_rule
from choicelab.studies.steer import FIGURES as ST_FIG
from choicelab.studies.steer import RESULTS as ST
from choicelab.studies.steer.artifacts import ARTIFACTS as ST_ARTIFACTS
from choicelab.studies.steer.artifacts import report_cards
from choicelab.studies.steer.scoring import ADAPTATION_PATTERN

ST_MODELS = study_models("steer")
ST_DATA = "data/steer"
ST_TABLES = of_rule(ST_ARTIFACTS, "steer_tables")
ST_FIGURES = of_rule(ST_ARTIFACTS, "steer_figures")


def st_setting(wildcards, name):
    """One field of the typed settings of studies.steer (read when a job is planned: a config without the
    section plans no STEER job)."""
    return getattr(study_settings("steer"), name)


def st_param(name):
    return functools.partial(st_setting, name=name)


def st_adaptations():
    return list(study_settings("steer").adaptations)


def st_dumps(wildcards):
    return expand(
        f"{ST}/dumps/{{model}}__{{adaptation}}.parquet",
        model=ST_MODELS,
        adaptation=st_adaptations(),
    )


def st_prompts(wildcards):
    return expand(
        f"{ST}/prompts/{{model}}__{{adaptation}}.parquet",
        model=ST_MODELS,
        adaptation=st_adaptations(),
    )


def st_model_entries():
    return {m: config["models"][m] for m in ST_MODELS}


def st_rubrics():
    """The shipped rubrics (data/steer/rubrics/*.yaml): one report card each."""
    return sorted(p.stem for p in Path(repo_file(f"{ST_DATA}/rubrics")).glob("*.yaml"))


def st_rubric_files():
    return [repo_file(f"{ST_DATA}/rubrics/{rubric}.yaml") for rubric in st_rubrics()]


ST_REPORT_CARDS = report_cards(st_rubrics())


def st_artifact_files():
    """The files of every STEER table, figure and report card (none when the study runs no model)."""
    if not ST_MODELS:
        return []
    folders = {
        "steer_tables": f"{ST}/tables",
        "steer_figures": ST_FIG,
        "steer_report_cards": f"{ST}/report_cards",
    }
    return [
        path
        for artifact in (*ST_ARTIFACTS, *ST_REPORT_CARDS)
        for path in artifact.files(folders[artifact.rule])
    ]


register_artifacts("steer", st_artifact_files())


rule steer_benchmark:
    input:
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
    output:
        benchmark=f"{ST}/benchmark.parquet",
        pool=f"{ST}/fewshot_pool.parquet",
    log:
        "results/logs/steer/benchmark.log",
    benchmark:
        "results/benchmarks/steer/benchmark.tsv"
    conda:
        "../envs/analysis.yaml"
    params:
        scale=st_param("scale"),
        fewshot_pool=st_param("fewshot_pool"),
        adaptations=st_param("adaptations"),
        seed=config["seed"],
    script:
        "../scripts/steer_benchmark.py"


rule steer_score:
    input:
        model=wildcard_model_dir,
        benchmark=f"{ST}/benchmark.parquet",
        pool=f"{ST}/fewshot_pool.parquet",
    output:
        dump=f"{ST}/dumps/{{model}}__{{adaptation}}.parquet",
        prompts=f"{ST}/prompts/{{model}}__{{adaptation}}.parquet",
    log:
        "results/logs/steer/score_{model}__{adaptation}.log",
    benchmark:
        "results/benchmarks/steer/score_{model}__{adaptation}.tsv"
    wildcard_constraints:
        adaptation=ADAPTATION_PATTERN,
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(120),
        gpu=model_gpus,
    params:
        adaptation_questions=st_param("adaptation_questions"),
        max_new_tokens=st_param("max_new_tokens"),
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/steer_score.py"


rule steer_questions:
    input:
        dumps=st_dumps,
        prompts=st_prompts,
        benchmark=f"{ST}/benchmark.parquet",
    output:
        f"{ST}/metrics/questions.parquet",
    log:
        "results/logs/steer/questions.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/steer_questions.py"


rule steer_tables:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        paper=repo_file(f"{ST_DATA}/paper/table3.csv"),
        paper_models=repo_file(f"{ST_DATA}/paper/models.csv"),
        paper_quotes=repo_file(f"{ST_DATA}/paper/element_quotes.csv"),
    output:
        artifact_outputs(
            f"{ST}/tables", ST_TABLES, caption="../report/steer.rst", category="steer"
        ),
    log:
        "results/logs/steer/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=st_model_entries(),
        captions=captions(ST_TABLES),
    script:
        "../scripts/steer_tables.py"


rule steer_figures:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
    output:
        artifact_outputs(
            ST_FIG, ST_FIGURES, caption="../report/steer.rst", category="steer"
        ),
    log:
        "results/logs/steer/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=captions(ST_FIGURES),
    script:
        "../scripts/steer_figures.py"


rule steer_report_cards:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        rubrics=st_rubric_files(),
    output:
        artifact_outputs(
            f"{ST}/report_cards",
            ST_REPORT_CARDS,
            caption="../report/steer.rst",
            category="steer",
        ),
    log:
        "results/logs/steer/report_cards.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=ST_MODELS,
        captions=captions(ST_REPORT_CARDS),
    script:
        "../scripts/steer_report_cards.py"
