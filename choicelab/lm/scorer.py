"""The one scorer protocol: what every continuation scorer offers, whatever the model's architecture.

A scorer holds a loaded model and its tokenizer and answers four questions, with the same method names and item types
for every ``kind`` of model.json (:data:`choicelab.lm.registry.KINDS`):

* ``score(requests)``: each :class:`ContinuationRequest`'s continuation tokens and their log-probabilities given the
  context (:class:`ContinuationScore`), batched;
* ``score_naive(requests)``: the same, one request at a time with no batching or sharing: the reference the batched
  engine is tested against (one per kind: :func:`choicelab.lm.causal.score_naive`,
  :func:`choicelab.lm.seq2seq.score_naive`);
* ``sample(prompts, ...)``: one seeded :class:`Generation` per ``(id, prompt)`` (:func:`choicelab.lm.generate.sample`);
* ``embed_texts(texts, ...)``: unit-norm text embeddings (:func:`choicelab.lm.embed.embed_texts`).

:func:`load_scorer` reads a prepared model's ``model.json`` and builds the scorer its ``kind`` calls for:
:class:`choicelab.lm.causal.CausalScorer` or :class:`choicelab.lm.seq2seq.Seq2SeqScorer`. Encoders (``kind:
encoder``) score multiple-choice items with a classification head, not continuations: they go through
:func:`choicelab.lm.encoder.mc_logits` on items of the shared type :class:`choicelab.mc.items.MCItem`. For an
encoder :func:`load_scorer` returns an :class:`EncoderScorer`: it embeds texts (mean pooling) and names the
multiple-choice path when asked to score or sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from choicelab.lm.budget import AUTO
from choicelab.lm.requests import ContinuationRequest, ContinuationScore, Generation

if TYPE_CHECKING:
    import numpy as np


class Scorer(Protocol):
    """What :func:`load_scorer` returns, for a causal and for a seq2seq model alike (see the module docstring)."""

    kind: str
    model: Any
    tokenizer: Any

    def score(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]: ...

    def score_naive(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]: ...

    def sample(self, prompts: Sequence[tuple[str, str]], *, max_new_tokens: int, temperature: float,
               seed: int) -> list[Generation]: ...

    def embed_texts(self, texts: Sequence[str], *, batch_size: int = 8, max_length: int = 512) -> np.ndarray: ...


SCORER_KINDS = ("causal", "seq2seq")
"""The kinds whose scorer scores continuations and samples; an ``encoder``'s only embeds."""

_MC_PATH = ("an encoder scores multiple-choice items with its head: choicelab.lm.loading.load_encoder_mc and "
            "choicelab.lm.encoder.mc_logits")


class EncoderScorer:
    """An encoder (``kind: encoder``) behind the :class:`Scorer` protocol: it embeds texts
    (:func:`choicelab.lm.embed.embed_texts`, mean pooling); it has no continuation to score or sample, and says so
    naming the multiple-choice path."""

    kind = "encoder"

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model, self.tokenizer = model, tokenizer

    def _no_continuations(self, what: str) -> ValueError:
        return ValueError(f"an encoder cannot {what} (kinds that can: {SCORER_KINDS}); {_MC_PATH}")

    def score(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]:
        raise self._no_continuations("score continuations")

    def score_naive(self, requests: Sequence[ContinuationRequest]) -> list[ContinuationScore]:
        raise self._no_continuations("score continuations")

    def sample(self, prompts: Sequence[tuple[str, str]], *, max_new_tokens: int, temperature: float,
               seed: int) -> list[Generation]:
        raise self._no_continuations("sample")

    def embed_texts(self, texts: Sequence[str], *, batch_size: int = 8, max_length: int = 512) -> np.ndarray:
        """Unit-norm mean-pooled last hidden states (:func:`choicelab.lm.embed.embed_texts`, kind ``encoder``)."""
        from choicelab.lm.embed import embed_texts

        return embed_texts(self.model, self.tokenizer, list(texts), kind=self.kind, batch_size=batch_size,
                           max_length=max_length)


def load_scorer(model_dir: str | Path, *, device: str = "auto", dtype: str | None = None,
                max_batch_tokens: int | str = AUTO, seq2seq_mode: str = "decoder",
                seed: int = 0) -> tuple[Scorer, dict[str, Any]]:
    """The scorer for the prepared model in ``model_dir`` (class chosen by ``model.json``'s ``kind``) and its
    ``model.json``. ``seq2seq_mode`` is the scoring mode of a seq2seq model (:data:`choicelab.lm.seq2seq.MODES`);
    a causal model has one. An encoder gets an :class:`EncoderScorer` (embeddings only), loaded by
    :func:`choicelab.lm.loading.load_encoder_mc` with ``seed`` (what initialises a multiple-choice head its weights
    lack; embeddings do not use the head); ``dtype`` and ``max_batch_tokens`` do not apply to it."""
    from choicelab.lm.loading import load_causal, load_encoder_mc, load_seq2seq, read_model_json

    kind = read_model_json(model_dir)["kind"]
    if kind == "causal":
        from choicelab.lm.causal import CausalScorer

        model, tokenizer, meta = load_causal(model_dir, dtype=dtype, device=device)
        return CausalScorer(model, tokenizer, max_batch_tokens=max_batch_tokens), meta
    if kind == "seq2seq":
        from choicelab.lm.seq2seq import Seq2SeqScorer

        model, tokenizer, meta = load_seq2seq(model_dir, dtype=dtype, device=device)
        return Seq2SeqScorer(model, tokenizer, mode=seq2seq_mode, max_batch_tokens=max_batch_tokens), meta
    if kind == "encoder":
        model, tokenizer, meta = load_encoder_mc(model_dir, seed=seed, device=device)
        return EncoderScorer(model, tokenizer), meta
    raise ValueError(f"{model_dir}: model.json kind {kind!r} has no scorer (kinds with one: {SCORER_KINDS} and "
                     f"encoder); {_MC_PATH}")
