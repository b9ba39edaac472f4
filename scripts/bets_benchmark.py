"""Adapter: rule bets_benchmark (one value template or bet modality, train / dev / test questions)."""

from choicelab.mc.items import write_items
from choicelab.provenance import record_json
from choicelab.studies.bets.items import question_set
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    provenance = record_json(job_record(snakemake))
    for split in ("train", "dev", "test"):
        items = question_set(snakemake.wildcards.qset, split, article_agreement=snakemake.params.article_agreement,
                             swap_order=snakemake.params.swap_order, items_file=snakemake.input.item_lists,
                             templates_file=snakemake.input.templates)
        print(f"{snakemake.wildcards.qset} {split}: {len(items)} questions")
        write_items(snakemake.output[split], items, provenance)
