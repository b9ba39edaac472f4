"""Adapter: rule bets_default_stage (multiple-choice fine-tuning on SWAG or its stand-in: the "default" model)."""

from choicelab.mc.finetune import fine_tune_checkpoint
from choicelab.studies.bets.stages import default_stage_items, default_stage_params
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    stage, seed = snakemake.params.stage, int(snakemake.params.seed)
    train, dev, described = default_stage_items(stage.data, snakemake.params.root, train_size=stage.train_size,
                                                dev_size=stage.dev_size, seed=seed)
    print(described)
    meta = fine_tune_checkpoint(snakemake.input.base, train, dev,
                                default_stage_params(stage, snakemake.params.input_format, seed), snakemake.output[0],
                                name=f"{snakemake.wildcards.model}__default", device=snakemake.params.device,
                                training_notes={"data": described, "stage": "default"})
    print(meta["training"])
