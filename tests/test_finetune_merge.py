"""Gradient accumulation run as one batch (the default on a GPU): the same items and gradient per optimizer step as
micro-batch by micro-batch, so the same training, with one forward and backward per step instead of several."""

from __future__ import annotations

import pytest
import torch
from test_finetune_checkpoint import encoder_without_dropout

from choicelab.lm.encoder import fine_tune_mc
from choicelab.lm.prepare import prepare_model
from choicelab.lm.recipe import Recipe
from conftest import toy_items


@pytest.mark.parametrize("frozen_layers", [0, 1])
def test_merged_accumulation_trains_as_micro_batches_do(tmp_path, frozen_layers):
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    # 22 items of batch 3: seven micro-batches of 3 and one of 1 per epoch, accumulation 4: the step with the short
    # micro-batch weighs its item as accumulation does, and the epoch's last, partial window runs micro-batch-wise
    train, dev = toy_items(22, 0, "train", 3), toy_items(9, 1, "dev", 3)
    runs = {}
    for merge in (False, True):
        model, tokenizer = encoder_without_dropout(base)
        record = fine_tune_mc(model, tokenizer, train, dev,
                              Recipe(learning_rate=1e-2, batch_size=3, grad_accumulation=4, max_epochs=3, seed=0,
                                     eval_every_steps=4, frozen_layers=frozen_layers, input_format="pair",
                                     max_length=128),
                              merge_accumulation=merge, log=lambda _: None)
        runs[merge] = (record, model.state_dict())
    (micro, micro_state), (merged, merged_state) = runs[False], runs[True]
    assert merged.steps == micro.steps and len(merged.history) == len(micro.history) > 3
    assert [h["step"] for h in merged.history] == [h["step"] for h in micro.history]
    assert [h["train_loss"] for h in merged.history] == pytest.approx([h["train_loss"] for h in micro.history],
                                                                      rel=1e-5)
    assert [h["dev_accuracy"] for h in merged.history] == [h["dev_accuracy"] for h in micro.history]
    # the MC head's bias gets a gradient that sums to zero over the choices: Adam turns its rounding noise into full
    # steps of either sign, so it is no measure of the two runs' agreement
    for key, value in micro_state.items():
        if key != "classifier.bias":
            assert torch.allclose(merged_state[key], value, atol=1e-4), key


def test_merging_is_off_on_a_cpu_and_where_an_evaluation_falls_inside_a_step(tmp_path, monkeypatch):
    import choicelab.lm.encoder as encoder

    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    train, dev = toy_items(12, 0, "train", 2), toy_items(4, 1, "dev", 2)
    windows = []
    real = encoder._accumulation_window
    monkeypatch.setattr(encoder, "_accumulation_window", lambda *a: windows.append(1) or real(*a))
    for merge, every in ((None, None), (True, 3)):  # the device's choice on a CPU; an evaluation inside a step
        model, tokenizer = encoder_without_dropout(base)
        recipe = Recipe(learning_rate=1e-3, batch_size=2, grad_accumulation=2, max_epochs=1, seed=0,
                        input_format="pair", max_length=128, eval_every_steps=every)
        fine_tune_mc(model, tokenizer, train, dev, recipe, merge_accumulation=merge, log=lambda _: None)
    assert windows == []
