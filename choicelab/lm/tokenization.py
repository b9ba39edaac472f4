"""The context/continuation token boundary, defined once for every study.

Rules (tested in ``tests/test_engine_boundary.py``):

1. **Leading spaces.** Trailing whitespace of the context moves to the start of the continuation, so
   ``("The die lands on face number ", "12")`` is scored exactly like ``("The die lands on face number", " 12")``:
   the space belongs to the first continuation token, the way a BPE tokenizer reads running text.
2. **Canonical split.** The joint text ``context + continuation`` is encoded once and the context alone once. When
   the joint encoding starts with the context's encoding, the continuation's tokens are the remaining joint tokens:
   the model scores exactly the tokens it would see for the joint text.
3. **A token spanning the boundary.** If the joint encoding does not start with the context's encoding, a joint
   token covers characters on both sides. The context is then kept as its own encoding and the continuation is
   encoded on its own (no special tokens); the request is flagged ``boundary_merged`` so that users can see that the
   scored tokenization of the joint text is not the canonical one.
4. **Prefix / empty context.** If the tokenizer adds a BOS token by default (Gemma, Llama), every context starts with
   it, unless the context text already begins with the BOS token's text (a rendered chat template), which is then
   not doubled. An empty context becomes ``[prefix]``: the BOS token, else the EOS token (the documented "start of
   text" of GPT-2 style models), so the first continuation token always has a position to be predicted from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase


@dataclass(frozen=True)
class EncodedRequest:
    context_ids: tuple[int, ...]
    continuation_ids: tuple[int, ...]
    boundary_merged: bool


def adds_bos_by_default(tokenizer: PreTrainedTokenizerBase) -> bool:
    bos = tokenizer.bos_token_id
    if bos is None:
        return False
    ids = tokenizer("a", add_special_tokens=True)["input_ids"]
    return bool(ids) and ids[0] == bos


def prefix_token_id(tokenizer: PreTrainedTokenizerBase) -> int:
    for candidate in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if candidate is not None:
            return int(candidate)
    raise ValueError(
        "the tokenizer has neither a BOS nor an EOS token, so an empty context has no start position; "
        "give the model a bos_token in its tokenizer config"
    )


def split_trailing_whitespace(context: str, continuation: str) -> tuple[str, str]:
    stripped = context.rstrip()
    return stripped, context[len(stripped) :] + continuation


class RequestEncoder:
    """Encodes (context, continuation) pairs by the rules in this module's docstring."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, add_bos: bool | None = None) -> None:
        self.tokenizer = tokenizer
        self.add_bos = adds_bos_by_default(tokenizer) if add_bos is None else add_bos

    def _encode_many(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        return [list(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]]

    def _with_prefix(self, ids: list[int], text: str) -> tuple[int, ...]:
        bos_text = self.tokenizer.bos_token
        if not ids or (self.add_bos and not (bos_text and text.startswith(bos_text))):
            return (prefix_token_id(self.tokenizer), *ids)
        return tuple(ids)

    def encode_contexts(self, contexts: Sequence[str]) -> list[tuple[int, ...]]:
        return [self._with_prefix(ids, text) for ids, text in zip(self._encode_many(contexts), contexts, strict=True)]

    def encode(self, contexts: Sequence[str], continuations: Sequence[str]) -> list[EncodedRequest]:
        if len(contexts) != len(continuations):
            raise ValueError("contexts and continuations must have the same length")
        pairs = [split_trailing_whitespace(c, x) for c, x in zip(contexts, continuations, strict=True)]
        ctx_texts = [c for c, _ in pairs]
        unique_ctx = sorted(set(ctx_texts))
        ctx_encoded = dict(zip(unique_ctx, self._encode_many(unique_ctx), strict=True))
        joint_encoded = self._encode_many([c + x for c, x in pairs])
        encoded: list[EncodedRequest] = []
        for (ctx, cont), joint in zip(pairs, joint_encoded, strict=True):
            ctx_ids = ctx_encoded[ctx]
            if joint[: len(ctx_ids)] == ctx_ids:
                cont_ids, merged = joint[len(ctx_ids) :], False
            else:
                cont_ids, merged = self._encode_many([cont])[0], True
            encoded.append(EncodedRequest(self._with_prefix(ctx_ids, ctx), tuple(cont_ids), merged))
        return encoded


def left_padded(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token rows as one left-padded batch: (input ids, attention mask, position ids counting real tokens only)."""
    width = max(len(r) for r in rows)
    input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for row, ids in enumerate(rows):
        input_ids[row, width - len(ids) :] = torch.tensor(list(ids), dtype=torch.long)
        mask[row, width - len(ids) :] = 1
    return input_ids, mask, (mask.cumsum(-1) - 1).clamp(min=0)
