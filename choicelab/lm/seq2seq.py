"""Encoder-decoder (seq2seq) models, e.g. FLAN-T5: loading-independent scoring, sampling and embeddings.

Two ways to score a continuation ``o`` given a context ``c`` (:class:`Seq2SeqScorer`, ``mode``):

* ``"pll"`` — the authors' **masked pseudo-log-likelihood** (LLM_link ``scripts/utils.py`` ``get_mlm_token_pl`` with
  ``mask_and_sum``; ``use_tokenwise_pll=True`` is the default of their ``score_completions.py``), used for the
  string scores. Option token ``o_i`` is scored by masking it with the sentinel ``<extra_id_0>`` in the encoder
  input ``c + o`` (the option tokens after it kept, ``</s>`` appended except when ``o_i`` is the last token) and
  reading log P(``o_i``) where the decoder writes it:

  ====================  ==================================================  ========================================
  token                 encoder input                                       decoder labels (scored: ``o_i``)
  ====================  ==================================================  ========================================
  first (i = 0)         c, <extra_id_0>, o_1..o_n, </s>                      o_0, <extra_id_0>, </s>
  middle                c, o_0..o_{i-1}, <extra_id_0>, o_{i+1}..o_n, </s>   <extra_id_0>, o_i, <extra_id_1>, </s>
  last (i = n, n > 0)   c, o_0..o_{n-1}, <extra_id_0>                        <extra_id_0>, o_n, </s>
  ====================  ==================================================  ========================================

  The token log-probs are these per-token pseudo-log-likelihoods; the five string scores are computed from them as
  from a causal model's token log-probs (as the authors do). Context and option are tokenized separately, without
  the tokenizer's own ``</s>``.
* ``"decoder"`` — the ordinary conditional likelihood: the encoder reads ``c + </s>``, the decoder generates ``o``
  (no ``</s>`` scored), log P(o_t | c, o_<t). Used for label and rating scores (one or two tokens: "A", "3",
  "very likely").

A continuation's leading space (the causal convention "Your answer: o") is dropped: T5's tokenizer marks word starts
itself. :func:`score_naive` is the one-request-at-a-time reference the tests compare the batched engine with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from choicelab.lm.causal import ContinuationRequest, ContinuationScore
from choicelab.stats import derived_seed

SENTINELS = ("<extra_id_0>", "<extra_id_1>")
MODES = ("pll", "decoder")


@dataclass(frozen=True)
class Example:
    """One forward pass: encoder ids, decoder label ids, and which label positions are scored."""

    request: int
    input_ids: tuple[int, ...]
    labels: tuple[int, ...]
    scored: tuple[int, ...]


def _ids(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False).input_ids)


def sentinel_ids(tokenizer: PreTrainedTokenizerBase) -> tuple[int, int]:
    ids = tokenizer.convert_tokens_to_ids(list(SENTINELS))
    if any(i is None or i == tokenizer.unk_token_id for i in ids):
        raise ValueError(
            f"the tokenizer has no sentinel tokens {SENTINELS}: masked pseudo-likelihood needs a T5 vocabulary"
        )
    return int(ids[0]), int(ids[1])


def pll_examples(request: int, context_ids: Sequence[int], option_ids: Sequence[int], eos: int,
                 sentinels: tuple[int, int]) -> list[Example]:
    """The authors' token-wise masking of one option (see the module docstring): one example per option token."""
    m0, m1 = sentinels
    c, o = list(context_ids), list(option_ids)
    out = []
    for i, token in enumerate(o):
        if i == 0:
            out.append(Example(request, tuple(c + [m0] + o[1:] + [eos]), (token, m0, eos), (0,)))
        elif i == len(o) - 1:
            out.append(Example(request, tuple(c + o[:i] + [m0]), (m0, token, eos), (1,)))
        else:
            out.append(Example(request, tuple(c + o[:i] + [m0] + o[i + 1 :] + [eos]), (m0, token, m1, eos), (1,)))
    return out


