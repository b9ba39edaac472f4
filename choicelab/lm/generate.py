"""Seeded sampling, written once for every kind of model: each prompt draws from its own seed, derived from the job's
seed and the prompt's id, so results do not depend on batching. Causal models sample in batches (below); seq2seq
(encoder-decoder) models one prompt at a time through ``model.generate``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch
from transformers import DynamicCache, PreTrainedModel, PreTrainedTokenizerBase

from choicelab.lm.budget import CPU_BUDGET, is_out_of_memory
from choicelab.lm.requests import Generation
from choicelab.lm.tokenization import RequestEncoder, left_padded
from choicelab.stats import derived_seed

log = logging.getLogger(__name__)


@torch.inference_mode()
def sample(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[tuple[str, str]],
    *,
    max_new_tokens: int,
    temperature: float,
    seed: int,
    max_batch_tokens: int = CPU_BUDGET,
) -> list[Generation]:
    """Sample a continuation for each ``(id, prompt)``; temperature 0 means greedy. Results come back in prompt order.

    Prompts of similar length are generated together (left-padded, explicit position ids, one forward per step for
    the whole batch): at batch size one a small model's step is bound by reading its weights, so a batch costs
    about what one prompt does. Each prompt still draws from its own generator, seeded by ``(seed, id)``, so its
    tokens do not depend on which prompts share its batch. Out of device memory, a batch is split in two and the
    token budget halved for the batches after it (logged); the tokens do not change.

    A seq2seq model (``config.is_encoder_decoder``) samples one prompt at a time (:func:`_sample_seq2seq`)."""
    if getattr(model.config, "is_encoder_decoder", False):
        return _sample_seq2seq(model, tokenizer, prompts, max_new_tokens=max_new_tokens, temperature=temperature,
                               seed=seed)
    encoder = RequestEncoder(tokenizer)
    from choicelab.lm.loading import input_device

    device = input_device(model)  # a model split over devices takes its inputs where its embeddings are
    stop = {tokenizer.eos_token_id} - {None}
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
    encoded = encoder.encode_contexts([prompt for _, prompt in prompts])
    order = sorted(range(len(prompts)), key=lambda i: (len(encoded[i]), i))
    out: list[Generation | None] = [None] * len(prompts)
    batch: list[int] = []
    for index in order + [None]:
        if index is not None:
            width = max(len(encoded[i]) for i in batch + [index]) + max_new_tokens
            if not batch or width * (len(batch) + 1) <= max_batch_tokens:
                batch.append(index)
                continue
        if not batch:
            break

        def run(rows: list[int]) -> list[tuple[list[int], int]]:
            nonlocal max_batch_tokens
            try:
                return _sample_batch(
                    model, [encoded[i] for i in rows], [derived_seed(seed, prompts[i][0]) for i in rows],
                    max_new_tokens=max_new_tokens, temperature=temperature, stop=stop, pad=int(pad), device=device,
                )
            except (torch.OutOfMemoryError, RuntimeError) as error:
                if not is_out_of_memory(error) or len(rows) == 1:
                    raise
                max_batch_tokens = max(1, max_batch_tokens // 2)
                log.warning("out of memory sampling %d prompts: split in two, token budget halved to %d",
                            len(rows), max_batch_tokens)
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                half = len(rows) // 2
                return run(rows[:half]) + run(rows[half:])

        generated = run(batch)
        for i, (tokens, gen_seed) in zip(batch, generated, strict=True):
            out[i] = Generation(
                prompts[i][0], tokenizer.decode(tokens, skip_special_tokens=True), tuple(tokens), gen_seed
            )
        batch = [index] if index is not None else []
    return [g for g in out if g is not None]


def _sample_batch(
    model: PreTrainedModel,
    prompts: Sequence[Sequence[int]],
    seeds: Sequence[int],
    *,
    max_new_tokens: int,
    temperature: float,
    stop: set[int],
    pad: int,
    device: torch.device,
) -> list[tuple[list[int], int]]:
    """One batch of left-padded prompts, sampled step by step until every row stopped or ran out of tokens."""
    generators = [torch.Generator(device="cpu").manual_seed(s) for s in seeds]
    input_ids, mask, positions = left_padded(prompts, pad)
    cache = DynamicCache()
    new_tokens: list[list[int]] = [[] for _ in prompts]
    running = [True] * len(prompts)
    step_input = input_ids
    for _ in range(max_new_tokens):
        logits = model(
            input_ids=step_input.to(device),
            attention_mask=mask.to(device),
            position_ids=positions.to(device),
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        ).logits[:, -1]
        chosen = []
        for row, generator in enumerate(generators):
            if temperature <= 0:
                token = int(torch.argmax(logits[row]))
            else:
                probs = torch.softmax(logits[row].float().cpu() / temperature, dim=-1)
                token = int(torch.multinomial(probs, 1, generator=generator))
            if running[row]:
                if token in stop:
                    running[row] = False
                else:
                    new_tokens[row].append(token)
            chosen.append(token)
        if not any(running):
            break
        step_input = torch.tensor(chosen)[:, None]
        positions = positions[:, -1:] + 1
        mask = torch.cat([mask, torch.ones((len(prompts), 1), dtype=torch.long)], dim=1)
    return list(zip(new_tokens, seeds, strict=True))


def _sample_seq2seq(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, prompts: Sequence[tuple[str, str]],
                    *, max_new_tokens: int, temperature: float, seed: int) -> list[Generation]:
    """One answer per (id, prompt) from an encoder-decoder model, each from its own seed derived from (``seed``, id),
    one prompt at a time (so an answer does not depend on which prompts are sampled with it). The encoder reads the
    prompt's tokens and ``</s>``; ``token_ids`` are the decoder's tokens after its start token."""
    device = next(model.parameters()).device
    out = []
    for key, prompt in prompts:
        item_seed = derived_seed(seed, key)
        torch.manual_seed(item_seed)
        prompt_ids = list(tokenizer(prompt, add_special_tokens=False).input_ids)
        ids = torch.tensor([[*prompt_ids, tokenizer.eos_token_id]], device=device)
        generated = model.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, temperature=temperature,
            top_k=0, top_p=1.0, max_new_tokens=max_new_tokens,
        )
        text = tokenizer.decode(generated[0], skip_special_tokens=True).strip()
        out.append(Generation(key, text, tuple(int(t) for t in generated[0][1:]), item_seed))
    return out
