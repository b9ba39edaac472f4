rule prepare_model:
    output:
        directory("results/models/{model}"),
    params:
        spec=model_entry_json,
        seed=config["seed"],
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    resources:
        mem_mb=8000,
        runtime=model_runtime_minutes,
        gpu=0,
    conda:
        "../envs/models.yaml"
    script:
        "../scripts/prepare_model.py"
