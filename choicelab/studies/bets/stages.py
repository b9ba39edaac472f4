"""The bets study's plan: which checkpoints are trained, on which data and recipe, and what each is scored on.

Checkpoints per encoder ``m`` (the checkpoint's name is the dump's ``model`` column):

* ``m__default``: multiple-choice fine-tuning on SWAG (or the HellaSwag stand-in), the paper's "default" model;
* ``m__value_BE`` ... ``m__value_CV``: RQ1, task fine-tuned from the default model on one value template;
* ``m__bet_coin``, ``m__bet_dice``, ``m__bet_card``: RQ3, task fine-tuned on one bet modality.

RQ2 reuses the default and the ``value_<rq2_template>`` (Choice Valuable) checkpoints. :func:`scoring_plan` lists the
(question set, split) pairs each checkpoint is scored on.

No torch: the rules import this module to plan the jobs.
"""

from __future__ import annotations

from collections.abc import Sequence

from choicelab.lm.recipe import Recipe
from choicelab.mc.commonsense import load_benchmark, train_dev_split
from choicelab.mc.items import MCItem
from choicelab.stats import seeded_subsample
from choicelab.studies.bets import swag
from choicelab.studies.bets.items import benchmark_name
from choicelab.studies.bets.settings import DefaultStage, Settings, TaskStage

STAGE_DEFAULT = "default"


def task_stages(settings: Settings) -> list[str]:
    """Task fine-tuning stages: one per value template (RQ1) and one per bet modality (RQ3)."""
    return settings.question_sets()


def stages(settings: Settings) -> list[str]:
    """Every checkpoint stage of one encoder: the default stage, then the task stages."""
    return [STAGE_DEFAULT, *task_stages(settings)]


def scoring_plan(stage: str, settings: Settings) -> list[tuple[str, str]]:
    """The (question set, split) pairs a checkpoint is scored on."""
    value_sets = [f"value_{t}" for t in settings.templates]
    bet_sets = [f"bet_{mod}" for mod in settings.modalities]
    rq2_template = f"value_{settings.rq2_template}"
    belief_set = f"value_{settings.belief_template}"
    if stage == STAGE_DEFAULT:
        plan = [(s, sp) for s in value_sets + bet_sets for sp in ("dev", "test")]
    elif stage.startswith("value_"):
        plan = [(stage, "dev"), (stage, "test")]
        if stage == rq2_template:
            plan += [(s, sp) for s in bet_sets for sp in ("dev", "test")]
            plan += [(belief_set, "test")] if belief_set != stage else []
    elif stage.startswith("bet_"):
        plan = [(s, sp) for s in bet_sets for sp in ("train", "test")] + [(stage, "dev")]
    else:
        raise ValueError(f"unknown bets stage {stage!r}; expected 'default', 'value_<template>' or 'bet_<modality>'")
    return sorted(set(plan))


def own_eval_set(stage: str) -> str:
    """The question set (evaluation ``eval_set``) a task stage is fine-tuned on: ``value_BE`` -> ``bets_value_be``,
    ``bet_coin`` -> ``bets_bet_coin``."""

    kind, _, name = stage.partition("_")
    return benchmark_name(kind, name)


def checkpoint_name(model: str, stage: str) -> str:
    return f"{model}__{stage}"


SEED_MARK = "__seed"


def seeded_model(model: str, seed: int) -> str:
    """An encoder trained with one seed, as the tables name it (``minilm-l6__seed1234``); its checkpoints are
    ``checkpoint_name(seeded_model(model, seed), stage)``."""
    return f"{model}{SEED_MARK}{seed}"


def split_seed(label: str) -> tuple[str, int | None]:
    """(encoder, seed) of a :func:`seeded_model` label; (label, None) for a plain model name."""
    model, mark, seed = label.rpartition(SEED_MARK)
    return (model, int(seed)) if mark and seed.isdigit() else (label, None)


def split_checkpoint(name: str) -> tuple[str, str]:
    model, _, stage = name.rpartition("__")
    return model, stage


# -- the default stage -------------------------------------------------------------------------------------------------


def default_stage_items(
    data: str, root: str, *, train_size: int | None, dev_size: int | None, seed: int
) -> tuple[list[MCItem], list[MCItem], str]:
    """Train and dev items of the "default" stage and a description of the data for the tables.

    ``swag``: the public SWAG train / val files. ``hellaswag``: the documented stand-in, a seeded half/half split of
    the HellaSwag validation set (it has no public train file in the mirror), so train and dev never share items.
    """

    if data == "swag":
        train, dev = swag.load_swag(root, "train"), swag.load_swag(root, "val")
        source = "SWAG (rowanz/swagaf train.csv / val.csv)"
    elif data == "hellaswag":
        train, dev = train_dev_split(load_benchmark("hellaswag", "dev", root), 0.5, seed)
        source = "HellaSwag validation, seeded half/half split (stand-in for SWAG)"
    else:
        raise ValueError(f"studies.bets.default_stage.data must be 'swag' or 'hellaswag', not {data!r}")
    train = seeded_subsample(train, train_size, seed)
    dev = seeded_subsample(dev, dev_size, seed + 1)
    return train, dev, f"{source}: {len(train)} train / {len(dev)} dev items"


def default_stage_recipe(stage: DefaultStage, input_format: str, seed: int) -> Recipe:
    """The default stage's recipe (run_swag's: no target accuracy, every epoch run)."""
    return Recipe(learning_rate=stage.learning_rate, batch_size=stage.batch_size, max_epochs=stage.max_epochs,
                  seed=seed, input_format=input_format, max_length=stage.max_length, warmup_steps=stage.warmup_steps,
                  batch_order=stage.batch_order)


# -- task stages -------------------------------------------------------------------------------------------------------


def task_stage_items(qset: str, train: Sequence[MCItem], train_size: int | None, seed: int) -> tuple[list[MCItem], str]:
    """The train questions a task stage learns from (a seeded ``train_size`` subset, None = all) and their
    description for the tables."""
    subset = seeded_subsample(train, train_size, seed)
    described = f"bets {qset} train questions" + (
        f" (seeded {len(subset)} of {len(train)})" if len(subset) < len(train) else ""
    )
    return subset, described


def task_stage_recipe(stage: TaskStage, input_format: str, seed: int) -> Recipe:
    """A task stage's recipe: stops at the target dev accuracy or after ``max_epochs``."""
    return Recipe(learning_rate=stage.learning_rate, batch_size=stage.batch_size, max_epochs=stage.max_epochs,
                  seed=seed, input_format=input_format, max_length=stage.max_length,
                  target_dev_accuracy=stage.target_dev_accuracy, eval_every_steps=stage.eval_every_steps,
                  warmup_steps=stage.warmup_steps, freeze_word_embeddings=stage.freeze_word_embeddings,
                  frozen_layers=stage.frozen_layers, batch_order=stage.batch_order)
