"""Scoring-methods study: every method x score on multiple-choice items, as rows of one per-option score table.

Methods (``METHODS``) and the scores each writes (column ``score``):

* ``string``: each option scored as a continuation of I and of I0 = T (the engine's per-token log-probs);
  the five string scores of :mod:`choicelab.metrics.scoring_methods`.
* ``label``: the options listed with labels after I; the label's log-prob given I and given I0 = T + the labelled
  options; scores (1), (4), (5). One version per (option-order seed, label set): ``seed`` and ``label_set`` columns.
* ``rating``: each option rated on a 5-point scale (``variant`` = the scale word); ``rating_number`` scores the
  numbers "1".."5" (the authors' code), ``rating_phrase`` the phrases ("very unlikely" ... "very likely").
* ``embedding``: cosine(E(I), E(o)); causal models: last token's last hidden state; encoders: mean pooling
  (:func:`choicelab.lm.embed.embed_texts`).
* ``free``: seeded sampling (``variant`` = "tau=0.1" / "tau=0.9", ``seed`` = the sampling seed, <= 50 new tokens),
  coded into the option it expresses or ``error`` by the coder validated against the authors' hand codes
  (:func:`choicelab.metrics.free_coding.code_generations`).

Prompts (the authors' templates, LLM_link ``scripts/score_completions.py`` / ``rate_completions.py``)::

    I      = T \\n\\n C Q \\n Your answer:                        + " " + option
    I0     = T \\n Your answer:                                  + " " + option
    label  = T \\n\\n C Q \\n Choose one of the following options and return the label of that option.
             \\n A. o1 \\n B. o2 ... \\n Your answer:               + " " + label
    label0 = T \\n\\n Choose one ... \\n A. o1 ... \\n Your answer:
    rating = T_rating(scale) \\n\\n C Q \\n How would you rate the following answer: o
             \\n Choose one of the following options and return the number of that option:
             \\n 1. very unlikely ... \\n 5. very likely \\n Your answer:   + " " + "1".."5" / phrase

Every option/label/rating is scored after a space following "Your answer:" (not after a newline as in the authors'
code), so that the separator is not one of the option's scored tokens; see docs/scoring_methods.md.

The per-option score table (:data:`SCORE_SCHEMA`) is the study's raw output; choices, accuracies and fits are
derived from it (``choicelab.metrics.scoring_methods.choices_from_scores``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from choicelab.io import PathLike, read_versioned_table, write_provenanced_table
from choicelab.mc.items import MCItem
from choicelab.metrics import free_coding as fc
from choicelab.metrics import scoring_methods as sm

STUDY = "scoring_methods"
METHODS = ("free", "string", "label", "rating", "embedding")
ANSWER_CUE = "Your answer:"
LABEL_INSTRUCTION = "Choose one of the following options and return the label of that option."
RATING_QUESTION = "How would you rate the following answer:"
RATING_INSTRUCTION = "Choose one of the following options and return the number of that option:"
SCALES: dict[str, tuple[str, ...]] = {
    "likely": ("very unlikely", "unlikely", "neutral", "likely", "very likely"),
    "appropriate": ("very inappropriate", "inappropriate", "neutral", "appropriate", "very appropriate"),
    "plausible": ("very implausible", "implausible", "neutral", "plausible", "very plausible"),
    "possible": ("very impossible", "impossible", "neutral", "possible", "very possible"),
}
RATING_SCORES = ("rating_number", "rating_phrase")
GENERIC_TASK = "Read the text and choose the best answer."
GENERIC_RATING_TASK = "Read the text. Your task is to rate how {} a given answer is."
TEMPERATURES = (0.1, 0.9)
MAX_NEW_TOKENS = 50


# -- items --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoringItem:
    """What every method needs of an item: prompt parts, options (canonical order), option types and the target."""

    benchmark: str
    condition: str
    item_id: str
    task: str
    context: str
    question: str
    options: tuple[str, ...]
    option_types: tuple[str, ...]
    target: int
    rating_task: str = GENERIC_RATING_TASK
    categories: tuple[str, ...] = ()  # LLM_link's option names (pragmatics), what free generations are coded into


def from_pragmatics(items: Iterable[Any]) -> list[ScoringItem]:
    """ScoringItems from :class:`choicelab.items.pragmatics.PragmaticsItem` (original option order)."""
    from choicelab.items.pragmatics import BENCHMARK, RATING_TASKS

    return [
        ScoringItem(
            BENCHMARK,
            it.condition,
            it.item_id,
            it.task,
            it.context,
            it.question,
            tuple(it.options),
            tuple(it.option_types),
            it.target,
            RATING_TASKS[it.condition],
            tuple(it.categories),
        )
        for it in items
    ]


def from_mc_items(
    items: Iterable[MCItem], task: str = GENERIC_TASK, rating_task: str = GENERIC_RATING_TASK
) -> list[ScoringItem]:
    """ScoringItems from any benchmark's MCItems: the prompt is the context; pragmatics MCItems keep their parts."""
    from choicelab.items.pragmatics import RATING_TASKS

    out = []
    for it in items:
        meta = it.meta or {}
        types = tuple(
            meta.get("option_types") or ["target" if k == it.label else "other" for k in range(len(it.choices))]
        )
        if "task" in meta and "context" in meta:
            condition = meta.get("condition", it.benchmark)
            out.append(
                ScoringItem(
                    it.benchmark,
                    condition,
                    it.item_id,
                    meta["task"],
                    meta["context"],
                    meta.get("question", ""),
                    tuple(it.choices),
                    types,
                    it.label,
                    RATING_TASKS.get(condition, rating_task),
                )
            )
        else:
            out.append(
                ScoringItem(
                    it.benchmark,
                    str(meta.get("condition", it.benchmark)),
                    it.item_id,
                    task,
                    it.prompt,
                    "",
                    tuple(it.choices),
                    types,
                    it.label,
                    rating_task,
                )
            )
    return out


