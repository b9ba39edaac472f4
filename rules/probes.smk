# Prior bias and choice paralysis: commonsense benchmarks -> one fine-tuned encoder per benchmark -> the four
# probes -> logit dumps -> Tables 1-2, the in-text tables, Figs 3-6 and the comparison with the paper.
#
# Names other rule files may use: PR (the study's results folder), PR_SETTINGS (its typed settings,
# choicelab.studies.probes.settings.Settings: PR_SETTINGS.benchmarks are the commonsense benchmarks whose dev items
# it writes to f"{PR}/benchmarks/{benchmark}.dev.parquet") and PR_MODELS (its fine-tuned encoders; empty when the
# study is off).

from dataclasses import asdict

from choicelab.artifacts import captions, of_rule
from choicelab.studies.probes import RESULTS as PR
from choicelab.studies.probes.artifacts import ARTIFACTS as PR_ARTIFACTS

PR_FIG = "figures/probes"
PR_SETTINGS = study_settings("probes")
PR_MODELS = study_models("probes")


def pr_folder(artifact):
    return f"{PR}/tables" if artifact.kind == "table" else PR_FIG


def pr_outputs(rule):
    """The outputs of a job that writes artifacts: each one's files and provenance sidecars (ARTIFACTS)."""
    return [
        entry
        for artifact in of_rule(PR_ARTIFACTS, rule)
        for entry in artifact_outputs(
            pr_folder(artifact),
            [artifact],
            caption="../report/probes.rst",
            category="probes",
        )
    ]


def pr_captions(rule):
    return captions(of_rule(PR_ARTIFACTS, rule))


register_artifacts(
    "probes",
    [f for a in PR_ARTIFACTS for f in a.files(pr_folder(a))] if PR_MODELS else [],
)


def pr_source_files(wildcards):
    """Public files a benchmark is read from (the data mirror's, else the download rules'), and the official full
    train release (always downloaded, checksummed) when studies.probes.train_data is full.
    """
    from choicelab.mc.commonsense import SOURCES, train_files

    files = [
        f"{data_root()}/{f.mirror_path}"
        for (benchmark, _), remotes in SOURCES.items()
        if benchmark == wildcards.benchmark
        for f in remotes
    ]
    if PR_SETTINGS.train_data == "full":
        files += [
            f"results/downloads/{f.mirror_path}"
            for f in train_files(wildcards.benchmark, "full")
        ]
    return files


def pr_checkpoint(wildcards):
    return f"{PR}/checkpoints/{wildcards.model}__{wildcards.benchmark}"


def pr_embedder(wildcards):
    return model_dir(PR_SETTINGS.embedder)


def pr_dumps(wildcards):
    return expand(
        f"{PR}/dumps/{{model}}__{{benchmark}}.parquet",
        model=PR_MODELS,
        benchmark=PR_SETTINGS.benchmarks,
    )


def pr_control_models():
    """Pre-trained encoders scored with an untrained multiple-choice head (Sec. 4.3-4.4 controls); null: the
    fine-tuned encoders' base models."""
    chosen = PR_SETTINGS.control_models
    names = list(PR_MODELS if chosen is None else chosen)
    for name in names:
        kind = config["models"].get(name, {}).get("kind")
        if kind not in ("encoder", "seq2seq"):
            raise ValueError(
                f"config key 'studies.probes.control_models': {name!r} is "
                f"{'not under models:' if kind is None else f'a {kind} model'}; controls are encoders "
                "(untrained multiple-choice head) or seq2seq QA models (UnifiedQA)"
            )
    return names


def pr_control_dumps(wildcards):
    return expand(f"{PR}/dumps/{{model}}.control.parquet", model=pr_control_models())


def pr_probed(wildcards):
    return expand(
        f"{PR}/probed/{{benchmark}}.parquet", benchmark=PR_SETTINGS.benchmarks
    )


def pr_timings(wildcards):
    return expand(
        f"{PR}/timing/{{model}}__{{benchmark}}.csv",
        model=PR_MODELS,
        benchmark=PR_SETTINGS.benchmarks,
    )


