rule prepare_model:
    output:
        directory("results/models/{model}"),
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    retries: MODEL_RETRIES
    conda:
        "../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        **model_job_resources(model_runtime_minutes, gpu=0),
    params:
        spec=model_entry_json,
        seed=setting("run", "seed"),
    script:
        "../scripts/prepare_model.py"
