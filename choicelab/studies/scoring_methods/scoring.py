"""Scoring-methods study: every method x score on multiple-choice items, as rows of one per-option score table.

Methods (``METHODS``) and the scores each writes (column ``score``):

* ``string``: each option scored as a continuation of I and of I0 = T (the engine's per-token log-probs);
  the five string scores of :mod:`choicelab.studies.scoring_methods.metrics`.
* ``label``: the options listed with labels after I; the label's log-prob given I and given I0 = T + the labelled
  options; scores (1), (4), (5). One version per (option-order seed, label set): ``seed`` and ``label_set`` columns.
* ``rating``: each option rated on a 5-point scale (``variant`` = the scale word); ``rating_number`` scores the
  numbers "1".."5" (the authors' code), ``rating_phrase`` the phrases ("very unlikely" ... "very likely").
* ``embedding``: cosine(E(I), E(o)); causal models: last token's last hidden state; encoders: mean pooling
  (:func:`choicelab.lm.embed.embed_texts`); seq2seq (FLAN-T5): the authors' encoder last token for I and decoder
  last state for o (:func:`choicelab.lm.seq2seq.embed_prompt_options`).
* ``free``: seeded sampling (``variant`` = "tau=0.1" / "tau=0.9", ``seed`` = the sampling seed, <= 50 new tokens),
  coded into the option it expresses or ``error`` by the coder validated against the authors' hand codes
  (:func:`choicelab.studies.scoring_methods.coder.code_generations`).

The prompts are :mod:`choicelab.studies.scoring_methods.prompts`; the rows go to the per-option score table
(:mod:`choicelab.studies.scoring_methods.score_table`). What each method runs with (seeds, label sets, scales,
temperatures) is a :class:`MethodPlan` (:func:`choicelab.studies.scoring_methods.grid.method_plan` builds it from the
study's settings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from choicelab.lm.scorer import Scorer, load_scorer
from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods import metrics as sm
from choicelab.studies.scoring_methods.code_free import CoderModel, load_free_coder
from choicelab.studies.scoring_methods.prompts import (
    SCALES,
    ScoringItem,
    label_prior_prompt,
    label_prompt,
    rating_prompt,
    string_prior_prompt,
    string_prompt,
)
from choicelab.studies.scoring_methods.score_table import ScoreRow, Version, option_rows

METHODS = ("free", "string", "label", "rating", "embedding")
RATING_SCORES = ("rating_number", "rating_phrase")


@dataclass(frozen=True)
class MethodPlan:
    """What one scoring job runs: the methods, and the versions each method scores every item in."""

    methods: tuple[str, ...]
    label_seeds: tuple[int, ...]  # option-order seeds of label scoring
    label_sets: tuple[str, ...]  # alpha | numeric
    scales: tuple[str, ...]  # rating scales (SCALES)
    temperatures: tuple[float, ...]  # free generation
    generation_seeds: tuple[int, ...]  # free generation's sampling seeds
    max_new_tokens: int  # free generation's length cap
    # how a seq2seq model (FLAN-T5) scores strings, labels and ratings (choicelab.lm.seq2seq.MODES): "pll" the
    # authors' word-wise masked pseudo-likelihood (what the paper reports), "pll_token" their token-wise variant,
    # "decoder" the plain decoder likelihood; the config's studies.scoring_methods.seq2seq_scoring
    seq2seq_scoring: str = "pll"

    def __post_init__(self) -> None:
        from choicelab.lm.seq2seq import MODES

        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)}; use some of {METHODS}")
        if self.seq2seq_scoring not in MODES:
            raise ValueError(f"seq2seq_scoring {self.seq2seq_scoring!r}: use one of {MODES}")


# -- methods ------------------------------------------------------------------------------------------------------


def _continuations(scorer: Any, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, ...]]:
    """Token log-probs of each (context, continuation) pair; the continuation follows the context after a space."""
    from choicelab.lm.causal import ContinuationRequest

    requests = [ContinuationRequest(str(i), context, " " + text) for i, (context, text) in enumerate(pairs)]
    return [tuple(result.token_logprobs) for result in scorer.score(requests)]


def score_strings(scorer: Any, items: Sequence[ScoringItem], *, model: str, tie_seed: int = 0) -> list[ScoreRow]:
    """Method ``string``: the five string scores of every option (needs P(o|I) and P(o|I0) per token)."""
    pairs = [
        (prompt(item), option)
        for item in items
        for option in item.options
        for prompt in (string_prompt, string_prior_prompt)
    ]
    logprobs = iter(_continuations(scorer, pairs))
    rows: list[ScoreRow] = []
    for item in items:
        per_option = [sm.string_scores(next(logprobs), next(logprobs)) for _ in item.options]
        for score in sm.STRING_SCORES:
            rows += option_rows(
                item, [s[score] for s in per_option], Version(model, "string", score), tie_seed=tie_seed,
                context=string_prompt(item),
            )
    return rows


def score_labels(
    scorer: Any,
    items: Sequence[ScoringItem],
    *,
    model: str,
    seeds: Sequence[int],
    label_sets: Sequence[str],
    tie_seed: int = 0,
) -> list[ScoreRow]:
    """Method ``label``: scores (1), (4), (5) of each option's label, per option-order seed and label set."""
    versions = []  # (item, seed, label_set, order, labels)
    pairs = []
    for seed, label_set in sm.label_permutations(seeds, label_sets):
        for item in items:
            order = sm.option_order(len(item.options), seed, item.item_id)
            labels = sm.labels_for(len(item.options), label_set)
            versions.append((item, seed, label_set, order, labels))
            for label in labels:
                pairs += [(label_prompt(item, order, labels), label), (label_prior_prompt(item, order, labels), label)]
    logprobs = iter(_continuations(scorer, pairs))
    rows: list[ScoreRow] = []
    for item, seed, label_set, order, labels in versions:
        by_position = [sm.label_scores(next(logprobs), next(logprobs)) for _ in labels]
        positions = sm.inverse_order(order)
        for score in sm.LABEL_SCORES:
            values = [by_position[positions[k]][score] for k in range(len(item.options))]
            rows += option_rows(
                item,
                values,
                Version(model, "label", score, label_set=label_set, seed=seed),
                positions=positions,
                tie_seed=tie_seed,
                context=label_prompt(item, order, labels),
            )
    return rows


