"""The study's raw output: one row per (item version, option) of every method and score (:data:`SCORE_SCHEMA`).

Choices, accuracies and fits are derived from it
(:func:`choicelab.studies.scoring_methods.metrics.choices_from_scores`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pyarrow as pa

from choicelab.io import PathLike, read_versioned_table, write_provenanced_table
from choicelab.studies.scoring_methods import metrics as sm
from choicelab.studies.scoring_methods.prompts import ScoringItem

STUDY = "scoring_methods"

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
        pa.field("classified_by", pa.string(), nullable=False),  # argmax; free: the coder rule (coder.RULES)
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


@dataclass(frozen=True)
class Version:
    """Which version of an item a set of option rows scores: the model, method and score, and the label set, variant
    and seed of that method (``""``/0 where it has none); with the item it keys the argmax's tie breaking."""

    model: str
    method: str
    score: str
    label_set: str = ""
    variant: str = ""
    seed: int = 0

    def key(self, item: ScoringItem) -> str:
        return "|".join([item.benchmark, item.item_id, self.model, self.method, self.score, self.label_set,
                         self.variant, str(self.seed)])


def option_rows(
    item: ScoringItem,
    values: Sequence[float],
    version: Version,
    *,
    positions: Sequence[int] | None = None,
    tie_seed: int = 0,
    context: str | Sequence[str] = "",
) -> list[ScoreRow]:
    """One row per option (``values`` in canonical order) of one :class:`Version` of ``item``, with the argmax
    choice and its tie count; ``context``: the prompt the model saw (one for all options, or one per option)."""
    if len(values) != len(item.options):
        raise ValueError(f"{item.item_id}: {len(values)} values for {len(item.options)} options")
    chosen, n_tied = sm.choose(values, tie_seed, version.key(item))
    v = version
    return [
        ScoreRow(
            item.benchmark,
            item.condition,
            item.item_id,
            v.model,
            v.method,
            v.score,
            v.label_set,
            v.variant,
            v.seed,
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

