"""The checkpoints of several seeds trained in one job share the seed-independent work and equal one-seed jobs."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from choicelab.io import sha256_file
from choicelab.lm.encoder import accuracy_of, mc_logits
from choicelab.lm.loading import load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.lm.recipe import Recipe
from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint, fine_tune_checkpoints
from conftest import toy_items

PARAMS = Recipe(learning_rate=1e-2, batch_size=4, max_epochs=2, seed=0, frozen_layers=1, max_length=32,
                input_format="pair")


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    base = tmp_path_factory.mktemp("base") / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    return base


def _data():
    return toy_items(16, 0, "train", 3), toy_items(8, 1, "dev", 3), toy_items(12, 2, "gate", 3)


def test_seeds_trained_in_one_job_equal_one_job_per_seed_byte_for_byte(tiny_bert, tmp_path):
    """Two seeds trained together (frozen bottom encoded once) give the same weights (sha256 of the safetensors) and
    the same training record -- losses, dev history, gate accuracies -- as each seed trained alone."""
    train, dev, gate = _data()
    seeds = (7, 8)
    data = TrainingData(train, dev, evaluation=gate)
    together = fine_tune_checkpoints(tiny_bert, data, PARAMS,
                                     {s: CheckpointOut(tmp_path / f"together{s}", f"tiny__seed{s}") for s in seeds},
                                     device="cpu", log=lambda _: None)
    alone = [fine_tune_checkpoint(tiny_bert, data, Recipe(**{**PARAMS.__dict__, "seed": s}),
                                  CheckpointOut(tmp_path / f"alone{s}", f"tiny__seed{s}"), device="cpu")
             for s in seeds]
    for shared, single, seed in zip(together, alone, seeds, strict=True):
        assert shared["training"]["params"]["seed"] == seed
        assert shared == single  # weights_sha256 and the whole training record
        assert json.loads((tmp_path / f"together{seed}" / "model.json").read_text()) == shared
    assert together[0]["weights_sha256"] != together[1]["weights_sha256"]  # the seeds differ: head init, order


def test_the_gate_on_cached_encodings_equals_the_whole_encoder_before_and_after_training(tiny_bert, tmp_path):
    """The competence gate's evaluation items are scored on the frozen bottom's cached encodings: the accuracies
    recorded before training (base + the seed's fresh head) and after (the saved checkpoint) are those of the whole
    encoder run on the same items."""
    train, dev, gate = _data()
    (meta,) = fine_tune_checkpoints(tiny_bert, TrainingData(train, dev, evaluation=gate), PARAMS,
                                    {3: CheckpointOut(tmp_path / "ckpt", "tiny")}, device="cpu", log=lambda _: None)

    def whole(folder):
        model, tokenizer, _ = load_encoder_mc(folder, seed=3, device="cpu")
        return accuracy_of(mc_logits(model, tokenizer, gate, max_length=32), gate)

    assert meta["training"]["initial_evaluation_accuracy"] == whole(tiny_bert)
    assert meta["training"]["evaluation_accuracy"] == whole(tmp_path / "ckpt")


def test_the_frozen_bottom_runs_once_for_all_seeds(tiny_bert, tmp_path, monkeypatch):
    """Train, dev and evaluation items are encoded by the frozen bottom once per job, not once per seed."""
    from choicelab.lm import encoder

    calls = []
    real = encoder.encode_frozen
    monkeypatch.setattr(encoder, "encode_frozen", lambda *a, **k: calls.append(len(a[2])) or real(*a, **k))
    train, dev, gate = _data()
    fine_tune_checkpoints(tiny_bert, TrainingData(train, dev, evaluation=gate), PARAMS,
                          {s: CheckpointOut(tmp_path / f"s{s}", f"s{s}") for s in (1, 2, 3)}, device="cpu",
                          log=lambda _: None)
    assert sorted(calls) == sorted([len(train), len(dev), len(gate)])


def test_encodings_of_other_items_or_another_recipe_are_refused(tiny_bert):
    from choicelab.lm.encoder import FrozenSplits, encode_frozen, fine_tune_mc

    train, dev, _ = _data()
    model, tokenizer, _ = load_encoder_mc(tiny_bert, seed=0, device="cpu")
    frozen_dev = encode_frozen(model, tokenizer, dev, frozen_layers=1, max_length=32)
    frozen_train_64 = encode_frozen(model, tokenizer, train, frozen_layers=1, max_length=64)
    with pytest.raises(ValueError, match="frozen encodings of the train items"):
        fine_tune_mc(model, tokenizer, train, dev, PARAMS, frozen=FrozenSplits(frozen_dev, frozen_dev),
                     log=lambda _: None)
    with pytest.raises(ValueError, match="frozen encodings of the dev items"):
        fine_tune_mc(model, tokenizer, train, dev, replace(PARAMS, max_length=64),
                     frozen=FrozenSplits(frozen_train_64, frozen_dev), log=lambda _: None)
    with pytest.raises(ValueError, match="fine_tune_checkpoints needs at least one seed"):
        fine_tune_checkpoints(tiny_bert, TrainingData(train, dev), PARAMS, {}, device="cpu")


def test_seed_checkpoints_score_items_on_one_shared_bottom_with_the_whole_encoders_logits(tiny_bert, tmp_path):
    """Scoring the checkpoints of several seeds encodes the items (of any choice count) with their shared frozen
    bottom once: each
    checkpoint's logits equal its whole encoder's (float rounding) with the same choice ranked first; a checkpoint
    whose bottom differs is refused, naming it."""
    import numpy as np
    from safetensors.torch import load_file, save_file

    from choicelab.mc.finetune import checkpoints_mc_logits

    train, dev, gate = _data()
    folders = [tmp_path / f"s{s}" for s in (1, 2)]
    fine_tune_checkpoints(tiny_bert, TrainingData(train, dev), PARAMS,
                          {seed: CheckpointOut(folder, f"s{seed}")
                           for seed, folder in zip((1, 2), folders, strict=True)},
                          device="cpu", log=lambda _: None)
    gate = gate + toy_items(5, 3, "two", 2) + toy_items(4, 4, "four", 4)  # probed items: any number of choices
    shared = checkpoints_mc_logits(folders, gate, input_format="pair", max_length=32, device="cpu")
    for folder, logits in zip(folders, shared, strict=True):
        model, tokenizer, _ = load_encoder_mc(folder, seed=0, device="cpu")
        whole = mc_logits(model, tokenizer, gate, max_length=32)
        assert np.allclose(np.concatenate(logits), np.concatenate(whole), atol=1e-5)
        assert [int(np.argmax(a)) for a in logits] == [int(np.argmax(b)) for b in whole]
    weights = folders[1] / "model.safetensors"
    tensors = load_file(weights)
    key = next(k for k in tensors if "embeddings.word_embeddings" in k)
    tensors[key] = tensors[key] + 1.0
    save_file({k: v.contiguous() for k, v in tensors.items()}, weights, metadata={"format": "pt"})
    meta = json.loads((folders[1] / "model.json").read_text())  # a checkpoint trained so: its record says so
    meta["weights_files"] = {"model.safetensors": sha256_file(weights)}
    (folders[1] / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="s2: its embeddings or bottom 1 layers differ"):
        checkpoints_mc_logits(folders, gate, input_format="pair", max_length=32, device="cpu")


def test_the_seeds_share_a_job_only_where_the_recipe_freezes_bottom_layers():
    """A frozen-bottom recipe (smoke, embedded default) trains and scores every seed of a benchmark in one job, reading
    every seed's checkpoint; a whole-encoder recipe (the paper config) keeps one job per seed."""
    from types import SimpleNamespace

    from test_probes import _jobs

    jobs = _jobs(lambda c: c["studies"]["probes"].update(seeds=[7, 8], benchmarks=["piqa"]))
    assert jobs.seeds_share_a_job()
    assert jobs.seed_checkpoints(SimpleNamespace(model="tiny-bert", benchmark="piqa")) == [
        "results/probes/checkpoints/tiny-bert__piqa__seed7", "results/probes/checkpoints/tiny-bert__piqa__seed8"]
    whole = _jobs(lambda c: c["studies"]["probes"]["finetune"].update(frozen_layers=0))
    assert not whole.seeds_share_a_job()
