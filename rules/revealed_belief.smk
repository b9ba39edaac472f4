# Revealed belief vs stated answer: scenarios -> RevB and StaA logit dumps -> distances -> Table 1, the appendix
# tables B.1.1-B.3.4, C.1-C.3, D.1-D.3, E.1-E.3, Figs 2-6 and the comparison with the paper. The tables and figures
# (paper reference, caption, builder): choicelab/studies/revealed_belief/artifacts.py.

from choicelab.artifacts import captions, of_rule, study_files
from choicelab.studies.revealed_belief import artifacts as rb_artifacts

RB = "results/revealed_belief"
# the study switched off without a section
RB_SETTINGS = study_settings("revealed_belief")
RB_MODELS = study_models("revealed_belief")
# base or instruct: RevB tables put a model in the base or the instruct block; StaA is asked of instruct models
# (role is optional: "" = no block)
RB_ROLES = {m: config["models"][m].get("role", "") for m in RB_MODELS}
RB_ARTIFACTS = rb_artifacts.written(RB_MODELS, RB_ROLES, RB_SETTINGS.families)
RB_TABLES = of_rule(RB_ARTIFACTS, "rb_tables")
RB_FIGURES = of_rule(RB_ARTIFACTS, "rb_figures")
RB_PAPER = "data/revealed_belief/paper/llama3_70b_chebyshev.csv"
# RevB of every model; StaA of the instruct models
RB_REVEALED_DUMPS = expand(f"{RB}/dumps/{{model}}.revealed.parquet", model=RB_MODELS)
RB_STATED_DUMPS = expand(
    f"{RB}/dumps/{{model}}.stated.parquet",
    model=[m for m in RB_MODELS if RB_ROLES[m] == "instruct"],
)

register_artifacts(
    "revealed_belief", study_files("revealed_belief", [*RB_TABLES, *RB_FIGURES])
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
        revealed=RB_REVEALED_DUMPS,
        stated=RB_STATED_DUMPS,
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
        study_outputs(
            "revealed_belief",
            RB_TABLES,
            caption="../report/revealed_belief.rst",
            category="revealed_belief",
        ),
    log:
        "results/logs/revealed_belief/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("revealed_belief"),
        models=RB_MODELS,
        roles=RB_ROLES,
        captions=captions(RB_TABLES),
    script:
        "../scripts/study_artifacts.py"


rule rb_figures:
    input:
        metrics=f"{RB}/metrics/distances.parquet",
        scenarios=f"{RB}/scenarios.parquet",
        revealed=RB_REVEALED_DUMPS,
        paper=repo_file(RB_PAPER),
    output:
        study_outputs(
            "revealed_belief",
            RB_FIGURES,
            caption="../report/revealed_belief.rst",
            category="revealed_belief",
        ),
    log:
        "results/logs/revealed_belief/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("revealed_belief"),
        models=RB_MODELS,
        roles=RB_ROLES,
        faces=setting("revealed_belief", "faces"),
        captions=captions(RB_FIGURES),
    script:
        "../scripts/study_artifacts.py"
