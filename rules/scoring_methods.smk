# MC predictions under different scoring methods (Tsvilodub et al.): pragmatics items and human data ->
# per-option scores of every method per model -> choices -> Figs 1-3, the numbers table, the comparison with the
# paper; beyond the paper, the method x score grid on every multiple-choice benchmark of the workflow.


register_artifacts(
    "scoring_methods",
    (
        [f"{SM}/tables/{t}.{ext}" for t in SM_TABLES for ext in ("csv", "md")]
        + [f"{SM_FIG}/{f}.{ext}" for f in SM_FIGURES for ext in ("png", "svg")]
        if study_models("scoring_methods")
        else []
    ),
)


rule download_pragmatics:
    output:
        "results/downloads/pragmatics/{path}",
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
        sm_source_files,
    output:
        f"{SM}/benchmarks/pragmatics.parquet",
    log:
        "results/logs/scoring_methods/pragmatics_items.log",
    conda:
        "../envs/analysis.yaml"
    params:
        root=data_root(),
    script:
        "../scripts/sm_pragmatics_items.py"


rule sm_score:
    input:
        model=wildcard_model_dir,
        embedder=sm_embedder,
        sources=sm_source_files,
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
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(180),
        gpu=model_gpus,
    params:
        root=data_root(),
        settings=config["studies"].get("scoring_methods", {}),
        grid=False,
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/sm_score.py"


rule sm_grid_score:
    input:
        model=wildcard_model_dir,
        embedder=sm_embedder,
        mc_items=sm_grid_items,
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
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(120),
        gpu=model_gpus,
    params:
        root=data_root(),
        settings=config["studies"].get("scoring_methods", {}),
        grid=True,
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/sm_score.py"


rule sm_choices:
    input:
        scores=sm_scores,
        grid=sm_grid_scores,
        sources=sm_source_files,
    output:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
    log:
        "results/logs/scoring_methods/choices.log",
    conda:
        "../envs/analysis.yaml"
    params:
        root=data_root(),
    script:
        "../scripts/sm_choices.py"


rule sm_tables:
    input:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
    output:
        report_pairs(
            f"{SM}/tables",
            SM_TABLES,
            caption="../report/scoring_methods.rst",
            category="scoring_methods",
        ),
    log:
        "results/logs/scoring_methods/tables.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/sm_tables.py"


rule sm_figures:
    input:
        choices=f"{SM}/metrics/choices.parquet",
        grid=f"{SM}/metrics/grid_choices.parquet",
        human=f"{SM}/metrics/human.parquet",
        sources=sm_source_files,
    output:
        report_pairs(
            SM_FIG,
            SM_FIGURES,
            caption="../report/scoring_methods.rst",
            category="scoring_methods",
            shown="png",
            paired="svg",
        ),
    log:
        "results/logs/scoring_methods/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        root=data_root(),
    script:
        "../scripts/sm_figures.py"
