# Prior bias and choice paralysis: commonsense benchmarks -> one fine-tuned encoder per benchmark -> the four
# probes -> logit dumps -> Tables 1-2, the in-text tables, Figs 3-6 and the comparison with the paper.


register_artifacts(
    "probes",
    (
        [f"{PR}/tables/{t}.{ext}" for t in PR_TABLES for ext in ("csv", "md")]
        + [f"{PR_FIG}/{f}.{ext}" for f in PR_FIGURES for ext in ("png", "svg")]
        if study_models("probes")
        else []
    ),
)


rule download_commonsense:
    output:
        "results/downloads/commonsense/{benchmark}/{file}",
    log:
        "results/logs/downloads/commonsense_{benchmark}_{file}.log",
    wildcard_constraints:
        benchmark="anli|hellaswag|piqa|siqa",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/download_commonsense.py"


rule probes_benchmark:
    input:
        pr_source_files,
    output:
        train=f"{PR}/benchmarks/{{benchmark}}.train.parquet",
        dev=f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
    log:
        "results/logs/probes/benchmark_{benchmark}.log",
    wildcard_constraints:
        benchmark="anli|hellaswag|piqa|siqa",
    conda:
        "../envs/analysis.yaml"
    params:
        root=data_root(),
        full_root="results/downloads",
        train_data=pr_config("train_data", "mirror"),
        train_size=pr_config("train_size"),
        dev_size=pr_config("dev_size"),
        dev_train_fraction=pr_config("dev_train_fraction", 0.5),
        heldout_fraction=pr_config("heldout_fraction", 0.1),
        seed=config["seed"],
    script:
        "../scripts/probes_benchmark.py"


rule probes_probed:
    input:
        dev=f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
        embedder=pr_embedder,
    output:
        f"{PR}/probed/{{benchmark}}.parquet",
    log:
        "results/logs/probes/probed_{benchmark}.log",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        trials=pr_config("trials", 5),
        cp_n=pr_config("cp_n", [5, 10, 15]),
        cp_instances=pr_config("cp_instances", 50),
        cp_sampling=pr_config("cp_sampling", ["random", "heuristic"]),
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/probes_probed.py"


rule probes_finetune:
    input:
        base=wildcard_model_dir,
        train=f"{PR}/benchmarks/{{benchmark}}.train.parquet",
    output:
        directory(f"{PR}/checkpoints/{{model}}__{{benchmark}}"),
    log:
        "results/logs/probes/finetune_{model}__{benchmark}.log",
    benchmark:
        "results/benchmarks/probes/finetune_{model}__{benchmark}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(120),
        gpu=model_gpus,
    params:
        finetune=pr_config("finetune", {}),
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/probes_finetune.py"


rule probes_score:
    input:
        checkpoint=pr_checkpoint,
        probed=f"{PR}/probed/{{benchmark}}.parquet",
    output:
        f"{PR}/dumps/{{model}}__{{benchmark}}.parquet",
    log:
        "results/logs/probes/score_{model}__{benchmark}.log",
    benchmark:
        "results/benchmarks/probes/score_{model}__{benchmark}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_length=pr_config("finetune", {}).get("max_length", 128),
        device=config["device"],
    script:
        "../scripts/probes_score.py"


rule probes_control_score:
    input:
        base=wildcard_model_dir,
        probed=pr_probed,
    output:
        f"{PR}/dumps/{{model}}.control.parquet",
    log:
        "results/logs/probes/control_{model}.log",
    benchmark:
        "results/benchmarks/probes/control_{model}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        max_length=pr_config("finetune", {}).get("max_length", 128),
        control_items=pr_config("control_items"),
        seq2seq_control_items=pr_config("seq2seq_control_items", 150),
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/probes_control_score.py"


rule probes_controls:
    input:
        dumps=pr_control_dumps,
        probed=pr_probed,
        confidences=f"{PR}/metrics/confidences.parquet",
        paper=repo_file("data/probes/paper/controls.csv"),
    output:
        csv=report(
            f"{PR}/tables/table_controls.csv",
            caption="../report/probes.rst",
            category="probes",
            labels={"artifact": "table_controls"},
        ),
        md=f"{PR}/tables/table_controls.md",
    log:
        "results/logs/probes/table_controls.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/probes_controls.py"


