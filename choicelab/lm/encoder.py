"""Encoder multiple-choice scoring and fine-tuning (AutoModelForMultipleChoice: one logit per choice).

Each choice is encoded with its prompt, either as a text pair (``input_format="pair"``: [CLS] prompt [SEP] choice
[SEP], as in SWAG/ai2 fine-tuning) or as one string (``"concat"``: prompt + " " + choice, as in the bets paper's
Table 1). Fine-tuning is seeded (data order, dropout, head initialisation), evaluates dev accuracy every epoch
(optionally every k steps), keeps the best state, stops early at a target dev accuracy or after ``patience``
evaluations without improvement, and records whether the target was reached.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, get_linear_schedule_with_warmup


class MCQuestion(Protocol):
    """What the encoder reads of a multiple-choice item: its prompt, its choices and the index of the right one
    (:class:`choicelab.mc.items.MCItem`, the item type every benchmark is instantiated into, is one)."""

    @property
    def prompt(self) -> str: ...

    @property
    def choices(self) -> Sequence[str]: ...

    @property
    def label(self) -> int: ...


def _text_pairs(items: Sequence[MCQuestion], input_format: str) -> tuple[list[str], list[str]]:
    """Each (item, choice) as the encoder reads it: ``pair`` = (prompt, choice) as a text pair, ``concat`` = one text
    "prompt choice" (``seconds`` stays empty)."""
    firsts: list[str] = []
    seconds: list[str] = []
    for item in items:
        for choice in item.choices:
            if input_format == "pair":
                firsts.append(item.prompt)
                seconds.append(choice)
            elif input_format == "concat":
                firsts.append(f"{item.prompt} {choice}".strip())
            else:
                raise ValueError(f"input_format must be 'pair' or 'concat', not {input_format!r}")
    return firsts, seconds


def _encode(
    tokenizer: PreTrainedTokenizerBase,
    items: Sequence[MCQuestion],
    input_format: str,
    max_length: int,
) -> dict[str, torch.Tensor]:
    firsts, seconds = _text_pairs(items, input_format)
    n_choices = len(items[0].choices)
    enc = tokenizer(
        firsts,
        seconds if input_format == "pair" else None,
        padding="longest",
        truncation=True,
        max_length=max_length,
        return_tensors="pt",
    )
    return {k: v.view(len(items), n_choices, -1) for k, v in enc.items()}


def _groups_by_choice_count(choice_counts: Iterable[int]) -> dict[int, list[int]]:
    """Item indices by number of choices (one count per item), in item order."""
    groups: dict[int, list[int]] = defaultdict(list)
    for index, count in enumerate(choice_counts):
        groups[count].append(index)
    return groups


def _character_length(item: MCQuestion) -> int:
    """The longest prompt+choice text of an item, in characters: a tokenizer-free proxy for its padded length."""
    return len(item.prompt) + max((len(choice) for choice in item.choices), default=0)


@torch.inference_mode()
def mc_logits(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    items: Sequence[MCQuestion],
    *,
    input_format: str = "pair",
    max_length: int = 128,
    batch_size: int = 32,
) -> list[np.ndarray]:
    """Raw logits, one array per item (one value per choice), in item order.

    Items are batched by choice count and, within a count, by length (longest first, ties in item order), so a
    batch pads to similar lengths instead of to its longest outlier; the order is deterministic.
    """
    model.eval()
    device = next(model.parameters()).device
    out: list[np.ndarray | None] = [None] * len(items)
    for _, group in sorted(_groups_by_choice_count(len(item.choices) for item in items).items()):
        indices = sorted(group, key=lambda index: (-_character_length(items[index]), index))
        for start in range(0, len(indices), batch_size):
            chunk = indices[start : start + batch_size]
            enc = _encode(tokenizer, [items[i] for i in chunk], input_format, max_length)
            logits = model(**{k: v.to(device) for k, v in enc.items()}).logits.float().cpu().numpy()
            for row, index in enumerate(chunk):
                out[index] = logits[row]
    return [o for o in out if o is not None]


def accuracy_of(logits: Sequence[np.ndarray], items: Sequence[MCQuestion]) -> float:
    if not items:
        return float("nan")
    return float(np.mean([int(np.argmax(lg)) == it.label for lg, it in zip(logits, items, strict=True)]))


@dataclass
class TrainResult:
    epochs_run: float
    steps: int
    best_dev_accuracy: float
    reached_target: bool
    target_dev_accuracy: float | None
    history: list[dict[str, float]] = field(default_factory=list)
    precision: str = "fp32"  # fp32 | tf32 | bf16-autocast (training_precision)


HALF_PRECISION_UNSUPPORTED = {"deberta": "DeBERTa v1", "xlnet": "XLNet"}  # dtype errors under half precision


def check_trainable_dtype(model: PreTrainedModel, name: str) -> None:
    """Refuse weights that cannot be fine-tuned here: fp16 weights train to a NaN loss without loss scaling and bf16
    weights barely move (most updates round away); DeBERTa v1 and XLNet fail with dtype errors in either. Training
    keeps fp32 master weights (and uses bf16 autocast on CUDA), so the fix is always the model's ``dtype: float32``."""
    dtype = next(model.parameters()).dtype
    if dtype in (torch.float16, torch.bfloat16):
        family = HALF_PRECISION_UNSUPPORTED.get(getattr(model.config, "model_type", ""), "")
        why = (f"{family} fails with dtype errors in half precision" if family else
               "fp16 weights train to a NaN loss without loss scaling" if dtype == torch.float16 else
               "bf16 weights barely change (most updates round away)")
        raise ValueError(
            f"model {name!r} is loaded in {str(dtype).removeprefix('torch.')}: {why}. Fine-tuning keeps fp32 master "
            f"weights: set models.{name}.dtype: float32 in the config (on CUDA training runs in bf16 autocast anyway)"
        )


