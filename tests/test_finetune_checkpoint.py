"""A fine-tuned checkpoint is a model folder with its training record and its base model's hash."""

from __future__ import annotations

import json
from choicelab.lm.loading import load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.pipelines.finetune import FineTuneParams, fine_tune_checkpoint
from conftest import toy_items


def test_checkpoint_records_training_and_loads_like_any_model(tmp_path):
    base = tmp_path / "tiny-bert"
    base_meta = prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base)
    params = FineTuneParams(learning_rate=5e-3, batch_size=8, max_epochs=3, seed=0, target_dev_accuracy=0.9)
    meta = fine_tune_checkpoint(base, toy_items(48, 0, "train", 2), toy_items(16, 1, "dev", 2), params, tmp_path / "ckpt",
                                name="tiny-bert__toy", device="cpu")
    on_disk = json.loads((tmp_path / "ckpt" / "model.json").read_text())
    assert on_disk == meta
    assert meta["base_model"]["weights_sha256"] == base_meta["weights_sha256"]
    assert meta["training"]["reached_target"] in (True, False)
    assert meta["training"]["history"] and meta["training"]["params"]["learning_rate"] == 5e-3
    model, _, _ = load_encoder_mc(tmp_path / "ckpt", seed=0, device="cpu")
    assert model is not None