def score_ratings(
    scorer: Any, items: Sequence[ScoringItem], *, model: str, scales: Sequence[str], tie_seed: int = 0
) -> list[ScoreRow]:
    """Method ``rating``: expected rating of each option per scale, from the numbers and from the phrases."""
    pairs = []
    for item in items:
        for scale in scales:
            for option in item.options:
                context = rating_prompt(item, option, scale)
                pairs += [(context, str(r)) for r in sm.RATING_POINTS] + [(context, p) for p in SCALES[scale]]
    logprobs = iter(_continuations(scorer, pairs))
    rows: list[ScoreRow] = []
    n_points = len(sm.RATING_POINTS)
    for item in items:
        for scale in scales:
            expected: dict[str, list[float]] = {name: [] for name in RATING_SCORES}
            for _ in item.options:
                sums = [sm.option_logprob(next(logprobs)) for _ in range(2 * n_points)]
                expected["rating_number"].append(sm.rating_expectation(sums[:n_points]))
                expected["rating_phrase"].append(sm.rating_expectation(sums[n_points:]))
            for score in RATING_SCORES:
                rows += option_rows(
                    item, expected[score], Version(model, "rating", score, variant=scale), tie_seed=tie_seed,
                    context=[rating_prompt(item, option, scale) for option in item.options],
                )
    return rows


OptionEmbed = Callable[[Sequence[tuple[str, Sequence[str]]]], list[tuple[np.ndarray, np.ndarray]]]
"""(prompt, options) pairs -> per pair (the prompt's vector, one row per option)."""


def separately(embed: Callable[[Sequence[str]], np.ndarray]) -> OptionEmbed:
    """An :data:`OptionEmbed` that embeds prompts and options as separate texts with ``embed`` (one batched call)."""

    def embed_pairs(pairs: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[np.ndarray, np.ndarray]]:
        texts = [text for prompt, options in pairs for text in (prompt, *options)]
        vectors = np.asarray(embed(texts), dtype=float)
        out, at = [], 0
        for _, options in pairs:
            out.append((vectors[at], vectors[at + 1 : at + 1 + len(options)]))
            at += 1 + len(options)
        return out

    return embed_pairs


def option_embedder(scorer: Scorer, max_length: int = 4096) -> OptionEmbed:
    """The embedding method's E(I) and E(o): seq2seq models the authors' way (encoder last token for I, decoder last
    state for o, :func:`choicelab.lm.seq2seq.embed_prompt_options`); causal and encoder models embed I and each o
    as separate texts (:func:`own_embedder`)."""
    if scorer.kind == "seq2seq":
        from choicelab.lm.seq2seq import embed_prompt_options

        def embed_pairs(pairs: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[np.ndarray, np.ndarray]]:
            return embed_prompt_options(scorer.model, scorer.tokenizer, pairs, max_length=max_length)

        return embed_pairs
    return separately(own_embedder(scorer, max_length))


