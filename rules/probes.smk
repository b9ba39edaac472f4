# Prior bias and choice paralysis: commonsense benchmarks -> one fine-tuned encoder per benchmark -> the four
# probes -> logit dumps -> Tables 1-2, the in-text tables, Figs 3-6 and the comparison with the paper.
# Settings: choicelab.studies.probes.settings (studies.probes, defaults in the schema); tables and figures:
# choicelab.studies.probes.artifacts.ARTIFACTS; input functions and params: choicelab.studies.probes.jobs.Jobs.

from choicelab.studies.probes import RESULTS as PR

# The input functions and params of the jobs below (choicelab.studies.probes.jobs.Jobs, methods taking the
# wildcards; PR_JOBS.models: the fine-tuned encoders, none when the study is off).
PR_JOBS = study_jobs("probes")
# An enabled study with no model fails here; with causal LMs only (models: []) it builds the robustness matrix alone.
PR_JOBS.check_models()
register_artifacts("probes", PR_JOBS.artifact_files())
# A causal-benchmark selection naming a benchmark this config does not build fails here, before any job runs.
PR_JOBS.causal_benchmarks()


rule download_commonsense:
    output:
        f"{DOWNLOADS}/commonsense/{{benchmark}}/{{file}}",
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
        PR_JOBS.source_files,
    output:
        train=f"{PR}/benchmarks/{{benchmark}}.train.parquet",
        dev=f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
        gate=f"{PR}/benchmarks/{{benchmark}}.gate.parquet",
    log:
        "results/logs/probes/benchmark_{benchmark}.log",
    wildcard_constraints:
        benchmark="anli|hellaswag|piqa|siqa",
    conda:
        "../envs/analysis.yaml"
    params:
        root=data_root(),
        full_root=DOWNLOADS,
        train_data=setting("probes", "train_data"),
        train_size=setting("probes", "train_size"),
        dev_size=setting("probes", "dev_size"),
        dev_train_fraction=setting("probes", "dev_train_fraction"),
        heldout_fraction=setting("probes", "heldout_fraction"),
        gate_items=setting("probes", "gate_items"),
        seed=setting("run", "seed"),
    script:
        "../scripts/probes_benchmark.py"


