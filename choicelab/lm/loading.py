"""Loading materialized models (``results/models/<name>/``) for scoring, fine-tuning and embedding."""

from __future__ import annotations

import json
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

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


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


def load_tokenizer(model_dir: str | Path) -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(str(model_dir))


def load_causal(
    model_dir: str | Path, *, dtype: str | None = None, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    meta = read_model_json(model_dir)
    if meta["kind"] != "causal":
        raise ValueError(f"model {meta['name']!r} is a {meta['kind']} model; this step needs a causal LM")
    torch_dtype = DTYPES[dtype or meta.get("dtype", "float32")]
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch_dtype).to(resolve_device(device))
    model.eval()
    return model, load_tokenizer(model_dir), meta


def load_encoder_mc(
    model_dir: str | Path, *, seed: int, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """An AutoModelForMultipleChoice from an encoder dir; a missing head is initialised from ``seed``."""
    meta = read_model_json(model_dir)
    if meta["kind"] != "encoder":
        raise ValueError(f"model {meta['name']!r} is a {meta['kind']} model; multiple-choice fine-tuning needs an encoder")
    torch.manual_seed(seed)
    model = AutoModelForMultipleChoice.from_pretrained(str(model_dir)).to(resolve_device(device))
    model.eval()
    return model, load_tokenizer(model_dir), meta


def load_seq2seq(
    model_dir: str | Path, *, dtype: str | None = None, device: str = "auto"
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """An encoder-decoder model (``kind: seq2seq``, e.g. FLAN-T5) for :mod:`choicelab.lm.seq2seq`."""
    from transformers import AutoModelForSeq2SeqLM

    meta = read_model_json(model_dir)
    if meta["kind"] != "seq2seq":
        raise ValueError(f"model {meta['name']!r} is a {meta['kind']} model; this step needs a seq2seq model")
    torch_dtype = DTYPES[dtype or meta.get("dtype", "float32")]
    model = AutoModelForSeq2SeqLM.from_pretrained(str(model_dir), dtype=torch_dtype).to(resolve_device(device))
    model.eval()
    return model, load_tokenizer(model_dir), meta
