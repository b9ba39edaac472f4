"""Adapter: rules bets_static_tables, bets_result_tables and bets_pvalue_check (each writes its tables in one job)."""

from choicelab.artifacts import by_name
from choicelab.io import write_csv, write_text
from choicelab.provenance import write_artifact
from choicelab.studies.bets.artifacts import ARTIFACTS, provenance_caption
from choicelab.studies.bets.paper import read_paper_numbers
from choicelab.studies.bets.static_tables import read_sources
from choicelab.studies.bets.tables import read_result_sources
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    inputs, encoders = snakemake.input, None
    if snakemake.rule == "bets_static_tables":
        sources = read_sources(inputs.item_lists, inputs.templates)
    elif snakemake.rule == "bets_result_tables":
        sources = read_result_sources(inputs.evaluations, inputs.checkpoints, inputs.paper, snakemake.params.paper_labels)
        encoders = sources.encoders
    else:
        sources = read_paper_numbers(inputs.paper)
    record, artifacts = job_record(snakemake), by_name(ARTIFACTS)
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        artifact = artifacts[name]
        table = artifact.builder(sources)
        write_csv(csv, table.frame)
        write_text(md, table.markdown)
        write_artifact([csv, md], artifact_id=f"bets/{name}", reproduces=artifact.reproduces,
                       caption=provenance_caption(artifact, encoders), record=record)
