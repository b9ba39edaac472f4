"""Adapter: any study's table, figure or report-card rule. The rule's study is the one whose ARTIFACTS table names it;
the study's ``sources(snakemake, settings)`` (the settings its rule passes as the ``settings`` param) reads the job's
inputs once, and the one writer (choicelab.artifacts.write_artifacts) builds, writes and captions every artifact the
job declares."""

import importlib

from choicelab.artifacts import write_artifacts
from choicelab.studies import settings_of_record, study_of_rule
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    study = study_of_rule(snakemake.rule)
    module = importlib.import_module(f"choicelab.studies.{study}.artifacts")
    sources = module.sources(snakemake, settings_of_record(study, snakemake.params.settings))
    candidates = (*module.ARTIFACTS, *getattr(sources, "artifacts", ()))  # STEER's report cards: one per rubric
    write_artifacts(study, candidates, sources, snakemake.output, rule=snakemake.rule, record=job_record(snakemake),
                    caption=module.caption)
