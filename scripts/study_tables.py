"""Adapter: a rule whose tables are built by their ARTIFACTS rows' builders (choicelab.workflow.write_table_artifacts);
the rule names its study in ``params.study``."""

from choicelab.workflow import log_to, write_table_artifacts

with log_to(snakemake.log[0]):
    write_table_artifacts(snakemake, snakemake.params.study)