def training_precision(model: PreTrainedModel, device: torch.device) -> str:
    """``bf16-autocast`` on a CUDA device that supports bf16 (fp32 master weights, TF32 matmuls enabled), except for
    the families that fail in half precision (TF32 only there); ``fp32`` on CPU."""
    if device.type != "cuda":
        return "fp32"
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if getattr(model.config, "model_type", "") in HALF_PRECISION_UNSUPPORTED or not torch.cuda.is_bf16_supported():
        return "tf32"
    return "bf16-autocast"


def _autocast(precision: str, device: torch.device):
    """bf16 autocast where the precision asks for it; on a GPU, attention without cuDNN's per-shape plans (every
    batch of padded items has a new shape: :func:`choicelab.lm.causal.attention_without_per_shape_plans`)."""
    import contextlib

    from choicelab.lm.causal import attention_without_per_shape_plans

    stack = contextlib.ExitStack()
    stack.enter_context(attention_without_per_shape_plans(device))
    if precision == "bf16-autocast":
        stack.enter_context(torch.autocast(device_type=device.type, dtype=torch.bfloat16))
    return stack


@dataclass(frozen=True)
class _Encoded:
    """Items tokenized once, unpadded: per item, per choice, each input's token ids (padded per batch later)."""

    rows: list[list[dict[str, list[int]]]]
    labels: list[int]


def _tokenize_once(
    tokenizer: PreTrainedTokenizerBase, items: Sequence[MCQuestion], input_format: str, max_length: int
) -> _Encoded:
    firsts, seconds = _text_pairs(items, input_format)
    enc = tokenizer(firsts, seconds if input_format == "pair" else None, truncation=True, max_length=max_length)
    keys = list(enc.keys())
    rows, k = [], 0
    for item in items:
        rows.append([{key: enc[key][k + j] for key in keys} for j in range(len(item.choices))])
        k += len(item.choices)
    return _Encoded(rows, [int(item.label) for item in items])


