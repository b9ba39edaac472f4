"""Adapter: rule bets_default_stage (multiple-choice fine-tuning on SWAG or its stand-in: the "default" model, once per
seed)."""

from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
from choicelab.settings import read
from choicelab.studies.bets.settings import DefaultStage
from choicelab.studies.bets.stages import checkpoint_name, default_stage_items, default_stage_recipe, seeded_model
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    stage = read(DefaultStage, snakemake.params.stage, "studies.bets.default_stage")
    seed = int(snakemake.wildcards.seed)
    train, dev, described = default_stage_items(stage.data, snakemake.params.root, train_size=stage.train_size,
                                                dev_size=stage.dev_size, seed=seed)
    print(described)
    name = checkpoint_name(seeded_model(snakemake.wildcards.model, seed), "default")
    meta = fine_tune_checkpoint(snakemake.input.base, TrainingData(train, dev, notes={"data": described,
                                                                                      "stage": "default"}),
                                default_stage_recipe(stage, snakemake.params.input_format, seed),
                                CheckpointOut(snakemake.output[0], name, job_record(snakemake, seed=seed)),
                                device=snakemake.params.device)
    print(meta["training"])
