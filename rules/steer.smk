# STEER (Raman et al.): taxonomy + generators -> the benchmark -> letter probabilities per model and adaptation ->
# the per-question frame -> Table 3, metric tables, report cards (figures and every rubric), Figs 4-5, 7-22.
# Outputs, ids and captions come from choicelab.studies.steer.artifacts; settings from studies.steer (typed).

from choicelab.artifacts import captions, of_rule
from choicelab.studies.steer import RESULTS as ST
from choicelab.studies.steer.artifacts import ARTIFACTS as ST_ARTIFACTS
from choicelab.studies.steer.adaptations import NAME_PATTERN as ADAPTATION_NAMES
from choicelab.studies.steer.jobs import Plan

ST_DATA = "data/steer"
ST_PLAN = Plan.of(config, study_models("steer"), repo_file(ST_DATA))
ST_TABLES = of_rule(ST_ARTIFACTS, "steer_tables")
ST_FIGURES = of_rule(ST_ARTIFACTS, "steer_figures")
ST_REPORT_CARDS = ST_PLAN.report_cards()


register_artifacts("steer", ST_PLAN.artifact_files())


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
        scale=setting("steer", "scale"),
        fewshot_pool=setting("steer", "fewshot_pool"),
        adaptations=setting("steer", "adaptations"),
        seed=setting("run", "seed"),
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
        adaptation=ADAPTATION_NAMES,
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(120),
    params:
        adaptation_questions=setting("steer", "adaptation_questions"),
        max_new_tokens=setting("steer", "max_new_tokens"),
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
        chat_template=ST_PLAN.chat_template,
    script:
        "../scripts/steer_score.py"


rule steer_questions:
    input:
        dumps=ST_PLAN.dumps,
        prompts=ST_PLAN.prompts,
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
        paper_bias_src=repo_file(f"{ST_DATA}/paper/cognitive_bias_src.csv"),
    output:
        study_outputs(
            "steer",
            ST_TABLES,
            caption="../report/steer.rst",
            category="steer",
        ),
    log:
        "results/logs/steer/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        models=ST_PLAN.model_entries,
        captions=captions(ST_TABLES),
    script:
        "../scripts/study_artifacts.py"


rule steer_figures:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        benchmark=f"{ST}/benchmark.parquet",
        dumps=ST_PLAN.dumps,
    output:
        study_outputs(
            "steer",
            ST_FIGURES,
            caption="../report/steer.rst",
            category="steer",
        ),
    log:
        "results/logs/steer/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        captions=captions(ST_FIGURES),
    script:
        "../scripts/study_artifacts.py"


rule steer_report_cards:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        rubrics=ST_PLAN.rubric_files(),
    output:
        study_outputs(
            "steer",
            ST_REPORT_CARDS,
            caption="../report/steer.rst",
            category="steer",
        ),
    log:
        "results/logs/steer/report_cards.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        models=list(ST_PLAN.models),
        captions=captions(ST_REPORT_CARDS),
    script:
        "../scripts/study_artifacts.py"
