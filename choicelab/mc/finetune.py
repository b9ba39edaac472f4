"""Fine-tuned checkpoints as rule outputs: base encoder + train/dev benchmarks -> a model folder.

The checkpoint folder looks like any materialized model (safetensors, tokenizer, ``model.json``), so every scoring
step loads it the same way; its ``model.json`` adds the base model's weights hash, the training record (epochs,
steps, dev accuracy history, whether the target was reached) and the hyper-parameters, among them the
``input_format`` the checkpoint was trained in: :func:`trained_input_format` reads it back, and
:func:`require_input_format` refuses to score or continue training a checkpoint in any other format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from choicelab.hub import weight_digests
from choicelab.io import atomic_directory, write_json
from choicelab.lm.recipe import INPUT_FORMATS, Recipe
from choicelab.mc.items import MCItem
from choicelab.provenance import write_model_record


def trained_input_format(checkpoint_dir: str | Path) -> str | None:
    """The input format a fine-tuned checkpoint was trained in (``model.json`` training params), or None for a
    model that was never fine-tuned here (a materialized base encoder)."""
    from choicelab.lm.loading import read_model_json

    training = read_model_json(checkpoint_dir).get("training")
    if training is None:
        return None
    fmt = training.get("params", {}).get("input_format")
    if fmt not in INPUT_FORMATS:
        raise ValueError(
            f"{checkpoint_dir}/model.json records no valid training input_format ({fmt!r}); rebuild the checkpoint"
        )
    return fmt


def require_input_format(checkpoint_dir: str | Path, configured: str, *, purpose: str) -> str:
    """``configured`` if the checkpoint was trained in it (or is a base model); otherwise a ValueError naming both.

    A multiple-choice head scores the text layout it was trained on; scoring (or task fine-tuning) in another
    layout would silently measure a different input, so a mismatch is refused instead.
    """
    if configured not in INPUT_FORMATS:
        raise ValueError(f"input_format must be one of {INPUT_FORMATS}, not {configured!r}")
    trained = trained_input_format(checkpoint_dir)
    if trained is not None and trained != configured:
        raise ValueError(
            f"{checkpoint_dir} was fine-tuned with input_format={trained!r} but {purpose} is configured with "
            f"{configured!r}: set the study's input_format to {trained!r} or rebuild the checkpoint"
        )
    return configured


@dataclass(frozen=True)
class TrainingData:
    """The items of one fine-tuning job: ``train`` and ``dev`` (model selection), optional ``evaluation`` items (the
    competence gate: never trained on nor used for selection) and ``notes`` added to the training record (e.g. which
    data a stage was trained on)."""

    train: Sequence[MCItem]
    dev: Sequence[MCItem]
    evaluation: Sequence[MCItem] | None = None
    notes: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class CheckpointOut:
    """Where one seed's checkpoint goes: its folder, the name in its ``model.json`` and the training job's provenance
    record (rule, recipe, base model and training data), saved in the folder as ``provenance.json`` so the checkpoint
    is credited to its rule."""

    path: str | Path
    name: str
    record: Mapping[str, Any] | None = None


def fine_tune_checkpoint(base_dir: str | Path, data: TrainingData, params: Recipe, out: CheckpointOut, *,
                         device: str = "auto") -> dict[str, Any]:
    """Fine-tune the encoder in ``base_dir`` and save the checkpoint atomically to ``out.path``.

    ``data.evaluation`` items are scored before training (the base model with its freshly initialised head: the
    untrained-head control of the same seed) and after (the kept state); the record gets both accuracies, their count
    and the items' chance level (the competence gate's inputs). Every accuracy of the record comes with its n and
    exact 95% interval (``accuracy_intervals``, :func:`accuracy_interval`): a dev accuracy of 0.8 on 20 items is
    [0.56, 0.94]. The one-seed case of :func:`fine_tune_checkpoints`.
    """
    (meta,) = fine_tune_checkpoints(base_dir, data, params, {params.seed: out}, device=device)
    return meta


def fine_tune_checkpoints(base_dir: str | Path, data: TrainingData, params: Recipe, outs: Mapping[int, CheckpointOut],
                          *, device: str = "auto", log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """One checkpoint per seed (the keys of ``outs``; ``params.seed`` is replaced by each) from the same base,
    data and recipe, saved as :func:`fine_tune_checkpoint` saves one; returns their ``model.json`` records in seed
    order. What does not depend on the seed is computed once for all of them: with ``params.frozen_layers`` > 0 the
    tokenization and the frozen bottom's encodings of the train, dev and evaluation items
    (:func:`choicelab.lm.encoder.encode_frozen`), and the evaluation items' scores before and after training run the
    layers above on those encodings. Each seed's checkpoint is the one its seed alone gives: its model is loaded
    afresh with its seed (the head's initialisation) and trained from its seed.
    """
    from choicelab.lm.encoder import FrozenSplits, check_trainable_dtype, encode_frozen
    from choicelab.lm.loading import load_encoder_mc, read_model_json

    seeds = list(outs)
    if not seeds:
        raise ValueError("fine_tune_checkpoints needs at least one seed (outs is empty)")
    require_input_format(base_dir, params.input_format, purpose="fine-tuning from it")
    base_meta = read_model_json(base_dir)
    model, tokenizer, _ = load_encoder_mc(base_dir, seed=seeds[0], device=device)
    check_trainable_dtype(model, base_meta["name"])  # before any training time is spent
    shared: dict[str, Any] = {}
    if params.frozen_layers:  # seed-independent: the base weights below the trained layers, the items, the recipe
        shape = {"frozen_layers": params.frozen_layers, "input_format": params.input_format,
                 "max_length": params.max_length}
        shared = {"frozen": FrozenSplits(encode_frozen(model, tokenizer, data.train, **shape),
                                         encode_frozen(model, tokenizer, data.dev, **shape))}
        if data.evaluation:
            shared["frozen_evaluation"] = encode_frozen(model, tokenizer, data.evaluation, **shape)
    job = _Job(base_meta, data, log, **shared)
    metas = []
    for index, seed in enumerate(seeds):
        if index:  # a fresh model per seed: its head initialised from its seed
            model, tokenizer, _ = load_encoder_mc(base_dir, seed=seed, device=device)
        log(f"seed {seed}: fine-tuning {outs[seed].name}")
        metas.append(_train_and_save(model, tokenizer, job, replace(params, seed=seed), outs[seed]))
    return metas


@dataclass(frozen=True)
class _Job:
    """What the seeds of one fine-tuning job share: the base model's record, the items and notes, the log, and
    (frozen layers) the items' frozen encodings."""

    base_meta: Mapping[str, Any]
    data: TrainingData
    log: Callable[[str], None]
    frozen: Any = None  # choicelab.lm.encoder.FrozenSplits of train and dev
    frozen_evaluation: Any = None  # choicelab.lm.encoder.FrozenEncodings of the evaluation items


def _evaluation_accuracy(model: Any, tokenizer: Any, job: _Job, recipe: Recipe) -> float:
    """The model's accuracy on the job's evaluation items (the layers above the frozen bottom on its encodings, where
    there are some: the bottom keeps its weights)."""
    from choicelab.lm.encoder import accuracy_of, frozen_mc_logits, mc_logits

    if job.frozen_evaluation is not None:
        logits = frozen_mc_logits(model, job.data.evaluation, job.frozen_evaluation)
    else:
        logits = mc_logits(model, tokenizer, job.data.evaluation, input_format=recipe.input_format,
                           max_length=recipe.max_length)
    return accuracy_of(logits, job.data.evaluation)


def _train_and_save(model: Any, tokenizer: Any, job: _Job, recipe: Recipe, out: CheckpointOut) -> dict[str, Any]:
    """Fine-tune one seed's model, scoring the evaluation items before and after; save the checkpoint folder."""
    from choicelab.lm.encoder import fine_tune_mc

    data = job.data
    gate: dict[str, Any] = {}
    if data.evaluation:
        gate = {"evaluation_items": len(data.evaluation),
                "initial_evaluation_accuracy": _evaluation_accuracy(model, tokenizer, job, recipe),
                "evaluation_chance": sum(1 / len(item.choices) for item in data.evaluation) / len(data.evaluation)}
    result = fine_tune_mc(model, tokenizer, data.train, data.dev, recipe, frozen=job.frozen, log=job.log)
    if data.evaluation:
        gate["evaluation_accuracy"] = _evaluation_accuracy(model, tokenizer, job, recipe)
    training = {
        "params": asdict(recipe),
        "train_items": len(data.train),
        "dev_items": len(data.dev),
        "dev_chance": sum(1 / len(item.choices) for item in data.dev) / len(data.dev),  # the competence gate's floor
        "epochs_run": result.epochs_run,
        "steps": result.steps,
        "best_dev_accuracy": result.best_dev_accuracy,
        "target_dev_accuracy": result.target_dev_accuracy,
        "reached_target": result.reached_target,
        "history": result.history,
        "precision": result.precision,
        **gate,
        **(data.notes or {}),
    }
    training["accuracy_intervals"] = {
        key: accuracy_interval(training[key], training[n_key])
        for key, n_key in (("best_dev_accuracy", "dev_items"), ("initial_evaluation_accuracy", "evaluation_items"),
                           ("evaluation_accuracy", "evaluation_items"))
        if training.get(key) is not None and training.get(n_key)
    }
    return _save(model, tokenizer, job.base_meta, training, out)


def _save(model: Any, tokenizer: Any, base_meta: Mapping[str, Any], training: dict[str, Any],
          out: CheckpointOut) -> dict[str, Any]:
    """The checkpoint folder, written atomically: weights, tokenizer, ``model.json`` (with ``training``) and the
    training job's provenance record."""
    with atomic_directory(out.path) as tmp:
        model.save_pretrained(str(tmp), safe_serialization=True)
        tokenizer.save_pretrained(str(tmp))
        combined, per_file = weight_digests(tmp)
        meta = {
            **{k: base_meta.get(k) for k in ("kind", "dtype", "max_context_length", "has_chat_template")},
            "name": out.name,
            "source": f"finetune:{base_meta['name']}",
            "architecture": type(model).__name__,
            "weights_sha256": combined,
            "weights_files": per_file,
            "base_model": {"name": base_meta["name"], "weights_sha256": base_meta["weights_sha256"]},
            "training": training,
            "library_versions": base_meta.get("library_versions", {}),
        }
        write_json(tmp / "model.json", meta)
        if out.record is not None:
            write_model_record(tmp, out.record)
    return meta


def accuracy_interval(accuracy: float, n: int) -> dict[str, Any]:
    """An accuracy measured on ``n`` items with its count of correct items and exact (Clopper-Pearson) 95% interval:
    the record a reader needs to see that 0.8 of 20 items is [0.56, 0.94], not a measured 0.8."""
    from choicelab.stats import exact_interval

    correct = round(accuracy * n)
    low, high = exact_interval(correct, n)
    return {"accuracy": accuracy, "n": n, "correct": correct, "ci95": [low, high],
            "interval": "exact (Clopper-Pearson) 95%"}


def checkpoints_mc_logits(checkpoint_dirs: Sequence[str | Path], items: Sequence[MCItem], *, input_format: str,
                          max_length: int, device: str = "auto") -> list[list[Any]]:
    """:func:`choicelab.lm.encoder.mc_logits` of ``items`` under each checkpoint (one list of per-item logit arrays
    per checkpoint, in order). Checkpoints fine-tuned from one base with the same ``frozen_layers`` > 0 (their
    ``model.json``) keep that base's embeddings and bottom layers: those encode the items once, checked tensor by
    tensor to be the same in every checkpoint, and each checkpoint runs only the layers above
    (:func:`choicelab.lm.encoder.frozen_mc_logits`; the same logits up to float rounding). Otherwise each checkpoint
    runs whole."""
    import torch

    from choicelab.lm.encoder import encode_frozen, encoder_layers, frozen_mc_logits, mc_logits
    from choicelab.lm.loading import load_encoder_mc, read_model_json

    def frozen_of(folder: str | Path) -> tuple[int, str | None]:
        meta = read_model_json(folder)
        training = meta.get("training") or {}
        return int(training.get("params", {}).get("frozen_layers") or 0), (meta.get("base_model") or {}).get(
            "weights_sha256")

    recipes = {frozen_of(folder) for folder in checkpoint_dirs}  # (frozen_layers, base weights): one, or none shared
    frozen = next(iter(recipes))[0] if len(recipes) == 1 else 0
    shared = None
    bottom: dict[str, Any] = {}
    out = []
    for folder in checkpoint_dirs:
        require_input_format(folder, input_format, purpose="scoring")
        model, tokenizer, _ = load_encoder_mc(folder, seed=None, device=device)
        if not frozen:
            out.append(mc_logits(model, tokenizer, items, input_format=input_format, max_length=max_length))
            continue
        parts = {f"embeddings.{k}": v for k, v in model.base_model.embeddings.state_dict().items()}
        for index, layer in enumerate(encoder_layers(model)[:frozen]):
            parts.update({f"layer.{index}.{k}": v for k, v in layer.state_dict().items()})
        if shared is None:
            shared = encode_frozen(model, tokenizer, items, frozen_layers=frozen, input_format=input_format,
                                   max_length=max_length)
            bottom = parts
        elif parts.keys() != bottom.keys() or not all(torch.equal(parts[k], bottom[k]) for k in parts):
            raise ValueError(f"{folder}: its embeddings or bottom {frozen} layers differ from "
                             f"{checkpoint_dirs[0]}'s although both record frozen_layers={frozen} from one base; "
                             "rebuild the checkpoints")
        out.append(frozen_mc_logits(model, items, shared))
    return out
