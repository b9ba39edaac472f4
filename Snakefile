# choicelab: reproduce five studies of how language models make choices.
# `snakemake --cores all` regenerates every table and figure; see README.md.


configfile: "config.yaml"


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/models.smk"
include: "rules/revealed_belief.smk"
include: "rules/bets.smk"
include: "rules/steer.smk"
include: "rules/probes.smk"
include: "rules/scoring_methods.smk"
include: "rules/manifest.smk"


rule all:
    default_target: True
    input:
        "results/manifest.json",
        all_artifact_files(),
