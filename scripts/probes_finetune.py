"""Adapter: rule probes_finetune (one multiple-choice encoder per benchmark, selected on held-out train items)."""

from choicelab.mc.finetune import FineTuneParams, fine_tune_checkpoint
from choicelab.mc.items import read_items
from choicelab.studies.probes.items import train_roles
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    params = FineTuneParams(seed=snakemake.params.seed, **snakemake.params.finetune)
    fit, heldout = train_roles(read_items(snakemake.input.train))
    meta = fine_tune_checkpoint(
        snakemake.input.base, fit, heldout, params, snakemake.output[0],
        name=f"{snakemake.wildcards.model}__{snakemake.wildcards.benchmark}", device=snakemake.params.device,
        training_notes={"selection_items": "held-out slice of train (the evaluation set is never seen)",
                        "train_source": fit[0].meta.get("train_source", "")},
    )
    print(meta["training"])