def _collate(encoded: _Encoded, batch: Sequence[int], pad_id: int, padding_side: str) -> dict[str, torch.Tensor]:
    """One batch padded to its longest input, exactly as the tokenizer's ``padding="longest"`` would."""
    choices = [encoded.rows[i] for i in batch]
    width = max(len(c["input_ids"]) for item in choices for c in item)
    out: dict[str, torch.Tensor] = {}
    for key in choices[0][0]:
        fill = pad_id if key == "input_ids" else 0
        padded = []
        for item in choices:
            for c in item:
                pad = [fill] * (width - len(c[key]))
                padded.append(pad + c[key] if padding_side == "left" else c[key] + pad)
        out[key] = torch.tensor(padded).view(len(batch), len(choices[0]), width)
    return out


def encoder_layers(model: PreTrainedModel) -> torch.nn.ModuleList:
    """The transformer layers of an encoder with a multiple-choice head (``base_model.encoder.layer``: BERT, RoBERTa,
    DeBERTa, BigBird, MiniLM); another layout is refused with what to do."""
    layers = getattr(getattr(model.base_model, "encoder", None), "layer", None)
    if not isinstance(layers, torch.nn.ModuleList):
        raise ValueError(f"frozen_layers: {type(model).__name__} keeps no base_model.encoder.layer list; set "
                         "frozen_layers: 0 to fine-tune it whole")
    return layers


class _StopForward(Exception):
    pass


class _Pass(torch.nn.Module):
    """Stands in for a frozen layer below the cached one: hands its input on."""

    def forward(self, hidden_states: torch.Tensor, *args, **kwargs):  # noqa: ANN002, ANN003
        return hidden_states


class _Replay(torch.nn.Module):
    """Stands in for the top frozen layer: returns the batch's cached output of the frozen stack."""

    def __init__(self, as_tuple: bool) -> None:
        super().__init__()
        self.as_tuple = as_tuple
        self.current: torch.Tensor | None = None

    def forward(self, hidden_states: torch.Tensor, *args, **kwargs):  # noqa: ANN002, ANN003
        return (self.current,) if self.as_tuple else self.current


@torch.inference_mode()
def _cache_frozen(model: PreTrainedModel, encoded: _Encoded, frozen: int, device: torch.device, precision: str,
                  pad_id: int, batch_size: int = 32) -> tuple[list[torch.Tensor], bool]:
    """The output of the frozen embeddings and bottom ``frozen`` layers for every train item (one forward pass, eval
    mode: no dropout in the frozen part), as one [choices, tokens, hidden] tensor per item, unpadded to the item's
    longest choice; and whether the layer returns a tuple."""
    layer = encoder_layers(model)[frozen - 1]
    captured: dict[str, object] = {}

    def hook(_module, _inputs, output):
        captured["out"] = output
        raise _StopForward  # the layers above are not needed

    handle = layer.register_forward_hook(hook)
    was_training = model.training
    model.eval()
    cached: list[torch.Tensor | None] = [None] * len(encoded.rows)
    # a batch holds items of one choice count, in item order
    by_count = _groups_by_choice_count(len(row) for row in encoded.rows)
    batches = [group[start : start + batch_size] for _, group in sorted(by_count.items())
               for start in range(0, len(group), batch_size)]
    try:
        for batch in batches:
            enc = _collate(encoded, batch, pad_id, "right")
            flat = {k: v.view(-1, v.shape[-1]).to(device) for k, v in enc.items()}
            try:
                with _autocast(precision, device):
                    model.base_model(**flat)
            except _StopForward:
                pass
            out = captured["out"]
            hidden = (out[0] if isinstance(out, tuple) else out).float()
            hidden = hidden.view(len(batch), -1, *hidden.shape[1:])
            for row, index in enumerate(batch):
                width = max(len(c["input_ids"]) for c in encoded.rows[index])
                cached[index] = hidden[row, :, :width].clone()
    finally:
        handle.remove()
        model.train(was_training)
    return [c for c in cached if c is not None], isinstance(captured.get("out"), tuple)


