"""The fine-tuning recipe: every parameter of one encoder fine-tune, as one typed, frozen value.

A study builds its recipe once from its validated settings (``choicelab.studies.bets.stages``,
``choicelab.studies.probes.jobs``; the schema ``schemas/config.schema.yaml`` is the only place a default is written)
and hands it on whole: :func:`choicelab.mc.finetune.fine_tune_checkpoint` saves it in the checkpoint's ``model.json``
and :func:`choicelab.lm.encoder.fine_tune_mc` trains by it. The fields after ``max_length`` are features a recipe may
switch on; their values here are "off" (no target, no patience, nothing frozen, the paper's shuffled batches), never
a tuned default.

No torch: the rules plan jobs with recipes.
"""

from __future__ import annotations

from dataclasses import dataclass

INPUT_FORMATS = ("pair", "concat")
BATCH_ORDERS = ("shuffled", "by_length")


@dataclass(frozen=True)
class Recipe:
    """How one checkpoint is fine-tuned (``model.json`` ``training.params`` records it field by field).

    ``batch_order``: ``shuffled`` = each epoch's items in a seeded random order, cut into batches (the paper's; a
    batch pads to its longest outlier); ``by_length`` = each epoch's items sorted by their longest choice's tokens
    (ties in a seeded random order), cut into batches, the batches then in a seeded random order: a batch pads only
    to the width of items of its own length (a different data order, so different checkpoints than ``shuffled``).
    """

    learning_rate: float
    batch_size: int
    max_epochs: float
    seed: int
    input_format: str  # pair | concat (choicelab.lm.encoder)
    max_length: int  # tokens of one (prompt, choice) input, longer ones cut
    target_dev_accuracy: float | None = None  # stop when dev accuracy reaches it
    eval_every_steps: int | None = None  # None = once per epoch
    patience: int | None = None  # stop after this many evaluations without a better dev accuracy
    warmup_steps: int = 0
    weight_decay: float = 0.0
    grad_accumulation: int = 1
    dropout: float | None = None  # the multiple-choice head's dropout (isi-nlp/ai2: 0.3); None keeps the model's
    freeze_word_embeddings: bool = False
    frozen_layers: int = 0  # embeddings and the bottom layers kept fixed, their output computed once (encoder.py)
    batch_order: str = "shuffled"

    def __post_init__(self) -> None:
        if self.input_format not in INPUT_FORMATS:
            raise ValueError(f"recipe input_format must be one of {INPUT_FORMATS}, not {self.input_format!r}")
        if self.batch_order not in BATCH_ORDERS:
            raise ValueError(f"recipe batch_order must be one of {BATCH_ORDERS}, not {self.batch_order!r}")
        for name in ("batch_size", "grad_accumulation", "max_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"recipe {name} must be at least 1, not {getattr(self, name)}")
        if self.frozen_layers < 0:
            raise ValueError(f"recipe frozen_layers must be 0 or more, not {self.frozen_layers}")