def score_embeddings(
    embed: Callable[[Sequence[str]], np.ndarray] | None, items: Sequence[ScoringItem], *, model: str,
    tie_seed: int = 0, embed_pairs: OptionEmbed | None = None,
) -> list[ScoreRow]:
    """Method ``embedding``: cosine(E(I), E(o)) per option; ``embed`` (texts, from
    :func:`choicelab.lm.embed.text_embedder`) embeds I and each o separately, ``embed_pairs`` (from
    :func:`option_embedder`) takes (I, options) pairs (pass one)."""
    if (embed is None) == (embed_pairs is None):
        raise ValueError("score_embeddings needs exactly one of embed (texts) or embed_pairs ((prompt, options))")
    pairs = [(string_prompt(item), item.options) for item in items]
    embedded = (embed_pairs or separately(embed))(pairs)  # type: ignore[arg-type]
    rows: list[ScoreRow] = []
    for item, (prompt_vector, option_vectors) in zip(items, embedded, strict=True):
        values = [sm.cosine(prompt_vector, vector) for vector in option_vectors]
        rows += option_rows(
            item, values, Version(model, "embedding", "cosine"), tie_seed=tie_seed, context=string_prompt(item),
        )
    return rows


def free_categories(item: ScoringItem) -> tuple[str, ...]:
    """What a free generation of ``item`` is coded into: LLM_link's option names for the pragmatics items, else the
    option indices ("0", "1", ...)."""
    return item.categories or tuple(str(k) for k in range(len(item.options)))


def free_rows(
    item: ScoringItem, generation: str, coded: fc.Coded, *, model: str, variant: str, seed: int
) -> list[ScoreRow]:
    """Rows of one coded generation: value 1 and ``chosen`` for the coded option (none when coded ``error``);
    ``classified_by`` = the coder's rule (:class:`choicelab.studies.scoring_methods.coder.Coded`)."""
    categories = free_categories(item)
    option = categories.index(coded.category) if coded.category != fc.ERROR else sm.UNCLASSIFIED
    values = [1.0 if k == option else 0.0 for k in range(len(item.options))]
    rows = option_rows(item, values, Version(model, "free", "free", variant=variant, seed=seed),
                       context=string_prompt(item))
    # the coded option is the choice (none for error), not the argmax of the 0/1 values
    return [replace(r, chosen=r.option_index == option, n_tied=1, classified_by=coded.rule, generation=generation)
            for r in rows]


def code_free(
    items: Sequence[ScoringItem],
    generations: Sequence[str],
    coder: fc.FreeCoder,
    *,
    examples: Sequence[fc.Example] | None = None,
    settings: fc.CoderSettings = fc.SHIPPED_SETTINGS,
) -> list[fc.Coded]:
    """Code one generation per item with the study's one coder
    (:func:`choicelab.studies.scoring_methods.coder.code_generations`, validated against the authors' hand codes;
    docs/scoring_methods.md). The category prototypes are the options of the ``items`` that have LLM_link categories
    (:func:`choicelab.studies.scoring_methods.coder.prototypes_of`; option indices of other benchmarks name no
    category); hand-coded ``examples`` only where passed."""
    named = [item for item in items if item.categories]
    prototypes = fc.prototypes_of([item.condition for item in named], [item.options for item in named],
                                  [item.categories for item in named])
    generations = fc.Generations(
        list(generations),
        [item.condition for item in items],
        [item.options for item in items],
        [free_categories(item) for item in items],
        contexts=[f"{item.context} {item.question}" for item in items],
    )
    return fc.code_generations(generations, coder, prototypes=prototypes, examples=examples, settings=settings)


def free_generation(
    scorer: Scorer, items: Sequence[ScoringItem], *, model: str, plan: MethodPlan, coder: fc.FreeCoder
) -> list[ScoreRow]:
    """Method ``free``: sample from I with ``scorer`` per (temperature, seed) of the ``plan`` (its
    :meth:`~choicelab.lm.scorer.Scorer.sample`, encoder-decoder models too) and code each answer with ``coder``
    (:func:`code_free`; a coder without a model embeds with ``scorer``'s own embeddings)."""
    if coder.embed is None and coder.judge is None and coder.classifier is None:
        coder = replace(coder, embed=own_embedder(scorer))
    rows: list[ScoreRow] = []
    for temperature in plan.temperatures:
        for seed in plan.generation_seeds:
            prompts = [(item.item_id, string_prompt(item)) for item in items]
            generations = scorer.sample(prompts, max_new_tokens=plan.max_new_tokens, temperature=temperature,
                                        seed=seed)
            texts = [gen.text for gen in generations]
            for item, text, coded in zip(items, texts, code_free(items, texts, coder), strict=True):
                rows += free_rows(item, text, coded, model=model, variant=f"tau={temperature:g}", seed=seed)
    return rows


