# STEER (Raman et al.): taxonomy + generators -> the benchmark -> letter probabilities per model and adaptation ->
# the per-question frame -> Table 3, metric tables, report cards (figures and every rubric), Figs 4-5, 7-22.


register_artifacts(
    "steer",
    (
        [f"{ST}/tables/{t}.{ext}" for t in ST_TABLES for ext in ("csv", "md")]
        + [f"{ST_FIG}/{f}.png" for f in ST_FIGURES]
        + [
            f"{ST}/report_cards/{r}.{ext}"
            for r in st_rubrics()
            for ext in ("html", "png")
        ]
        if study_models("steer")
        else []
    ),
)


rule steer_benchmark:
    input:
        taxonomy=repo_file("data/steer/taxonomy.yaml"),
        dependencies=repo_file("data/steer/dependencies.yaml"),
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
        scale=st_config("scale", {}),
        fewshot_pool=st_config("fewshot_pool"),
        adaptations=st_adaptations(),
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
        adaptation="[0-5]shot|explain-together|explain-separate-hidden|explain-separate",
    conda:
        "../envs/models.yaml"
    resources:
        mem_mb=8000,
        runtime=120,
        gpu=model_gpus,
    params:
        adaptation_questions=st_config("adaptation_questions"),
        max_new_tokens=st_config("max_new_tokens", 64),
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
        dependencies=repo_file("data/steer/dependencies.yaml"),
        paper=repo_file("data/steer/paper/table3.csv"),
        paper_models=repo_file("data/steer/paper/models.csv"),
        paper_quotes=repo_file("data/steer/paper/element_quotes.csv"),
    output:
        report_pairs(
            f"{ST}/tables", ST_TABLES, caption="../report/steer.rst", category="steer"
        ),
    log:
        "results/logs/steer/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=st_model_entries(),
    script:
        "../scripts/steer_tables.py"


rule steer_figures:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        taxonomy=repo_file("data/steer/taxonomy.yaml"),
        dependencies=repo_file("data/steer/dependencies.yaml"),
    output:
        report_pairs(
            ST_FIG,
            ST_FIGURES,
            caption="../report/steer.rst",
            category="steer",
            shown="png",
            paired=None,
        ),
    log:
        "results/logs/steer/figures.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/steer_figures.py"


rule steer_report_cards:
    input:
        questions=f"{ST}/metrics/questions.parquet",
        rubrics=st_rubric_files(),
    output:
        report_pairs(
            f"{ST}/report_cards",
            st_rubrics(),
            caption="../report/steer.rst",
            category="steer",
            shown="png",
            paired="html",
            label_prefix="report card ",
        ),
    log:
        "results/logs/steer/report_cards.log",
    conda:
        "../envs/analysis.yaml"
    params:
        models=study_models("steer"),
    script:
        "../scripts/steer_report_cards.py"
