rule manifest:
    input:
        all_artifact_files(),
    output:
        "results/manifest.json",
    log:
        "results/logs/manifest.log",
    conda:
        "../envs/analysis.yaml"
    script:
        "../scripts/manifest.py"
