"""Encoder-decoder (seq2seq) models, e.g. FLAN-T5: loading-independent scoring, sampling and embeddings.

Three ways to score a continuation ``o`` given a context ``c`` (:class:`Seq2SeqScorer`, ``mode``; ``MODES``):

* ``"pll"`` (the default for FLAN-T5's string, label and rating scores) -- the authors' **word-wise masked
  pseudo-log-likelihood**, the code that produced the FLAN-T5 results the paper reports (LLM_link
  ``scripts/utils.py`` ``get_mlm_pl`` + ``mask_and_sum`` at ``ebe82b6``, 2023-10-13 11:30; the stored FLAN-T5
  string, label and rating files are time-stamped the same afternoon and hold one value per whitespace word of an
  option, 641/641 string rows). ``o`` is split on whitespace into words ``w_0..w_n``; word ``w_i`` is replaced by
  the sentinel ``<extra_id_0>`` in the encoder input and its log-probability is the **sum** over its tokens where
  the decoder writes them (sentinels and ``</s>`` in the labels are not scored):

  ==================  ===========================================  =========================================
  word                encoder input (always ends with </s>)         decoder labels (scored: the word's tokens)
  ==================  ===========================================  =========================================
  only word (n = 0)   c, <extra_id_0>                               <extra_id_0>, w_0, </s>
  first (i = 0)       c, <extra_id_0>, w_1..w_n                     w_0, <extra_id_0>, </s>
  middle              c, w_0..w_{i-1}, <extra_id_0>, w_{i+1}..w_n   <extra_id_0>, w_i, <extra_id_1>, </s>
  last (i = n > 0)    c, w_0..w_{n-1}, <extra_id_0>                 <extra_id_0>, w_n, </s>
  ==================  ===========================================  =========================================

  One value per word: ``ContinuationScore.token_logprobs`` then holds word pseudo-log-likelihoods (its
  ``token_ids`` are still the option's tokens), and the five string scores are computed from them as the authors
  did (e.g. the "mean token" scores average over words). The authors tokenized the joined string
  ``prompt + masked option``; we tokenize context, the words before the mask and the words after it separately,
  which for T5's SentencePiece (every segment starts at a word boundary or after a sentinel, where the legacy T5
  tokenizer puts a word-start mark anyway) gives the same ids.
* ``"pll_token"`` -- the authors' later **token-wise** variant (``get_mlm_token_pl``, added at ``8468930``,
  2023-10-13 23:33, after the reported results were computed; the paper's footnote 3: tried, worse, not reported).
  Option token ``o_i`` is masked with ``<extra_id_0>`` in ``c + o`` (the option tokens after it kept, ``</s>``
  appended except when ``o_i`` is the last token):

  ====================  ==================================================  ========================================
  token                 encoder input                                       decoder labels (scored: ``o_i``)
  ====================  ==================================================  ========================================
  first (i = 0)         c, <extra_id_0>, o_1..o_n, </s>                      o_0, <extra_id_0>, </s>
  middle                c, o_0..o_{i-1}, <extra_id_0>, o_{i+1}..o_n, </s>   <extra_id_0>, o_i, <extra_id_1>, </s>
  last (i = n, n > 0)   c, o_0..o_{n-1}, <extra_id_0>                        <extra_id_0>, o_n, </s>
  ====================  ==================================================  ========================================

* ``"decoder"`` -- the ordinary conditional likelihood: the encoder reads ``c + </s>``, the decoder generates ``o``
  (no ``</s>`` scored), log P(o_t | c, o_<t). Not the authors' path for FLAN-T5; used by other studies (UnifiedQA
  controls) and kept as a variant.

Context and option are tokenized without the tokenizer's own ``</s>``. A continuation's leading space (the causal
convention "Your answer: o") is dropped: T5's tokenizer marks word starts itself. :func:`score_naive` is the
one-request-at-a-time reference the tests compare the batched engine with.

Embeddings (:func:`embed_prompt_options`) are the authors' (LLM_link ``scripts/compare_embeddings.py``): the
prompt's vector is the encoder's last hidden state at its last token (``</s>``), an option's vector is the decoder's
last hidden state at the option's last token, the decoder reading the option (teacher-forced, after the start token)
while attending to the encoded prompt. :func:`choicelab.lm.embed.embed_texts` (kind ``seq2seq``: mean-pooled encoder
states) embeds texts without a prompt, e.g. to code free generations with the model's own embeddings;
:func:`choicelab.lm.generate.sample` samples from a seq2seq model as from a causal one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from choicelab.lm.budget import AUTO, token_budget
from choicelab.lm.requests import ContinuationRequest, ContinuationScore, Generation

SENTINELS = ("<extra_id_0>", "<extra_id_1>")
MODES = ("pll", "pll_token", "decoder")  # pll: word-wise (the paper's FLAN-T5 results); see the docstring


@dataclass(frozen=True)
class Example:
    """One forward pass: encoder ids, decoder label ids, and which label positions are scored. ``summed``: the
    example yields one value, the sum over its scored positions (a word of the word-wise pseudo-likelihood)."""

    request: int
    input_ids: tuple[int, ...]
    labels: tuple[int, ...]
    scored: tuple[int, ...]
    summed: bool = False


def _ids(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False).input_ids)


def sentinel_ids(tokenizer: PreTrainedTokenizerBase) -> tuple[int, int]:
    ids = tokenizer.convert_tokens_to_ids(list(SENTINELS))
    if any(i is None or i == tokenizer.unk_token_id for i in ids):
        raise ValueError(
            f"the tokenizer has no sentinel tokens {SENTINELS}: masked pseudo-likelihood needs a T5 vocabulary"
        )
    return int(ids[0]), int(ids[1])


def pll_word_examples(request: int, context_ids: Sequence[int], word_ids: Sequence[Sequence[int]],
                      masked: Sequence[tuple[Sequence[int], Sequence[int]]], eos: int,
                      sentinels: tuple[int, int]) -> list[Example]:
    """The authors' word-wise masking of one option (``get_mlm_pl``; see the module docstring): one example per word.

    ``word_ids[i]``: the tokens of word i; ``masked[i]``: the tokens of the words before it and after it."""
    m0, m1 = sentinels
    c, n = list(context_ids), len(word_ids)
    out = []
    for i, (word, (before, after)) in enumerate(zip(word_ids, masked, strict=True)):
        w, k = list(word), len(word)
        encoder = tuple(c + list(before) + [m0] + list(after) + [eos])
        if i == 0 and n > 1:
            labels, scored = (*w, m0, eos), tuple(range(k))
        elif i == n - 1:
            labels, scored = (m0, *w, eos), tuple(range(1, k + 1))
        else:
            labels, scored = (m0, *w, m1, eos), tuple(range(1, k + 1))
        out.append(Example(request, encoder, labels, scored, summed=True))
    return out


def word_segments(tokenizer: PreTrainedTokenizerBase, option: str
                  ) -> tuple[list[list[int]], list[tuple[list[int], list[int]]]]:
    """The option's whitespace words as token ids, and for each word the ids of the words before and after it."""
    words = option.split()
    word_ids = [_ids(tokenizer, w) for w in words]
    masked = [(_ids(tokenizer, " ".join(words[:i])) if i else [],
               _ids(tokenizer, " ".join(words[i + 1 :])) if i + 1 < len(words) else [])
              for i in range(len(words))]
    return word_ids, masked


