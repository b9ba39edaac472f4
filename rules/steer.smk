# STEER (Raman et al.): taxonomy + generators -> the benchmark -> letter probabilities per model and adaptation ->
# the per-question frame -> Table 3, metric tables, report cards (figures and every rubric), Figs 4-5, 7-22.
# Outputs, ids and captions come from choicelab.studies.steer.artifacts; settings from studies.steer (typed).

from choicelab.studies.steer import RESULTS as ST
from choicelab.studies.steer.adaptations import NAME_PATTERN as ADAPTATION_NAMES
from choicelab.studies.steer.jobs import DATA as ST_DATA

# The inputs and params of the jobs below (choicelab.studies.steer.jobs.Jobs); a scale or shipped rubric naming
# something the taxonomy lacks fails here, before any job runs.
ST_JOBS = study_jobs("steer")
register_artifacts("steer", ST_JOBS.artifact_files())


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
        chat_template=ST_JOBS.chat_template,
    script:
        "../scripts/steer_score.py"


rule steer_questions:
    input:
        dumps=ST_JOBS.dumps,
        prompts=ST_JOBS.prompts,
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
        artifact_outputs(ST_JOBS, "steer_tables"),
    log:
        "results/logs/steer/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        models=ST_JOBS.model_entries,
        captions=ST_JOBS.captions("steer_tables"),
    script:
        "../scripts/study_artifacts.py"


rule steer_figures:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        benchmark=f"{ST}/benchmark.parquet",
        dumps=ST_JOBS.dumps,
    output:
        artifact_outputs(ST_JOBS, "steer_figures"),
    log:
        "results/logs/steer/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        captions=ST_JOBS.captions("steer_figures"),
    script:
        "../scripts/study_artifacts.py"


rule steer_report_cards:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file(f"{ST_DATA}/taxonomy.yaml"),
        dependencies=repo_file(f"{ST_DATA}/dependencies.yaml"),
        rubrics=ST_JOBS.rubric_files(),
    output:
        artifact_outputs(ST_JOBS, "steer_report_cards"),
    log:
        "results/logs/steer/report_cards.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("steer"),
        models=list(ST_JOBS.models),
        captions=ST_JOBS.captions("steer_report_cards"),
    script:
        "../scripts/study_artifacts.py"
