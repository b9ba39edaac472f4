"""What a scorer is asked and what it answers, for every kind of model: :class:`ContinuationRequest`,
:class:`ContinuationScore` and :class:`Generation` (the protocol that offers them: :mod:`choicelab.lm.scorer`).

No torch: item builders and the CLI make requests without loading a model."""

from __future__ import annotations

from dataclasses import dataclass


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
