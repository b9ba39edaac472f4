"""``choicelab show``: one item of a dump, as the model saw it -- the prompt, the options and their scores.

Reads the per-model outputs that carry the prompt on every row: logit dumps (:mod:`choicelab.dumps`) and the
scoring-methods score tables (:data:`choicelab.studies.scoring_methods.score_table.SCORE_SCHEMA`). Rows of one item are
grouped by everything that changes the prompt or the scoring (model, method, variant, ...); each group prints its
keys, the exact context, then one line per option.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from choicelab.io import PathLike


@dataclass(frozen=True)
class TableLayout:
    """Which columns of a table describe a scored version of an item, and which describe its options."""

    group_keys: tuple[str, ...]
    option_columns: tuple[str, ...]
    per_group_text: tuple[str, ...] = ()


LAYOUTS: dict[str, TableLayout] = {
    "logit_dump": TableLayout(
        group_keys=("study", "benchmark", "split", "model", "method", "variant"),
        option_columns=("option_id", "option_text", "score", "prob", "is_label", "n_tokens", "boundary_merged",
                        "terminal_logprob"),
    ),
    "scoring_methods_scores": TableLayout(
        group_keys=("study", "benchmark", "condition", "model", "method", "score", "label_set", "variant", "seed"),
        option_columns=("option_index", "position", "option_type", "value", "is_target", "chosen", "classified_by"),
        per_group_text=("generation",),
    ),
}


def table_kind(path: PathLike) -> str:
    """The schema family of a choicelab Parquet output (``logit_dump``, ``scoring_methods_scores``); a path that does
    not exist raises naming the tables ``choicelab show`` reads near it, the closest first (did you mean)."""
    if not Path(path).is_file():
        raise FileNotFoundError(missing_table(path))
    metadata = pq.read_schema(path).metadata or {}
    version = metadata.get(b"choicelab.schema", b"").decode()
    kind = version.split("/")[0]
    if kind not in LAYOUTS:
        known = ", ".join(sorted(LAYOUTS))
        raise ValueError(f"{path} is not a table `choicelab show` reads (schema {version or 'none'!r}; reads: {known})")
    return kind


MAX_LISTED = 20  # tables named where a path is wrong


def readable_tables(folder: PathLike) -> list[str]:
    """The Parquet files under ``folder`` that ``choicelab show`` reads (their schema is one of :data:`LAYOUTS`)."""
    found = []
    for candidate in sorted(Path(folder).rglob("*.parquet")):
        try:
            version = ((pq.read_schema(candidate).metadata or {}).get(b"choicelab.schema", b"")).decode()
        except (OSError, ValueError):
            continue
        if version.split("/")[0] in LAYOUTS:
            found.append(str(candidate))
    return found


def missing_table(path: PathLike) -> str:
    """Why ``path`` cannot be shown: it does not exist; the tables ``choicelab show`` reads under its nearest existing
    folder, those closest to it named first (did you mean)."""
    wanted = Path(path)
    folder = next((p for p in wanted.parents if p.is_dir()), Path("."))
    tables = readable_tables(folder)
    if not tables:
        return f"{path} does not exist, and {folder} holds no table `choicelab show` reads (logit dumps, " \
               f"scoring-methods score tables: results/<study>/dumps/ after a run)"
    close = difflib.get_close_matches(str(path), tables, n=3, cutoff=0.5)
    rest = [t for t in tables if t not in close][: MAX_LISTED - len(close)]
    more = len(tables) - len(close) - len(rest)
    return (f"{path} does not exist" + (f"; did you mean {' or '.join(close)}?" if close else "")
            + f" Tables `choicelab show` reads under {folder}: {', '.join(rest) or '(those above)'}"
            + (f" and {more} more" if more > 0 else ""))


def _format_value(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def _format_options(rows: Sequence[dict], columns: Sequence[str]) -> list[str]:
    cells = [[_format_value(row[c]) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return lines


def show_item(
    path: PathLike,
    item_id: str,
    *,
    filters: dict[str, str] | None = None,
) -> str:
    """The text ``choicelab show`` prints for one item: each scored version's keys, context and options.

    ``filters`` narrows the rows by exact column values (e.g. ``{"model": "gemma3-270m", "variant": "3shot"}``).
    """
    kind = table_kind(path)
    layout = LAYOUTS[kind]
    frame = pq.read_table(path).to_pandas()
    if "context" not in frame.columns:
        raise ValueError(f"{path} has no 'context' column: it was written before prompts were kept; re-run its rule")
    for column, value in (filters or {}).items():
        if column not in frame.columns:
            raise ValueError(f"{path} has no column {column!r} to filter on (columns: {', '.join(frame.columns)})")
        frame = frame[frame[column].astype(str) == str(value)]
    rows = frame[frame["item_id"].astype(str) == str(item_id)]
    if rows.empty:
        available = sorted(frame["item_id"].astype(str).unique())
        preview = ", ".join(available[:10]) + (f", ... ({len(available)} in all)" if len(available) > 10 else "")
        raise ValueError(f"no rows for item {item_id!r} in {Path(path).name}"
                         + (f" with {filters}" if filters else "") + f"; item ids there: {preview or 'none'}")
    order_column = layout.option_columns[0]
    blocks = []
    for keys, group in rows.groupby(list(layout.group_keys), sort=True, observed=True):
        header = ", ".join(f"{k}={_format_value(v)}" for k, v in zip(layout.group_keys, keys, strict=True) if v != "")
        contexts = group["context"].astype(str).unique()
        lines = [f"== item {item_id}: {header}"]
        for context in contexts:
            lines += ["-- context --", context, "-- options --"]
            options = group[group["context"].astype(str) == context].sort_values(order_column)
            lines += _format_options(options.to_dict("records"), layout.option_columns)
            for column in layout.per_group_text:
                texts = [t for t in options[column].astype(str).unique() if t]
                lines += [f"-- {column} --", *texts] if texts else []
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
