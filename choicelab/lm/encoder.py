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
from typing import NamedTuple, Protocol

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, get_linear_schedule_with_warmup

from choicelab.lm.recipe import Recipe


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


def _longest_first_batches(choice_counts: Iterable[int], widths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Inference batches of item indices: a batch holds items of one choice count (counts ascending) and similar
    widths (longest first, ties in item order), so it pads to similar lengths instead of to its longest outlier."""
    groups = sorted(_groups_by_choice_count(choice_counts).items())
    ordered = [sorted(group, key=lambda index: (-widths[index], index)) for _, group in groups]
    return [group[start : start + batch_size] for group in ordered for start in range(0, len(group), batch_size)]


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
    widths = [_character_length(item) for item in items]
    for chunk in _longest_first_batches((len(item.choices) for item in items), widths, batch_size):
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
    widths = [max(len(c["input_ids"]) for c in row) for row in encoded.rows]
    try:
        for batch in _longest_first_batches((len(row) for row in encoded.rows), widths, batch_size):
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
                cached[index] = hidden[row, :, : widths[index]].clone()
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
    widths = [c.shape[1] for c in cached]
    for chunk in _longest_first_batches((len(item.choices) for item in items), widths, batch_size):
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


def epoch_batches(groups: dict[int, list[int]], widths: Sequence[int], batch_size: int, order: str,
                  rng: random.Random) -> list[list[int]]:
    """One epoch's batches of item indices: ``groups`` holds the items of each choice count (a batch keeps one),
    ``widths`` each item's longest input in tokens; ``order`` is the recipe's ``batch_order`` (``shuffled``: each
    group in a seeded random order, cut into batches; ``by_length``: each group sorted by width, ties in a seeded
    random order, cut into batches, so a batch pads only to its own items' width); the batches then in a seeded
    random order. The rng advances: the next epoch draws another order."""
    if order == "shuffled":
        batches = [ix[s : s + batch_size] for _, ix in sorted(groups.items()) for ix in [rng.sample(ix, len(ix))]
                   for s in range(0, len(ix), batch_size)]
    elif order == "by_length":
        batches = []
        for _, ix in sorted(groups.items()):
            ties = {index: rng.random() for index in ix}
            ordered = sorted(ix, key=lambda index: (widths[index], ties[index]))
            batches += [ordered[s : s + batch_size] for s in range(0, len(ordered), batch_size)]
    else:
        raise ValueError(f"batch_order must be 'shuffled' or 'by_length', not {order!r}")
    rng.shuffle(batches)
    return batches


class FrozenSplits(NamedTuple):
    """The frozen encodings (:func:`encode_frozen`) of the train and dev items of a fine-tune, made once and shared,
    e.g. by the checkpoints of several seeds."""

    train: FrozenEncodings
    dev: FrozenEncodings


def fine_tune_mc(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    train: Sequence[MCQuestion],
    dev: Sequence[MCQuestion],
    recipe: Recipe,
    *,
    frozen: FrozenSplits | None = None,
    merge_accumulation: bool | None = None,
    log: Callable[[str], None] = print,
) -> TrainResult:
    """Fine-tune ``model`` in place on ``train`` by ``recipe`` (every field of it, the head's ``dropout`` included);
    returns the training record. See the module docstring and :class:`_FineTune` for the phases.

    Train items are tokenized once (each batch is padded to its longest input); the training losses stay on the
    device until an evaluation reads them (no host sync per step); on CUDA the forward runs in bf16 autocast over fp32
    weights (:func:`training_precision`). A NaN or infinite training loss raises FloatingPointError at the next
    evaluation, before anything is kept.

    ``recipe.frozen_layers`` > 0 keeps the embeddings and the bottom layers fixed and computes their output once per
    train and dev item (eval mode), so each step and each dev evaluation runs only the layers above. ``frozen`` hands
    those encodings in (:class:`FrozenSplits` of the same items under the same recipe): the result is the same as
    computing them here.

    ``merge_accumulation`` (None: on a GPU) runs the ``grad_accumulation`` micro-batches of one optimizer step as one
    batch, each item's loss weighted as the accumulation weights it (1 / (accumulation x its micro-batch's size)):
    the same items and the same gradient per optimizer step, one forward and backward instead of several small ones
    (a GPU is idle at micro-batch 3). Windows that mix choice counts, cross an epoch's end or the step limit, and
    recipes that evaluate inside a window, run micro-batch by micro-batch.
    """
    return _FineTune(model, tokenizer, recipe, merge_accumulation=merge_accumulation, log=log).run(train, dev, frozen)


class _FineTune:
    """One fine-tune, in phases: :meth:`_prepare` (freeze what the recipe freezes; tokenize, or encode the frozen
    bottom, once), :meth:`_epoch_batches` (an epoch's seeded data order, ``recipe.batch_order``), :meth:`_step` (one
    forward and backward; the optimizer steps at each accumulation boundary), :meth:`_evaluate` (dev accuracy, the
    best state kept, whether to stop) and :meth:`_finish` (the best state back, the parameters' flags as they were).
    :meth:`run` is the one entry."""

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, recipe: Recipe, *,
                 merge_accumulation: bool | None, log: Callable[[str], None]) -> None:
        self.model, self.tokenizer, self.recipe, self.log = model, tokenizer, recipe, log
        self.device = next(model.parameters()).device
        self.precision = training_precision(model, self.device)
        every, accumulation = recipe.eval_every_steps, recipe.grad_accumulation
        if merge_accumulation is None:
            merge_accumulation = self.device.type == "cuda"
        self.merge = merge_accumulation and accumulation > 1 and (not every or every % accumulation == 0)
        self.pad_id = _pad_id(tokenizer)
        self.layers = encoder_layers(model) if recipe.frozen_layers else None
        self.originals: list[torch.nn.Module] = []
        self.replacements: list[torch.nn.Module] = []
        self.replay: _Replay | None = None
        self.frozen_dev: FrozenEncodings | None = None
        self.cached: list[torch.Tensor] = []
        self.frozen_flags: list[tuple[torch.nn.Module, list[bool]]] = []
        self.best_state: dict[str, torch.Tensor] | None = None
        self.evals_without_gain = 0
        self.loss_sum = torch.zeros((), device=self.device)  # training losses since the last evaluation
        self.loss_count = 0

    def run(self, train: Sequence[MCQuestion], dev: Sequence[MCQuestion], frozen: FrozenSplits | None) -> TrainResult:
        recipe, model = self.recipe, self.model
        if not train:
            raise ValueError("fine-tuning needs at least one training item")
        if not dev:
            raise ValueError("fine-tuning needs dev items for evaluation and early stopping")
        check_trainable_dtype(model, getattr(model, "name_or_path", "") or type(model).__name__)
        torch.manual_seed(recipe.seed)
        self.rng = random.Random(recipe.seed)
        self.groups = _groups_by_choice_count(len(item.choices) for item in train)
        self.steps_per_epoch = sum(math.ceil(len(ix) / recipe.batch_size) for ix in self.groups.values())
        self.max_steps = int(math.ceil(self.steps_per_epoch * recipe.max_epochs))
        total_steps = max(1, int(math.ceil(self.steps_per_epoch * recipe.max_epochs / recipe.grad_accumulation)))
        self.encoded = self._prepare(train, dev, frozen)
        self.widths = [max(len(choice["input_ids"]) for choice in row) for row in self.encoded.rows]
        self.labels = torch.tensor(self.encoded.labels)
        trainable = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(trainable, lr=recipe.learning_rate, weight_decay=recipe.weight_decay)
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, recipe.warmup_steps, total_steps)
        self.result = TrainResult(0.0, 0, -1.0, False, recipe.target_dev_accuracy, precision=self.precision)
        self._train(dev)
        self._finish()
        return self.result

    def _prepare(self, train: Sequence[MCQuestion], dev: Sequence[MCQuestion], frozen: FrozenSplits | None) -> _Encoded:
        """The head's dropout set; what the recipe freezes frozen; the train items tokenized once, or (frozen layers)
        their frozen encodings and the dev items' (made here unless handed in), the bottom layers' stand-ins ready."""
        recipe, model = self.recipe, self.model
        if recipe.dropout is not None:  # the head's dropout modules: those outside the pre-trained encoder
            encoder = {id(m) for m in model.base_model.modules()}
            head = [m for m in model.modules() if type(m).__name__ == "Dropout" and id(m) not in encoder]
            if not head:
                raise ValueError(f"finetune.dropout: {type(model).__name__} has no dropout module in its head to set")
            for module in head:
                module.p = recipe.dropout
        if recipe.freeze_word_embeddings:  # the pretrained word vectors kept: unseen items keep their meaning
            model.get_input_embeddings().weight.requires_grad_(False)
        if self.layers is None:
            if frozen is not None:
                raise ValueError("frozen encodings were handed in but frozen_layers is 0: set frozen_layers to theirs")
            return _tokenize_once(self.tokenizer, train, recipe.input_format, recipe.max_length)
        shape = (recipe.frozen_layers, recipe.input_format, recipe.max_length)
        if frozen is None:
            frozen = FrozenSplits(*(encode_frozen(model, self.tokenizer, items, frozen_layers=recipe.frozen_layers,
                                                  input_format=recipe.input_format, max_length=recipe.max_length)
                                    for items in (train, dev)))
        frozen.train.check(train, *shape, "train")
        frozen.dev.check(dev, *shape, "dev")
        for module in [model.base_model.embeddings, *self.layers[: recipe.frozen_layers]]:
            self.frozen_flags.append((module, [p.requires_grad for p in module.parameters()]))
            module.requires_grad_(False)
        self.frozen_dev, self.cached = frozen.dev, frozen.train.cached
        self.originals = list(self.layers[: recipe.frozen_layers])
        self.replacements, self.replay = _stand_ins(recipe.frozen_layers, frozen.train.as_tuple)
        return frozen.train.encoded

    def _swap(self, modules: list[torch.nn.Module]) -> None:
        for index, module in enumerate(modules):
            self.layers[index] = module

    def _epoch_batches(self) -> list[list[int]]:
        return epoch_batches(self.groups, self.widths, self.recipe.batch_size, self.recipe.batch_order, self.rng)

    def _train(self, dev: Sequence[MCQuestion]) -> None:
        """Epochs of steps until the step limit or a stop; dev evaluated every ``eval_every_steps`` and at each
        epoch's end (unless it was just evaluated)."""
        result, every = self.result, self.recipe.eval_every_steps
        stop = False
        while not stop and result.steps < self.max_steps:
            batches = self._epoch_batches()
            self.model.train()
            self._swap(self.replacements)
            position = 0
            while position < len(batches) and result.steps < self.max_steps:
                window = (_accumulation_window(batches, position, result.steps, self.recipe.grad_accumulation,
                                               self.max_steps, self.encoded) if self.merge else [batches[position]])
                position += len(window)
                self._step(window)
                if every and result.steps % every == 0:
                    self.model.eval()
                    self._swap(self.originals)
                    if self._evaluate(dev, result.steps / self.steps_per_epoch):
                        stop = True
                        break
                    self._swap(self.replacements)
                    self.model.train()
            self._swap(self.originals)
            result.epochs_run = result.steps / self.steps_per_epoch
            if not stop and not (every and result.steps % every == 0):
                self.model.eval()
                stop = self._evaluate(dev, result.epochs_run)

    def _step(self, window: list[Sequence[int]]) -> None:
        """One forward and backward of the micro-batches in ``window`` (several only when merged); the optimizer
        steps when an accumulation ends."""
        model, device, accumulation = self.model, self.device, self.recipe.grad_accumulation
        batch = [index for micro in window for index in micro]
        enc = _collate(self.encoded, batch, self.pad_id, self.tokenizer.padding_side)
        if self.replacements:
            self.replay.current = _pad_cached(self.cached, batch, enc["input_ids"].shape[-1]).to(device)
        labels = self.labels[batch].to(device, non_blocking=True)
        inputs = {k: v.to(device, non_blocking=True) for k, v in enc.items()}
        with _autocast(self.precision, device):
            if len(window) == 1:
                loss = model(**inputs, labels=labels).loss
            else:
                logits = model(**inputs).logits
        if len(window) == 1:
            (loss / accumulation).backward()
            self.loss_sum += loss.detach().float()
        else:  # each item weighted as its micro-batch's accumulation would weigh it
            item_losses = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
            sizes = [len(micro) for micro in window]
            weights = torch.cat([torch.full((n,), 1.0 / (accumulation * n)) for n in sizes]).to(device)
            (item_losses * weights).sum().backward()
            self.loss_sum += sum(part.mean() for part in item_losses.detach().split(sizes))
        self.loss_count += len(window)
        self.result.steps += len(window)
        if self.result.steps % accumulation == 0:
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()

    def _evaluate(self, dev: Sequence[MCQuestion], epoch_position: float) -> bool:
        """Dev accuracy now (the layers above on the dev items' frozen encodings where the recipe freezes some); the
        best state so far kept; True when the target is reached or patience has run out."""
        result, recipe = self.result, self.recipe
        train_loss = float(self.loss_sum) / self.loss_count if self.loss_count else float("nan")  # the one host sync
        if self.loss_count and not math.isfinite(train_loss):
            raise FloatingPointError(
                f"training loss became {train_loss} by step {result.steps} (learning rate {recipe.learning_rate}, "
                f"precision {self.precision}): nothing is saved; lower the learning rate or train in float32"
            )
        self.loss_sum, self.loss_count = torch.zeros((), device=self.device), 0
        with _autocast(self.precision, self.device):
            if self.frozen_dev is None:
                logits = mc_logits(self.model, self.tokenizer, dev, input_format=recipe.input_format,
                                   max_length=recipe.max_length)
            else:
                logits = frozen_mc_logits(self.model, dev, self.frozen_dev)
        accuracy = accuracy_of(logits, dev)
        result.history.append(
            {"epoch": epoch_position, "step": result.steps, "train_loss": train_loss, "dev_accuracy": accuracy}
        )
        self.log(f"epoch {epoch_position:.2f} step {result.steps}: train loss {train_loss:.4f}, dev accuracy "
                 f"{accuracy:.4f}")
        if accuracy > result.best_dev_accuracy:
            result.best_dev_accuracy = accuracy
            self.best_state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
            self.evals_without_gain = 0
        else:
            self.evals_without_gain += 1
        if recipe.target_dev_accuracy is not None and accuracy >= recipe.target_dev_accuracy:
            result.reached_target = True
            return True
        return recipe.patience is not None and self.evals_without_gain >= recipe.patience

    def _finish(self) -> None:
        """The best state back in the model (eval mode); the frozen parameters' flags as they were after
        ``freeze_word_embeddings``, which is undone next."""
        self.model.eval()
        if self.best_state is not None:
            self.model.load_state_dict(self.best_state)
        for module, flags in self.frozen_flags:
            for parameter, flag in zip(module.parameters(), flags, strict=True):
                parameter.requires_grad_(flag)
        if self.recipe.freeze_word_embeddings:
            self.model.get_input_embeddings().weight.requires_grad_(True)