def pll_examples(request: int, context_ids: Sequence[int], option_ids: Sequence[int], eos: int,
                 sentinels: tuple[int, int]) -> list[Example]:
    """The authors' token-wise masking of one option (``get_mlm_token_pl``, mode ``pll_token``; see the module
    docstring): one example per option token."""
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


def build_examples(
    tokenizer: PreTrainedTokenizerBase, requests: Sequence[ContinuationRequest], mode: str
) -> list[Example]:
    if mode not in MODES:
        raise ValueError(f"seq2seq scoring mode {mode!r}; use one of {MODES}")
    eos = tokenizer.eos_token_id
    if eos is None:
        raise ValueError("the tokenizer has no eos token; a seq2seq encoder input ends with one")
    sentinels = sentinel_ids(tokenizer) if mode != "decoder" else (0, 0)
    examples: list[Example] = []
    for k, request in enumerate(requests):
        context, option = _ids(tokenizer, request.context), _ids(tokenizer, request.continuation.lstrip(" "))
        if not option:
            raise ValueError(f"request {request.id!r}: the continuation {request.continuation!r} has no tokens")
        if mode == "pll":
            word_ids, masked = word_segments(tokenizer, request.continuation)
            empty = [w for w, ids in zip(request.continuation.split(), word_ids, strict=True) if not ids]
            if empty:
                raise ValueError(
                    f"request {request.id!r}: the words {empty} of {request.continuation!r} have no tokens"
                )
            examples += pll_word_examples(k, context, word_ids, masked, eos, sentinels)
        elif mode == "pll_token":
            examples += pll_examples(k, context, option, eos, sentinels)
        else:
            examples.append(Example(k, (*context, eos), tuple(option), tuple(range(len(option)))))
    return examples


