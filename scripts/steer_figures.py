"""Adapter: rule steer_figures (Figs 4-5, the module report cards 7-21, Fig. 22 and the effects, in one job)."""

import pandas as pd

from choicelab.artifacts import of_rule
from choicelab.provenance import write_artifact
from choicelab.studies.steer.artifacts import ARTIFACTS, artifact_id, declared_files
from choicelab.studies.steer.figures import FigureSources
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    results = pd.read_parquet(snakemake.input.questions)
    sources = FigureSources(results, load_taxonomy(snakemake.input.taxonomy, snakemake.input.dependencies))
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    for artifact in of_rule(ARTIFACTS, "steer_figures"):
        files = declared_files(artifact, snakemake.output)
        artifact.builder(sources, *files)
        write_artifact(files, artifact_id=artifact_id(artifact), reproduces=artifact.reproduces,
                       caption=f"{artifact.reproduces}: {artifact.caption}; models: {models}.", record=record)
