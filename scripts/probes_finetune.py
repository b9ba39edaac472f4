"""Adapter: rule probes_finetune (one multiple-choice encoder per benchmark)."""

from choicelab.items.schema import read_items
from choicelab.pipelines.finetune import FineTuneParams, fine_tune_checkpoint
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    settings = dict(snakemake.params.finetune)
    params = FineTuneParams(seed=int(snakemake.params.seed), **settings)
    meta = fine_tune_checkpoint(
        snakemake.input.base, read_items(snakemake.input.train), read_items(snakemake.input.dev), params,
        snakemake.output[0], name=f"{snakemake.wildcards.model}__{snakemake.wildcards.benchmark}",
        device=snakemake.params.device,
    )
    print(meta["training"])