rule probes_confidences:
    input:
        dumps=pr_dumps,
        probed=pr_probed,
    output:
        f"{PR}/metrics/confidences.parquet",
    log:
        "results/logs/probes/confidences.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/probes_confidences.py"


if MC_BENCHMARKS:

    rule probes_external_benchmark:
        input:
            pr_external_items,
        output:
            dev=f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
        log:
            "results/logs/probes/external_{benchmark}.log",
        wildcard_constraints:
            benchmark="|".join(MC_BENCHMARKS),
        conda:
            "../envs/analysis.yaml"
        shell:
            "cp {input} {output.dev} 2> {log}"


rule probes_causal_score:
    input:
        model=wildcard_model_dir,
        probed=f"{PR}/probed/{{benchmark}}.parquet",
    output:
        f"{PR}/dumps/{{model}}__{{benchmark}}.causal.parquet",
    log:
        "results/logs/probes/causal_{model}__{benchmark}.log",
    benchmark:
        "results/benchmarks/probes/causal_{model}__{benchmark}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(60),
        gpu=model_gpus,
    params:
        causal_items=pr_config("causal_items"),
        max_batch_tokens=config["engine"]["max_batch_tokens"],
        seed=config["seed"],
        device=config["device"],
    script:
        "../scripts/probes_causal_score.py"


rule probes_robustness:
    input:
        encoder=pr_dumps,
        causal=pr_causal_dumps,
        probed=pr_all_probed,
    output:
        csv=report(
            f"{PR}/tables/robustness_matrix.csv",
            caption="../report/probes.rst",
            category="probes",
            labels={"artifact": "robustness_matrix"},
        ),
        md=f"{PR}/tables/robustness_matrix.md",
        png=report(
            f"{PR_FIG}/fig_robustness_matrix.png",
            caption="../report/probes.rst",
            category="probes",
            labels={"artifact": "fig_robustness_matrix"},
        ),
        svg=f"{PR_FIG}/fig_robustness_matrix.svg",
    log:
        "results/logs/probes/robustness_matrix.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/probes_robustness.py"


rule probes_tables:
    input:
        confidences=f"{PR}/metrics/confidences.parquet",
        dev=pr_dev,
        train=pr_train,
        paper1=repo_file("data/probes/paper/table1.csv"),
        paper2=repo_file("data/probes/paper/table2.csv"),
    output:
        report_pairs(
            f"{PR}/tables",
            PR_CONFIDENCE_TABLES,
            caption="../report/probes.rst",
            category="probes",
        ),
    log:
        "results/logs/probes/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        seed=config["seed"],
        trials=pr_config("trials", 5),
    script:
        "../scripts/probes_tables.py"


rule probes_time:
    input:
        checkpoint=pr_checkpoint,
        probed=f"{PR}/probed/{{benchmark}}.parquet",
    output:
        f"{PR}/timing/{{model}}__{{benchmark}}.csv",
    log:
        "results/logs/probes/time_{model}__{benchmark}.log",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(30),
        gpu=model_gpus,
    params:
        max_length=pr_config("finetune", {}).get("max_length", 128),
        device=config["device"],
    script:
        "../scripts/probes_time.py"


rule probes_timing_table:
    input:
        pr_timings,
    output:
        csv=report(
            f"{PR}/tables/table_timing.csv",
            caption="../report/probes.rst",
            category="probes",
            labels={"artifact": "table_timing"},
        ),
        md=f"{PR}/tables/table_timing.md",
    log:
        "results/logs/probes/table_timing.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/probes_timing_table.py"


rule probes_figures:
    input:
        confidences=f"{PR}/metrics/confidences.parquet",
    output:
        report_pairs(
            PR_FIG,
            PR_CONFIDENCE_FIGURES,
            caption="../report/probes.rst",
            category="probes",
            shown="png",
            paired="svg",
        ),
    log:
        "results/logs/probes/figures.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/probes_figures.py"
