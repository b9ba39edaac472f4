"""Sentence embeddings, written once for every kind of model: mean-pooled last hidden states for encoders and for
seq2seq models (their encoder), the last real token's last hidden state for causal models."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase


@torch.inference_mode()
def embed_texts(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    *,
    kind: str,
    batch_size: int = 32,
    max_length: int = 256,
    normalize: bool = True,
) -> np.ndarray:
    """Embed ``texts``; ``kind`` (model.json's) is "encoder" or "seq2seq" (mean over the non-pad tokens of the
    encoder's last hidden states) or "causal" (the last real token's)."""
    if kind not in {"encoder", "causal", "seq2seq"}:
        raise ValueError(f"kind must be 'encoder', 'causal' or 'seq2seq', not {kind!r}")
    from choicelab.lm.loading import input_device

    bases = {"encoder": lambda: model.base_model, "seq2seq": lambda: model.get_encoder(),
             "causal": lambda: model.get_decoder()}
    base = bases[kind]()
    device = input_device(model)  # a model split over devices takes its inputs where its embeddings are
    vectors = []
    pad_side = tokenizer.padding_side
    tokenizer.padding_side = "right"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    try:
        for start in range(0, len(texts), batch_size):
            batch = [t if t else " " for t in texts[start : start + batch_size]]
            enc = tokenizer(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
            enc = {k: v.to(device) for k, v in enc.items() if k in {"input_ids", "attention_mask"}}
            hidden = base(**enc).last_hidden_state.float()
            mask = enc["attention_mask"].to(hidden.device).float()
            if kind != "causal":
                pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)
            else:
                last = mask.sum(1).long() - 1
                pooled = hidden[torch.arange(hidden.shape[0]), last]
            vectors.append(pooled.cpu().numpy())
    finally:
        tokenizer.padding_side = pad_side
    matrix = np.concatenate(vectors, axis=0) if vectors else np.zeros((0, 0), dtype=np.float32)
    if normalize and matrix.size:
        matrix = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return matrix.astype(np.float32)


def text_embedder(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, kind: str,
                  max_length: int = 4096) -> Callable[[Sequence[str]], np.ndarray]:
    """texts -> unit-norm embeddings with ``model`` (:func:`embed_texts`, batches of 8): for texts without a
    prompt, e.g. free generations to code, or options embedded apart from their prompt."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return embed_texts(model, tokenizer, list(texts), kind=kind, batch_size=8, max_length=max_length)

    return embed