def pr_causal_benchmarks():
    """The benchmarks the causal LMs score probes on: studies.probes.causal_benchmarks (null = every one the
    workflow builds, the commonsense ones first)."""
    from choicelab.config import chosen_benchmarks

    every = list(dict.fromkeys([*PR_SETTINGS.benchmarks, *sorted(MC_BENCHMARKS)]))
    return chosen_benchmarks(
        every, PR_SETTINGS.causal_benchmarks, "studies.probes.causal_benchmarks"
    )


def pr_causal_dumps(wildcards):
    return expand(
        f"{PR}/dumps/{{model}}__{{benchmark}}.causal.parquet",
        model=PR_SETTINGS.causal_models,
        benchmark=pr_causal_benchmarks(),
    )


def pr_all_probed(wildcards):
    """The probes of every benchmark in the robustness matrix: the encoders' and the causal LMs'."""
    benchmarks = dict.fromkeys([*PR_SETTINGS.benchmarks, *pr_causal_benchmarks()])
    return expand(f"{PR}/probed/{{benchmark}}.parquet", benchmark=list(benchmarks))


def pr_external_items(wildcards):
    return MC_BENCHMARKS[wildcards.benchmark]


def pr_train(wildcards):
    return expand(
        f"{PR}/benchmarks/{{benchmark}}.train.parquet",
        benchmark=PR_SETTINGS.benchmarks,
    )


def pr_dev(wildcards):
    return expand(
        f"{PR}/benchmarks/{{benchmark}}.dev.parquet",
        benchmark=PR_SETTINGS.benchmarks,
    )


# A causal-benchmark selection naming a benchmark this config does not build fails here, before any job runs.
pr_causal_benchmarks()


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
        train_data=PR_SETTINGS.train_data,
        train_size=PR_SETTINGS.train_size,
        dev_size=PR_SETTINGS.dev_size,
        dev_train_fraction=PR_SETTINGS.dev_train_fraction,
        heldout_fraction=PR_SETTINGS.heldout_fraction,
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
        trials=PR_SETTINGS.trials,
        cp_n=PR_SETTINGS.cp_n,
        cp_instances=PR_SETTINGS.cp_instances,
        cp_sampling=PR_SETTINGS.cp_sampling,
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
        finetune=asdict(PR_SETTINGS.finetune),
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
        max_length=PR_SETTINGS.finetune.max_length,
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
        max_length=PR_SETTINGS.finetune.max_length,
        control_items=PR_SETTINGS.control_items,
        seq2seq_control_items=PR_SETTINGS.seq2seq_control_items,
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
        pr_outputs("probes_controls"),
    log:
        "results/logs/probes/table_controls.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=pr_captions("probes_controls"),
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
        causal_items=PR_SETTINGS.causal_items,
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
        pr_outputs("probes_robustness"),
    log:
        "results/logs/probes/robustness_matrix.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=pr_captions("probes_robustness"),
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
        pr_outputs("probes_tables"),
    log:
        "results/logs/probes/tables.log",
    conda:
        "../envs/analysis.yaml"
    params:
        seed=config["seed"],
        trials=PR_SETTINGS.trials,
        captions=pr_captions("probes_tables"),
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
        max_length=PR_SETTINGS.finetune.max_length,
        device=config["device"],
    script:
        "../scripts/probes_time.py"


rule probes_timing_table:
    input:
        timings=pr_timings,
    output:
        pr_outputs("probes_timing_table"),
    log:
        "results/logs/probes/table_timing.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=pr_captions("probes_timing_table"),
    script:
        "../scripts/probes_timing_table.py"


rule probes_figures:
    input:
        confidences=f"{PR}/metrics/confidences.parquet",
    output:
        pr_outputs("probes_figures"),
    log:
        "results/logs/probes/figures.log",
    conda:
        "../envs/analysis.yaml"
    params:
        captions=pr_captions("probes_figures"),
    script:
        "../scripts/probes_figures.py"