@dataclass(frozen=True)
class FrozenEncodings:
    """Items tokenized once and run once through the frozen embeddings and bottom ``frozen_layers`` layers (eval mode:
    no dropout), one unpadded [choices, tokens, hidden] tensor per item. They depend on the base weights, the items,
    the input format and max_length only -- not on the seed, the head or anything trained above -- so the
    checkpoints of several seeds (or a checkpoint before and after training) share one :func:`encode_frozen`."""

    encoded: _Encoded
    cached: list[torch.Tensor]
    as_tuple: bool  # whether the frozen layer returns a tuple (its stand-in must too)
    frozen_layers: int
    input_format: str
    max_length: int
    pad_id: int  # the tokenizer's padding id (the batches of the layers above are padded with it)

    def check(self, items: Sequence[MCQuestion], frozen_layers: int, input_format: str, max_length: int,
              what: str) -> None:
        """Refuse encodings of other items or another recipe: they would silently train or score other inputs."""
        expected = (len(items), frozen_layers, input_format, max_length)
        found = (len(self.cached), self.frozen_layers, self.input_format, self.max_length)
        if expected != found or self.encoded.labels != [int(item.label) for item in items]:
            raise ValueError(f"the frozen encodings of the {what} items were made for (items, frozen_layers, "
                             f"input_format, max_length) = {found}, not {expected}: encode these items with "
                             "encode_frozen under the same recipe")


def encode_frozen(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, items: Sequence[MCQuestion], *,
                  frozen_layers: int, input_format: str = "pair", max_length: int = 128) -> FrozenEncodings:
    """``items`` tokenized once and encoded once by the model's embeddings and bottom ``frozen_layers`` layers."""
    layers = encoder_layers(model)
    if not 0 < frozen_layers <= len(layers):
        raise ValueError(f"frozen_layers must be between 0 and the model's {len(layers)} layers, not {frozen_layers}")
    if tokenizer.padding_side != "right":
        raise ValueError("frozen_layers caches right-padded encodings; this tokenizer pads on the left")
    device = next(model.parameters()).device
    encoded = _tokenize_once(tokenizer, items, input_format, max_length)
    pad_id = _pad_id(tokenizer)
    cached, as_tuple = _cache_frozen(model, encoded, frozen_layers, device, training_precision(model, device), pad_id)
    return FrozenEncodings(encoded, cached, as_tuple, frozen_layers, input_format, max_length, pad_id)


def _pad_id(tokenizer: PreTrainedTokenizerBase) -> int:
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0


def _stand_ins(frozen_layers: int, as_tuple: bool) -> tuple[list[torch.nn.Module], _Replay]:
    """The modules that replace the bottom ``frozen_layers`` layers while cached encodings are replayed."""
    replay = _Replay(as_tuple)
    return [_Pass() for _ in range(frozen_layers - 1)] + [replay], replay


def frozen_mc_logits(model: PreTrainedModel, items: Sequence[MCQuestion], frozen: FrozenEncodings) -> list[np.ndarray]:
    """:func:`mc_logits` of ``items`` with the model's frozen bottom replaced by its cached encodings (the layers
    above and the head run; the bottom layers are put back before returning): one array per item, in item order.
    Equal to :func:`mc_logits` wherever the bottom still has the weights it was encoded with."""
    layers = encoder_layers(model)
    originals = list(layers[: frozen.frozen_layers])
    replacements, replay = _stand_ins(frozen.frozen_layers, frozen.as_tuple)
    frozen.check(items, frozen.frozen_layers, frozen.input_format, frozen.max_length, "scored")
    device = next(model.parameters()).device
    model.eval()
    for index, module in enumerate(replacements):
        layers[index] = module
    try:
        with _autocast(training_precision(model, device), device):
            return _replayed_logits(model, items, frozen.encoded, frozen.cached, replay, frozen.pad_id, device)
    finally:
        for index, module in enumerate(originals):
            layers[index] = module


