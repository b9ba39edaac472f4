"""A fine-tune's recipe is one value built once from the study's validated settings: every training key of the schema
reaches it, and a config that was not validated is refused naming the missing key."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from choicelab.config import load_config_file, validate_config
from choicelab.lm.recipe import Recipe
from choicelab.settings import SettingsError
from choicelab.studies import study_settings
from choicelab.studies.bets.stages import default_stage_recipe, task_stage_recipe
from choicelab.studies.probes.jobs import INPUT_FORMAT, finetune_recipe

REPO = Path(__file__).resolve().parent.parent


def _config(**probes_finetune):
    config = load_config_file(REPO / "config.yaml")
    config["studies"]["probes"]["finetune"].update(probes_finetune)
    config["studies"]["bets"]["task_stage"]["batch_order"] = "by_length"
    validate_config(config)
    return config


def test_the_probes_recipe_carries_every_key_of_studies_probes_finetune_and_the_jobs_seed():
    config = _config(batch_order="by_length", patience=3)
    section = config["studies"]["probes"]["finetune"]
    recipe = finetune_recipe(section, seed=7)
    assert recipe.seed == 7 and recipe.input_format == INPUT_FORMAT
    for key, value in section.items():
        assert getattr(recipe, key) == value, key
    assert {f.name for f in fields(Recipe)} == set(section) | {"seed", "input_format", "freeze_word_embeddings"}


def test_the_bets_recipes_carry_their_stage_settings():
    settings = study_settings(_config(), "bets")
    task = task_stage_recipe(settings.task_stage, settings.input_format, seed=3)
    default = default_stage_recipe(settings.default_stage, settings.input_format, seed=3)
    assert task.batch_order == "by_length" and default.batch_order == settings.default_stage.batch_order
    assert (task.eval_every_steps, task.target_dev_accuracy, task.freeze_word_embeddings) == (
        settings.task_stage.eval_every_steps, settings.task_stage.target_dev_accuracy,
        settings.task_stage.freeze_word_embeddings)
    assert default.target_dev_accuracy is None and default.max_length == settings.default_stage.max_length


def test_a_recipe_from_a_config_that_was_not_validated_is_refused_naming_the_key():
    section = dict(_config()["studies"]["probes"]["finetune"])
    del section["batch_order"]
    with pytest.raises(SettingsError, match="studies.probes.finetune.batch_order"):
        finetune_recipe(section, seed=0)
