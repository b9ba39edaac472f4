"""Adapter: rule sm_pragmatics_items (the pragmatics items as multiple-choice items for the cross-study grids)."""

from choicelab.mc.items import write_items
from choicelab.provenance import record_json
from choicelab.studies.scoring_methods.items import load_items, to_mc_items
from choicelab.studies.scoring_methods.sources import source_root
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    items = to_mc_items(load_items(source_root(snakemake.input.sources)))
    print(f"{len(items)} pragmatics items")
    write_items(snakemake.output[0], items, record_json(job_record(snakemake)))
