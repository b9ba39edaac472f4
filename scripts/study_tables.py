"""Adapter: a rule whose tables are built by their ARTIFACTS rows' builders (choicelab.workflow.write_table_artifacts);
the rule names its study in ``params.study``; the registry gives its settings and ARTIFACTS table."""

from choicelab.studies import study_artifacts, study_settings
from choicelab.workflow import log_to, write_table_artifacts

with log_to(snakemake.log[0]):
    study = snakemake.params.study
    write_table_artifacts(snakemake, study, study_settings(snakemake.config, study), study_artifacts(study))
