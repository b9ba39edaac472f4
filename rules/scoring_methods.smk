# MC predictions under different scoring methods (Tsvilodub et al.): pragmatics items and human data ->
# per-option scores of every method per model -> choices -> Figs 1-3, the numbers table, the comparison with the
# paper; beyond the paper, the method x score grid on every multiple-choice benchmark of the workflow.
# Code: choicelab/studies/scoring_methods (settings.py, artifacts.py, ...).

from choicelab.artifacts import captions, of_rule
from choicelab.studies import probes as probes_study
from choicelab.studies import scoring_methods as sm_study
from choicelab.studies.scoring_methods import artifacts as sm_artifacts
from choicelab.studies.scoring_methods import grid as sm_grid
from choicelab.studies.scoring_methods import sources as sm_sources
from choicelab.studies.scoring_methods import trained_coder as sm_trained_coder

SM = sm_study.RESULTS
# A config without a scoring_methods section runs no part of the study (its settings are those of the study off).
SM_SETTINGS = study_settings("scoring_methods")
SM_TABLES = of_rule(sm_artifacts.ARTIFACTS, "sm_tables")
SM_FIGURES = of_rule(sm_artifacts.ARTIFACTS, "sm_figures")


# The pragmatics items and human data: the mirror's files, else the download rules'.
SM_SOURCES = [f"{data_root()}/{path}" for path in sorted(sm_sources.SOURCES)]
# The model that codes free generations (studies.scoring_methods.coder: an encoder fine-tuned on the authors' hand
# codes by rule sm_train_coder, an encoder's embeddings or an LLM judge).
SM_TRAINED_CODER = SM_SETTINGS.coder.kind == "trained" and SM_SETTINGS.coder.model
SM_CODER = (
    [f"{SM}/coders/{sm_trained_coder.ALL_HAND_CODES}"]
    if SM_TRAINED_CODER
    else [model_dir(SM_SETTINGS.coder.model)] if SM_SETTINGS.coder.model else []
)
# The trained coders that leave out one hand-coded model each: that model's held-out agreement.
SM_CODER_FOLDS = sm_trained_coder.coder_folds(
    sm_trained_coder.hand_code_models(sm_sources.HAND_CODE_SOURCES)
)
SM_HELD_OUT_CODERS = (
    [f"{SM}/coders/{fold}" for fold in SM_CODER_FOLDS[1:]] if SM_TRAINED_CODER else []
)
# The authors' hand-coded free generations (agreement of the coder, their free-generation accuracy).
SM_HAND_CODES = [
    f"{data_root()}/{path}" for path in sorted(sm_sources.HAND_CODE_SOURCES)
]
SM_CODER_GPUS = (
    config["models"][SM_SETTINGS.coder.model]["gpu"]
    if SM_SETTINGS.coder.kind == "judge"
    else 0
)
SM_SCORES = expand(
    f"{SM}/scores/{{model}}.parquet", model=study_models("scoring_methods")
)
# The grid's benchmarks (studies.scoring_methods.grid_benchmarks; null = every multiple-choice benchmark the
# workflow builds). A selection naming a benchmark this config does not build fails here, before any job runs.
SM_GRID_BENCHMARKS = sm_grid.grid_benchmarks(
    SM_SETTINGS,
    # the probes' commonsense benchmarks, built also when probes run causal LMs only
    list(PR_SETTINGS.benchmarks) if PR_SETTINGS.enabled else [],
    MC_BENCHMARKS,
)
SM_GRID_ITEMS = {
    benchmark: sm_grid.item_files(
        benchmark, SM_SOURCES, MC_BENCHMARKS, probes_study.RESULTS
    )
    for benchmark in SM_GRID_BENCHMARKS
}
SM_GRID_SCORES = expand(
    f"{SM}/grid/{{model}}__{{benchmark}}.parquet",
    model=SM_SETTINGS.grid_models,
    benchmark=SM_GRID_BENCHMARKS,
)


register_artifacts(
    "scoring_methods",
    sm_artifacts.artifact_files(bool(study_models("scoring_methods"))),
)


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
        sources=SM_SOURCES,
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
        coder=SM_CODER,
        item_files=SM_SOURCES,
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
        coder=SM_CODER,
        item_files=lookup(dpath="{benchmark}", within=SM_GRID_ITEMS),
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
        scores=SM_SCORES,
        grid=SM_GRID_SCORES,
        sources=SM_SOURCES,
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
        base=model_dir(SM_SETTINGS.coder.model or "none"),
        hand_codes=SM_HAND_CODES,
        sources=SM_SOURCES,
    output:
        directory(f"{SM}/coders/{{fold}}"),
    log:
        "results/logs/scoring_methods/train_coder_{fold}.log",
    benchmark:
        "results/benchmarks/scoring_methods/train_coder_{fold}.tsv"
    wildcard_constraints:
        fold="|".join(SM_CODER_FOLDS),
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(
            60,
            gpu=(
                config["models"][SM_SETTINGS.coder.model]["gpu"]
                if SM_TRAINED_CODER
                else 0
            ),
        ),
    params:
        settings=setting("scoring_methods"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/sm_train_coder.py"


rule sm_coder_agreement:
    input:
        hand_codes=SM_HAND_CODES,
        sources=SM_SOURCES,
        coder=SM_CODER,
        held_out_coders=SM_HELD_OUT_CODERS,
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
        **model_job_resources(60, gpu=SM_CODER_GPUS),
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
        study_outputs(
            "scoring_methods",
            SM_TABLES,
            caption="../report/scoring_methods.rst",
            category="scoring_methods",
        ),
    log:
        "results/logs/scoring_methods/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=captions(SM_TABLES),
        model_sources={
            m: config["models"][m]["source"] for m in study_models("scoring_methods")
        },
    script:
        "../scripts/study_artifacts.py"


rule sm_figures:
    input:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
        hand_free=f"{SM}/metrics/hand_free.parquet",
        sources=SM_SOURCES,
    output:
        study_outputs(
            "scoring_methods",
            SM_FIGURES,
            caption="../report/scoring_methods.rst",
            category="scoring_methods",
        ),
    log:
        "results/logs/scoring_methods/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=captions(SM_FIGURES),
        max_new_tokens=setting("scoring_methods", "max_new_tokens"),
        model_sources={
            m: config["models"][m]["source"] for m in study_models("scoring_methods")
        },
    script:
        "../scripts/study_artifacts.py"


# Issue 36: the authors' released outputs (LLM_link results/ and analysis/ at the pinned commit: the mirror's, else
# the download rules') reanalysed by the authors' rules, each Fig. 2 / Fig. 3 number beside theirs.
SM_REANALYSIS = of_rule(sm_artifacts.ARTIFACTS, "sm_reanalysis")
SM_AUTHORS_OUTPUTS = [
    f"{data_root()}/{path}" for path in sorted(sm_sources.AUTHORS_OUTPUT_SOURCES)
]


rule sm_reanalysis:
    input:
        authors=SM_AUTHORS_OUTPUTS,
        hand_codes=SM_HAND_CODES,
        sources=SM_SOURCES,
    output:
        study_outputs(
            "scoring_methods",
            SM_REANALYSIS,
            caption="../report/scoring_methods.rst",
            category="scoring_methods",
        ),
    log:
        "results/logs/scoring_methods/reanalysis.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("scoring_methods"),
        captions=captions(SM_REANALYSIS),
    script:
        "../scripts/study_artifacts.py"
