"""A fine-tuned checkpoint is a model folder with its training record and its base model's hash."""

from __future__ import annotations

import json

import pytest

from choicelab.lm.loading import load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.mc.finetune import (
    FineTuneParams,
    fine_tune_checkpoint,
    require_input_format,
    trained_input_format,
)
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


def _tiny_checkpoint(tmp_path, input_format):
    base = tmp_path / "tiny-bert"
    if not base.exists():
        prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base)
    params = FineTuneParams(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, input_format=input_format)
    out = tmp_path / f"ckpt_{input_format}"
    fine_tune_checkpoint(base, toy_items(16, 0, "train", 3), toy_items(8, 1, "dev", 3), params, out,
                         name=f"tiny-bert__{input_format}", device="cpu")
    return base, out


def test_a_checkpoint_records_its_input_format_and_refuses_another(tmp_path):
    base, ckpt = _tiny_checkpoint(tmp_path, "pair")
    assert trained_input_format(ckpt) == "pair"
    assert trained_input_format(base) is None  # a base encoder was never fine-tuned: any format may start from it
    assert require_input_format(ckpt, "pair", purpose="scoring") == "pair"
    with pytest.raises(ValueError, match="input_format='pair'.*'concat'"):
        require_input_format(ckpt, "concat", purpose="scoring")


def test_task_fine_tuning_refuses_a_base_checkpoint_trained_in_another_format(tmp_path):
    _, ckpt = _tiny_checkpoint(tmp_path, "pair")
    params = FineTuneParams(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, input_format="concat")
    with pytest.raises(ValueError, match="fine-tuning from it"):
        fine_tune_checkpoint(ckpt, toy_items(8, 0, "train", 3), toy_items(8, 1, "dev", 3), params,
                             tmp_path / "task", name="tiny-bert__task", device="cpu")


def test_bets_scoring_uses_the_format_the_checkpoint_was_trained_in(tmp_path):
    from choicelab.lm.encoder import mc_logits
    from choicelab.studies.bets.scoring import score_checkpoint

    _, ckpt = _tiny_checkpoint(tmp_path, "pair")
    items = toy_items(6, 2, "test", 3)
    rows = score_checkpoint(str(ckpt), [items], name="tiny-bert__pair", configured_format="pair", max_length=32,
                            train_eval_size=None, seed=0, device="cpu", log=lambda _: None)
    model, tokenizer, _ = load_encoder_mc(ckpt, seed=0, device="cpu")
    expected = {fmt: mc_logits(model, tokenizer, items, input_format=fmt, max_length=32) for fmt in ("pair", "concat")}
    scored = [r.score for r in rows if r.method == "mc_logit"]
    assert scored == pytest.approx([float(v) for lg in expected["pair"] for v in lg], abs=1e-5)
    assert scored != pytest.approx([float(v) for lg in expected["concat"] for v in lg], abs=1e-5)
    with pytest.raises(ValueError, match="bets scoring"):
        score_checkpoint(str(ckpt), [items], name="x", configured_format="concat", max_length=32,
                         train_eval_size=None, seed=0, device="cpu")


def test_frozen_word_embeddings_stay_the_pretrained_ones_while_the_rest_learns(tmp_path):
    import torch

    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base)
    params = FineTuneParams(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, freeze_word_embeddings=True)
    meta = fine_tune_checkpoint(base, toy_items(16, 0, "train", 3), toy_items(8, 1, "dev", 3), params,
                                tmp_path / "ckpt", name="tiny-bert__frozen", device="cpu")
    assert meta["training"]["params"]["freeze_word_embeddings"] is True
    before, _, _ = load_encoder_mc(base, seed=0, device="cpu")
    after, _, _ = load_encoder_mc(tmp_path / "ckpt", seed=0, device="cpu")
    assert torch.equal(before.get_input_embeddings().weight, after.get_input_embeddings().weight)
    layer = "bert.encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(before.state_dict()[layer], after.state_dict()[layer])
