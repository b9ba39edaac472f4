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
:func:`choicelab.lm.encoder.mc_logits` on items of the shared type :class:`choicelab.mc.items.MCItem`, and
:func:`load_scorer` names that path when given one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ContinuationRequest:
    """Score ``continuation`` after ``context``. The context may be empty (a prior); the continuation may not (its
    probability would be 1 and win every comparison)."""

    id: str
    context: str
    continuation: str

    def __post_init__(self) -> None:
        for field in ("id", "context", "continuation"):
            value = getattr(self, field)
            if not isinstance(value, str):
                raise TypeError(f"request {self.id!r}: {field!r} must be a string, not {type(value).__name__} "
                                f"({value!r})")
        if not self.continuation:
            raise ValueError(f"request {self.id!r}: 'continuation' is empty; an empty continuation has probability 1 "
                             "and would win any comparison")


@dataclass(frozen=True)
class ContinuationScore:
    """The scored continuation: its token ids and each token's log-probability given everything before it.

    ``terminal_logprob`` (only when asked for) is log P(the next token after the continuation is not one of the
    excluded ids): e.g. the probability that a number ends here and is not continued by another digit.
    ``token_logprobs`` of a seq2seq scorer in a pseudo-likelihood mode hold one value per scored unit (a word in
    mode ``pll``; see :mod:`choicelab.lm.seq2seq`).
    """

    id: str
    token_ids: tuple[int, ...]
    token_logprobs: tuple[float, ...]
    boundary_merged: bool
    terminal_logprob: float | None = None

    @property
    def n_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def sum_logprob(self) -> float:
        return float(sum(self.token_logprobs))


@dataclass(frozen=True)
class Generation:
    """One sampled answer: the prompt's id, the decoded text, the generated token ids and the seed it was drawn
    with (derived from the job's seed and the id, :func:`choicelab.stats.derived_seed`)."""

    id: str
    text: str
    token_ids: tuple[int, ...]
    seed: int


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


def load_scorer(model_dir: str | Path, *, device: str = "auto", dtype: str | None = None,
                max_batch_tokens: int | str = 4096, seq2seq_mode: str = "decoder") -> tuple[Scorer, dict[str, Any]]:
    """The scorer for the prepared model in ``model_dir`` (class chosen by ``model.json``'s ``kind``) and its
    ``model.json``. ``seq2seq_mode`` is the scoring mode of a seq2seq model (:data:`choicelab.lm.seq2seq.MODES`);
    a causal model has one."""
    from choicelab.lm.loading import load_causal, load_seq2seq, read_model_json

    kind = read_model_json(model_dir)["kind"]
    if kind == "causal":
        from choicelab.lm.causal import CausalScorer

        model, tokenizer, meta = load_causal(model_dir, dtype=dtype, device=device)
        return CausalScorer(model, tokenizer, max_batch_tokens=max_batch_tokens), meta
    if kind == "seq2seq":
        from choicelab.lm.seq2seq import Seq2SeqScorer

        model, tokenizer, meta = load_seq2seq(model_dir, dtype=dtype, device=device)
        return Seq2SeqScorer(model, tokenizer, mode=seq2seq_mode, max_batch_tokens=max_batch_tokens), meta
    raise ValueError(
        f"{model_dir}: model.json kind {kind!r} has no continuation scorer (kinds with one: {SCORER_KINDS}); an "
        "encoder scores multiple-choice items with its head: choicelab.lm.loading.load_encoder_mc and "
        "choicelab.lm.encoder.mc_logits"
    )
