# MC predictions under different scoring methods (Tsvilodub et al.): pragmatics items and human data ->
# per-option scores of every method per model -> choices -> Figs 1-3, the numbers table, the comparison with the
# paper; beyond the paper, the method x score grid on every multiple-choice benchmark of the workflow.
# Code: choicelab/studies/scoring_methods (settings.py, artifacts.py, ...).

from choicelab.studies.scoring_methods import RESULTS as SM

# The input functions and params of the jobs below (choicelab.studies.scoring_methods.jobs.Jobs, methods taking the
# wildcards). A config without a scoring_methods section runs no part of the study.
SM_JOBS = study_jobs("scoring_methods")
register_artifacts("scoring_methods", SM_JOBS.artifact_files())


rule download_pragmatics:
    output:
        f"{DOWNLOADS}/pragmatics/{{path}}",
    log:
        "results/logs/downloads/pragmatics_{path}.log",
    wildcard_constraints:
        path=".+",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/download_pragmatics.py"


rule sm_pragmatics_items:
    input:
        sources=SM_JOBS.sources,
    output:
        f"{SM}/benchmarks/pragmatics.parquet",
    log:
        "results/logs/scoring_methods/pragmatics_items.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/sm_pragmatics_items.py"


rule sm_score:
    input:
        model=wildcard_model_dir,
        coder=SM_JOBS.coder,
        item_files=SM_JOBS.sources,
    output:
        f"{SM}/scores/{{model}}.parquet",
    log:
        "results/logs/scoring_methods/score_{model}.log",
    benchmark:
        "results/benchmarks/scoring_methods/score_{model}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(180),
    params:
        settings=setting("scoring_methods"),
        grid=False,
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/sm_score.py"


rule sm_grid_score:
    input:
        model=wildcard_model_dir,
        coder=SM_JOBS.coder,
        item_files=SM_JOBS.grid_item_files,
    output:
        f"{SM}/grid/{{model}}__{{benchmark}}.parquet",
    log:
        "results/logs/scoring_methods/grid_{model}__{benchmark}.log",
    benchmark:
        "results/benchmarks/scoring_methods/grid_{model}__{benchmark}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(120),
    params:
        settings=setting("scoring_methods"),
        grid=True,
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/sm_score.py"


rule sm_choices:
    input:
        scores=SM_JOBS.scores,
        grid=SM_JOBS.grid_scores,
        sources=SM_JOBS.sources,
    output:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
    log:
        "results/logs/scoring_methods/choices.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/sm_choices.py"


rule sm_train_coder:
    input:
        base=SM_JOBS.coder_base,
        hand_codes=SM_JOBS.hand_codes,
        sources=SM_JOBS.sources,
    output:
        directory(f"{SM}/coders/{{fold}}"),
    log:
        "results/logs/scoring_methods/train_coder_{fold}.log",
    benchmark:
        "results/benchmarks/scoring_methods/train_coder_{fold}.tsv"
    wildcard_constraints:
        fold="|".join(SM_JOBS.coder_folds()),
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(60, gpu=SM_JOBS.train_coder_gpus),
    params:
        settings=setting("scoring_methods"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/sm_train_coder.py"


rule sm_coder_agreement:
    input:
        hand_codes=SM_JOBS.hand_codes,
        sources=SM_JOBS.sources,
        coder=SM_JOBS.coder,
        held_out_coders=SM_JOBS.held_out_coders,
    output:
        report=f"{SM}/metrics/hand_codes.parquet",
        hand_free=f"{SM}/metrics/hand_free.parquet",
        agreement=f"{SM}/metrics/coder_agreement.parquet",
        coded=f"{SM}/metrics/coded_hand_codes.parquet",
    log:
        "results/logs/scoring_methods/coder_agreement.log",
    benchmark:
        "results/benchmarks/scoring_methods/coder_agreement.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(60, gpu=SM_JOBS.coder_gpus),
    params:
        settings=setting("scoring_methods"),
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/sm_coder_agreement.py"


rule sm_tables:
    input:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
        hand_codes=f"{SM}/metrics/hand_codes.parquet",
        hand_free=f"{SM}/metrics/hand_free.parquet",
        coder_agreement=f"{SM}/metrics/coder_agreement.parquet",
        reanalysis_fig2=f"{SM}/tables/reanalysis_fig2.csv",
        reanalysis_fig3=f"{SM}/tables/reanalysis_fig3.csv",
    output:
        artifact_outputs(SM_JOBS, "sm_tables"),
    log:
        "results/logs/scoring_methods/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=SM_JOBS.captions("sm_tables"),
        model_sources=SM_JOBS.model_sources,
    script:
        "../scripts/study_artifacts.py"


rule sm_figures:
    input:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
        hand_free=f"{SM}/metrics/hand_free.parquet",
        sources=SM_JOBS.sources,
    output:
        artifact_outputs(SM_JOBS, "sm_figures"),
    log:
        "results/logs/scoring_methods/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=SM_JOBS.captions("sm_figures"),
        max_new_tokens=setting("scoring_methods", "max_new_tokens"),
        model_sources=SM_JOBS.model_sources,
    script:
        "../scripts/study_artifacts.py"


rule sm_reanalysis:
    input:
        authors=SM_JOBS.authors_outputs,
        hand_codes=SM_JOBS.hand_codes,
        sources=SM_JOBS.sources,
    output:
        artifact_outputs(SM_JOBS, "sm_reanalysis"),
    log:
        "results/logs/scoring_methods/reanalysis.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=SM_JOBS.captions("sm_reanalysis"),
    script:
        "../scripts/study_artifacts.py"
