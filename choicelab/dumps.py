"""The logit-dump contract: per-model scores in long format, one row per item x option x prompt variant.

Columns (Arrow schema :data:`DUMP_SCHEMA`):

==================  ==================  ==============================================================================
column              type                meaning
==================  ==================  ==============================================================================
study               string              bets | steer | revealed_belief | probes | scoring_methods
benchmark           string              benchmark id (e.g. ``rb_dice``, ``bets_value_CV``, ``piqa``)
split               string              train | dev | test | "" when the benchmark has no splits
item_id             string              the item's id within (benchmark, split)
option_id           int32               0-based position of the option as presented to the model
option_text         string              the option / continuation / candidate text
variant             string              prompt variant (``0shot``, ``seed3-alpha``, ``probe=nq``...); "" if none
context             dictionary<string>  the exact text the model was conditioned on before the option (causal LMs: the
                                        context the option's tokens continue; encoders: the prompt paired with
                                        ``option_text``). Dictionary-encoded: an item's options share one entry
model               string              model name from the config's ``models:``
method              string              scoring method (``sum_logprob``, ``letter_prob``, ``mc_logit``, ...)
token_ids           list<int32>         the option's scored token ids (empty for encoder logits)
token_logprobs      list<float64>       each token's log-prob given everything before it
n_tokens            int32               len(token_ids)
sum_logprob         float64             sum(token_logprobs) (+ terminal factor where the method uses one)
boundary_merged     bool                the context's last token merged with the option's first when tokenized
                                        together, so the option was scored from the shorter context (see
                                        :mod:`choicelab.lm.tokenization`)
terminal_logprob    float64             log P(the option ends here): the terminal factor added to ``sum_logprob``
                                        (numbers: no further digit); NaN where the method uses none
score               float64             the method's raw score (e.g. encoder logit, sum log-prob)
prob                float64             ``score`` renormalized over the item's options (softmax); NaN if n/a
is_label            bool                this option is the item's correct / target choice
==================  ==================  ==============================================================================

Parquet key-value metadata ``choicelab.provenance`` holds the provenance record (see :mod:`choicelab.provenance`):
model hash, config hash, input hashes, code version, library versions and seed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from choicelab.io import PathLike, read_versioned_table, write_provenanced_table

DUMP_SCHEMA_VERSION = "logit_dump/2"

DUMP_SCHEMA = pa.schema(
    [
        pa.field("study", pa.string(), nullable=False),
        pa.field("benchmark", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("option_id", pa.int32(), nullable=False),
        pa.field("option_text", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("context", pa.dictionary(pa.int32(), pa.string()), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("method", pa.string(), nullable=False),
        pa.field("token_ids", pa.list_(pa.int32()), nullable=False),
        pa.field("token_logprobs", pa.list_(pa.float64()), nullable=False),
        pa.field("n_tokens", pa.int32(), nullable=False),
        pa.field("sum_logprob", pa.float64(), nullable=False),
        pa.field("boundary_merged", pa.bool_(), nullable=False),
        pa.field("terminal_logprob", pa.float64(), nullable=False),
        pa.field("score", pa.float64(), nullable=False),
        pa.field("prob", pa.float64(), nullable=False),
        pa.field("is_label", pa.bool_(), nullable=False),
    ],
    metadata={b"choicelab.schema": DUMP_SCHEMA_VERSION.encode()},
)


@dataclass(frozen=True)
class DumpRow:
    study: str
    benchmark: str
    split: str
    item_id: str
    option_id: int
    option_text: str
    variant: str
    context: str
    model: str
    method: str
    token_ids: tuple[int, ...]
    token_logprobs: tuple[float, ...]
    sum_logprob: float
    score: float
    prob: float
    is_label: bool
    boundary_merged: bool = False
    terminal_logprob: float = math.nan


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = math.fsum(weights)
    return [w / total for w in weights]


def rows_to_table(rows: Iterable[DumpRow]) -> pa.Table:
    rows = list(rows)
    columns: dict[str, list[Any]] = {name: [] for name in DUMP_SCHEMA.names}
    for row in rows:
        for name in DUMP_SCHEMA.names:
            if name == "n_tokens":
                columns[name].append(len(row.token_ids))
            else:
                value = getattr(row, name)
                columns[name].append(list(value) if isinstance(value, tuple) else value)
    columns["context"] = pa.array(columns["context"], pa.string()).dictionary_encode()
    return pa.table(columns, schema=DUMP_SCHEMA)


def write_dump(path: PathLike, rows: Iterable[DumpRow], provenance_json: str) -> None:
    """Write a logit dump atomically with its provenance in the Parquet metadata."""
    write_provenanced_table(path, rows_to_table(rows), provenance_json, "logit dump")


def read_dump(path: PathLike) -> pa.Table:
    return read_versioned_table(path, DUMP_SCHEMA_VERSION, "choicelab logit dump")


# -- a model's items, read back from its dumps (the card's items pages and its item-by-item comparisons) ----------

ITEM_COLUMNS = ["study", "benchmark", "element", "variant", "method", "item_id", "context", "options", "key",
                "choice", "correct"]


def dump_files(run_root: str | Path, study: str, model: str) -> list[Path]:
    """The model's logit dumps of a study in the card run (``<study>/dumps/<model>__*.parquet`` or
    ``<model>.*.parquet``), sorted."""
    folder = Path(run_root) / study / "dumps"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.parquet") if p.name.startswith((f"{model}__", f"{model}.")))


def element_of(item_id: str) -> str:
    """The element (STEER) or group an item id names first ("add_subtract/finance/g1/0" -> "add_subtract"); ""
    where the id has no parts."""
    return item_id.split("/", 1)[0] if "/" in item_id else ""


def item_rows(dump: pd.DataFrame, model: str) -> pd.DataFrame:
    """One row per (benchmark, variant, method, item) of ``model``'s dump rows: the context, every option with its
    score and probability, the key (the options marked ``is_label``; none for a probe without a right answer), the
    option the model chose (highest score) and whether it is the key (None where there is no key)."""
    rows = []
    names = dump["model"].astype(str)
    # the model's own rows and those of its fine-tuned checkpoints (bets: ``<model>__<seed>__<stage>``, probes:
    # ``<model> seed <seed>``), whose name goes before the variant so that each checkpoint's items stay apart
    checkpoint = names.str.match(rf"^{re.escape(model)}(__| )")
    variants = [f"{n[len(model):].strip(' _')} {v}" if c else v
                for n, v, c in zip(names, dump["variant"].astype(str), checkpoint, strict=True)]
    mine = dump.assign(variant=variants)[((names == model) | checkpoint).to_numpy()]
    keys = ["study", "benchmark", "variant", "method", "item_id"]
    for key, group in mine.groupby(keys, sort=True, observed=True):
        group = group.sort_values("option_id")
        chosen = group.loc[group["score"].idxmax()] if group["score"].notna().any() else None
        labels = group[group["is_label"].astype(bool)]
        rows.append({
            **dict(zip(keys, key, strict=True)), "element": element_of(str(key[4])),
            "context": str(group["context"].iloc[0]),
            "options": [{"text": str(r.option_text), "score": float(r.score), "prob": float(r.prob),
                         "key": bool(r.is_label)} for r in group.itertuples()],
            "key": "; ".join(labels["option_text"].astype(str)),
            "choice": "" if chosen is None else str(chosen["option_text"]),
            "correct": None if labels.empty or chosen is None else bool(chosen["is_label"]),
        })
    return pd.DataFrame(rows, columns=ITEM_COLUMNS)
