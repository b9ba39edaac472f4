"""The typed settings of the bets study: ``studies.bets`` of the config, after validation filled the schema's defaults.

The schema (``schemas/config.schema.yaml``) is the only place defaults live; :func:`choicelab.studies.study_settings`
reads every key with the generic reader and restates none (a key missing here is a config that was not validated).
"""

from __future__ import annotations

from dataclasses import dataclass

from choicelab.studies.bets import question_set_names


@dataclass(frozen=True)
class DefaultStage:
    """``studies.bets.default_stage``: multiple-choice fine-tuning on SWAG or its HellaSwag stand-in."""

    data: str  # swag | hellaswag
    train_size: int | None  # seeded subset (None = all)
    dev_size: int | None
    learning_rate: float
    batch_size: int
    max_epochs: float
    max_length: int
    warmup_steps: int
    batch_order: str  # shuffled | by_length (choicelab.lm.recipe.Recipe)


@dataclass(frozen=True)
class TaskStage:
    """``studies.bets.task_stage``: fine-tuning from the default model on one value template or bet modality."""

    learning_rate: float
    batch_size: int
    max_epochs: float
    target_dev_accuracy: float
    train_size: int | None  # seeded subset of the task's train questions (None = all)
    eval_every_steps: int | None  # None = once per epoch
    max_length: int
    warmup_steps: int
    freeze_word_embeddings: bool
    frozen_layers: int  # embeddings + this many bottom layers fixed, their output cached (0 = the paper's)
    batch_order: str  # shuffled | by_length (choicelab.lm.recipe.Recipe)


@dataclass(frozen=True)
class Settings:
    """``studies.bets``."""

    enabled: bool
    models: tuple[str, ...]
    templates: tuple[str, ...]  # value templates (RQ1), BE BV CE CV
    modalities: tuple[str, ...]  # bet modalities (RQ3), coin dice card
    rq2_template: str
    belief_template: str
    article_agreement: bool
    swap_order: bool
    paper_labels: dict[str, str]  # our model name -> the paper's (BERT, RoBERTa, DeBERTa, BigBird)
    input_format: str  # pair | concat
    default_stage: DefaultStage
    seeds: tuple[int, ...]  # training seeds: every stage is trained once per seed (the task stage from that seed's
    # default checkpoint)
    train_eval_size: int | None  # seeded subset of each scored train split (None = all)
    task_stage: TaskStage

    def question_sets(self) -> list[str]:
        """The value question sets (one per template) and the bet question sets (one per modality)."""
        return question_set_names(self.templates, self.modalities)
