"""Revealed-belief pipeline steps: scenarios -> revealed distributions (logit dump) -> distance metrics.

The revealed belief is the model's next-token distribution over a scenario's outcomes at the end of a text
completion context, computed exactly over multi-token outcomes (chain rule, times the probability that a number ends
there) and renormalized over the outcome set; the raw outcome mass (coverage) and first-token probabilities are kept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pandas as pd
import pyarrow as pa

from choicelab.dumps import DumpRow
from choicelab.metrics.distributions import chebyshev, l1, symmetric_kl

SCENARIO_SCHEMA = pa.schema(
    [
        pa.field("setting_id", pa.string(), nullable=False),
        pa.field("family", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("row_label", pa.string(), nullable=False),
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("outcomes", pa.list_(pa.string()), nullable=False),
        pa.field("true_probs", pa.list_(pa.float64()), nullable=False),
        pa.field("true_fractions", pa.list_(pa.string()), nullable=False),
        pa.field("params", pa.string(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"rb_scenarios/1"},
)


def scenarios_table(scenarios: Sequence[Any]) -> pa.Table:
    """Scenarios (``choicelab.items.revealed_belief.Scenario``) as an Arrow table; fractions kept as exact text."""
    if not scenarios:
        raise ValueError("no revealed-belief scenarios were generated: check studies.revealed_belief in the config")
    return pa.table(
        {
            "setting_id": [s.setting_id for s in scenarios],
            "family": [s.family for s in scenarios],
            "variant": [s.variant for s in scenarios],
            "row_label": [s.row_label for s in scenarios],
            "table_id": [s.table_id for s in scenarios],
            "prompt": [s.prompt for s in scenarios],
            "outcomes": [list(s.outcomes) for s in scenarios],
            "true_probs": [[float(p) for p in s.true_distribution] for s in scenarios],
            "true_fractions": [[str(Fraction(p)) for p in s.true_distribution] for s in scenarios],
            "params": [json.dumps(s.params, sort_keys=True, default=str) for s in scenarios],
        },
        schema=SCENARIO_SCHEMA,
    )


def _numeric(outcomes: Sequence[str]) -> bool:
    return all(o.isdigit() for o in outcomes)


def revealed_rows(scorer: Any, scenarios: pd.DataFrame, model_name: str) -> list[DumpRow]:
    """Score every scenario's outcomes after its prompt; one dump row per (scenario, outcome)."""
    from choicelab.lm.candidates import candidate_distributions, digit_continuation_ids

    digits = digit_continuation_ids(scorer.tokenizer)
    rows: list[DumpRow] = []
    numeric = scenarios[scenarios["outcomes"].map(_numeric)]
    words = scenarios[~scenarios["outcomes"].map(_numeric)]
    for frame, excluded in ((numeric, digits), (words, None)):
        if frame.empty:
            continue
        prompts = frame["prompt"].tolist()
        outcomes = [list(o) for o in frame["outcomes"]]
        dists = candidate_distributions(scorer, prompts, outcomes, terminal_excluded_ids=excluded)
        for (_, scenario), dist in zip(frame.iterrows(), dists, strict=True):
            probs = dist.probs
            for k, outcome in enumerate(dist.candidates):
                chain = dist.logprobs[k]
                rows.append(
                    DumpRow(
                        study="revealed_belief",
                        benchmark=f"rb_{scenario['family']}",
                        split="",
                        item_id=scenario["setting_id"],
                        option_id=k,
                        option_text=outcome,
                        variant="revealed",
                        model=model_name,
                        method="outcome_prob",
                        token_ids=dist.token_ids[k],
                        token_logprobs=dist.token_logprobs[k],
                        sum_logprob=chain,
                        score=chain,
                        prob=probs[k],
                        is_label=False,
                    )
                )
    return rows


def revealed_metrics(dump: pd.DataFrame, scenarios: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per (model, setting): Chebyshev, L1 and symmetric KL of the revealed vs the true distribution, plus coverage."""
    truth = scenarios.set_index("setting_id")
    records = []
    for (model, setting_id), group in dump.groupby(["model", "item_id"], sort=True):
        group = group.sort_values("option_id")
        true_probs = list(truth.loc[setting_id, "true_probs"])
        revealed = group["prob"].tolist()
        if len(revealed) != len(true_probs):
            raise ValueError(f"setting {setting_id}: {len(revealed)} revealed outcomes but {len(true_probs)} true ones")
        records.append(
            {
                "model": model,
                "setting_id": setting_id,
                "family": truth.loc[setting_id, "family"],
                "row_label": truth.loc[setting_id, "row_label"],
                "table_id": truth.loc[setting_id, "table_id"],
                "chebyshev": chebyshev(revealed, true_probs),
                "l1": l1(revealed, true_probs),
                "symmetric_kl": symmetric_kl(revealed, true_probs, epsilon=epsilon),
                "coverage": math.fsum(math.exp(s) for s in group["score"]),
                "first_token_mass": math.fsum(math.exp(t[0]) if len(t) else 1.0 for t in group["token_logprobs"]),
            }
        )
    return pd.DataFrame.from_records(records)


METRIC_BLOCKS = (("chebyshev", "Chebyshev"), ("l1", "L1"), ("symmetric_kl", "Symmetric KL"))


def appendix_table(metrics: pd.DataFrame, table_id: str, models: Sequence[str], row_order: Sequence[str]) -> pd.DataFrame:
    """An appendix table laid out like the paper's: a Chebyshev, an L1 and a symmetric-KL block of rows (row labels
    as in the paper), one column per model; each cell averages the row's settings (the unlisted parameters)."""
    subset = metrics[metrics["table_id"] == table_id]
    if subset.empty:
        raise ValueError(f"no revealed-belief metrics for table {table_id!r}")
    present = [r for r in row_order if r in set(subset["row_label"])]
    records = []
    for column, title in METRIC_BLOCKS:
        means = subset.groupby(["row_label", "model"])[column].mean()
        for row in present:
            record: dict[str, Any] = {"metric": title, "row": row}
            for model in models:
                record[model] = float(means.get((row, model), float("nan")))
            records.append(record)
    return pd.DataFrame.from_records(records, columns=["metric", "row", *models])


def to_markdown(frame: pd.DataFrame, floatfmt: str = ".2f") -> str:
    return frame.to_markdown(index=False, floatfmt=floatfmt) + "\n"