def decoder_example(request: int, context_ids: Sequence[int], option_ids: Sequence[int], eos: int) -> Example:
    return Example(request, (*context_ids, eos), tuple(option_ids), tuple(range(len(option_ids))))


def build_examples(
    tokenizer: PreTrainedTokenizerBase, requests: Sequence[ContinuationRequest], mode: str
) -> list[Example]:
    if mode not in MODES:
        raise ValueError(f"seq2seq scoring mode {mode!r}; use one of {MODES}")
    eos = tokenizer.eos_token_id
    if eos is None:
        raise ValueError("the tokenizer has no eos token; a seq2seq encoder input ends with one")
    sentinels = sentinel_ids(tokenizer) if mode == "pll" else (0, 0)
    examples: list[Example] = []
    for k, request in enumerate(requests):
        context, option = _ids(tokenizer, request.context), _ids(tokenizer, request.continuation.lstrip(" "))
        if not option:
            raise ValueError(f"request {request.id!r}: the continuation {request.continuation!r} has no tokens")
        if mode == "pll":
            examples += pll_examples(k, context, option, eos, sentinels)
        else:
            examples.append(decoder_example(k, context, option, eos))
    return examples


def _scored_logprobs(logits: torch.Tensor, labels: Sequence[int], scored: Sequence[int]) -> list[float]:
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return [float(logprobs[j, labels[j]]) for j in scored]


class Seq2SeqScorer:
    """Batched scoring of (context, continuation) requests with an encoder-decoder model (``mode``: see module)."""

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, *, mode: str = "decoder",
                 max_batch_tokens: int = 4096) -> None:
        if mode not in MODES:
            raise ValueError(f"seq2seq scoring mode {mode!r}; use one of {MODES}")
        self.model, self.tokenizer, self.mode, self.max_batch_tokens = model, tokenizer, mode, max_batch_tokens
        self.pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

    def _batches(self, examples: list[Example]) -> list[list[Example]]:
        ordered = sorted(examples, key=lambda e: (len(e.input_ids), len(e.labels)))
        batches: list[list[Example]] = []
        current: list[Example] = []
        for example in ordered:
            width = max([len(e.input_ids) + len(e.labels) for e in current + [example]])
            if current and width * (len(current) + 1) > self.max_batch_tokens:
                batches.append(current)
                current = []
            current.append(example)
        if current:
            batches.append(current)
        return batches

    @torch.inference_mode()
    def score(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]:
        examples = build_examples(self.tokenizer, requests, self.mode)
        device = next(self.model.parameters()).device
        values: dict[Example, list[float]] = {}
        for batch in self._batches(examples):
            n_in = max(len(e.input_ids) for e in batch)
            n_out = max(len(e.labels) for e in batch)
            input_ids = torch.full((len(batch), n_in), self.pad, dtype=torch.long)
            mask = torch.zeros((len(batch), n_in), dtype=torch.long)
            labels = torch.full((len(batch), n_out), -100, dtype=torch.long)
            for r, e in enumerate(batch):
                input_ids[r, : len(e.input_ids)] = torch.tensor(e.input_ids)
                mask[r, : len(e.input_ids)] = 1
                labels[r, : len(e.labels)] = torch.tensor(e.labels)
            logits = self.model(
                input_ids=input_ids.to(device), attention_mask=mask.to(device), labels=labels.to(device)
            ).logits
            for r, e in enumerate(batch):
                values[e] = _scored_logprobs(logits[r], e.labels, e.scored)
        return _collect(requests, examples, values, self.tokenizer)