def _pad_cached(cached: list[torch.Tensor], batch: Sequence[int], width: int) -> torch.Tensor:
    parts = [torch.nn.functional.pad(cached[i], (0, 0, 0, width - cached[i].shape[1])) for i in batch]
    stacked = torch.stack(parts)  # [batch, choices, width, hidden]
    return stacked.view(-1, width, stacked.shape[-1])


@torch.inference_mode()
def _replayed_logits(model: PreTrainedModel, items: Sequence[MCQuestion], encoded: _Encoded, cached: list[torch.Tensor],
                     replay: _Replay, pad_id: int, device: torch.device, batch_size: int = 32) -> list[np.ndarray]:
    """:func:`mc_logits` of ``items`` with the frozen stack replaced by its cached output (the model's frozen layers
    must be swapped for the :class:`_Replay` stand-ins): one array per item, in item order, the layers above only."""
    out: list[np.ndarray | None] = [None] * len(items)
    for _, group in sorted(_groups_by_choice_count(len(item.choices) for item in items).items()):
        indices = sorted(group, key=lambda index: (-cached[index].shape[1], index))
        for start in range(0, len(indices), batch_size):
            chunk = indices[start : start + batch_size]
            enc = _collate(encoded, chunk, pad_id, "right")
            replay.current = _pad_cached(cached, chunk, enc["input_ids"].shape[-1]).to(device)
            logits = model(**{k: v.to(device) for k, v in enc.items()}).logits.float().cpu().numpy()
            for row, index in enumerate(chunk):
                out[index] = logits[row]
    replay.current = None
    return [o for o in out if o is not None]


def _accumulation_window(batches: Sequence[Sequence[int]], position: int, steps: int, accumulation: int,
                         max_steps: int, encoded: _Encoded) -> list[Sequence[int]]:
    """The micro-batches from ``position`` that make up one whole optimizer step, to run as one batch: all of them
    when the step starts here, lies within this epoch's batches and the step limit, and keeps one choice count;
    else just the next micro-batch."""
    end = position + accumulation
    if steps % accumulation or end > len(batches) or steps + accumulation > max_steps:
        return [batches[position]]
    window = list(batches[position:end])
    counts = {len(encoded.rows[micro[0]]) for micro in window}
    return window if len(counts) == 1 else [batches[position]]