def subsample_items(items: Sequence[ScoringItem], size: int | None, seed: int) -> list[ScoringItem]:
    """A seeded subsample in the original order (all when ``size`` is None or larger)."""
    import random

    if size is None or size >= len(items):
        return list(items)
    keep = set(random.Random(seed).sample(range(len(items)), size))
    return [it for i, it in enumerate(items) if i in keep]


def subsample_per_condition(items: Sequence[ScoringItem], size: int | None, seed: int) -> list[ScoringItem]:
    """Up to ``size`` items of each condition (seeded), in the original order."""
    if size is None:
        return list(items)
    kept: set[str] = set()
    for condition in dict.fromkeys(it.condition for it in items):
        group = [it for it in items if it.condition == condition]
        kept |= {it.item_id for it in subsample_items(group, size, seed)}
    return [it for it in items if it.item_id in kept]


# -- prompts ------------------------------------------------------------------------------------------------------


def _body(item: ScoringItem) -> str:
    return item.context.strip() + (f" {item.question}" if item.question else "")


def _blocks(*blocks: str) -> str:
    return "\n\n".join(b for b in blocks if b)


def string_prompt(item: ScoringItem) -> str:
    """I = T, C, Q and the answer cue (the options are not shown)."""
    return f"{_blocks(item.task, _body(item))}\n{ANSWER_CUE}"


def string_prior_prompt(item: ScoringItem) -> str:
    """I0 = T and the answer cue."""
    return f"{item.task}\n{ANSWER_CUE}" if item.task else ANSWER_CUE


def labelled_options(options: Sequence[str], order: Sequence[int], labels: Sequence[str]) -> str:
    return "\n".join(f"{label}. {text}" for label, text in zip(labels, sm.present(options, order), strict=True))


def label_prompt(item: ScoringItem, order: Sequence[int], labels: Sequence[str]) -> str:
    listing = f"{LABEL_INSTRUCTION}\n{labelled_options(item.options, order, labels)}\n{ANSWER_CUE}"
    return f"{_blocks(item.task, _body(item))}\n{listing}"


def label_prior_prompt(item: ScoringItem, order: Sequence[int], labels: Sequence[str]) -> str:
    return _blocks(item.task, f"{LABEL_INSTRUCTION}\n{labelled_options(item.options, order, labels)}\n{ANSWER_CUE}")


def rating_prompt(item: ScoringItem, option: str, scale: str) -> str:
    phrases = "\n".join(f"{r}. {phrase}" for r, phrase in zip(sm.RATING_POINTS, SCALES[scale], strict=True))
    ask = f"{RATING_QUESTION} {option}\n{RATING_INSTRUCTION}\n{phrases}\n{ANSWER_CUE}"
    return f"{_blocks(item.rating_task.format(scale), _body(item))}\n{ask}"


# -- the score table ----------------------------------------------------------------------------------------------