rule probes_probed:
    input:
        dev=f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
        embedder=PR_JOBS.embedder,
    output:
        f"{PR}/probed/{{benchmark}}.parquet",
    log:
        "results/logs/probes/probed_{benchmark}.log",
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(30, gpu=0, mem_mb=4000),
    params:
        trials=setting("probes", "trials"),
        cp_n=setting("probes", "cp_n"),
        cp_instances=setting("probes", "cp_instances"),
        cp_sampling=setting("probes", "cp_sampling"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/probes_probed.py"


# With frozen bottom layers (studies.probes.finetune.frozen_layers > 0), one job per encoder and benchmark trains
# every seed's checkpoint: the tokenization and the frozen bottom's encodings do not depend on the seed and are
# computed once (choicelab.mc.finetune.fine_tune_checkpoints); each checkpoint equals the one its seed alone gives
# (tests/test_finetune_seeds.py). A whole-encoder recipe (the paper config) shares nothing: one job per seed, so the
# seeds can train on separate GPUs.
if PR_JOBS.seeds_share_a_job():

    rule probes_finetune:
        input:
            base=wildcard_model_dir,
            train=f"{PR}/benchmarks/{{benchmark}}.train.parquet",
            gate=f"{PR}/benchmarks/{{benchmark}}.gate.parquet",
        output:
            [
                directory(f"{PR}/checkpoints/{{model}}__{{benchmark}}__seed{seed}")
                for seed in PR_JOBS.settings.seeds
            ],
        log:
            "results/logs/probes/finetune_{model}__{benchmark}.log",
        benchmark:
            "results/benchmarks/probes/finetune_{model}__{benchmark}.tsv"
        # the run's longest jobs: started as soon as they are ready, so no core idles at the end waiting on one
        priority: 10
        retries: MODEL_RETRIES
        conda:
            "../envs/models.yaml"
        threads: MODEL_THREADS
        resources:
            **model_job_resources(60 * len(PR_JOBS.settings.seeds)),
        params:
            finetune=setting("probes", "finetune"),
            seeds=setting("probes", "seeds"),
            device=setting("run", "device"),
        script:
            "../scripts/probes_finetune.py"

else:

    rule probes_finetune:
        input:
            base=wildcard_model_dir,
            train=f"{PR}/benchmarks/{{benchmark}}.train.parquet",
            gate=f"{PR}/benchmarks/{{benchmark}}.gate.parquet",
        output:
            directory(f"{PR}/checkpoints/{{model}}__{{benchmark}}__seed{{seed}}"),
        log:
            "results/logs/probes/finetune_{model}__{benchmark}__seed{seed}.log",
        benchmark:
            "results/benchmarks/probes/finetune_{model}__{benchmark}__seed{seed}.tsv"
        wildcard_constraints:
            seed=r"\d+",
        priority: 10
        retries: MODEL_RETRIES
        conda:
            "../envs/models.yaml"
        threads: MODEL_THREADS
        resources:
            **model_job_resources(120),
        params:
            finetune=setting("probes", "finetune"),
            device=setting("run", "device"),
        script:
            "../scripts/probes_finetune.py"


# Scoring likewise: with frozen bottom layers, one job per encoder and benchmark scores every seed's checkpoint, the
# shared bottom encoding the probed items once (choicelab.mc.finetune.checkpoints_mc_logits).
if PR_JOBS.seeds_share_a_job():

    rule probes_score:
        input:
            checkpoints=PR_JOBS.seed_checkpoints,
            probed=f"{PR}/probed/{{benchmark}}.parquet",
        output:
            [
                f"{PR}/dumps/{{model}}__{{benchmark}}__seed{seed}.parquet"
                for seed in PR_JOBS.settings.seeds
            ],
        log:
            "results/logs/probes/score_{model}__{benchmark}.log",
        benchmark:
            "results/benchmarks/probes/score_{model}__{benchmark}.tsv"
        retries: MODEL_RETRIES
        conda:
            "../envs/models.yaml"
        threads: MODEL_THREADS
        resources:
            **model_job_resources(30 * len(PR_JOBS.settings.seeds)),
        params:
            max_length=setting("probes", "finetune.max_length"),
            seeds=setting("probes", "seeds"),
            device=setting("run", "device"),
        script:
            "../scripts/probes_score.py"

else:

    rule probes_score:
        input:
            checkpoints=PR_JOBS.checkpoint,
            probed=f"{PR}/probed/{{benchmark}}.parquet",
        output:
            f"{PR}/dumps/{{model}}__{{benchmark}}__seed{{seed}}.parquet",
        log:
            "results/logs/probes/score_{model}__{benchmark}__seed{seed}.log",
        benchmark:
            "results/benchmarks/probes/score_{model}__{benchmark}__seed{seed}.tsv"
        wildcard_constraints:
            seed=r"\d+",
        retries: MODEL_RETRIES
        conda:
            "../envs/models.yaml"
        threads: MODEL_THREADS
        resources:
            **model_job_resources(60),
        params:
            max_length=setting("probes", "finetune.max_length"),
            device=setting("run", "device"),
        script:
            "../scripts/probes_score.py"


rule probes_control_score:
    input:
        base=wildcard_model_dir,
        probed=PR_JOBS.probed,
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
        **model_job_resources(60),
    params:
        max_length=setting("probes", "finetune.max_length"),
        control_items=setting("probes", "control_items"),
        seq2seq_control_items=setting("probes", "seq2seq_control_items"),
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/probes_control_score.py"


rule probes_controls:
    input:
        dumps=PR_JOBS.control_dumps,
        probed=PR_JOBS.probed,
        confidences=f"{PR}/metrics/confidences.parquet",
        checkpoints=PR_JOBS.checkpoints,
        paper=repo_file("data/probes/paper/controls.csv"),
    output:
        artifact_outputs(PR_JOBS, "probes_controls"),
    log:
        "results/logs/probes/table_controls.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("probes"),
        captions=PR_JOBS.captions("probes_controls"),
    script:
        "../scripts/study_artifacts.py"


rule probes_confidences:
    input:
        dumps=PR_JOBS.encoder_dumps,  # none configured: fails naming studies.probes.models
        probed=PR_JOBS.probed,
    output:
        f"{PR}/metrics/confidences.parquet",
    log:
        "results/logs/probes/confidences.log",
    conda:
        "../envs/analysis.yaml"
    params:
        ensemble=setting("probes", "ensemble"),
    script:
        "../scripts/probes_confidences.py"


if MC_BENCHMARKS:

    rule probes_external_benchmark:
        input:
            PR_JOBS.external_items,
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
        **model_job_resources(60),
    params:
        causal_items=setting("probes", "causal_items"),
        max_batch_tokens=setting("run", "engine.max_batch_tokens"),
        seed=setting("run", "seed"),
        device=setting("run", "device"),
    script:
        "../scripts/probes_causal_score.py"


rule probes_robustness:
    input:
        encoder=PR_JOBS.dumps,
        causal=PR_JOBS.causal_dumps,
        probed=PR_JOBS.all_probed,
        checkpoints=PR_JOBS.checkpoints,
    output:
        artifact_outputs(PR_JOBS, "probes_robustness"),
    log:
        "results/logs/probes/robustness_matrix.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("probes"),
        captions=PR_JOBS.captions("probes_robustness"),
    script:
        "../scripts/study_artifacts.py"


rule probes_tables:
    input:
        confidences=f"{PR}/metrics/confidences.parquet",
        dev=PR_JOBS.dev,
        train=PR_JOBS.train,
        checkpoints=PR_JOBS.checkpoints,
        controls=PR_JOBS.control_dumps,
        probed=PR_JOBS.probed,
        paper1=repo_file("data/probes/paper/table1.csv"),
        paper2=repo_file("data/probes/paper/table2.csv"),
    output:
        artifact_outputs(PR_JOBS, "probes_tables"),
    log:
        "results/logs/probes/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("probes"),
        seed=setting("run", "seed"),
        trials=setting("probes", "trials"),
        seeds=setting("probes", "seeds"),
        premise=setting("probes", "premise_dev_accuracy"),
        captions=PR_JOBS.captions("probes_tables"),
    script:
        "../scripts/study_artifacts.py"


rule probes_time:
    input:
        checkpoint=PR_JOBS.checkpoint,
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
        **model_job_resources(30),
    params:
        max_length=setting("probes", "finetune.max_length"),
        device=setting("run", "device"),
    script:
        "../scripts/probes_time.py"


rule probes_timing_table:
    input:
        timings=PR_JOBS.timings,
    output:
        artifact_outputs(PR_JOBS, "probes_timing_table"),
    log:
        "results/logs/probes/table_timing.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("probes"),
        captions=PR_JOBS.captions("probes_timing_table"),
    script:
        "../scripts/study_artifacts.py"


rule probes_figures:
    input:
        confidences=f"{PR}/metrics/confidences.parquet",
        checkpoints=PR_JOBS.checkpoints,
    output:
        artifact_outputs(PR_JOBS, "probes_figures"),
    log:
        "results/logs/probes/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        settings=setting("probes"),
        captions=PR_JOBS.captions("probes_figures"),
    script:
        "../scripts/study_artifacts.py"
