"""A recipe's ``batch_order``: ``by_length`` batches items of similar length (padding only to a bucket's width), in a
seeded order; ``shuffled`` is the paper's order. Either way each epoch trains on every item once."""

from __future__ import annotations

import random

import pytest

from choicelab.lm import encoder
from choicelab.lm.recipe import Recipe
from choicelab.lm.tiny import tiny_model
from choicelab.mc.items import MCItem


def _items(n: int, seed: int, split: str) -> list[MCItem]:
    """Two-choice items whose prompts run from 1 to 24 words: a shuffled batch pads to its longest outlier."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        label = rng.randrange(2)
        choices = ["no", "no"]
        choices[label] = "yes indeed"
        prompt = " ".join(rng.choice(["red", "blue", "cat", "dog"]) for _ in range(rng.randint(1, 24)))
        items.append(MCItem("toy", split, f"{split}{i}", prompt, tuple(choices), label))
    return items


def _train_batches(order: str, seed: int, monkeypatch) -> tuple[list[list[int]], int, int]:
    """The training batches (item indices) of a two-epoch fine-tune, and their padded and real token counts."""
    batches, padded, real = [], [0], [0]
    collate = encoder._collate

    def spy(encoded, batch, pad_id, side):
        out = collate(encoded, batch, pad_id, side)
        batches.append(list(batch))
        padded[0] += out["attention_mask"].numel()
        real[0] += int(out["attention_mask"].sum())
        return out

    model, tokenizer = tiny_model("bert", seed=0)
    recipe = Recipe(learning_rate=1e-3, batch_size=4, max_epochs=2, seed=seed, input_format="pair", max_length=64,
                    batch_order=order)
    with monkeypatch.context() as patch:
        patch.setattr(encoder, "_collate", spy)
        encoder.fine_tune_mc(model, tokenizer, _items(32, 0, "train"), _items(4, 1, "dev"), recipe, log=lambda _: None)
    return batches, padded[0], real[0]


def test_by_length_batches_pad_less_and_still_train_on_every_item_once_per_epoch(monkeypatch):
    shuffled, shuffled_padded, real = _train_batches("shuffled", 0, monkeypatch)
    by_length, by_length_padded, by_length_real = _train_batches("by_length", 0, monkeypatch)
    assert by_length_real == real  # the same tokens are trained on
    assert by_length_padded < shuffled_padded
    for batches in (shuffled, by_length):
        per_epoch = len(batches) // 2
        for epoch in (batches[:per_epoch], batches[per_epoch:]):
            assert sorted(index for batch in epoch for index in batch) == list(range(32))


def test_by_length_order_is_seeded_and_differs_between_seeds_and_epochs(monkeypatch):
    first, _, _ = _train_batches("by_length", 0, monkeypatch)
    again, _, _ = _train_batches("by_length", 0, monkeypatch)
    other, _, _ = _train_batches("by_length", 1, monkeypatch)
    assert first == again
    assert first != other
    per_epoch = len(first) // 2
    assert first[:per_epoch] != first[per_epoch:]  # the batches' order is drawn again each epoch


def test_a_recipe_refuses_an_unknown_batch_order_naming_the_choices():
    with pytest.raises(ValueError, match=r"batch_order must be one of \('shuffled', 'by_length'\)"):
        Recipe(learning_rate=1e-3, batch_size=4, max_epochs=1, seed=0, input_format="pair", max_length=64,
               batch_order="sorted")