def _collect(requests: Sequence[ContinuationRequest], examples: Sequence[Example],
             values: dict[Example, list[float]], tokenizer: PreTrainedTokenizerBase) -> list[ContinuationScore]:
    per_request: list[list[float]] = [[] for _ in requests]
    for e in examples:  # in token order within a request
        per_request[e.request] += values[e]
    return [
        ContinuationScore(r.id, tuple(_ids(tokenizer, r.continuation.lstrip(" "))), tuple(lp), False)
        for r, lp in zip(requests, per_request, strict=True)
    ]


@torch.inference_mode()
def score_naive(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, requests: Sequence[ContinuationRequest],
                mode: str) -> list[ContinuationScore]:
    """Reference: every example alone, no padding; ``decoder`` mode steps the decoder token by token."""
    examples = build_examples(tokenizer, requests, mode)
    values: dict[Example, list[float]] = {}
    start = model.config.decoder_start_token_id
    for e in examples:
        encoder = torch.tensor([e.input_ids])
        if mode == "decoder":
            lps = []
            for t in range(len(e.labels)):
                decoder = torch.tensor([[start, *e.labels[:t]]])
                logits = model(input_ids=encoder, decoder_input_ids=decoder).logits[0, -1]
                lps.append(float(torch.log_softmax(logits.float(), -1)[e.labels[t]]))
            values[e] = lps
        else:
            logits = model(input_ids=encoder, labels=torch.tensor([e.labels])).logits[0]
            values[e] = _scored_logprobs(logits, e.labels, e.scored)
    return _collect(requests, examples, values, tokenizer)


# -- sampling and embeddings --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Generation:
    id: str
    text: str
    seed: int



@torch.inference_mode()
def sample(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, prompts: Sequence[tuple[str, str]], *,
           max_new_tokens: int, temperature: float, seed: int, max_batch_tokens: int = 4096) -> list[Generation]:
    """Sample one answer per (id, prompt), each from its own seed derived from (``seed``, id), one prompt at a time
    (so an answer does not depend on which prompts share its batch). ``max_batch_tokens`` is accepted for the
    causal sampler's signature."""
    del max_batch_tokens
    device = next(model.parameters()).device
    out = []
    for key, prompt in prompts:
        item_seed = derived_seed(seed, key)
        torch.manual_seed(item_seed)
        ids = torch.tensor([[*_ids(tokenizer, prompt), tokenizer.eos_token_id]], device=device)
        generated = model.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, temperature=temperature,
            top_k=0, top_p=1.0, max_new_tokens=max_new_tokens,
        )
        out.append(Generation(key, tokenizer.decode(generated[0], skip_special_tokens=True).strip(), item_seed))
    return out


@torch.inference_mode()
def embed_texts(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, texts: Sequence[str], *,
                batch_size: int = 8, max_length: int = 512) -> np.ndarray:
    """Unit-norm mean-pooled last hidden states of the encoder (the embedding method for seq2seq models)."""
    encoder = model.get_encoder()
    device = next(model.parameters()).device
    vectors = []
    for start in range(0, len(texts), batch_size):
        batch = [t if t else " " for t in texts[start : start + batch_size]]
        enc = tokenizer(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        mask = enc["attention_mask"].to(device)
        hidden = encoder(input_ids=enc["input_ids"].to(device), attention_mask=mask).last_hidden_state.float()
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        vectors.append(pooled.cpu().numpy())
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
    if matrix.size:
        matrix = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return matrix.astype(np.float32)


# -- a tiny random T5 for tests -------------------------------------------------------------------------------------


def tiny_t5(seed: int = 0) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A tiny random T5ForConditionalGeneration with the tiny BPE tokenizer plus T5's two sentinels, seeded."""
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    from choicelab.lm.tiny import tiny_tokenizer

    base = tiny_tokenizer(kind="causal")
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=base.backend_tokenizer.__class__.from_str(base.backend_tokenizer.to_str()),
        eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
    )
    tokenizer.add_special_tokens({"additional_special_tokens": list(SENTINELS)})
    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(tokenizer), d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
    )
    model = T5ForConditionalGeneration(config).eval()
    return model, tokenizer
