"""Adapter: rule probes_finetune (the multiple-choice encoders of one benchmark, one per seed -- every seed in one job
where the recipe freezes bottom layers, else the job's ``seed`` -- selected on held-out train items)."""

from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoints
from choicelab.mc.items import read_items
from choicelab.studies.probes.items import train_roles
from choicelab.studies.probes.jobs import finetune_recipe, job_seeds
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    w = snakemake.wildcards
    seeds = job_seeds(w, snakemake.params)
    fit, heldout = train_roles(read_items(snakemake.input.train))
    data = TrainingData(
        fit, heldout,
        evaluation=read_items(snakemake.input.gate),  # the competence gate: before (untrained head) and after
        notes={"selection_items": "held-out slice of train (the evaluation set is never seen)",
               "train_source": fit[0].meta.get("train_source", "")},
    )
    outs = {seed: CheckpointOut(path, f"{w.model}__{w.benchmark}__seed{seed}",
                                job_record(snakemake, seed=seed))  # provenance.json: rule, recipe, data
            for seed, path in zip(seeds, snakemake.output, strict=True)}
    metas = fine_tune_checkpoints(snakemake.input.base, data, finetune_recipe(snakemake.params.finetune, seeds[0]),
                                  outs, device=snakemake.params.device)
    for meta in metas:
        print(meta["training"])
