"""Adapter: rule probes_finetune (the multiple-choice encoders of one benchmark, one per seed -- every seed in one job
where the recipe freezes bottom layers, else the job's ``seed`` -- selected on held-out train items)."""

from choicelab.mc.finetune import fine_tune_checkpoints
from choicelab.mc.items import read_items
from choicelab.studies.probes.items import train_roles
from choicelab.studies.probes.jobs import finetune_recipe, job_seeds
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    w = snakemake.wildcards
    seeds = job_seeds(w, snakemake.params)
    fit, heldout = train_roles(read_items(snakemake.input.train))
    metas = fine_tune_checkpoints(
        snakemake.input.base, fit, heldout, finetune_recipe(snakemake.params.finetune, seeds[0]),
        dict(zip(seeds, snakemake.output, strict=True)),
        names={seed: f"{w.model}__{w.benchmark}__seed{seed}" for seed in seeds}, device=snakemake.params.device,
        training_notes={"selection_items": "held-out slice of train (the evaluation set is never seen)",
                        "train_source": fit[0].meta.get("train_source", "")},
        evaluation=read_items(snakemake.input.gate),  # the competence gate: before (untrained head) and after
        records={seed: job_record(snakemake, seed=seed) for seed in seeds},  # provenance.json: rule, recipe, data
    )
    for meta in metas:
        print(meta["training"])
