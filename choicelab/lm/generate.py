"""Seeded sampling generation: each prompt draws from its own generator, so results do not depend on batching."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import DynamicCache, PreTrainedModel, PreTrainedTokenizerBase

from choicelab.lm.tokenization import RequestEncoder


@dataclass(frozen=True)
class Generation:
    id: str
    text: str
    token_ids: tuple[int, ...]
    seed: int


def derived_seed(seed: int, key: str) -> int:
    """A 63-bit seed from (seed, key), stable across Python versions (no ``hash()``)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big") >> 1


@torch.inference_mode()
def sample(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[tuple[str, str]],
    *,
    max_new_tokens: int,
    temperature: float,
    seed: int,
) -> list[Generation]:
    """Sample a continuation for each ``(id, prompt)``; temperature 0 means greedy."""
    encoder = RequestEncoder(tokenizer)
    device = next(model.parameters()).device
    stop = {tokenizer.eos_token_id} - {None}
    out = []
    for request_id, prompt in prompts:
        gen_seed = derived_seed(seed, request_id)
        generator = torch.Generator(device="cpu").manual_seed(gen_seed)
        ids = torch.tensor([encoder.encode_contexts([prompt])[0]], device=device)
        cache = DynamicCache()
        new_tokens: list[int] = []
        step_input = ids
        for _ in range(max_new_tokens):
            logits = model(input_ids=step_input, past_key_values=cache, use_cache=True, logits_to_keep=1).logits[0, -1]
            if temperature <= 0:
                token = int(torch.argmax(logits))
            else:
                probs = torch.softmax(logits.float().cpu() / temperature, dim=-1)
                token = int(torch.multinomial(probs, 1, generator=generator))
            if token in stop:
                break
            new_tokens.append(token)
            step_input = torch.tensor([[token]], device=device)
        out.append(Generation(request_id, tokenizer.decode(new_tokens, skip_special_tokens=True), tuple(new_tokens), gen_seed))
    return out