def fine_tune_mc(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    train: Sequence[MCQuestion],
    dev: Sequence[MCQuestion],
    *,
    learning_rate: float,
    batch_size: int,
    max_epochs: float,
    seed: int,
    input_format: str = "pair",
    max_length: int = 128,
    target_dev_accuracy: float | None = None,
    eval_every_steps: int | None = None,
    patience: int | None = None,
    warmup_steps: int = 0,
    weight_decay: float = 0.0,
    grad_accumulation: int = 1,
    freeze_word_embeddings: bool = False,
    frozen_layers: int = 0,
    frozen_train: FrozenEncodings | None = None,
    frozen_dev: FrozenEncodings | None = None,
    merge_accumulation: bool | None = None,
    log: Callable[[str], None] = print,
) -> TrainResult:
    """Fine-tune ``model`` in place on ``train``; returns the training record. See the module docstring.

    Train items are tokenized once (each batch is padded to its longest input, as before); the training losses stay
    on the device until an evaluation reads them (no host sync per step); on CUDA the forward runs in bf16 autocast
    over fp32 weights (:func:`training_precision`). A NaN or infinite training loss raises FloatingPointError at the
    next evaluation, before anything is kept.

    ``frozen_layers`` > 0 keeps the embeddings and the bottom layers fixed and computes their output once per train
    item (eval mode), so each step runs only the layers above: far fewer FLOPs when the top is small. The dev items'
    frozen encodings are computed once too, so every dev evaluation also runs only the layers above.
    ``frozen_train`` / ``frozen_dev`` (:func:`encode_frozen` of the same items under the same recipe) hand those
    encodings in, e.g. shared by the checkpoints of several seeds: the result is the same as computing them here.

    ``merge_accumulation`` (default: on a GPU) runs the ``grad_accumulation`` micro-batches of one optimizer step as
    one batch, each item's loss weighted as the accumulation weights it (1 / (accumulation x its micro-batch's
    size)): the same items and the same gradient per optimizer step, one forward and backward instead of several
    small ones (a GPU is idle at micro-batch 3). Windows that mix choice counts, cross an epoch's end or the step
    limit, and recipes that evaluate inside a window, run micro-batch by micro-batch as before.
    """
    if not train:
        raise ValueError("fine-tuning needs at least one training item")
    if not dev:
        raise ValueError("fine-tuning needs dev items for evaluation and early stopping")
    check_trainable_dtype(model, getattr(model, "name_or_path", "") or type(model).__name__)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    groups = _groups_by_choice_count(len(item.choices) for item in train)
    steps_per_epoch = sum(math.ceil(len(ix) / batch_size) for ix in groups.values())
    total_steps = max(1, int(math.ceil(steps_per_epoch * max_epochs / grad_accumulation)))
    if freeze_word_embeddings:  # keep the pretrained word vectors: items unseen in training keep their meaning
        model.get_input_embeddings().weight.requires_grad_(False)
    device = next(model.parameters()).device
    precision = training_precision(model, device)
    if merge_accumulation is None:
        merge_accumulation = device.type == "cuda"
    merge_accumulation = (merge_accumulation and grad_accumulation > 1
                          and (not eval_every_steps or eval_every_steps % grad_accumulation == 0))
    pad_id = _pad_id(tokenizer)
    layers = encoder_layers(model) if frozen_layers else None
    originals: list[torch.nn.Module] = []
    replacements: list[torch.nn.Module] = []
    if layers is None:
        if frozen_train is not None or frozen_dev is not None:
            raise ValueError("frozen encodings were handed in but frozen_layers is 0: set frozen_layers to theirs")
        encoded = _tokenize_once(tokenizer, train, input_format, max_length)
    else:
        recipe = (frozen_layers, input_format, max_length)
        if frozen_train is None:
            frozen_train = encode_frozen(model, tokenizer, train, frozen_layers=frozen_layers,
                                         input_format=input_format, max_length=max_length)
        frozen_train.check(train, *recipe, "train")
        if frozen_dev is None:
            frozen_dev = encode_frozen(model, tokenizer, dev, frozen_layers=frozen_layers, input_format=input_format,
                                       max_length=max_length)
        frozen_dev.check(dev, *recipe, "dev")
        frozen_modules = [model.base_model.embeddings, *layers[:frozen_layers]]
        frozen_flags = [[p.requires_grad for p in m.parameters()] for m in frozen_modules]
        for module in frozen_modules:
            module.requires_grad_(False)
        encoded, cached = frozen_train.encoded, frozen_train.cached
        originals = list(layers[:frozen_layers])
        replacements, replay = _stand_ins(frozen_layers, frozen_train.as_tuple)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=learning_rate, weight_decay=weight_decay)
    scheduler = get_linear_schedule_with_warmup(optimizer, warmup_steps, total_steps)

    def swap(modules: list[torch.nn.Module]) -> None:
        for index, module in enumerate(modules):
            layers[index] = module
    labels_all = torch.tensor(encoded.labels)
    result = TrainResult(0.0, 0, -1.0, False, target_dev_accuracy, precision=precision)
    best_state: dict[str, torch.Tensor] | None = None
    evals_without_gain = 0
    loss_sum = torch.zeros((), device=device)  # training losses since the last evaluation, summed on the device
    loss_count = 0

    def evaluate(epoch_position: float) -> bool:
        nonlocal best_state, evals_without_gain, loss_sum, loss_count
        train_loss = float(loss_sum) / loss_count if loss_count else float("nan")  # the one host sync
        if loss_count and not math.isfinite(train_loss):
            raise FloatingPointError(
                f"training loss became {train_loss} by step {result.steps} (learning rate {learning_rate}, precision "
                f"{precision}): nothing is saved; lower the learning rate or train in float32"
            )
        loss_sum, loss_count = torch.zeros((), device=device), 0
        with _autocast(precision, device):
            if layers is None:
                logits = mc_logits(model, tokenizer, dev, input_format=input_format, max_length=max_length)
            else:  # the top layers on the dev items' cached frozen encodings; the real layers back for state_dict
                logits = frozen_mc_logits(model, dev, frozen_dev)
        accuracy = accuracy_of(logits, dev)
        result.history.append(
            {"epoch": epoch_position, "step": result.steps, "train_loss": train_loss, "dev_accuracy": accuracy}
        )
        log(f"epoch {epoch_position:.2f} step {result.steps}: train loss {train_loss:.4f}, dev accuracy {accuracy:.4f}")
        if accuracy > result.best_dev_accuracy:
            result.best_dev_accuracy = accuracy
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            evals_without_gain = 0
        else:
            evals_without_gain += 1
        if target_dev_accuracy is not None and accuracy >= target_dev_accuracy:
            result.reached_target = True
            return True
        return patience is not None and evals_without_gain >= patience

    max_steps_total = int(math.ceil(steps_per_epoch * max_epochs))
    stop = False
    epoch = 0
    while not stop and result.steps < max_steps_total:
        batches = [
            ix[s : s + batch_size]
            for _, ix in sorted(groups.items())
            for ix in [rng.sample(ix, len(ix))]
            for s in range(0, len(ix), batch_size)
        ]
        rng.shuffle(batches)
        model.train()
        if replacements:
            swap(replacements)
        position = 0
        while position < len(batches):
            if result.steps >= max_steps_total:
                break
            window = _accumulation_window(batches, position, result.steps, grad_accumulation, max_steps_total,
                                          encoded) if merge_accumulation else [batches[position]]
            position += len(window)
            batch = [index for micro in window for index in micro]
            enc = _collate(encoded, batch, pad_id, tokenizer.padding_side)
            if replacements:
                replay.current = _pad_cached(cached, batch, enc["input_ids"].shape[-1]).to(device)
            labels = labels_all[batch].to(device, non_blocking=True)
            with _autocast(precision, device):
                if len(window) == 1:
                    loss = model(**{k: v.to(device, non_blocking=True) for k, v in enc.items()}, labels=labels).loss
                else:
                    logits = model(**{k: v.to(device, non_blocking=True) for k, v in enc.items()}).logits
            if len(window) == 1:
                (loss / grad_accumulation).backward()
                loss_sum += loss.detach().float()
            else:  # each item weighted as its micro-batch's accumulation would weigh it
                item_losses = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
                sizes = [len(micro) for micro in window]
                weights = torch.cat([torch.full((n,), 1.0 / (grad_accumulation * n)) for n in sizes]).to(device)
                (item_losses * weights).sum().backward()
                loss_sum += sum(part.mean() for part in item_losses.detach().split(sizes))
            loss_count += len(window)
            result.steps += len(window)
            if result.steps % grad_accumulation == 0:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if eval_every_steps and result.steps % eval_every_steps == 0:
                model.eval()
                swap(originals)
                if evaluate(result.steps / steps_per_epoch):
                    stop = True
                    break
                swap(replacements)
                model.train()
        swap(originals)
        epoch += 1
        result.epochs_run = result.steps / steps_per_epoch
        if not stop and not (eval_every_steps and result.steps % eval_every_steps == 0):
            model.eval()
            stop = evaluate(result.epochs_run)
    model.eval()
    if best_state is not None:
        model.load_state_dict(best_state)
    if layers is not None:  # the flags as they were after freeze_word_embeddings, which is undone next
        for module, flags in zip(frozen_modules, frozen_flags, strict=True):
            for parameter, flag in zip(module.parameters(), flags, strict=True):
                parameter.requires_grad_(flag)
    if freeze_word_embeddings:
        model.get_input_embeddings().weight.requires_grad_(True)
    return result
