"""Adapter: rule probes_finetune (one multiple-choice encoder per benchmark and seed, selected on held-out train
items)."""

from choicelab.mc.finetune import FineTuneParams, fine_tune_checkpoint
from choicelab.mc.items import read_items
from choicelab.studies.probes.items import train_roles
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    w = snakemake.wildcards
    seed = int(w.seed)
    params = FineTuneParams(seed=seed, **snakemake.params.finetune)
    fit, heldout = train_roles(read_items(snakemake.input.train))
    meta = fine_tune_checkpoint(
        snakemake.input.base, fit, heldout, params, snakemake.output[0],
        name=f"{w.model}__{w.benchmark}__seed{seed}", device=snakemake.params.device,
        training_notes={"selection_items": "held-out slice of train (the evaluation set is never seen)",
                        "train_source": fit[0].meta.get("train_source", "")},
        evaluation=read_items(snakemake.input.gate),  # the competence gate: before (untrained head) and after
        record=job_record(snakemake, seed=seed),  # provenance.json: this rule, its recipe, base model and data
    )
    print(meta["training"])
