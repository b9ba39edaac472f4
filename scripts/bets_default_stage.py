"""Adapter: rule bets_default_stage (multiple-choice fine-tuning on SWAG or its stand-in: the "default" model)."""

from choicelab.pipelines.bets import default_stage_items, input_format
from choicelab.mc.finetune import FineTuneParams, fine_tune_checkpoint
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    stage = dict(snakemake.params.stage)
    seed = int(snakemake.params.seed)
    root = snakemake.params.root
    train, dev, described = default_stage_items(stage["data"], root, train_size=stage.get("train_size"),
                                                dev_size=stage.get("dev_size"), seed=seed)
    print(described)
    params = FineTuneParams(
        learning_rate=float(stage.get("learning_rate", 5e-5)), batch_size=int(stage.get("batch_size", 8)),
        max_epochs=float(stage.get("max_epochs", 3)), seed=seed,
        input_format=input_format(snakemake.params.settings),
        max_length=int(stage.get("max_length", 128)), warmup_steps=int(stage.get("warmup_steps", 0)),
    )
    meta = fine_tune_checkpoint(snakemake.input.base, train, dev, params, snakemake.output[0],
                                name=f"{snakemake.wildcards.model}__default", device=snakemake.params.device,
                                training_notes={"data": described, "stage": "default"})
    print(meta["training"])