SCORE_SCHEMA_VERSION = "scoring_methods_scores/2"
SCORE_SCHEMA = pa.schema(
    [
        pa.field("study", pa.string(), nullable=False),
        pa.field("benchmark", pa.string(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),  # pragmatics condition, else the benchmark
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("method", pa.string(), nullable=False),  # free | string | label | rating | embedding
        pa.field("score", pa.string(), nullable=False),  # e.g. prior_corrected, label_logprob, rating_number, cosine
        pa.field("label_set", pa.string(), nullable=False),  # alpha | numeric for label scoring, else ""
        pa.field("variant", pa.string(), nullable=False),  # rating scale, "tau=0.1" for free generation, else ""
        pa.field("seed", pa.int32(), nullable=False),  # option-order seed (label), sampling seed (free), else 0
        pa.field("option_index", pa.int32(), nullable=False),  # 0-based index in the item's canonical order
        pa.field("position", pa.int32(), nullable=False),  # position as presented (label scoring), else option_index
        pa.field("n_options", pa.int32(), nullable=False),
        pa.field("option_type", pa.string(), nullable=False),
        pa.field("value", pa.float64(), nullable=False),  # the score; free generation: 1 for the coded option
        pa.field("is_target", pa.bool_(), nullable=False),
        pa.field("chosen", pa.bool_(), nullable=False),  # the argmax after tie breaking / the coded option
        pa.field("n_tied", pa.int32(), nullable=False),  # options tied at the max in this item version (1 = no tie)
        pa.field("classified_by", pa.string(), nullable=False),  # argmax; free: the coder rule (free_coding.RULES)
        pa.field("generation", pa.string(), nullable=False),  # free generation: the sampled text, else ""
        # the exact text the model was conditioned on for this row (string: I; label: the labelled prompt; rating:
        # the option's rating prompt; embedding: the embedded prompt I; free: the sampling prompt I). Priors (I0)
        # follow from string_prior_prompt / label_prior_prompt.
        pa.field("context", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    ],
    metadata={b"choicelab.schema": SCORE_SCHEMA_VERSION.encode()},
)


@dataclass(frozen=True)
class ScoreRow:
    benchmark: str
    condition: str
    item_id: str
    model: str
    method: str
    score: str
    label_set: str
    variant: str
    seed: int
    option_index: int
    position: int
    n_options: int
    option_type: str
    value: float
    is_target: bool
    chosen: bool
    n_tied: int
    classified_by: str
    generation: str = ""
    context: str = ""
    study: str = STUDY


def _version_key(
    item: ScoringItem, model: str, method: str, score: str, label_set: str, variant: str, seed: int
) -> str:
    return "|".join([item.benchmark, item.item_id, model, method, score, label_set, variant, str(seed)])


def option_rows(
    item: ScoringItem,
    values: Sequence[float],
    *,
    model: str,
    method: str,
    score: str,
    label_set: str = "",
    variant: str = "",
    seed: int = 0,
    positions: Sequence[int] | None = None,
    tie_seed: int = 0,
    context: str | Sequence[str] = "",
) -> list[ScoreRow]:
    """One row per option (``values`` in canonical order), with the argmax choice and its tie count; ``context``:
    the prompt the model saw (one for all options, or one per option)."""
    if len(values) != len(item.options):
        raise ValueError(f"{item.item_id}: {len(values)} values for {len(item.options)} options")
    key = _version_key(item, model, method, score, label_set, variant, seed)
    chosen, n_tied = sm.choose(values, tie_seed, key)
    return [
        ScoreRow(
            item.benchmark,
            item.condition,
            item.item_id,
            model,
            method,
            score,
            label_set,
            variant,
            seed,
            k,
            positions[k] if positions is not None else k,
            len(item.options),
            item.option_types[k],
            float(values[k]),
            k == item.target,
            k == chosen,
            n_tied,
            "argmax",
            "",
            context if isinstance(context, str) else context[k],
        )
        for k in range(len(item.options))
    ]


def rows_to_table(rows: Iterable[ScoreRow]) -> pa.Table:
    rows = list(rows)
    return pa.table({name: [getattr(r, name) for r in rows] for name in SCORE_SCHEMA.names}, schema=SCORE_SCHEMA)


def write_scores(path: PathLike, rows: Iterable[ScoreRow], provenance_json: str) -> None:
    """Write the per-option score table atomically, provenance in the Parquet metadata (like logit dumps)."""
    write_provenanced_table(path, rows_to_table(rows), provenance_json, "score table")


def read_scores(path: PathLike) -> pa.Table:
    return read_versioned_table(path, SCORE_SCHEMA_VERSION, "scoring-methods score table")


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
                item, [s[score] for s in per_option], model=model, method="string", score=score, tie_seed=tie_seed,
                context=string_prompt(item),
            )
    return rows


def score_labels(
    scorer: Any,
    items: Sequence[ScoringItem],
    *,
    model: str,
    seeds: Sequence[int] = range(5),
    label_sets: Sequence[str] = ("alpha", "numeric"),
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
                model=model,
                method="label",
                score=score,
                label_set=label_set,
                seed=seed,
                positions=positions,
                tie_seed=tie_seed,
                context=label_prompt(item, order, labels),
            )
    return rows


def score_ratings(
    scorer: Any, items: Sequence[ScoringItem], *, model: str, scales: Sequence[str] = tuple(SCALES), tie_seed: int = 0
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
                    item, expected[score], model=model, method="rating", score=score, variant=scale, tie_seed=tie_seed,
                    context=[rating_prompt(item, option, scale) for option in item.options],
                )
    return rows


def embedder(
    model_obj: Any, tokenizer: Any, kind: str, max_length: int = 4096
) -> Callable[[Sequence[str]], np.ndarray]:
    """texts -> unit-norm embeddings (causal: last token's last hidden state; encoder and seq2seq: the encoder's
    mean-pooled last hidden states)."""
    if kind == "seq2seq":
        from choicelab.lm.seq2seq import embed_texts as embed_seq2seq

        def embed_encoder_decoder(texts: Sequence[str]) -> np.ndarray:
            return embed_seq2seq(model_obj, tokenizer, list(texts), max_length=max_length)

        return embed_encoder_decoder
    from choicelab.lm.embed import embed_texts

    def embed(texts: Sequence[str]) -> np.ndarray:
        return embed_texts(model_obj, tokenizer, list(texts), kind=kind, batch_size=8, max_length=max_length)

    return embed


def score_embeddings(
    embed: Callable[[Sequence[str]], np.ndarray], items: Sequence[ScoringItem], *, model: str, tie_seed: int = 0
) -> list[ScoreRow]:
    """Method ``embedding``: cosine(E(I), E(o)) per option (``embed`` from :func:`embedder`)."""
    texts = [text for item in items for text in (string_prompt(item), *item.options)]
    vectors = iter(np.asarray(embed(texts), dtype=float))
    rows: list[ScoreRow] = []
    for item in items:
        prompt_vector = next(vectors)
        values = [sm.cosine(prompt_vector, next(vectors)) for _ in item.options]
        rows += option_rows(
            item, values, model=model, method="embedding", score="cosine", tie_seed=tie_seed,
            context=string_prompt(item),
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
    ``classified_by`` = the coder's rule (:class:`choicelab.metrics.free_coding.Coded`)."""
    categories = free_categories(item)
    option = categories.index(coded.category) if coded.category != fc.ERROR else sm.UNCLASSIFIED
    return [
        ScoreRow(
            item.benchmark,
            item.condition,
            item.item_id,
            model,
            "free",
            "free",
            "",
            variant,
            seed,
            k,
            k,
            len(item.options),
            item.option_types[k],
            1.0 if k == option else 0.0,
            k == item.target,
            k == option,
            1,
            coded.rule,
            generation,
            string_prompt(item),
        )
        for k in range(len(item.options))
    ]


def code_free(
    items: Sequence[ScoringItem],
    generations: Sequence[str],
    embed: Callable[[Sequence[str]], np.ndarray] | None,
    **settings: Any,
) -> list[fc.Coded]:
    """Code one generation per item with the study's one coder (:func:`choicelab.metrics.free_coding.code_generations`,
    validated against the authors' hand codes; docs/scoring_methods.md). The category prototypes are the options of
    the ``items`` that have LLM_link categories (:func:`choicelab.metrics.free_coding.prototypes_of`; option indices
    of other benchmarks name no category); hand-coded ``examples`` only where passed."""
    named = [item for item in items if item.categories]
    settings.setdefault(
        "prototypes", fc.prototypes_of([item.condition for item in named], [item.options for item in named],
                                       [item.categories for item in named])
    )
    return fc.code_generations(
        list(generations),
        [item.condition for item in items],
        [item.options for item in items],
        [free_categories(item) for item in items],
        embed=embed,
        contexts=[f"{item.context} {item.question}" for item in items],
        **settings,
    )


def free_generation(
    model_obj: Any,
    tokenizer: Any,
    items: Sequence[ScoringItem],
    *,
    model: str,
    embed: Callable[[Sequence[str]], np.ndarray] | None,
    temperatures: Sequence[float] = TEMPERATURES,
    seeds: Sequence[int] = range(5),
    max_new_tokens: int = MAX_NEW_TOKENS,
    max_batch_tokens: int = 4096,
    generate: Callable[..., Any] | None = None,
) -> list[ScoreRow]:
    """Method ``free``: sample from I per (temperature, seed) and code each answer (:func:`code_free`).

    ``generate`` (default :func:`choicelab.lm.generate.sample`) samples ``[(id, prompt)]`` -> objects with ``.text``;
    encoder-decoder models pass :func:`choicelab.lm.seq2seq.sample`."""
    if generate is None:
        from choicelab.lm.generate import sample as generate

    rows: list[ScoreRow] = []
    for temperature in temperatures:
        for seed in seeds:
            prompts = [(item.item_id, string_prompt(item)) for item in items]
            generations = generate(
                model_obj, tokenizer, prompts, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed,
                max_batch_tokens=max_batch_tokens,
            )
            texts = [gen.text for gen in generations]
            for item, text, coded in zip(items, texts, code_free(items, texts, embed), strict=True):
                rows += free_rows(item, text, coded, model=model, variant=f"tau={temperature:g}", seed=seed)
    return rows


def score_all(
    model_obj: Any,
    tokenizer: Any,
    items: Sequence[ScoringItem],
    *,
    model: str,
    kind: str = "causal",
    methods: Sequence[str] = METHODS,
    scorer: Any = None,
    label_seeds: Sequence[int] = range(5),
    label_sets: Sequence[str] = ("alpha", "numeric"),
    scales: Sequence[str] = tuple(SCALES),
    temperatures: Sequence[float] = TEMPERATURES,
    generation_seeds: Sequence[int] = range(5),
    max_new_tokens: int = MAX_NEW_TOKENS,
    classify_embed: Callable[[Sequence[str]], np.ndarray] | None = None,
    max_batch_tokens: int = 4096,
    tie_seed: int = 0,
) -> list[ScoreRow]:
    """Every requested method for one loaded model. Encoders support only ``embedding``. Seq2seq models
    (:mod:`choicelab.lm.seq2seq`) score strings by the authors' masked pseudo-likelihood and labels and ratings
    through the decoder, sample with :func:`choicelab.lm.seq2seq.sample` and embed with their encoder.

    ``classify_embed`` codes free generations (e.g. a sentence encoder's :func:`embedder`); default: this model's own
    embeddings."""
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"unknown methods {sorted(unknown)}; use some of {METHODS}")
    if kind not in ("causal", "seq2seq") and set(methods) - {"embedding"}:
        raise ValueError(
            f"a {kind} model supports only the embedding method, not {sorted(set(methods) - {'embedding'})}"
        )
    embed = embedder(model_obj, tokenizer, kind)
    generate = None
    string_scorer = label_scorer = scorer
    if kind == "seq2seq":
        from choicelab.lm import seq2seq

        generate = seq2seq.sample
        if scorer is None:  # string scores: the authors' masked pseudo-likelihood; labels, ratings: the decoder
            string_scorer = seq2seq.Seq2SeqScorer(model_obj, tokenizer, mode="pll", max_batch_tokens=max_batch_tokens)
            label_scorer = seq2seq.Seq2SeqScorer(model_obj, tokenizer, mode="decoder", max_batch_tokens=max_batch_tokens)
    elif scorer is None and set(methods) & {"string", "label", "rating"}:
        from choicelab.lm.causal import CausalScorer

        string_scorer = label_scorer = CausalScorer(model_obj, tokenizer, max_batch_tokens=max_batch_tokens)
    rows: list[ScoreRow] = []
    if "free" in methods:
        rows += free_generation(
            model_obj,
            tokenizer,
            items,
            model=model,
            embed=classify_embed or embed,
            temperatures=temperatures,
            seeds=generation_seeds,
            max_new_tokens=max_new_tokens,
            max_batch_tokens=max_batch_tokens,
            generate=generate,
        )
    if "string" in methods:
        rows += score_strings(string_scorer, items, model=model, tie_seed=tie_seed)
    if "label" in methods:
        rows += score_labels(
            label_scorer, items, model=model, seeds=label_seeds, label_sets=label_sets, tie_seed=tie_seed
        )
    if "rating" in methods:
        rows += score_ratings(label_scorer, items, model=model, scales=scales, tie_seed=tie_seed)
    if "embedding" in methods:
        rows += score_embeddings(embed, items, model=model, tie_seed=tie_seed)
    return rows
