"""Adapter: rule bets_task_finetune (from the default model, on one value template or bet modality)."""

from choicelab.mc.items import read_items
from choicelab.items.swag import seeded_sample
from choicelab.pipelines.bets import input_format
from choicelab.mc.finetune import FineTuneParams, fine_tune_checkpoint
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    stage = dict(snakemake.params.stage)
    params = FineTuneParams(
        learning_rate=float(stage.get("learning_rate", 5e-5)), batch_size=int(stage.get("batch_size", 32)),
        max_epochs=float(stage.get("max_epochs", 10)), seed=int(snakemake.params.seed),
        input_format=input_format(snakemake.params.settings),
        max_length=int(stage.get("max_length", 64)), target_dev_accuracy=float(stage.get("target_dev_accuracy", 0.9)),
        eval_every_steps=stage.get("eval_every_steps"), warmup_steps=int(stage.get("warmup_steps", 0)),
        freeze_word_embeddings=bool(stage.get("freeze_word_embeddings", False)),
    )
    qset = snakemake.wildcards.qset
    train = read_items(snakemake.input.train)
    subset = seeded_sample(train, stage.get("train_size"), int(snakemake.params.seed))
    described = f"bets {qset} train questions" + (f" (seeded {len(subset)} of {len(train)})" if len(subset) < len(train) else "")
    meta = fine_tune_checkpoint(snakemake.input.base, subset, read_items(snakemake.input.dev),
                                params, snakemake.output[0], name=f"{snakemake.wildcards.model}__{qset}",
                                device=snakemake.params.device, training_notes={"data": described, "stage": qset})
    print(meta["training"])
