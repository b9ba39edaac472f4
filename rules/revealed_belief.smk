# Revealed belief vs stated answer: scenarios -> RevB and StaA logit dumps -> distances -> Table 1, the appendix
# tables B.1.1-B.3.4, C.1-C.3, D.1-D.3, E.1-E.3, Figs 2-6 and the comparison with the paper. The tables and figures
# (paper reference, caption, builder): choicelab/studies/revealed_belief/artifacts.py.

from choicelab.studies.revealed_belief import RESULTS as RB
from choicelab.studies.revealed_belief.jobs import PAPER as RB_PAPER

# The inputs and params of the jobs below (choicelab.studies.revealed_belief.jobs.Jobs; RB_JOBS.roles: each model's
# block, base or instruct).
RB_JOBS = study_jobs("revealed_belief")
register_artifacts("revealed_belief", RB_JOBS.artifact_files())


rule rb_scenarios:
    output:
        scenarios=f"{RB}/scenarios.parquet",
        questions=f"{RB}/stated_questions.parquet",
    log:
        "results/logs/revealed_belief/scenarios.log",
    conda:
        "../envs/analysis.yaml"
    params:
        faces=setting("revealed_belief", "faces"),
        n_dice=setting("revealed_belief", "n_dice"),
        families=setting("revealed_belief", "families"),
        staa_max_outcomes=setting("revealed_belief", "staa_max_outcomes"),
        seed=setting("run", "seed"),
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
        **model_job_resources(60),
    params:
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        device=setting("run", "device"),
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
        **model_job_resources(60),
    params:
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        device=setting("run", "device"),
        chat_template=model_chat_template,
    script:
        "../scripts/rb_stated.py"


rule rb_metrics:
    input:
        scenarios=f"{RB}/scenarios.parquet",
        questions=f"{RB}/stated_questions.parquet",
        revealed=RB_JOBS.revealed_dumps,
        stated=RB_JOBS.stated_dumps,
    output:
        f"{RB}/metrics/distances.parquet",
    log:
        "results/logs/revealed_belief/metrics.log",
    conda:
        "../envs/analysis.yaml"
    params:
        epsilon=setting("revealed_belief", "symkl_epsilon"),
    script:
        "../scripts/rb_metrics.py"


rule rb_tables:
    input:
        metrics=f"{RB}/metrics/distances.parquet",
        scenarios=f"{RB}/scenarios.parquet",
        paper=repo_file(RB_PAPER),
    output:
        artifact_outputs(RB_JOBS, "rb_tables"),
    log:
        "results/logs/revealed_belief/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("revealed_belief"),
        models=list(RB_JOBS.models),
        roles=dict(RB_JOBS.roles),
        captions=RB_JOBS.captions("rb_tables"),
    script:
        "../scripts/study_artifacts.py"


rule rb_figures:
    input:
        metrics=f"{RB}/metrics/distances.parquet",
        scenarios=f"{RB}/scenarios.parquet",
        revealed=RB_JOBS.revealed_dumps,
        paper=repo_file(RB_PAPER),
    output:
        artifact_outputs(RB_JOBS, "rb_figures"),
    log:
        "results/logs/revealed_belief/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("revealed_belief"),
        models=list(RB_JOBS.models),
        roles=dict(RB_JOBS.roles),
        faces=setting("revealed_belief", "faces"),
        captions=RB_JOBS.captions("rb_figures"),
    script:
        "../scripts/study_artifacts.py"
