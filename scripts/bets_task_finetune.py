"""Adapter: rule bets_task_finetune (from the default model of the same seed, on one value template or bet
modality)."""

from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
from choicelab.mc.items import read_items
from choicelab.settings import read
from choicelab.studies.bets.settings import TaskStage
from choicelab.studies.bets.stages import checkpoint_name, seeded_model, task_stage_items, task_stage_recipe
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    stage = read(TaskStage, snakemake.params.stage, "studies.bets.task_stage")
    seed, qset = int(snakemake.wildcards.seed), snakemake.wildcards.qset
    train, described = task_stage_items(qset, read_items(snakemake.input.train), stage.train_size, seed)
    meta = fine_tune_checkpoint(
        snakemake.input.base,
        TrainingData(train, read_items(snakemake.input.dev), notes={"data": described, "stage": qset}),
        task_stage_recipe(stage, snakemake.params.input_format, seed),
        CheckpointOut(snakemake.output[0], checkpoint_name(seeded_model(snakemake.wildcards.model, seed), qset),
                      job_record(snakemake, seed=seed)),
        device=snakemake.params.device,
    )
    print(meta["training"])