def own_embedder(scorer: Scorer, max_length: int = 4096) -> fc.Embed:
    """texts -> unit-norm embeddings with the scored model itself (batches of 8, as
    :func:`choicelab.lm.embed.text_embedder`)."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return scorer.embed_texts(list(texts), batch_size=8, max_length=max_length)

    return embed


def score_all(
    scorer: Scorer,
    items: Sequence[ScoringItem],
    *,
    model: str,
    plan: MethodPlan,
    coder: fc.FreeCoder = fc.OWN_EMBEDDINGS,
    tie_seed: int = 0,
) -> list[ScoreRow]:
    """Every requested method for one model's scorer (:func:`choicelab.lm.scorer.load_scorer`). Encoders support only
    ``embedding``. Seq2seq models (:mod:`choicelab.lm.seq2seq`) score strings, labels and ratings in the plan's
    ``seq2seq_scoring`` mode (the scorer's ``mode``: the authors' word-wise masked pseudo-likelihood unless the
    config names another), sample with :func:`choicelab.lm.generate.sample` and embed the authors' way
    (:func:`option_embedder`).

    ``coder`` codes free generations: its ``embed`` (e.g. a sentence encoder's,
    :func:`choicelab.studies.scoring_methods.code_free.encoder_embedder`), ``judge`` (an LLM judge,
    :data:`choicelab.studies.scoring_methods.coder.Judge`) or ``classifier`` (the trained coder,
    :class:`choicelab.studies.scoring_methods.coder.Classifier`); without any, this model's own embeddings."""
    methods = set(plan.methods)
    if scorer.kind not in ("causal", "seq2seq") and methods - {"embedding"}:
        raise ValueError(
            f"a {scorer.kind} model supports only the embedding method, not {sorted(methods - {'embedding'})}"
        )
    if scorer.kind == "seq2seq" and scorer.mode != plan.seq2seq_scoring:
        raise ValueError(f"the seq2seq scorer scores in mode {scorer.mode!r}, the plan in {plan.seq2seq_scoring!r}: "
                         "load it with load_scorer(..., seq2seq_mode=plan.seq2seq_scoring)")
    rows: list[ScoreRow] = []
    if "free" in methods:
        rows += free_generation(scorer, items, model=model, plan=plan, coder=coder)
    if "string" in methods:
        rows += score_strings(scorer, items, model=model, tie_seed=tie_seed)
    if "label" in methods:
        rows += score_labels(
            scorer, items, model=model, seeds=plan.label_seeds, label_sets=plan.label_sets, tie_seed=tie_seed
        )
    if "rating" in methods:
        rows += score_ratings(scorer, items, model=model, scales=plan.scales, tie_seed=tie_seed)
    if "embedding" in methods:
        rows += score_embeddings(
            None, items, model=model, tie_seed=tie_seed,
            embed_pairs=option_embedder(scorer),
        )
    return rows


def score_model(
    model_dir: str,
    items: Sequence[ScoringItem],
    *,
    model: str,
    plan: MethodPlan,
    coder: CoderModel,
    seed: int,
    device: str,
    max_batch_tokens: int | str,
) -> list[ScoreRow]:
    """A scoring job: the materialized model's scorer (:func:`choicelab.lm.scorer.load_scorer`, seq2seq models in
    the plan's ``seq2seq_scoring`` mode) and the model that codes free generations
    (:func:`choicelab.studies.scoring_methods.code_free.load_free_coder`: the trained coder's checkpoint, an
    encoder, or a causal model as judge; ``coder.folder`` None: the model's own embeddings), and
    :func:`score_all`."""
    scorer, _ = load_scorer(model_dir, device=device, max_batch_tokens=max_batch_tokens,
                            seq2seq_mode=plan.seq2seq_scoring, seed=seed)
    free_coder = load_free_coder(coder, device=device, seed=seed, max_batch_tokens=max_batch_tokens)
    return score_all(scorer, items, model=model, plan=plan, coder=free_coder, tie_seed=seed)
