"""A fine-tuned checkpoint is a model folder with its training record and its base model's hash."""

from __future__ import annotations

import json

import pytest

from choicelab.lm.encoder import accuracy_of, mc_logits
from choicelab.lm.loading import load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.lm.recipe import Recipe
from choicelab.mc.finetune import (
    CheckpointOut,
    TrainingData,
    fine_tune_checkpoint,
    require_input_format,
    trained_input_format,
)
from conftest import toy_items


def test_checkpoint_records_training_and_loads_like_any_model(tmp_path):
    base = tmp_path / "tiny-bert"
    base_meta = prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(
        learning_rate=5e-3,
        batch_size=8,
        max_epochs=3,
        seed=0,
        target_dev_accuracy=0.9,
        input_format="pair",
        max_length=128,
    )
    dev = toy_items(16, 1, "dev", 2)
    meta = fine_tune_checkpoint(base, TrainingData(toy_items(48, 0, "train", 2), dev), params,
                                CheckpointOut(tmp_path / "ckpt", "tiny-bert__toy"),
                                device="cpu")
    on_disk = json.loads((tmp_path / "ckpt" / "model.json").read_text())
    assert on_disk == meta
    assert meta["base_model"]["weights_sha256"] == base_meta["weights_sha256"]
    training = meta["training"]
    assert training["params"]["learning_rate"] == 5e-3 and training["target_dev_accuracy"] == 0.9
    dev_accuracies = [h["dev_accuracy"] for h in training["history"]]
    assert dev_accuracies and 0 < training["epochs_run"] <= params.max_epochs
    # reached_target says whether some evaluation reached the target, and training stopped at the first that did
    assert training["reached_target"] == any(a >= 0.9 for a in dev_accuracies)
    if training["reached_target"]:
        assert dev_accuracies[-1] >= 0.9 and all(a < 0.9 for a in dev_accuracies[:-1])
    assert training["best_dev_accuracy"] == max(dev_accuracies)
    # the checkpoint holds the best evaluation's weights: loaded like any model, it scores dev at best_dev_accuracy
    model, tokenizer, _ = load_encoder_mc(tmp_path / "ckpt", seed=0, device="cpu")
    dev_logits = mc_logits(model, tokenizer, dev, input_format=params.input_format, max_length=params.max_length)
    assert accuracy_of(dev_logits, dev) == pytest.approx(training["best_dev_accuracy"])


@pytest.mark.parametrize("target, reached", [(0.0, True), (1.01, False)])
def test_training_stops_at_the_target_and_records_whether_it_was_reached(tmp_path, target, reached):
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(
        learning_rate=5e-3,
        batch_size=8,
        max_epochs=2,
        seed=0,
        target_dev_accuracy=target,
        input_format="pair",
        max_length=128,
    )
    meta = fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 2), toy_items(8, 1, "dev", 2)), params,
                                CheckpointOut(tmp_path / "ckpt", "tiny-bert__target"),
                                device="cpu")
    training = meta["training"]
    assert training["reached_target"] is reached
    # a reachable target stops after the first evaluation (end of epoch 1); an unreachable one trains every epoch
    assert training["epochs_run"] == (1 if reached else params.max_epochs)
    assert len(training["history"]) == (1 if reached else 2)


def _tiny_checkpoint(tmp_path, input_format):
    base = tmp_path / "tiny-bert"
    if not base.exists():
        prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, input_format=input_format, max_length=128)
    out = tmp_path / f"ckpt_{input_format}"
    fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 3), toy_items(8, 1, "dev", 3)), params,
                         CheckpointOut(out, f"tiny-bert__{input_format}"),
                                device="cpu")
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
    params = Recipe(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, input_format="concat", max_length=128)
    with pytest.raises(ValueError, match="fine-tuning from it"):
        fine_tune_checkpoint(ckpt, TrainingData(toy_items(8, 0, "train", 3), toy_items(8, 1, "dev", 3)), params,
                             CheckpointOut(tmp_path / "task", "tiny-bert__task"),
                                device="cpu")


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
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(
        learning_rate=5e-3,
        batch_size=8,
        max_epochs=1,
        seed=0,
        freeze_word_embeddings=True,
        input_format="pair",
        max_length=128,
    )
    meta = fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 3), toy_items(8, 1, "dev", 3)), params,
                                CheckpointOut(tmp_path / "ckpt", "tiny-bert__frozen"),
                                device="cpu")
    assert meta["training"]["params"]["freeze_word_embeddings"] is True
    before, _, _ = load_encoder_mc(base, seed=0, device="cpu")
    after, _, _ = load_encoder_mc(tmp_path / "ckpt", seed=0, device="cpu")
    assert torch.equal(before.get_input_embeddings().weight, after.get_input_embeddings().weight)
    layer = "bert.encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(before.state_dict()[layer], after.state_dict()[layer])


def test_a_nan_loss_stops_training_with_a_clear_error_and_saves_nothing(tmp_path):
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(
        learning_rate=float("inf"), batch_size=4, max_epochs=1, seed=0, input_format="pair", max_length=128
    )  # weights blow up
    with pytest.raises(FloatingPointError, match="nothing is saved"):
        fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 2), toy_items(4, 1, "dev", 2)), params,
                             CheckpointOut(tmp_path / "ckpt", "tiny-bert__nan"),
                                device="cpu")
    assert not (tmp_path / "ckpt").exists()