def _scored_logprobs(logits: torch.Tensor, example: Example) -> list[float]:
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    values = [float(logprobs[j, example.labels[j]]) for j in example.scored]
    return [float(sum(values))] if example.summed else values


class Seq2SeqScorer:
    """Batched scoring of (context, continuation) requests with an encoder-decoder model (``mode``: see module); the
    :class:`choicelab.lm.scorer.Scorer` protocol."""

    kind = "seq2seq"

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, *, mode: str = "decoder",
                 max_batch_tokens: int | str = AUTO) -> None:
        if mode not in MODES:
            raise ValueError(f"seq2seq scoring mode {mode!r}; use one of {MODES}")
        self.model, self.tokenizer, self.mode = model, tokenizer, mode
        self.max_batch_tokens = token_budget(model, max_batch_tokens)
        self.pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

    def score_naive(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]:
        """The reference for :meth:`score` in this scorer's mode (:func:`score_naive`)."""
        return score_naive(self.model, self.tokenizer, requests, self.mode)

    def sample(self, prompts: Sequence[tuple[str, str]], *, max_new_tokens: int, temperature: float,
               seed: int) -> list[Generation]:
        """Seeded sampling (:func:`choicelab.lm.generate.sample`)."""
        from choicelab.lm.generate import sample

        return sample(self.model, self.tokenizer, prompts, max_new_tokens=max_new_tokens, temperature=temperature,
                      seed=seed, max_batch_tokens=self.max_batch_tokens)

    def embed_texts(self, texts: Sequence[str], *, batch_size: int = 8, max_length: int = 512) -> np.ndarray:
        """Unit-norm mean-pooled encoder states (:func:`choicelab.lm.embed.embed_texts`, kind ``seq2seq``)."""
        from choicelab.lm.embed import embed_texts

        return embed_texts(self.model, self.tokenizer, texts, kind=self.kind, batch_size=batch_size,
                           max_length=max_length)

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
                values[e] = _scored_logprobs(logits[r], e)
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
            values[e] = [float(sum(lps))] if e.summed else lps
        else:
            logits = model(input_ids=encoder, labels=torch.tensor([e.labels])).logits[0]
            values[e] = _scored_logprobs(logits, e)
    return _collect(requests, examples, values, tokenizer)


# -- sampling and embeddings --------------------------------------------------------------------------------------


@torch.inference_mode()
def embed_prompt_options(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase,
                         pairs: Sequence[tuple[str, Sequence[str]]], *, max_length: int = 4096,
                         batch_size: int = 16) -> list[tuple[np.ndarray, np.ndarray]]:
    """The authors' FLAN-T5 embeddings (LLM_link ``compare_embeddings.py``) of each (prompt, options) pair:
    (the encoder's last hidden state at the prompt's last token, ``</s>``; one row per option: the decoder's last
    hidden state at the option's last token, the decoder reading ``start, o_0..o_n`` and attending to the encoded
    prompt). Unnormalized float32 (cosine similarity does not need unit norm)."""
    device = next(model.parameters()).device
    start = model.config.decoder_start_token_id
    eos = tokenizer.eos_token_id
    if start is None or eos is None:
        raise ValueError("the seq2seq model needs decoder_start_token_id and an eos token to embed the authors' way")
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out = []
    for prompt, options in pairs:
        prompt_ids = [*_ids(tokenizer, prompt)[: max_length - 1], eos]
        encoded = model.get_encoder()(input_ids=torch.tensor([prompt_ids], device=device)).last_hidden_state
        prompt_vector = encoded[0, -1].float().cpu().numpy()
        option_ids = [[start, *_ids(tokenizer, o.lstrip(" "))[: max_length - 1]] for o in options]
        rows = []
        for begin in range(0, len(option_ids), batch_size):
            batch = option_ids[begin : begin + batch_size]
            width = max(len(ids) for ids in batch)
            decoder_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            for r, ids in enumerate(batch):
                decoder_ids[r, : len(ids)] = torch.tensor(ids)
            hidden = model.get_decoder()(
                input_ids=decoder_ids.to(device),
                encoder_hidden_states=encoded.expand(len(batch), -1, -1),
            ).last_hidden_state
            last = torch.tensor([len(ids) - 1 for ids in batch], device=hidden.device)
            rows.append(hidden[torch.arange(len(batch), device=hidden.device), last].float().cpu().numpy())
        matrix = np.concatenate(rows) if rows else np.zeros((0, prompt_vector.shape[0]), dtype=np.float32)
        out.append((prompt_vector.astype(np.float32), matrix.astype(np.float32)))
    return out