@pytest.mark.parametrize("dtype, why", [("float16", "NaN loss without loss scaling"), ("bfloat16", "barely change")])
def test_half_precision_encoder_weights_are_refused_naming_the_model_and_the_fix(tmp_path, dtype, why):
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert", "dtype": dtype}, base, seed=0)
    params = Recipe(learning_rate=1e-3, batch_size=4, max_epochs=1, seed=0, input_format="pair", max_length=128)
    with pytest.raises(ValueError, match=f"'tiny-bert'.*{why}.*models.tiny-bert.dtype: float32"):
        fine_tune_checkpoint(base, TrainingData(toy_items(8, 0, "train", 2), toy_items(4, 1, "dev", 2)), params,
                             CheckpointOut(tmp_path / "ckpt", "tiny-bert__half"),
                                device="cpu")
    assert not (tmp_path / "ckpt").exists()


def test_training_is_recorded_with_its_precision_and_tokenizes_once(tmp_path, monkeypatch):
    """On CPU training runs in fp32 and says so; the train items are tokenized once, not once per step."""
    from choicelab.lm import encoder

    calls = []
    real = encoder._tokenize_once
    monkeypatch.setattr(encoder, "_tokenize_once", lambda *a, **k: calls.append(1) or real(*a, **k))
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(learning_rate=1e-3, batch_size=4, max_epochs=2, seed=0, input_format="pair", max_length=128)
    meta = fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 2), toy_items(4, 1, "dev", 2)), params,
                                CheckpointOut(tmp_path / "ckpt", "tiny-bert__fp32"),
                                device="cpu")
    assert meta["training"]["precision"] == "fp32" and meta["training"]["steps"] == 8
    assert len(calls) == 1


def encoder_without_dropout(base):
    """The encoder at ``base`` with a fresh MC head (seed 0) and every dropout off, so two runs compare exactly."""
    import torch

    model, tokenizer, _ = load_encoder_mc(base, seed=0, device="cpu")
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    return model, tokenizer


def test_frozen_layers_train_only_the_top_on_cached_encodings_with_the_same_losses_as_freezing_them(tmp_path):
    """frozen_layers=k encodes the embeddings and bottom k layers once: the training losses and weights equal those of
    the same parts frozen and run every step (no dropout), the frozen parts are unchanged and the top has moved."""
    import torch

    from choicelab.lm.encoder import encoder_layers, fine_tune_mc

    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)

    train, dev = toy_items(16, 0, "train", 2), toy_items(8, 1, "dev", 2)
    cached, tokenizer = encoder_without_dropout(base)
    with_cache = fine_tune_mc(
        cached,
        tokenizer,
        train,
        dev,
        Recipe(
            learning_rate=1e-2, batch_size=4, max_epochs=2, seed=0, frozen_layers=1, input_format="pair", max_length=128
        ),
        log=lambda _: None,
    )
    frozen, _ = encoder_without_dropout(base)
    frozen.base_model.embeddings.requires_grad_(False)
    encoder_layers(frozen)[0].requires_grad_(False)
    every_step = fine_tune_mc(
        frozen,
        tokenizer,
        train,
        dev,
        Recipe(learning_rate=1e-2, batch_size=4, max_epochs=2, seed=0, input_format="pair", max_length=128),
        log=lambda _: None,
    )
    assert [h["train_loss"] for h in with_cache.history] == pytest.approx(
        [h["train_loss"] for h in every_step.history], rel=1e-5)
    start, _ = encoder_without_dropout(base)
    before, after = start.state_dict(), cached.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in after if ".layer.0." in k or "embeddings" in k)
    assert any(not torch.equal(before[k], after[k]) for k in after if ".layer.1." in k)
    assert all(p.requires_grad for p in cached.parameters())  # the model is handed back trainable, as it came
    with pytest.raises(ValueError, match="frozen_layers must be between 0 and the model's 2 layers"):
        fine_tune_mc(
            start,
            tokenizer,
            train,
            dev,
            Recipe(
                learning_rate=1e-3,
                batch_size=4,
                max_epochs=1,
                seed=0,
                frozen_layers=3,
                input_format="pair",
                max_length=128,
            ),
            log=lambda _: None,
        )


def test_frozen_layers_evaluate_dev_on_cached_encodings_running_the_frozen_layers_once_per_item(tmp_path):
    """With frozen_layers=k the dev evaluations also read the frozen bottom's output cached once per dev item: the
    frozen layer runs once for the train items and once for the dev items (not at every evaluation), and the dev
    accuracies equal those of the whole encoder run at every evaluation with the same parts frozen."""

    from choicelab.lm.encoder import encoder_layers, fine_tune_mc

    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)

    train, dev = toy_items(16, 0, "train", 2), toy_items(24, 1, "dev", 2)
    cached, tokenizer = encoder_without_dropout(base)
    calls = []
    encoder_layers(cached)[0].register_forward_hook(lambda *_: calls.append(1))
    with_cache = fine_tune_mc(
        cached,
        tokenizer,
        train,
        dev,
        Recipe(
            learning_rate=1e-2,
            batch_size=4,
            max_epochs=2,
            seed=0,
            eval_every_steps=1,
            frozen_layers=1,
            input_format="pair",
            max_length=128,
        ),
        log=lambda _: None,
    )
    assert len(with_cache.history) == 8 and len(calls) == 2  # one batch of train items, one of dev items
    frozen, _ = encoder_without_dropout(base)
    frozen.base_model.embeddings.requires_grad_(False)
    encoder_layers(frozen)[0].requires_grad_(False)
    every_step = fine_tune_mc(
        frozen,
        tokenizer,
        train,
        dev,
        Recipe(
            learning_rate=1e-2,
            batch_size=4,
            max_epochs=2,
            seed=0,
            eval_every_steps=1,
            input_format="pair",
            max_length=128,
        ),
        log=lambda _: None,
    )
    assert [h["dev_accuracy"] for h in with_cache.history] == [h["dev_accuracy"] for h in every_step.history]
